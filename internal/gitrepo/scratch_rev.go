package gitrepo

import (
	"context"
	"copperhead/internal/owner"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ResolveCommit returns the full hash of the commit rev names in the
// repository at repo ("HEAD", a branch, a tag, a short hash, "main~2"). A
// rev that names no commit is an error quoting it.
func ResolveCommit(ctx context.Context, repo, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("%q is not a revision", rev)
	}
	out, err := runGit(ctx, repo, nil, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	hash := strings.TrimSpace(string(out))
	if err != nil || hash == "" {
		return "", fmt.Errorf("%s names no commit in %s", rev, repo)
	}
	return hash, nil
}

// NewScratchAt checks out commit, read-only in spirit, into a detached
// linked worktree in a temporary folder outside the repository at repo
// (named like NewScratch's, so PruneScratch removes one a killed process
// left behind). Unlike NewScratch it holds the commit exactly as recorded,
// not the user's uncommitted state. Only the worktree entry
// (<git dir>/worktrees/) is written: not the user's work tree, index, refs
// or stash list, and no checkout hook runs. The caller must Remove it.
func NewScratchAt(ctx context.Context, repo, commit string) (_ *Scratch, err error) {
	top, err := Run(ctx, repo, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("checkout of %s: %w", commit, err)
	}
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	dir, err := os.MkdirTemp("", ScratchPrefix)
	if err != nil {
		return nil, fmt.Errorf("checkout of %s: %w", commit, err)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if rel, err := filepath.Rel(top, dir); err == nil && filepath.IsLocal(rel) {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("checkout of %s: the temporary folder %s is inside the repository; point TMPDIR outside it", commit, filepath.Dir(dir))
	}
	s := &Scratch{Root: filepath.Join(dir, filepath.Base(top)), Repo: top, dir: dir}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Remove(ctx))
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, scratchOwner), []byte(owner.Self()+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("checkout of %s: %w", commit, err)
	}
	// core.hooksPath=/dev/null: no post-checkout hook runs for a copy the
	// user never asked for.
	if _, err := Run(ctx, top, "-c", "core.hooksPath=/dev/null", "worktree", "add", "--quiet", "--detach", s.Root, commit); err != nil {
		return nil, fmt.Errorf("checkout of %s: %w", commit, err)
	}
	return s, nil
}
