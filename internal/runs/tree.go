package runs

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"copperhead/internal/gitrepo"
	"copperhead/internal/owner"
)

// Tree is the tree a run works on and its way back: the repository itself
// with a snapshot of it, or for a dry run a scratch copy (a temporary git
// worktree holding HEAD plus the uncommitted state) with a snapshot of the
// copy, so the diff is relative to the user's uncommitted state and the
// user's tree, index, refs and stash list are never written (AC-3.9).
type Tree struct {
	// Repo is the folder the run works in: the repository, or the copy.
	Repo string
	Snap *gitrepo.Snapshot
	// Scratch is a dry run's copy; nil for a run on the repository.
	Scratch *gitrepo.Scratch

	runID      string
	referenced bool
}

// OpenTree takes the snapshot a run needs before it changes anything. It is
// the run's one preflight: without allowDirty a dirty tree is refused with a
// *gitrepo.DirtyError before any run folder exists. dryRun makes the copy
// first and snapshots the copy.
func OpenTree(ctx context.Context, repo string, allowDirty, dryRun bool) (*Tree, error) {
	if !dryRun {
		snap, err := gitrepo.TakeSnapshot(ctx, repo, allowDirty)
		if err != nil {
			return nil, err
		}
		return &Tree{Repo: repo, Snap: snap}, nil
	}
	s, err := gitrepo.NewScratch(ctx, repo, allowDirty)
	if err != nil {
		return nil, err
	}
	snap, err := gitrepo.TakeSnapshot(ctx, s.Map(repo), true)
	if err != nil {
		return nil, errors.Join(err, s.Remove(ctx))
	}
	return &Tree{Repo: s.Map(repo), Snap: snap, Scratch: s}, nil
}

// Map is p (a path in the repository) in the tree the run works on.
func (t *Tree) Map(p string) string {
	if t.Scratch == nil {
		return p
	}
	return t.Scratch.Map(p)
}

// Remove removes a dry run's copy; a no-op otherwise.
func (t *Tree) Remove(ctx context.Context) error {
	if t == nil || t.Scratch == nil {
		return nil
	}
	return t.Scratch.Remove(context.WithoutCancel(ctx))
}

// Protect makes r's way back survive a SIGKILL and puts the run on record:
// the snapshot is referenced as refs/copperhead/runs/<run-id> before
// anything is written, then the run-start reaches the file at once, so
// `copperhead recover` can name the run. End deletes the ref once the
// run-end is written. A dry run's copy shares the repository's refs but none
// of its files: the copy goes whatever happens (gitrepo.PruneScratch after
// a kill), so it has nothing to recover and takes no ref.
func (r *Run) Protect(ctx context.Context, t *Tree) error {
	r.tree, t.runID = t, r.ID
	if t.Scratch == nil {
		runDir, err := filepath.Rel(t.Snap.Repo, r.Dir)
		if err != nil || !filepath.IsLocal(runDir) {
			runDir = r.Dir // outside the tree the run changes: absolute
		}
		note := gitrepo.RunNote{RunID: r.ID, RunDir: filepath.ToSlash(runDir), Owner: owner.Self()}
		if err := t.Snap.Reference(ctx, note); err != nil {
			return err
		}
		t.referenced = true
	}
	if err := r.Begin(); err != nil {
		if t.Scratch != nil {
			return err // the copy goes, and with it everything
		}
		return errors.Join(err, t.discard(ctx), t.unreference())
	}
	return nil
}

// unreference deletes the run's snapshot ref (Protect's); a dry run took none.
func (t *Tree) unreference() error {
	if !t.referenced {
		return nil
	}
	t.referenced = false
	return gitrepo.DeleteRunRef(context.Background(), t.Snap.Repo, t.runID)
}

// discard restores the tree without keeping the run's work: the changes of
// a run that never got going were never the user's to lose.
func (t *Tree) discard(ctx context.Context) error {
	ref, err := t.Snap.Rollback(ctx, t.runID)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if ref == "" {
		return nil
	}
	if err := dropStash(ctx, t.Snap.Repo, ref); err != nil {
		return fmt.Errorf("discard the stash entry %s: %w", ref, err)
	}
	return nil
}

// dropStash drops the entry Rollback just stored, named "stash@{0} (<hash
// prefix>)", after checking that the position still holds that commit.
func dropStash(ctx context.Context, repo, ref string) error {
	name, hash, _ := strings.Cut(ref, " (")
	hash = strings.TrimSuffix(hash, ")")
	got, err := gitrepo.Run(ctx, repo, "rev-parse", "--verify", "--quiet", name)
	if err != nil {
		return err
	}
	if hash == "" || !strings.HasPrefix(got, hash) {
		return fmt.Errorf("%s no longer holds this run's work; left in place", name)
	}
	_, err = gitrepo.Run(ctx, repo, "stash", "drop", "--quiet", name)
	return err
}
