package transcript

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/ulids"
)

// File and folder names inside a repo.
const (
	// TranscriptFile is the event log inside a run folder.
	TranscriptFile = "transcript.jsonl"
	// SummaryFile is the human-readable account inside a run folder.
	SummaryFile = "summary.md"
)

// RunsDir is the folder holding every run record of the repo at repoRoot:
// repoRoot/.copperhead/runs (git-ignored from the first commit, AC-4.3).
func RunsDir(repoRoot string) string {
	return filepath.Join(repoRoot, filepath.FromSlash(config.RunsDir))
}

// NewRunID returns a new run id for a run started at t: a ULID, 26
// characters of Crockford base32 whose lexical order is the order of start
// times (to the millisecond, then creation order). Run folders therefore list
// oldest first with a plain sort, and the start time can be read back with
// RunIDTime. It never fails (see ulids.New).
func NewRunID(t time.Time) string { return ulids.New(t) }

// RunIDTime returns the start time encoded in a run id made by NewRunID, and
// false for any other name (a hand-made or legacy run folder).
func RunIDTime(id string) (time.Time, bool) { return ulids.Time(id) }

// checkRunID rejects names that are not a single folder name inside
// RunsDir, so a run id from a flag can never address a path outside it.
func checkRunID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("empty run id")
	case id == "." || id == ".." || strings.HasPrefix(id, "."):
		return fmt.Errorf("invalid run id %q", id)
	case strings.ContainsAny(id, `/\:`) || strings.ContainsRune(id, 0) || !filepath.IsLocal(id):
		return fmt.Errorf("invalid run id %q: must be a folder name", id)
	}
	return nil
}
