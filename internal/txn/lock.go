package txn

import (
	"context"
	"copperhead/internal/owner"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// LockFile is the one-writer lock, relative to the repository root.
const LockFile = StateDir + "/lock"

// ErrBusy is returned (wrapped) when another live process holds the lock.
var ErrBusy = errors.New("another copperhead command is changing this repository")

// Lock takes the repository's one-writer lock, waiting up to wait for a
// live holder to let go. A lock left by a process that is gone (or whose pid
// now belongs to a different process) is taken over. The returned function
// releases it.
//
// The lock is reentrant within a process: create's stages run do, and a
// nested Lock of a repository this process already holds returns at once.
func Lock(ctx context.Context, repo string, wait time.Duration) (func(), error) {
	path := filepath.Join(repo, filepath.FromSlash(LockFile))
	heldMu.Lock()
	if held[path] > 0 {
		held[path]++
		heldMu.Unlock()
		return func() { release(path, nil) }, nil
	}
	heldMu.Unlock()
	// A lock that made the state folder (or .copperhead itself) takes it
	// away again when nothing else was left there: a command that fails
	// before it writes anything leaves no trace in the repository.
	stateDir := filepath.Join(repo, filepath.FromSlash(StateDir))
	_, err := os.Stat(filepath.Dir(stateDir))
	madeParent := errors.Is(err, fs.ErrNotExist)
	_, err = os.Stat(stateDir)
	madeState := errors.Is(err, fs.ErrNotExist)
	if err := ensureStateDir(repo); err != nil {
		return nil, err
	}
	tidy := func() {
		if !madeState {
			return
		}
		entries, err := os.ReadDir(stateDir)
		if err != nil || len(entries) != 1 || entries[0].Name() != ".gitignore" {
			return
		}
		// Another command may be about to take the lock in this folder:
		// the folder goes only if it is empty once the .gitignore is gone
		// (never RemoveAll, which could take a lock just linked there), and
		// the .gitignore comes back if it is not.
		ign := filepath.Join(stateDir, ".gitignore")
		text, err := os.ReadFile(ign)
		if err != nil || os.Remove(ign) != nil {
			return
		}
		if os.Remove(stateDir) != nil {
			_ = os.WriteFile(ign, text, 0o644)
			return
		}
		if madeParent {
			os.Remove(filepath.Dir(stateDir)) // only if empty
		}
	}
	me := lockText(os.Getpid())
	deadline := time.Now().Add(wait)
	for {
		err := createLock(stateDir, path, me)
		if errors.Is(err, fs.ErrNotExist) {
			// The last holder took the state folder away as we came in.
			if err := ensureStateDir(repo); err != nil {
				return nil, err
			}
			continue
		}
		if err == nil {
			heldMu.Lock()
			held[path]++
			heldMu.Unlock()
			return func() {
				release(path, func() {
					// Only our own lock is removed: a takeover after a stale
					// detection must not be undone by the old holder.
					if b, err := os.ReadFile(path); err == nil && string(b) == me {
						os.Remove(path)
					}
					tidy()
				})
			}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			tidy()
			return nil, err
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // released between our create and read
		}
		holder, alive := lockHolder(string(b))
		if !alive {
			// Stale: remove it only if it is still the same stale lock.
			if cur, err := os.ReadFile(path); err == nil && string(cur) == string(b) {
				os.Remove(path)
			}
			continue
		}
		if time.Now().After(deadline) {
			tidy()
			return nil, fmt.Errorf("%w (pid %d); wait for it to finish", ErrBusy, holder)
		}
		select {
		case <-ctx.Done():
			tidy()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// createLock makes the lock file holding text, whole or not at all: the
// text goes into a temporary file that is then hard-linked as the lock,
// which fails with fs.ErrExist when a lock is there. A lock created empty
// and written after would let a second command read it empty in between,
// take it for a stale one and remove it: two writers at once.
func createLock(stateDir, path, text string) error {
	f, err := os.CreateTemp(stateDir, ".lock-*")
	if err != nil {
		return fmt.Errorf("create %s: %w", LockFile, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, werr := f.WriteString(text)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		return fmt.Errorf("write %s: %w", LockFile, errors.Join(werr, cerr))
	}
	err = os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// A file system without hard links (FAT on a removable drive): create
	// the lock exclusively and write it, the one way left.
	l, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		return fmt.Errorf("create %s: %w", LockFile, err)
	}
	_, werr = l.WriteString(text)
	if cerr = l.Close(); werr != nil || cerr != nil {
		os.Remove(path)
		return fmt.Errorf("write %s: %w", LockFile, errors.Join(werr, cerr))
	}
	return nil
}

var (
	heldMu sync.Mutex
	held   = map[string]int{} // lock path -> nesting depth in this process
)

// release drops one level of a held lock, running remove when the last
// level goes.
func release(path string, remove func()) {
	heldMu.Lock()
	defer heldMu.Unlock()
	if held[path] == 0 {
		return
	}
	held[path]--
	if held[path] == 0 {
		delete(held, path)
		if remove != nil {
			remove()
		}
	}
}

// lockText is what a lock holds: the pid and the process's start time
// (owner.Of), so a pid reused by an unrelated process after a crash is not
// mistaken for the holder.
func lockText(pid int) string { return owner.Of(pid) + "\n" }

// lockHolder parses a lock and reports whether its process still runs.
// An unreadable lock (a crash between create and write) counts as stale.
func lockHolder(text string) (int, bool) { return owner.Parse(text) }
