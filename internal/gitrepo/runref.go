package gitrepo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"copperhead/internal/config"
	"copperhead/internal/textfmt"
)

// A run in progress is findable after a SIGKILL (issue #13 item 6): before
// its first write the run references its snapshot as
// refs/copperhead/runs/<run-id>, and deletes the ref only once its ending
// (commit, rollback, dry run, refusal) and run-end event are written. A ref
// whose run is no longer alive is an interrupted run; LoadSnapshot rebuilds
// the Snapshot from it, so `copperhead recover` restores through the same
// Rollback every other ending uses.

// RunRefPrefix is the namespace of the run refs.
const RunRefPrefix = "refs/copperhead/runs/"

// snapshotFile is the metadata blob inside a run ref's tree.
const snapshotFile = "snapshot.json"

// ErrNoRunRef means no run ref has the given run id.
var ErrNoRunRef = errors.New("no interrupted run")

// RunNote is what a run ref records besides the snapshot, for recover.
type RunNote struct {
	RunID  string `json:"run_id"`
	RunDir string `json:"run_dir"` // the run folder, repo-relative (forward slashes), or absolute when outside the work tree
	// Owner names the process running the run (owner.Self: pid and start
	// time), so a live run is told from an interrupted one.
	Owner string `json:"owner"`
	// WorkTree is the work tree the run changed, absolute; Reference fills
	// it in. It differs from the repository's own when the run worked on a
	// scratch copy (a dry run in a linked worktree), whose leftovers are not
	// the user's tree to restore.
	WorkTree string `json:"work_tree"`
	// Damaged says why the ref holds no readable snapshot (a ref made or
	// rewritten by hand, a damaged object); "" for a sound one. RunNotes
	// lists such a ref rather than hide it: it is in copperhead's namespace.
	Damaged string `json:"-"`
}

// DeleteRefHint is the command that removes a run ref: for a damaged one,
// which holds nothing to restore.
func DeleteRefHint(runID string) string { return "git update-ref -d " + RunRef(runID) }

// snapshotRecord is a Snapshot as stored in its run ref.
type snapshotRecord struct {
	RunNote
	Head          string            `json:"head"`
	Stash         string            `json:"stash,omitempty"`
	UntrackedTree string            `json:"untracked_tree,omitempty"`
	Untracked     []string          `json:"untracked"`
	Nested        []string          `json:"nested"`
	Files         map[string]string `json:"files"`
	Perm          map[string]uint32 `json:"perm"` // permission bits of the untracked files
}

// RunRef names the ref of runID.
func RunRef(runID string) string { return RunRefPrefix + runID }

// Reference records the snapshot durably as RunRef(note.RunID): a commit
// whose parents are HEAD and the tracked-changes stash commit (when there
// is one), and whose tree holds worktree/ (tracked files as the work tree
// had them), index/ (the index), untracked/ (the untracked files) and
// snapshot.json (what LoadSnapshot needs: fingerprints, permission bits,
// note). Everything the snapshot holds is then reachable, so gc keeps it
// and `copperhead recover` finds it. A ref already there for the run id is
// an error; nothing is overwritten.
func (s *Snapshot) Reference(ctx context.Context, note RunNote) error {
	if err := checkRefRunID(note.RunID); err != nil {
		return err
	}
	note.WorkTree = s.Repo
	rec := snapshotRecord{RunNote: note, Head: s.Head, Stash: s.Stash, UntrackedTree: s.UntrackedTree,
		Untracked: s.Untracked, Nested: s.Nested, Files: s.Files, Perm: map[string]uint32{}}
	for p, m := range s.perm {
		rec.Perm[p] = uint32(m)
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("reference the snapshot: %w", err)
	}
	blob, err := runGit(ctx, s.Repo, nil, strings.NewReader(string(data)), "hash-object", "-w", "--stdin")
	if err != nil {
		return fmt.Errorf("reference the snapshot: %w", err)
	}
	work, index := s.Head+"^{tree}", s.Head+"^{tree}"
	if s.Stash != "" {
		work, index = s.Stash+"^{tree}", s.Stash+"^2^{tree}"
	}
	if work, err = Run(ctx, s.Repo, "rev-parse", work); err != nil {
		return fmt.Errorf("reference the snapshot: %w", err)
	}
	if index, err = Run(ctx, s.Repo, "rev-parse", index); err != nil {
		return fmt.Errorf("reference the snapshot: %w", err)
	}
	entries := fmt.Sprintf("040000 tree %s\tindex\n100644 blob %s\t%s\n040000 tree %s\tworktree\n",
		index, strings.TrimSpace(string(blob)), snapshotFile, work)
	if s.UntrackedTree != "" {
		entries += fmt.Sprintf("040000 tree %s\tuntracked\n", s.UntrackedTree)
	}
	tree, err := runGit(ctx, s.Repo, nil, strings.NewReader(entries), "mktree")
	if err != nil {
		return fmt.Errorf("reference the snapshot: %w", err)
	}
	args := slices.Concat(identity(ctx, s.Repo), []string{"commit-tree", strings.TrimSpace(string(tree)), "-p", s.Head})
	if s.Stash != "" {
		args = append(args, "-p", s.Stash)
	}
	args = append(args, "-m", "copperhead run "+note.RunID+" (pre-run snapshot)")
	commit, err := Run(ctx, s.Repo, args...)
	if err != nil {
		return fmt.Errorf("reference the snapshot: %w", err)
	}
	// The empty old value makes update-ref refuse a ref that exists.
	if _, err := Run(ctx, s.Repo, "update-ref", "-m", "copperhead run "+note.RunID, RunRef(note.RunID), commit, ""); err != nil {
		return fmt.Errorf("reference the snapshot: %w", err)
	}
	return nil
}

// DeleteRunRef removes the ref of runID; a ref already gone is no error.
func DeleteRunRef(ctx context.Context, repo, runID string) error {
	if err := checkRefRunID(runID); err != nil {
		return err
	}
	if _, err := Run(ctx, repo, "update-ref", "-d", RunRef(runID)); err != nil {
		return fmt.Errorf("delete %s: %w", RunRef(runID), err)
	}
	return nil
}

// RunNotes lists every run ref of the repository at repo, oldest run id
// first (run ids sort by start time). A ref whose metadata cannot be read
// is listed with its run id only.
func RunNotes(ctx context.Context, repo string) ([]RunNote, error) {
	out, err := Run(ctx, repo, "for-each-ref", "--format=%(refname)", RunRefPrefix)
	if err != nil {
		return nil, err
	}
	var notes []RunNote
	for _, name := range strings.Fields(out) {
		id := strings.TrimPrefix(name, RunRefPrefix)
		rec, err := readRecord(ctx, repo, id)
		if err != nil {
			notes = append(notes, RunNote{RunID: id, Damaged: textfmt.JoinLines(err.Error(), "; ")})
			continue
		}
		notes = append(notes, rec.note(id))
	}
	slices.SortFunc(notes, func(a, b RunNote) int { return strings.Compare(a.RunID, b.RunID) })
	return notes, nil
}

// damagedRef is a run ref that holds no readable snapshot; the message says
// why in a few words ("it has no snapshot.json").
type damagedRef struct {
	why string
	err error
}

func (e *damagedRef) Error() string { return e.why }
func (e *damagedRef) Unwrap() error { return e.err }

func readRecord(ctx context.Context, repo, runID string) (*snapshotRecord, error) {
	data, err := runGit(ctx, repo, nil, nil, "cat-file", "blob", RunRef(runID)+":"+snapshotFile)
	if err != nil {
		return nil, &damagedRef{fmt.Sprintf("it has no %s", snapshotFile), err}
	}
	var rec snapshotRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, &damagedRef{fmt.Sprintf("its %s is not valid JSON: %v", snapshotFile, err), err}
	}
	if rec.Head == "" || rec.Files == nil {
		return nil, &damagedRef{fmt.Sprintf("its %s records no snapshot", snapshotFile), nil}
	}
	return &rec, nil
}

// note is the record's note for the ref of runID. A record made for
// another run id (a ref copied by hand) keeps its snapshot but not the other
// run's folder: its folder is the one its id names.
func (rec *snapshotRecord) note(runID string) RunNote {
	n := rec.RunNote
	if n.RunID != runID {
		n = RunNote{RunID: runID, RunDir: config.RunsDir + runID, Owner: n.Owner, WorkTree: n.WorkTree}
	}
	return n
}

// LoadSnapshot rebuilds the Snapshot a run referenced (Reference), for the
// work tree at repo. ErrNoRunRef (wrapped) when the run has no ref.
func LoadSnapshot(ctx context.Context, repo, runID string) (*Snapshot, RunNote, error) {
	if err := checkRefRunID(runID); err != nil {
		return nil, RunNote{}, err
	}
	top, err := topLevel(ctx, repo)
	if err != nil {
		return nil, RunNote{}, err
	}
	if _, err := Run(ctx, top, "rev-parse", "--verify", "--quiet", RunRef(runID)); err != nil {
		return nil, RunNote{}, fmt.Errorf("run %s: %w", runID, ErrNoRunRef)
	}
	rec, err := readRecord(ctx, top, runID)
	if err != nil {
		return nil, RunNote{}, err
	}
	s := &Snapshot{Repo: top, Head: rec.Head, Stash: rec.Stash, UntrackedTree: rec.UntrackedTree,
		Untracked: rec.Untracked, Nested: rec.Nested, Files: rec.Files, perm: map[string]fs.FileMode{}}
	if s.Untracked == nil {
		s.Untracked = []string{}
	}
	if s.Nested == nil {
		s.Nested = []string{}
	}
	for p, m := range rec.Perm {
		s.perm[p] = fs.FileMode(m).Perm()
	}
	return s, rec.note(runID), nil
}

// checkRefRunID keeps a run id one plain ref component.
func checkRefRunID(id string) error {
	if id == "" || strings.HasPrefix(id, ".") || strings.HasSuffix(id, ".lock") ||
		strings.ContainsAny(id, "/\\:~^?*[ \t\n@{") || strings.Contains(id, "..") {
		return fmt.Errorf("invalid run id %q", id)
	}
	return nil
}
