// Package recovery owns the way back from an agent run that was killed
// before it could end (SIGKILL, power loss, a crashed terminal; issue #13
// item 6). Every run references its pre-run snapshot as
// refs/copperhead/runs/<run-id> before its first write and deletes the ref
// once its ending is recorded (agent.newRun, agent's end); a ref whose
// owning process is gone is an interrupted run. Recover restores the
// pre-run tree through gitrepo's Rollback (the run's work kept in a stash
// named "copperhead interrupted run <run-id>"), writes the run-end and
// summary.md the run never wrote, and deletes the ref.
//
// recovery imports gitrepo, transcript (to read the run's record), txn,
// redact and runs (which writes the ending); it must never import agent or
// cli.
package recovery

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/gitrepo"
	"copperhead/internal/owner"
	"copperhead/internal/redact"
	"copperhead/internal/runs"
	"copperhead/internal/transcript"
)

// ErrUnknownRun means no interrupted run has the given id.
var ErrUnknownRun = errors.New("no interrupted run")

// ErrStillRunning means the run's process is alive: not interrupted.
var ErrStillRunning = errors.New("is still running")

// Run is one interrupted run as its record names it.
type Run struct {
	RunID     string    `json:"run_id"`
	RunDir    string    `json:"run_dir"` // repo-relative
	StartedAt time.Time `json:"started_at"`
	Command   string    `json:"command"` // do, sync, create...; "" when the run-start never reached the disk
	Request   string    `json:"request"`
	// Damaged says why the run's ref holds no snapshot to restore from
	// (gitrepo.RunNote.Damaged); "" for a sound one.
	Damaged string `json:"damaged,omitempty"`
}

// Describe is the run in one phrase: `do "rename net KEY_DAH to KEY_DASH"`.
func (r Run) Describe() string {
	cmd := r.Command
	if cmd == "" {
		cmd = "run"
	}
	if r.Request == "" {
		return cmd
	}
	return fmt.Sprintf("%s %q", cmd, r.Request)
}

// Interrupted lists the interrupted runs of the repository at repo, oldest
// first: run refs whose owner process no longer runs. A folder that is not a
// git repository has none.
func Interrupted(ctx context.Context, repo string) ([]Run, error) {
	if !gitrepo.IsRepo(ctx, repo) {
		return nil, nil
	}
	top, err := gitrepo.Run(ctx, repo, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	notes, err := gitrepo.RunNotes(ctx, top)
	if err != nil {
		return nil, err
	}
	var runs []Run
	for _, n := range notes {
		if owner.Alive(n.Owner) {
			continue
		}
		runs = append(runs, describe(top, n))
	}
	return runs, nil
}

// describe reads what the run's transcript says about it.
func describe(top string, n gitrepo.RunNote) Run {
	r := Run{RunID: n.RunID, RunDir: n.RunDir, Damaged: n.Damaged}
	if r.RunDir == "" {
		r.RunDir = config.RunsDir + n.RunID
	}
	if t, ok := transcript.RunIDTime(n.RunID); ok {
		r.StartedAt = t
	}
	if start, ok := runStart(runPath(top, r.RunDir)); ok {
		r.Command, r.Request = start.Command, start.Request
		if !start.StartedAt.IsZero() {
			r.StartedAt = start.StartedAt.UTC()
		}
	}
	return r
}

func runStart(dir string) (transcript.RunStart, bool) {
	events, err := transcript.Read(dir)
	if err != nil || len(events) == 0 || events[0].Type != transcript.TypeRunStart {
		return transcript.RunStart{}, false
	}
	var st transcript.RunStart
	if events[0].Decode(&st) != nil {
		return transcript.RunStart{}, false
	}
	return st, true
}

// Find resolves id (a whole run id or a unique prefix, case-insensitive)
// among the interrupted runs. ErrUnknownRun (wrapped) names it otherwise.
func Find(runs []Run, id string) (Run, error) {
	var matches []Run
	for _, r := range runs {
		if r.RunID == id {
			return r, nil
		}
		if len(r.RunID) >= len(id) && strings.EqualFold(r.RunID[:len(id)], id) {
			matches = append(matches, r)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return Run{}, fmt.Errorf("%w %s", ErrUnknownRun, id)
	}
	return Run{}, fmt.Errorf("run id %s is ambiguous: %d interrupted runs start with it", id, len(matches))
}

// Result is what Recover did.
type Result struct {
	Run
	// StashRef holds the run's work as the kill left it ("stash@{0}
	// (<hash>)", named InterruptedRunMessage); "" when the run had changed
	// nothing.
	StashRef string `json:"stash_ref"`
	// HeadWas is the commit HEAD had moved to (the run committed, and was
	// killed before it recorded its end); HEAD is back at the pre-run
	// commit, and the run's commit is in the stash. "" when HEAD had not
	// moved.
	HeadWas string `json:"head_was,omitempty"`
	// AlreadyEnded is set when the run had written its run-end before the
	// kill: its ending was complete, so nothing was restored and only the
	// ref was deleted. ExitPath is then the run's own.
	AlreadyEnded bool `json:"already_ended"`
	// Scratch is the scratch work tree the run changed instead of the
	// repository's (a dry run on a copy); the repository was left alone.
	Scratch  string              `json:"scratch,omitempty"`
	ExitPath transcript.ExitPath `json:"exit_path"`
}

// Recover restores the interrupted run runID of the repository at repo to
// its pre-run tree (tracked, staged and untracked files, modes, HEAD),
// keeping the run's work in a stash named
// gitrepo.InterruptedRunMessage(runID), writes its run-end (exit path
// interrupted) and summary.md, and deletes its ref. The caller holds the
// repository lock and has completed any interrupted txn journal first.
// Recovering twice is safe: a run whose run-end is written only loses its ref.
func Recover(ctx context.Context, repo, runID string, red *redact.Redactor) (*Result, error) {
	ctx = context.WithoutCancel(ctx) // a recovery half done is worse than none
	snap, note, err := gitrepo.LoadSnapshot(ctx, repo, runID)
	if errors.Is(err, gitrepo.ErrNoRunRef) {
		return nil, fmt.Errorf("%w %s", ErrUnknownRun, runID)
	}
	if err != nil {
		// Nothing can be restored from it, and nothing of the tree is in
		// it: say so, and how to remove it, rather than leave every writer
		// refusing with no way forward.
		return nil, fmt.Errorf("%s holds no copperhead snapshot to restore from (%v); nothing was changed; delete the ref with: %s",
			gitrepo.RunRef(runID), err, gitrepo.DeleteRefHint(runID))
	}
	if owner.Alive(note.Owner) {
		return nil, fmt.Errorf("run %s %w (process %s)", runID, ErrStillRunning, strings.Fields(note.Owner)[0])
	}
	res := &Result{Run: describe(snap.Repo, note), ExitPath: transcript.ExitInterrupted}
	dir := runPath(snap.Repo, res.RunDir)
	events, _ := transcript.Read(dir) // a run folder that is gone or torn still recovers
	for _, e := range events {
		if e.Type != transcript.TypeRunEnd {
			continue
		}
		var end transcript.RunEnd
		if e.Decode(&end) == nil {
			res.AlreadyEnded, res.ExitPath = true, end.ExitPath
			if end.StashRef != nil {
				res.StashRef = *end.StashRef
			}
		}
	}
	if res.AlreadyEnded {
		return res, gitrepo.DeleteRunRef(ctx, snap.Repo, runID)
	}
	if note.WorkTree != "" && !sameDir(note.WorkTree, snap.Repo) {
		// The run worked on a scratch copy (a dry run): the user's tree was
		// never its to change, so there is nothing here to restore.
		res.Scratch = note.WorkTree
		if err := writeEnd(snap.Repo, dir, runID, events, res, red); err != nil {
			return nil, fmt.Errorf("recover run %s: %w", runID, err)
		}
		return res, gitrepo.DeleteRunRef(ctx, snap.Repo, runID)
	}

	if head, err := gitrepo.Run(ctx, snap.Repo, "rev-parse", "HEAD"); err == nil && head != snap.Head {
		res.HeadWas = head
	}
	if res.StashRef, err = snap.RollbackAs(ctx, runID, gitrepo.InterruptedRunMessage(runID)); err != nil {
		// The ref stays: the way back is still there for another try.
		if res.StashRef != "" {
			return nil, fmt.Errorf("recover run %s: %w (the run's work is in %s)", runID, err, res.StashRef)
		}
		return nil, fmt.Errorf("recover run %s: %w", runID, err)
	}
	if err := writeEnd(snap.Repo, dir, runID, events, res, red); err != nil {
		return nil, fmt.Errorf("recover run %s: tree restored, but %w", runID, err)
	}
	if err := gitrepo.DeleteRunRef(ctx, snap.Repo, runID); err != nil {
		return nil, fmt.Errorf("recover run %s: tree restored, but %w", runID, err)
	}
	return res, nil
}

// writeEnd has runs append the run-end the killed run never wrote and
// render its summary.md.
func writeEnd(top, dir, runID string, events []transcript.Event, res *Result, red *redact.Redactor) error {
	msg := "interrupted: the run was killed before it ended; copperhead recover restored the pre-run tree"
	if res.Scratch != "" {
		msg = "interrupted: the run was killed before it ended; it worked on the scratch copy " + res.Scratch + ", so the repository was not changed"
	}
	if res.StashRef != "" {
		msg += " and kept the run's work in " + res.StashRef
	}
	if res.HeadWas != "" {
		msg += fmt.Sprintf("; HEAD moved back from %s", res.HeadWas[:min(12, len(res.HeadWas))])
	}
	return runs.EndKilled(top, dir, runID, events, msg, res.StashRef, red)
}

// runPath is the run folder a note names: repo-relative, or absolute.
func runPath(top, runDir string) string {
	if filepath.IsAbs(runDir) {
		return runDir
	}
	return filepath.Join(top, filepath.FromSlash(runDir))
}

// sameDir reports whether two paths name the same folder (links resolved).
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
