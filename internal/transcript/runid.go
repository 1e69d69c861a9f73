package transcript

import (
	"crypto/rand"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
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
	return filepath.Join(repoRoot, ".copperhead", "runs")
}

// runIDEntropy makes run ids started within the same millisecond (the
// stages of a create pipeline, parallel tests) still sort in the order they
// were made. crypto/rand never fails, so neither does NewRunID.
var runIDEntropy = &ulid.LockedMonotonicReader{MonotonicReader: ulid.Monotonic(rand.Reader, 0)}

// NewRunID returns a new run id for a run started at t: a ULID, 26
// characters of Crockford base32 whose lexical order is the order of start
// times (to the millisecond, then creation order). Run folders therefore list
// oldest first with a plain sort, and the start time can be read back with
// RunIDTime.
func NewRunID(t time.Time) string {
	ms := ulid.Timestamp(t)
	if t.Before(time.UnixMilli(0)) {
		ms = 0
	} else if ms > ulid.MaxTime() {
		ms = ulid.MaxTime()
	}
	id, err := ulid.New(ms, runIDEntropy)
	if err != nil {
		// Monotonic overflow within one millisecond: 2^80 ids. Fall
		// back to plain randomness rather than fail a run over its name.
		id = ulid.MustNew(ms, rand.Reader)
	}
	return id.String()
}

// RunIDTime returns the start time encoded in a run id made by NewRunID, and
// false for any other name (a hand-made or legacy run folder).
func RunIDTime(id string) (time.Time, bool) {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return time.Time{}, false
	}
	return ulid.Time(u.Time()).UTC(), true
}

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
