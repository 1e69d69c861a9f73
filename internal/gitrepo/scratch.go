package gitrepo

import (
	"context"
	"copperhead/internal/config"
	"copperhead/internal/owner"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A dry run (`do --dry-run`, AC-3.9) works on a scratch copy, never on the
// user's tree: a detached linked worktree of HEAD in a temporary folder
// outside the repository, holding exactly the state TakeSnapshot records
// (staged and unstaged tracked changes, untracked non-ignored files, modes),
// plus copies of the ignored files a run may read (.copperhead/config.json
// when ignored, KiCad's local files). A SIGKILL can then leave only the
// temporary folder and a worktree entry behind, which PruneScratch removes.

// ScratchPrefix starts the name of the temporary folder holding a scratch
// copy: <temp dir>/copperhead-dryrun-<random>/<repository folder name>.
const ScratchPrefix = "copperhead-dryrun-"

// scratchOwner is the file beside the copy (in the temporary folder, outside
// the worktree) naming the process that uses it, so PruneScratch removes only
// copies whose process is gone.
const scratchOwner = "copperhead-owner"

// scratchSkipIgnored are the ignored folders never copied: the run record
// stays in the user's repository, and the lock and journal belong to it.
var scratchSkipIgnored = []string{config.RunsDir, config.StateDir + "/"}

// Scratch is a scratch copy of a work tree.
type Scratch struct {
	Root string // the copy's top, absolute
	Repo string // the top of the work tree it copies, absolute
	// Snapshot is the user's tree the copy was made from. It wrote objects
	// into .git and nothing else.
	Snapshot *Snapshot

	dir     string // the temporary folder holding Root and the owner file
	removed bool
}

// NewScratch makes a scratch copy of the work tree at repo. Like
// TakeSnapshot it refuses a dirty tree without allowDirty (a *DirtyError);
// with it the copy holds the uncommitted state. The user's work tree, index,
// refs and stash list are not written: only objects and the worktree entry
// (<git dir>/worktrees/) are. The caller must Remove it.
func NewScratch(ctx context.Context, repo string, allowDirty bool) (_ *Scratch, err error) {
	snap, err := TakeSnapshot(ctx, repo, allowDirty)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", ScratchPrefix)
	if err != nil {
		return nil, fmt.Errorf("scratch copy: %w", err)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // git reports worktree paths resolved
	}
	if rel, err := filepath.Rel(snap.Repo, dir); err == nil && filepath.IsLocal(rel) {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("scratch copy: the temporary folder %s is inside the repository; point TMPDIR outside it", filepath.Dir(dir))
	}
	s := &Scratch{Root: filepath.Join(dir, filepath.Base(snap.Repo)), Repo: snap.Repo, Snapshot: snap, dir: dir}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Remove(ctx))
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, scratchOwner), []byte(owner.Self()+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("scratch copy: %w", err)
	}
	// --no-checkout: the files come from the snapshot below, and no
	// post-checkout hook runs for a copy the user never asked for.
	if _, err := Run(ctx, s.Repo, "worktree", "add", "--quiet", "--no-checkout", "--detach", s.Root, snap.Head); err != nil {
		return nil, fmt.Errorf("scratch copy: %w", err)
	}
	cp := *snap
	cp.Repo = s.Root
	if err := cp.restore(ctx); err != nil {
		return nil, fmt.Errorf("scratch copy: %w", err)
	}
	// Checkout filters (eol, smudge) may give other bytes than the user's
	// file: those files are copied as they are.
	if err := s.copyDiffering(ctx); err != nil {
		return nil, fmt.Errorf("scratch copy: %w", err)
	}
	if err := s.copyIgnored(ctx); err != nil {
		return nil, fmt.Errorf("scratch copy: %w", err)
	}
	return s, nil
}

// copyDiffering copies the user's bytes over every file of the copy whose
// fingerprint differs from the snapshot, then checks the copy matches.
func (s *Scratch) copyDiffering(ctx context.Context) error {
	t, err := scanTree(ctx, s.Root)
	if err != nil {
		return err
	}
	diff := diffFiles(s.Snapshot.Files, t.files)
	if len(diff) == 0 {
		return nil
	}
	for _, p := range diff {
		if err := copyEntry(filepath.Join(s.Repo, filepath.FromSlash(p)), filepath.Join(s.Root, filepath.FromSlash(p))); err != nil {
			return err
		}
	}
	if t, err = scanTree(ctx, s.Root); err != nil {
		return err
	}
	if diff := diffFiles(s.Snapshot.Files, t.files); len(diff) > 0 {
		return fmt.Errorf("%s differ from the working tree", namePaths(diff))
	}
	return nil
}

// copyIgnored copies the ignored files of the user's tree (not the run
// records, the lock or the journal, not nested repositories) into the copy:
// a run on the real tree could read them, so the dry run must see them too.
func (s *Scratch) copyIgnored(ctx context.Context) error {
	out, err := runGit(ctx, s.Repo, nil, nil, "ls-files", "-z", "--others", "--ignored", "--exclude-standard")
	if err != nil {
		return err
	}
next:
	for _, p := range splitZ(out) {
		if strings.HasSuffix(p, "/") {
			continue // a nested repository
		}
		for _, skip := range scratchSkipIgnored {
			if strings.HasPrefix(p, skip) {
				continue next
			}
		}
		dst := filepath.Join(s.Root, filepath.FromSlash(p))
		if _, err := os.Lstat(dst); err == nil {
			continue // tracked or untracked content is already there
		}
		if err := copyEntry(filepath.Join(s.Repo, filepath.FromSlash(p)), dst); err != nil {
			return err
		}
	}
	return nil
}

// copyEntry copies a regular file (bytes and permission bits) or a symlink;
// anything else, or a path that vanished, is skipped.
func copyEntry(src, dst string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		if vanished(err) {
			return nil
		}
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	case fi.Mode().IsRegular():
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
			return err
		}
		return os.Chmod(dst, fi.Mode().Perm()) // WriteFile is subject to umask
	}
	return nil
}

// Map returns the path inside the copy of p, a path inside the copied work
// tree; a path outside it is returned as it is.
func (s *Scratch) Map(p string) string {
	if p == "" {
		return p
	}
	rel, err := filepath.Rel(s.Repo, p)
	if err != nil || !filepath.IsLocal(rel) {
		if real, rerr := filepath.EvalSymlinks(p); rerr == nil {
			rel, err = filepath.Rel(s.Repo, real)
		}
	}
	if err != nil || !filepath.IsLocal(rel) {
		return p
	}
	return filepath.Join(s.Root, rel)
}

// Remove deletes the copy and its worktree entry. It runs to the end even
// when ctx is cancelled (Ctrl-C), and may be called again.
func (s *Scratch) Remove(ctx context.Context) error {
	if s == nil || s.removed {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	err := removeScratch(ctx, s.Repo, s.Root, s.dir)
	if err == nil {
		s.removed = true
	}
	return err
}

// removeScratch removes a copy's worktree entry and its temporary folder.
// `git worktree remove --force --force` removes the entry of a worktree
// whose folder is already gone too, so no `git worktree prune` is needed
// (which would also prune the user's own worktrees on a missing drive).
func removeScratch(ctx context.Context, repo, root, dir string) error {
	_, wtErr := Run(ctx, repo, "worktree", "remove", "--force", "--force", root)
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the dry run's scratch copy %s: %w", dir, err)
	}
	if wtErr != nil {
		// The folder is gone now: the entry can go too.
		if _, err := Run(ctx, repo, "worktree", "remove", "--force", "--force", root); err != nil && worktreeListed(ctx, repo, root) {
			return fmt.Errorf("remove the dry run's scratch copy: %w", errors.Join(wtErr, err))
		}
	}
	return nil
}

// worktreeListed reports whether root is one of repo's worktrees.
func worktreeListed(ctx context.Context, repo, root string) bool {
	paths, err := worktrees(ctx, repo)
	if err != nil {
		return true
	}
	for _, p := range paths {
		if p == root {
			return true
		}
	}
	return false
}

// worktrees lists the paths of every worktree of repo (the main one first).
func worktrees(ctx context.Context, repo string) ([]string, error) {
	out, err := runGit(ctx, repo, nil, nil, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range splitZ(out) {
		if p, ok := strings.CutPrefix(f, "worktree "); ok {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// PruneScratch removes the scratch copies of repo's dry runs whose process
// is gone (a dry run killed with SIGKILL cannot remove its own): the worktree
// entry and the temporary folder. It returns the copies removed. It costs
// one stat when the repository has no linked worktrees; outside a git
// repository it does nothing.
func PruneScratch(ctx context.Context, repo string) ([]string, error) {
	// The nearest .git above repo: a folder without a worktrees/ inside
	// has no linked worktree to prune.
	for dir := filepath.Clean(repo); ; dir = filepath.Dir(dir) {
		fi, err := os.Lstat(filepath.Join(dir, ".git"))
		if err == nil {
			if fi.IsDir() {
				if _, err := os.Stat(filepath.Join(dir, ".git", "worktrees")); err != nil {
					return nil, nil
				}
			}
			break
		}
		if filepath.Dir(dir) == dir {
			return nil, nil // not in a git repository
		}
	}
	paths, err := worktrees(ctx, repo)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, root := range paths {
		dir := filepath.Dir(root)
		if !strings.HasPrefix(filepath.Base(dir), ScratchPrefix) || scratchLive(dir) {
			continue
		}
		if err := removeScratch(ctx, repo, root, dir); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, root)
	}
	return removed, errors.Join(errs...)
}

// scratchLive reports whether the process named in dir's owner file still
// runs. A missing or unreadable owner file means no live owner: NewScratch
// writes it before the worktree exists.
func scratchLive(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, scratchOwner))
	if err != nil {
		return false
	}
	return owner.Alive(string(b))
}
