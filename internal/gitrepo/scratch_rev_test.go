package gitrepo

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewScratchAt: a commit checked out outside the repository holds that
// commit's files exactly, runs no checkout hook, leaves the user's status,
// index, stash and refs as they were (uncommitted work included), and is
// removed without a trace; a copy whose process died is pruned.
func TestNewScratchAt(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ctx := context.Background()
	repo := dirtyRepo(t)
	first := strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))
	// A post-checkout hook that would leave a mark if it ran.
	mark := filepath.Join(t.TempDir(), "hook-ran")
	writeFile(t, repo, ".git/hooks/post-checkout", "#!/bin/sh\ntouch "+mark+"\n", 0o755)
	before := repoState(t, repo)

	c, err := ResolveCommit(ctx, repo, "HEAD")
	if err != nil || c != first {
		t.Fatalf("ResolveCommit(HEAD) = %q, %v; want %s", c, err, first)
	}
	for _, bad := range []string{"nosuchrev", "", "--all", "HEAD~5"} {
		if _, err := ResolveCommit(ctx, repo, bad); err == nil {
			t.Errorf("ResolveCommit(%q) succeeded", bad)
		}
	}

	s, err := NewScratchAt(ctx, repo, first)
	if err != nil {
		t.Fatal(err)
	}
	if rel, err := filepath.Rel(s.Repo, s.Root); err == nil && filepath.IsLocal(rel) {
		t.Errorf("the checkout %s is inside the repository", s.Root)
	}
	// The commit's bytes, not the user's uncommitted ones.
	if got := readFile(t, s.Root, "docs/SPEC.md"); got != "# Spec\n\n- sleep_current_uA: 25\n" {
		t.Errorf("SPEC.md in the checkout: %q", got)
	}
	if got := readFile(t, s.Root, "docs/PINOUT.md"); got != "# Pinout\n" {
		t.Errorf("PINOUT.md (deleted in the user's tree) in the checkout: %q", got)
	}
	if _, err := os.Stat(filepath.Join(s.Root, "notes")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("untracked files reached the checkout")
	}
	if _, err := os.Stat(mark); err == nil {
		t.Errorf("the post-checkout hook ran")
	}
	if after := repoState(t, repo); after != before {
		t.Errorf("the checkout changed the user's repository:\n%s\n---\n%s", before, after)
	}
	if err := s.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(s.Root)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the checkout's folder is still there")
	}
	if wts := git(t, repo, "worktree", "list", "--porcelain"); strings.Count(wts, "worktree ") != 1 {
		t.Errorf("worktrees after Remove:\n%s", wts)
	}
	if after := repoState(t, repo); after != before {
		t.Errorf("Remove changed the user's repository")
	}

	// A checkout whose process died is pruned like a dry run's copy.
	dead, err := NewScratchAt(ctx, repo, first)
	if err != nil {
		t.Fatal(err)
	}
	orphan(t, dead)
	got, err := PruneScratch(ctx, repo)
	if err != nil || len(got) != 1 || got[0] != dead.Root {
		t.Errorf("PruneScratch = %v, %v; want [%s]", got, err, dead.Root)
	}
}
