package openspec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Archive runs `openspec archive <changeID> --yes --json` in repo: the change
// folder moves to openspec/changes/archive/<date>-<changeID>/ and its delta
// specs merge into openspec/specs/. It is the last step before the run's
// commit (design D7), so the archive lands in the same commit as the edits.
//
// openspec 1.13.2 has no --no-interactive flag on archive; --json is its
// non-interactive mode (no prompts, a JSON report on stdout) and --yes skips
// the incomplete-tasks confirmation. When a delta cannot merge, openspec
// changes no file and Archive returns its message and suggested fix.
func Archive(ctx context.Context, repo, changeID string) error {
	if err := checkChangeID(changeID); err != nil {
		return err
	}
	// openspec looks for the nearest openspec/ root upwards; insist on repo's
	// own so a missing folder can never archive a parent project's change.
	dir := filepath.Join(repo, "openspec", "changes", changeID)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("openspec archive %s: no change folder openspec/changes/%s in %s", changeID, changeID, repo)
	}
	out, runErr := run(ctx, repo, false, "archive", changeID, "--yes", "--json")
	var rep struct {
		Archive *struct {
			ArchivedAs string `json:"archivedAs"`
		} `json:"archive"`
		Status []struct {
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Fix      string `json:"fix"`
		} `json:"status"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &rep); err != nil {
		if runErr != nil {
			return runErr
		}
		return fmt.Errorf("openspec archive %s: unreadable report: %v", changeID, err)
	}
	var problems []string
	for _, s := range rep.Status {
		if s.Severity != "error" {
			continue
		}
		msg := s.Message
		if s.Fix != "" {
			msg += " (" + s.Fix + ")"
		}
		problems = append(problems, msg)
	}
	if len(problems) > 0 || rep.Archive == nil || runErr != nil {
		if len(problems) == 0 {
			if runErr != nil {
				return runErr
			}
			problems = []string{"no archive in the report"}
		}
		return fmt.Errorf("openspec archive %s: %s", changeID, strings.Join(problems, "; "))
	}
	return nil
}

// checkChangeID rejects ids that are not a plain folder name: openspec would
// read a leading "-" as a flag, and a path could reach outside changes/.
func checkChangeID(id string) error {
	if id == "" || strings.HasPrefix(id, "-") || strings.HasPrefix(id, ".") ||
		strings.ContainsAny(id, `/\`) || id == "archive" {
		return fmt.Errorf("openspec archive: %q is not a change id", id)
	}
	return nil
}
