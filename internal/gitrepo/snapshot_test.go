package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"copperhead/internal/testkit"
)

// TestMain isolates git from the machine's configuration: no global or system
// config (identity, autocrlf, hooksPath), no identity from the environment.
func TestMain(m *testing.M) {
	os.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"} {
		os.Unsetenv(v)
	}
	os.Exit(m.Run())
}

// git runs git in dir and fails the test on error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := runGit(context.Background(), dir, nil, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func writeFile(t *testing.T, root, rel, body string, perm os.FileMode) {
	t.Helper()
	testkit.WriteFile(t, root, rel, body, perm)
}

// userWork leaves the user's own work in dir before a run (allow-dirty):
// a staged and then unstaged edit of SPEC.md, an unstaged BOM.md edit, a
// staged new file, untracked files (one private, one executable) and an
// untracked symlink.
func userWork(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, dir, "docs/SPEC.md", "# Spec\n\n- sleep_current_uA: 20\n", 0o644)
	git(t, dir, "add", "docs/SPEC.md") // staged
	writeFile(t, dir, "docs/SPEC.md", "# Spec\n\n- sleep_current_uA: 18\n", 0o644)
	writeFile(t, dir, "docs/BOM.md", "# BOM (unstaged edit)\n", 0o644)
	writeFile(t, dir, "docs/NOTES.md", "staged new file\n", 0o644)
	git(t, dir, "add", "docs/NOTES.md")
	writeFile(t, dir, "scratch/ideas.txt", "untracked ideas\n", 0o600)
	writeFile(t, dir, "scratch/run.sh", "#!/bin/sh\n", 0o755)
	if err := os.Symlink("../docs/SPEC.md", filepath.Join(dir, "scratch/spec-link")); err != nil {
		t.Fatal(err)
	}
}

// runWork is what a run does over userWork: edits a sheet and BOM.md,
// creates a sheet, deletes the user's untracked file and rewrites the
// executable one without its x bit.
func runWork(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, dir, "hardware/keyer.kicad_sch", "(kicad_sch (edited by run))\n", 0o644)
	writeFile(t, dir, "docs/BOM.md", "# BOM (run edit)\n", 0o644)
	writeFile(t, dir, "hardware/led/led.kicad_sch", "(kicad_sch (new sheet))\n", 0o644)
	os.Remove(filepath.Join(dir, "scratch/ideas.txt"))
	writeFile(t, dir, "scratch/run.sh", "#!/bin/sh\nrm -rf /\n", 0o644)
}

// mustSnapshot takes dir's snapshot, failing t on error.
func mustSnapshot(t *testing.T, dir string, allowDirty bool) *Snapshot {
	t.Helper()
	snap, err := TakeSnapshot(context.Background(), dir, allowDirty)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// rollbackCase is a case of the tests that snapshot a repository, let a
// run change it and roll the run back.
type rollbackCase struct {
	name       string
	allowDirty bool
	before     func(t *testing.T, dir string) // user's uncommitted state
	run        func(t *testing.T, dir string) // what the failed run did
	wantStash  []string                       // in `git stash show -p --include-untracked`; nil: no stash
}

// setUp makes the case's repository in its state before the run and
// returns it with what a rollback must restore: treeView's fingerprints
// and status, and HEAD.
func (tc rollbackCase) setUp(t *testing.T) (dir string, files map[string]string, status, head string) {
	t.Helper()
	dir = newRepo(t, true)
	if tc.before != nil {
		tc.before(t, dir)
	}
	files, status = treeView(t, dir)
	return dir, files, status, strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
}

// checkRestored fails t unless dir's files, git status and HEAD are what
// they were before the run.
func checkRestored(t *testing.T, dir string, wantFiles map[string]string, wantStatus, head string) {
	t.Helper()
	gotFiles, gotStatus := treeView(t, dir)
	if !maps.Equal(gotFiles, wantFiles) {
		t.Errorf("tree not restored: %v", diffFiles(wantFiles, gotFiles))
	}
	if gotStatus != wantStatus {
		t.Errorf("status after rollback:\n%s\nwant:\n%s", gotStatus, wantStatus)
	}
	if h := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")); h != head {
		t.Errorf("HEAD = %s, want %s", h, head)
	}
}

// checkStash fails t unless ref names the one stash entry, its message msg,
// and the entry's patch (untracked files included) holds every want.
func checkStash(t *testing.T, dir, ref, msg string, wants []string) {
	t.Helper()
	if list := git(t, dir, "stash", "list"); !strings.HasPrefix(ref, "stash@{0} (") || list != "stash@{0}: "+msg+"\n" {
		t.Fatalf("ref %q, stash list %q", ref, list)
	}
	show := git(t, dir, "stash", "show", "-p", "--include-untracked", "stash@{0}")
	testkit.ContainsAll(t, "stash", show, wants...)
}

// newRepo makes a repository with one commit: a few design files and the
// .gitignore `init` writes (AC-4.3). identity configures a local user.
func newRepo(t *testing.T, identity bool) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	if identity {
		git(t, dir, "config", "user.name", "Ada Designer")
		git(t, dir, "config", "user.email", "ada@example.com")
	}
	files := map[string]string{
		".gitignore":               ".env\n.copperhead/runs/\n",
		"docs/BOM.md":              "# BOM\n\n| Refdes | Value |\n| --- | --- |\n| R1 | 10k |\n",
		"docs/PINOUT.md":           "# Pinout\n",
		"docs/SPEC.md":             "# Spec\n\n- sleep_current_uA: 25\n",
		"hardware/keyer.kicad_sch": "(kicad_sch (version 20231120)\n  (symbol (lib_id \"Device:R\"))\n)\n",
	}
	for rel, body := range files {
		writeFile(t, dir, rel, body, 0o644)
	}
	writeFile(t, dir, "scripts/fab.sh", "#!/bin/sh\necho fab\n", 0o755)
	git(t, dir, "add", "-A")
	git(t, dir, "-c", "user.name=seed", "-c", "user.email=seed@example.com", "commit", "-q", "-m", "design")
	return dir
}

func TestPreflight(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name       string
		setup      func(t *testing.T, dir string)
		allowDirty bool
		wantErr    string // substring; "" for none
		wantDirty  []string
	}{
		{"clean", nil, false, "", nil},
		{"ignored files are not dirt", func(t *testing.T, dir string) {
			writeFile(t, dir, ".copperhead/runs/01/transcript.jsonl", "{}\n", 0o644)
			writeFile(t, dir, ".env", "KEY=x\n", 0o600)
		}, false, "", nil},
		{"unstaged change", func(t *testing.T, dir string) {
			writeFile(t, dir, "docs/BOM.md", "changed\n", 0o644)
		}, false, "docs/BOM.md); commit or stash them first, or pass --allow-dirty", []string{"docs/BOM.md"}},
		{"staged change and untracked file", func(t *testing.T, dir string) {
			writeFile(t, dir, "docs/SPEC.md", "staged\n", 0o644)
			git(t, dir, "add", "docs/SPEC.md")
			writeFile(t, dir, "notes/todo.md", "x\n", 0o644)
		}, false, "(docs/SPEC.md, notes/todo.md)", []string{"docs/SPEC.md", "notes/todo.md"}},
		{"many paths are counted", func(t *testing.T, dir string) {
			for i := range 7 {
				writeFile(t, dir, fmt.Sprintf("n%d.md", i), "x\n", 0o644)
			}
		}, false, "n0.md, n1.md, n2.md, n3.md, n4.md and 2 more", nil},
		{"dirty with --allow-dirty", func(t *testing.T, dir string) {
			writeFile(t, dir, "docs/BOM.md", "changed\n", 0o644)
			os.Remove(filepath.Join(dir, "docs/PINOUT.md"))
			writeFile(t, dir, "new.md", "x\n", 0o644)
		}, true, "", []string{"docs/BOM.md", "docs/PINOUT.md", "new.md"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := newRepo(t, true)
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			st, err := Preflight(ctx, dir, tc.allowDirty)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				var de *DirtyError
				if !errors.As(err, &de) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want a *DirtyError containing %q", err, tc.wantErr)
				}
			}
			if st == nil {
				t.Fatal("nil status")
			}
			if got := st.Paths(); tc.wantDirty != nil && strings.Join(got, ",") != strings.Join(tc.wantDirty, ",") {
				t.Errorf("paths = %v, want %v", got, tc.wantDirty)
			}
			if st.Dirty() != (tc.wantErr != "" || tc.wantDirty != nil) {
				t.Errorf("Dirty() = %v", st.Dirty())
			}
		})
	}
}

func TestPreflightRefusals(t *testing.T) {
	ctx := context.Background()
	empty := t.TempDir()
	git(t, empty, "init", "-q")
	_, err := Preflight(ctx, empty, true)
	if !errors.Is(err, ErrNoCommits) || !strings.Contains(err.Error(), "has no commits yet; commit the design first") {
		t.Errorf("no commits: err = %v", err)
	}
	_, err = Preflight(ctx, t.TempDir(), true)
	if !errors.Is(err, ErrNotRepo) {
		t.Errorf("not a repo: err = %v", err)
	}
}

// treeState fingerprints the tree and git's view of it: status (what is
// staged vs unstaged) and the untracked list.
func treeView(t *testing.T, dir string) (map[string]string, string) {
	t.Helper()
	h, err := TreeHashes(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return h, git(t, dir, "status", "--porcelain=v1", "--untracked-files=all")
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRollback(t *testing.T) {
	ctx := context.Background()
	tests := []rollbackCase{
		{
			name: "clean failure leaves no stash",
			run: func(t *testing.T, dir string) {
				writeFile(t, dir, ".copperhead/runs/01/transcript.jsonl", "{}\n", 0o644)
			},
		},
		{
			name:       "failed commit that changed nothing: staging undone, no stash",
			allowDirty: true,
			before: func(t *testing.T, dir string) {
				writeFile(t, dir, "docs/BOM.md", "# BOM (unstaged edit)\n", 0o644)
				writeFile(t, dir, "scratch.txt", "untracked\n", 0o644)
			},
			run: func(t *testing.T, dir string) { git(t, dir, "add", "-A") },
		},
		{
			name: "clean start: edit, create, delete",
			run: func(t *testing.T, dir string) {
				writeFile(t, dir, "hardware/keyer.kicad_sch", "(kicad_sch (version 20231120)\n  (symbol (lib_id \"Device:LED\"))\n)\n", 0o644)
				writeFile(t, dir, "docs/LAYOUT.md", "# Layout by the run\n", 0o644)
				os.Remove(filepath.Join(dir, "docs/PINOUT.md"))
				writeFile(t, dir, ".copperhead/runs/01/summary.md", "# run\n", 0o644)
			},
			wantStash: []string{"+  (symbol (lib_id \"Device:LED\"))", "+# Layout by the run", "deleted file mode 100644"},
		},
		{
			name:       "allow-dirty: staged, unstaged and untracked survive; run edits, creates, deletes",
			allowDirty: true,
			before: func(t *testing.T, dir string) {
				userWork(t, dir)
				writeFile(t, dir, ".copperhead/runs/00/transcript.jsonl", "{\"earlier\":true}\n", 0o644)
				writeFile(t, dir, "scratch/odd\nname -x.txt", "a newline in the name\n", 0o644)
			},
			run: func(t *testing.T, dir string) {
				runWork(t, dir)
				os.Remove(filepath.Join(dir, "docs/PINOUT.md"))
				writeFile(t, dir, ".copperhead/runs/01/transcript.jsonl", "{\"run\":1}\n", 0o644)
				git(t, dir, "add", "-A") // a commit attempt staged everything, then failed
			},
			wantStash: []string{"+(kicad_sch (edited by run))", "+# BOM (run edit)", "+(kicad_sch (new sheet))", "deleted file mode 100644"},
		},
		{
			name: "run that committed is undone",
			run: func(t *testing.T, dir string) {
				writeFile(t, dir, "docs/BOM.md", "# BOM committed by run\n", 0o644)
				git(t, dir, "-c", "user.name=r", "-c", "user.email=r@x", "commit", "-q", "-am", "run")
				writeFile(t, dir, "docs/SPEC.md", "# uncommitted after\n", 0o644)
			},
			wantStash: []string{"+# BOM committed by run", "+# uncommitted after"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, wantFiles, wantStatus, head := tc.setUp(t)
			snap := mustSnapshot(t, dir, tc.allowDirty)
			if !maps.Equal(snap.Files, wantFiles) {
				t.Fatalf("snapshot fingerprints differ from the tree:\n%v\n%v", snap.Files, wantFiles)
			}
			if got, _ := treeView(t, dir); !maps.Equal(got, wantFiles) || git(t, dir, "stash", "list") != "" {
				t.Fatal("taking the snapshot changed the tree or the stash list")
			}
			ignored := map[string]string{}
			for _, p := range []string{".copperhead/runs/00/transcript.jsonl"} {
				if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
					ignored[p] = readFile(t, dir, p)
				}
			}

			tc.run(t, dir)
			runFiles, _ := treeView(t, dir)
			cancelled, cancel := context.WithCancel(ctx)
			cancel() // an interrupted run still rolls back
			ref, err := snap.Rollback(cancelled, "01TESTRUN")
			if err != nil {
				t.Fatal(err)
			}

			checkRestored(t, dir, wantFiles, wantStatus, head)
			for p, body := range ignored {
				if readFile(t, dir, p) != body {
					t.Errorf("ignored %s changed", p)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "hardware/led")); err == nil {
				t.Error("folder the run created is still there")
			}
			list := git(t, dir, "stash", "list")
			if tc.wantStash == nil {
				if ref != "" || list != "" {
					t.Fatalf("clean failure left a stash: ref %q, list %q", ref, list)
				}
				return
			}
			checkStash(t, dir, ref, "copperhead failed run 01TESTRUN", tc.wantStash)
			if !tc.allowDirty { // the entry is a real stash: applying it brings the run's work back
				git(t, dir, "stash", "apply", "--quiet", "stash@{0}")
				if got, _ := treeView(t, dir); !maps.Equal(got, runFiles) {
					t.Errorf("stash apply: %v differ from the run's tree", diffFiles(runFiles, got))
				}
			}
		})
	}
}

// TestRollbackIgnoredRunFiles: the run's own records in .copperhead/runs/
// (ignored) survive the rollback, whether they existed before or not.
func TestRollbackIgnoredRunFiles(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, true)
	writeFile(t, dir, ".copperhead/runs/x", "before\n", 0o644)
	snap := mustSnapshot(t, dir, false)
	writeFile(t, dir, ".copperhead/runs/x", "during\n", 0o644)
	writeFile(t, dir, ".copperhead/runs/01/transcript.jsonl", "{}\n", 0o644)
	writeFile(t, dir, "docs/BOM.md", "edited\n", 0o644)
	if _, err := snap.Rollback(ctx, "01"); err != nil {
		t.Fatal(err)
	}
	if readFile(t, dir, ".copperhead/runs/x") != "during\n" || readFile(t, dir, ".copperhead/runs/01/transcript.jsonl") != "{}\n" {
		t.Error("rollback touched ignored files")
	}
}

// TestRollbackRewrittenSameBytes: a run that rewrote a tracked file with its
// own bytes (an edit and its undo, newer mtime) and added an untracked file is
// kept in a stash and restored; `git stash create` exits 1 on the stale stat
// data unless the index is refreshed first.
func TestRollbackRewrittenSameBytes(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, true)
	snap := mustSnapshot(t, dir, false)
	p := filepath.Join(dir, "hardware", "keyer.kicad_sch")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "hardware/keyer.kicad_sch", string(data), 0o644)
	later := time.Now().Add(5 * time.Second)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "openspec/changes/x/proposal.md", "# x\n", 0o644)
	ref, err := snap.Rollback(ctx, "01")
	if err != nil {
		t.Fatal(err)
	}
	if ref == "" {
		t.Error("the run's work was not kept in a stash")
	}
	if _, err := os.Stat(filepath.Join(dir, "openspec")); !os.IsNotExist(err) {
		t.Errorf("openspec/ survived the rollback: %v", err)
	}
	if out := git(t, dir, "status", "--porcelain"); out != "" {
		t.Errorf("tree not clean after rollback: %q", out)
	}
}

// TestRollbackAfterFailedCommit is AC-8.6: `git add -A` fails on an embedded
// repository with no commit checked out, and the rollback still restores.
func TestRollbackAfterFailedCommit(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, true)
	want, wantStatus := treeView(t, dir)
	snap := mustSnapshot(t, dir, false)
	writeFile(t, dir, "docs/BOM.md", "edited by run\n", 0o644)
	git(t, dir, "init", "-q", "vendor/lib")
	writeFile(t, dir, "vendor/lib/README", "nested\n", 0o644)
	_, err := CommitAll(ctx, dir, Message("add a part", "", ""))
	if err == nil || !strings.Contains(err.Error(), "git add -A") || !strings.Contains(err.Error(), "does not have a commit checked out") {
		t.Fatalf("CommitAll err = %v", err)
	}
	ref, err := snap.Rollback(ctx, "01FAIL")
	if err != nil || ref == "" {
		t.Fatalf("Rollback = %q, %v", ref, err)
	}
	got, gotStatus := treeView(t, dir)
	if !maps.Equal(got, want) || gotStatus != wantStatus {
		t.Errorf("not restored: %v\n%s", diffFiles(want, got), gotStatus)
	}
	gitDir := strings.TrimSpace(git(t, dir, "rev-parse", "--absolute-git-dir"))
	if b, err := os.ReadFile(filepath.Join(gitDir, NestedDir, "01FAIL", "vendor/lib/README")); err != nil || string(b) != "nested\n" {
		t.Errorf("nested repository not kept: %v", err)
	}
}

// TestRollbackKeepsNestedRepo: a nested repository present at the snapshot is
// left alone.
func TestRollbackKeepsNestedRepo(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, true)
	git(t, dir, "init", "-q", "vendor/lib")
	writeFile(t, dir, "vendor/lib/README", "nested\n", 0o644)
	snap := mustSnapshot(t, dir, true)
	if strings.Join(snap.Nested, ",") != "vendor/lib/" {
		t.Fatalf("Nested = %v", snap.Nested)
	}
	writeFile(t, dir, "vendor/lib/README", "edited\n", 0o644)
	writeFile(t, dir, "docs/BOM.md", "edited\n", 0o644)
	if _, err := snap.Rollback(ctx, "01"); err != nil {
		t.Fatal(err)
	}
	if readFile(t, dir, "vendor/lib/README") != "edited\n" {
		t.Error("rollback touched the nested repository")
	}
}

// failOpen makes openFile fail for one path, the way an unreadable file
// would for a non-root user (tests here run as root, which reads anything).
func failOpen(t *testing.T, rel string, err error) {
	t.Helper()
	orig := openFile
	t.Cleanup(func() { openFile = orig })
	openFile = func(name string) (io.ReadCloser, error) {
		if filepath.ToSlash(name) == rel || strings.HasSuffix(filepath.ToSlash(name), "/"+rel) {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return orig(name)
	}
}

func TestSnapshotUnreadableUntracked(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, true)
	writeFile(t, dir, "scratch/secret.txt", "x\n", 0o644)
	failOpen(t, "scratch/secret.txt", fs.ErrPermission)
	_, err := TakeSnapshot(ctx, dir, true)
	var ue *UnreadableError
	if !errors.As(err, &ue) || ue.Path != "scratch/secret.txt" || !strings.Contains(err.Error(), "cannot snapshot untracked file scratch/secret.txt") {
		t.Fatalf("err = %v", err)
	}
}

func TestSnapshotUnreadableUntrackedAsUser(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a mode-000 file")
	}
	dir := newRepo(t, true)
	writeFile(t, dir, "secret.txt", "x\n", 0o000)
	_, err := TakeSnapshot(context.Background(), dir, true)
	var ue *UnreadableError
	if !errors.As(err, &ue) || ue.Path != "secret.txt" {
		t.Fatalf("err = %v", err)
	}
}

func TestSnapshotSkipsVanishedUntracked(t *testing.T) {
	dir := newRepo(t, true)
	writeFile(t, dir, "gone.txt", "x\n", 0o644)
	writeFile(t, dir, "kept.txt", "y\n", 0o644)
	failOpen(t, "gone.txt", fs.ErrNotExist) // deleted between listing and reading
	snap, err := TakeSnapshot(context.Background(), dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(snap.Untracked, ",") != "kept.txt" {
		t.Errorf("Untracked = %v", snap.Untracked)
	}
	if _, ok := snap.Files["gone.txt"]; ok {
		t.Error("vanished file in Files")
	}
}

func TestSnapshotRefusesDirty(t *testing.T) {
	dir := newRepo(t, true)
	writeFile(t, dir, "docs/BOM.md", "x\n", 0o644)
	_, err := TakeSnapshot(context.Background(), dir, false)
	var de *DirtyError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v", err)
	}
}

func TestChangedAndDiff(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, true)
	writeFile(t, dir, "docs/BOM.md", "# BOM (user's own edit)\n", 0o644) // not the run's
	writeFile(t, dir, "scratch.txt", "user scratch\n", 0o644)
	snap := mustSnapshot(t, dir, true)
	if d, err := snap.Diff(ctx); err != nil || d != "" {
		t.Fatalf("diff before any change = %q, %v", d, err)
	}
	_, status := treeView(t, dir)
	writeFile(t, dir, "hardware/keyer.kicad_sch", "(kicad_sch (version 20231120)\n  (symbol (lib_id \"Device:LED\"))\n)\n", 0o644)
	writeFile(t, dir, "docs/DECISIONS.md", "# Decisions\n\nnew\n", 0o644)
	os.Remove(filepath.Join(dir, "docs/PINOUT.md"))

	changed, err := snap.Changed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(changed, ","); got != "docs/DECISIONS.md,docs/PINOUT.md,hardware/keyer.kicad_sch" {
		t.Errorf("Changed = %s", got)
	}
	d, err := snap.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	testkit.ContainsAll(t, "diff", d,
		"diff --git a/docs/DECISIONS.md b/docs/DECISIONS.md\nnew file mode 100644",
		"+# Decisions",
		"diff --git a/docs/PINOUT.md b/docs/PINOUT.md\ndeleted file mode 100644",
		"-  (symbol (lib_id \"Device:R\"))\n+  (symbol (lib_id \"Device:LED\"))",
	)
	if strings.Contains(d, "user's own edit") || strings.Contains(d, "scratch.txt") {
		t.Errorf("diff shows the user's pre-run changes:\n%s", d)
	}
	// --dry-run: after printing the diff the tree goes back, with no stash.
	if err := snap.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	if got, gotStatus := treeView(t, dir); !maps.Equal(got, snap.Files) || gotStatus != status {
		t.Errorf("Restore left %v\n%s\nwant status\n%s", diffFiles(snap.Files, got), gotStatus, status)
	}
	if list := git(t, dir, "stash", "list"); list != "" {
		t.Errorf("Restore left a stash: %q", list)
	}
}

// TestSnapshotWithoutIdentity: snapshots and rollbacks write commits (stash
// create, commit-tree) and must not need a configured identity.
func TestSnapshotWithoutIdentity(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, false)
	writeFile(t, dir, "docs/BOM.md", "dirty\n", 0o644)
	want, _ := treeView(t, dir)
	snap := mustSnapshot(t, dir, true)
	writeFile(t, dir, "docs/BOM.md", "run\n", 0o644)
	if ref, err := snap.Rollback(ctx, "01"); err != nil || ref == "" {
		t.Fatalf("Rollback = %q, %v", ref, err)
	}
	if got, _ := treeView(t, dir); !maps.Equal(got, want) {
		t.Error("not restored")
	}
}

func TestRunGitErrorIsOneLine(t *testing.T) {
	_, err := runGit(context.Background(), t.TempDir(), nil, nil, "rev-parse", "HEAD")
	if err == nil || strings.Contains(err.Error(), "\n") || exitCode(err) != 128 {
		t.Fatalf("err = %q (exit %d)", err, exitCode(err))
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Error("exit error not wrapped")
	}
}
