package gitrepo

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fileModes maps every file below dir (not .git) to its type and permission
// bits, symlinks with their target.
func fileModes(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" { // a folder, or a linked worktree's gitlink file
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			v += " -> " + target
		} else {
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		out[filepath.ToSlash(rel)] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// repoState is what a dry run must leave exactly as it was in the user's
// repository: the status, the index, the stash list and every ref.
func repoState(t *testing.T, repo string) string {
	t.Helper()
	return strings.Join([]string{
		git(t, repo, "status", "--porcelain=v1", "--untracked-files=all"),
		git(t, repo, "diff", "--cached", "--binary"),
		git(t, repo, "diff", "--binary"),
		git(t, repo, "stash", "list"),
		git(t, repo, "for-each-ref"),
		git(t, repo, "rev-parse", "HEAD"),
	}, "\n--\n")
}

// dirtyRepo is newRepo with every kind of uncommitted state: a staged
// change, an unstaged one, both on one file, a staged and an unstaged
// deletion, untracked files (one executable, one a symlink, one in a new
// folder), and ignored files a run may read or must not see.
func dirtyRepo(t *testing.T) string {
	t.Helper()
	repo := newRepo(t, true)
	writeFile(t, repo, "docs/BOM.md", "# BOM\n\n| R1 | 22k |\n", 0o644)
	git(t, repo, "add", "docs/BOM.md")
	writeFile(t, repo, "docs/SPEC.md", "# Spec\n\n- sleep_current_uA: 30\n", 0o644)
	writeFile(t, repo, "hardware/keyer.kicad_sch", "(kicad_sch (version 20231120) (staged))\n", 0o644)
	git(t, repo, "add", "hardware/keyer.kicad_sch")
	writeFile(t, repo, "hardware/keyer.kicad_sch", "(kicad_sch (version 20231120) (staged) (and unstaged))\n", 0o644)
	git(t, repo, "rm", "-q", "docs/PINOUT.md")
	os.Remove(filepath.Join(repo, "scripts", "fab.sh"))
	writeFile(t, repo, "scripts/bringup.sh", "#!/bin/sh\necho up\n", 0o755)
	writeFile(t, repo, "notes/new/idea.txt", "an idea\n", 0o600)
	if err := os.Symlink("../docs/SPEC.md", filepath.Join(repo, "notes", "spec-link")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo, ".env", "OPENAI_API_KEY=sk-not-real\n", 0o600)
	writeFile(t, repo, ".copperhead/runs/01OLD/transcript.jsonl", "{}\n", 0o644)
	return repo
}

func TestScratchCopiesTheTree(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		repo  func(*testing.T) string
		dirty bool
	}{
		{"clean", func(t *testing.T) string { return newRepo(t, true) }, false},
		{"dirty", dirtyRepo, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := tc.repo(t)
			beforeState, beforeModes := repoState(t, repo), fileModes(t, repo)
			beforeHashes, err := TreeHashes(ctx, repo)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewScratch(ctx, repo, tc.dirty)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Remove(ctx)
			if strings.HasPrefix(s.Root, repo) || !strings.HasPrefix(filepath.Base(filepath.Dir(s.Root)), ScratchPrefix) {
				t.Errorf("copy at %s: want a %s folder outside the repository", s.Root, ScratchPrefix)
			}
			if filepath.Base(s.Root) != filepath.Base(repo) {
				t.Errorf("copy named %s, want the repository's folder name %s", filepath.Base(s.Root), filepath.Base(repo))
			}
			// Byte for byte, mode for mode, symlinks as links.
			got, err := TreeHashes(ctx, s.Root)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, beforeHashes) {
				t.Errorf("copy fingerprints differ: %v", diffFiles(beforeHashes, got))
			}
			want := maps.Clone(beforeModes)
			delete(want, ".copperhead/runs/01OLD/transcript.jsonl") // the run records stay home
			if gotModes := fileModes(t, s.Root); !maps.Equal(gotModes, want) {
				t.Errorf("copy files and modes differ:\n got %v\nwant %v", gotModes, want)
			}
			// Staged stays staged, unstaged unstaged.
			for _, args := range [][]string{
				{"status", "--porcelain=v1", "--untracked-files=all"},
				{"diff", "--cached", "--binary"},
				{"diff", "--binary"},
			} {
				if a, b := git(t, repo, args...), git(t, s.Root, args...); a != b {
					t.Errorf("git %s differs in the copy:\n%s\nwant\n%s", strings.Join(args, " "), b, a)
				}
			}
			if tc.dirty && git(t, s.Root, "diff", "--cached") == "" {
				t.Errorf("the dirty copy has nothing staged")
			}
			// The user's repository: not a byte, not a ref.
			if st := repoState(t, repo); st != beforeState {
				t.Errorf("the user's repository changed:\n%s\nwas\n%s", st, beforeState)
			}
			if m := fileModes(t, repo); !maps.Equal(m, beforeModes) {
				t.Errorf("the user's files changed")
			}

			if err := s.Remove(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Dir(s.Root)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the copy's folder is still there: %v", err)
			}
			if wts := git(t, repo, "worktree", "list", "--porcelain"); strings.Count(wts, "worktree ") != 1 {
				t.Errorf("worktrees after Remove:\n%s", wts)
			}
			if st := repoState(t, repo); st != beforeState {
				t.Errorf("Remove changed the user's repository:\n%s\nwas\n%s", st, beforeState)
			}
			if err := s.Remove(ctx); err != nil {
				t.Errorf("a second Remove: %v", err)
			}
		})
	}
}

// TestScratchRefusesDirty: without allowDirty a dirty tree is refused as
// TakeSnapshot refuses it, and no temporary folder is left.
func TestScratchRefusesDirty(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	repo := dirtyRepo(t)
	_, err := NewScratch(context.Background(), repo, false)
	var dirty *DirtyError
	if !errors.As(err, &dirty) {
		t.Fatalf("NewScratch on a dirty tree: %v, want a *DirtyError", err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left %v in the temporary folder", entries)
	}
}

// TestScratchOutsideTheRepo: a temporary folder inside the repository
// would put the copy in the user's tree: it is refused, and nothing is left.
func TestScratchOutsideTheRepo(t *testing.T) {
	repo := newRepo(t, true)
	tmp := filepath.Join(repo, "tmp")
	os.Mkdir(tmp, 0o755)
	t.Setenv("TMPDIR", tmp)
	_, err := NewScratch(context.Background(), repo, false)
	if err == nil || !strings.Contains(err.Error(), "inside the repository") {
		t.Fatalf("NewScratch with TMPDIR in the repository: %v", err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
}

// TestPruneScratch: copies whose process is gone (killed with SIGKILL, or
// whose folder was deleted) are removed; a live one is left alone.
func TestPruneScratch(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ctx := context.Background()
	repo := newRepo(t, true)
	if got, err := PruneScratch(ctx, repo); err != nil || len(got) != 0 {
		t.Fatalf("PruneScratch with no copies: %v, %v", got, err)
	}
	live, err := NewScratch(ctx, repo, false)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Remove(ctx)
	dead, err := NewScratch(ctx, repo, false)
	if err != nil {
		t.Fatal(err)
	}
	gone, err := NewScratch(ctx, repo, false)
	if err != nil {
		t.Fatal(err)
	}
	// dead's process has exited; gone's folder was cleaned away.
	orphan(t, dead)
	os.RemoveAll(filepath.Dir(gone.Root))
	before := git(t, repo, "for-each-ref") + git(t, repo, "stash", "list")

	got, err := PruneScratch(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !strings.Contains(strings.Join(got, " "), dead.Root) || !strings.Contains(strings.Join(got, " "), gone.Root) {
		t.Errorf("pruned %v, want %s and %s", got, dead.Root, gone.Root)
	}
	if _, err := os.Stat(filepath.Dir(dead.Root)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dead copy's folder is still there")
	}
	if _, err := os.Stat(live.Root); err != nil {
		t.Errorf("the live copy was removed: %v", err)
	}
	wts := git(t, repo, "worktree", "list", "--porcelain")
	if strings.Count(wts, "worktree ") != 2 || !strings.Contains(wts, live.Root) {
		t.Errorf("worktrees after the prune:\n%s", wts)
	}
	if after := git(t, repo, "for-each-ref") + git(t, repo, "stash", "list"); after != before {
		t.Errorf("the prune changed refs or stashes")
	}
}

// TestScratchMap: paths inside the repository map into the copy, others
// stay as they are.
func TestScratchMap(t *testing.T) {
	s := &Scratch{Root: "/tmp/copperhead-dryrun-1/keyer", Repo: "/home/ada/keyer"}
	for in, want := range map[string]string{
		"/home/ada/keyer":                          "/tmp/copperhead-dryrun-1/keyer",
		"/home/ada/keyer/hardware/keyer.kicad_sch": "/tmp/copperhead-dryrun-1/keyer/hardware/keyer.kicad_sch",
		"/home/ada/other/x.kicad_sch":              "/home/ada/other/x.kicad_sch",
		"":                                         "",
	} {
		if got := s.Map(in); got != want {
			t.Errorf("Map(%q) = %q, want %q", in, got, want)
		}
	}
}

// orphan marks s as owned by a process that has exited, as a killed dry run
// leaves its copy.
func orphan(t *testing.T, s *Scratch) {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(s.Root), scratchOwner), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
