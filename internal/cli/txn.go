package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"copperhead/internal/gitrepo"
	"copperhead/internal/tempdir"
	"copperhead/internal/txn"
)

// lockWait is how long a writer waits for another one to finish.
const lockWait = 5 * time.Second

// openLocked opens the workspace (see open) of a command that changes the
// repository and takes its one-writer lock (see lockRepo); the caller
// defers unlock.
func (a *app) openLocked(ctx context.Context, sub string) (w *workspace, unlock func(), err error) {
	return a.openLockedAt(ctx, sub, false)
}

// openLockedAt is openLocked for init (forInit: see openAt).
func (a *app) openLockedAt(ctx context.Context, sub string, forInit bool) (w *workspace, unlock func(), err error) {
	if w, err = a.openAt(sub, forInit); err != nil {
		return nil, nil, err
	}
	if unlock, err = a.lockRepo(ctx, w.repo); err != nil {
		return nil, nil, err
	}
	return w, unlock, nil
}

// lockRepo takes the repository's one-writer lock for a command that
// changes it: a second writer waits lockWait, then fails naming the holder.
// While an interrupted run waits for `copperhead recover` it refuses
// (exit 1), naming the run: writing now could bury the way back.
func (a *app) lockRepo(ctx context.Context, repo string) (func(), error) {
	unlock, err := a.takeLock(ctx, repo)
	if err != nil {
		return nil, err
	}
	if err := refuseInterrupted(ctx, repo); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// takeLock is lockRepo without the interrupted-run check: for recover
// itself and the journal completion every command runs first.
func (a *app) takeLock(ctx context.Context, repo string) (func(), error) {
	unlock, err := txn.Lock(ctx, repo, lockWait)
	if err != nil {
		if errors.Is(err, txn.ErrBusy) {
			return nil, failf("%v", err)
		}
		return nil, failf("lock the repository: %v", err)
	}
	return unlock, nil
}

// recoverJournal completes a change that a killed copperhead command left
// half-written (txn.Recover), before anything reads the repository. It
// costs one stat when there is nothing to recover.
func (a *app) recoverJournal(ctx context.Context, repo string) error {
	if _, err := os.Stat(filepath.Join(repo, filepath.FromSlash(txn.Dir))); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	unlock, err := a.takeLock(ctx, repo)
	if err != nil {
		return err
	}
	defer unlock()
	done, err := txn.Recover(repo)
	if err != nil {
		return failf("complete an interrupted change: %v", err)
	}
	if len(done) > 0 {
		fmt.Fprintf(a.io.Err, "copperhead: completed an interrupted change: %s\n", strings.Join(done, ", "))
	}
	return nil
}

// pruneScratch removes the scratch copies that dry runs killed with SIGKILL
// left (gitrepo.PruneScratch), so they do not accumulate in the temporary
// folder and `git worktree list`. It costs one stat when there are none; a
// failure only warns: the copies are outside the repository.
//
// The temporary folders of other steps a kill interrupted (an edit's or a
// draft layout's scratch copy, kicad-cli's private config) go too, silently
// (tempdir.Prune): they hold copies, never the user's only bytes.
func (a *app) pruneScratch(ctx context.Context, repo string) {
	removed, err := gitrepo.PruneScratch(ctx, repo)
	for _, p := range removed {
		fmt.Fprintf(a.io.Err, "copperhead: removed the scratch copy an interrupted dry run left: %s\n", p)
	}
	_, terr := tempdir.Prune()
	if err := errors.Join(err, terr); err != nil {
		fmt.Fprintf(a.io.Err, "copperhead: warning: %v\n", err)
	}
}
