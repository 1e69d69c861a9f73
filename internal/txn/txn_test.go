package txn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var names = []string{"a.kicad_sch", "sub/b.kicad_sch", "docs/BOM.md"}

func seed(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	for _, n := range names {
		p := filepath.Join(repo, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("old "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

func newFiles(repo string) []File {
	var fs []File
	for _, n := range names {
		// Large enough that a torn write would show.
		fs = append(fs, File{Path: filepath.Join(repo, n), Data: bytes.Repeat([]byte("new "+n+"\n"), 5000)})
	}
	return fs
}

// TestMain lets the test binary act as a committer that is SIGKILLed at
// a chosen point of Commit.
func TestMain(m *testing.M) {
	if repo := os.Getenv("TXN_LOCK_COUNT_REPO"); repo != "" {
		os.Exit(countUnderLock(repo))
	}
	if repo := os.Getenv("TXN_CRASH_REPO"); repo != "" {
		point := os.Getenv("TXN_CRASH_AT")
		hook = func(p string) {
			if p == point {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				time.Sleep(time.Minute)
			}
		}
		if err := Commit(repo, newFiles(repo)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestKilledCommitIsAllOrNothing kills a real committing process at each
// point of the write and checks every file is wholly old or wholly new
// right after, and that Recover leaves the set all new (killed after the
// commit point) or all old (before it).
func TestKilledCommitIsAllOrNothing(t *testing.T) {
	tests := []struct {
		point   string
		wantNew bool
	}{
		{"prepared", false},
		{"committed", true},
		{"wrote 0", true},
		{"wrote 1", true},
		{"none", true}, // not killed
	}
	for _, tc := range tests {
		t.Run(tc.point, func(t *testing.T) {
			repo := seed(t)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "TXN_CRASH_REPO="+repo, "TXN_CRASH_AT="+tc.point)
			err := cmd.Run()
			killed := false
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
					killed = true
				} else {
					t.Fatalf("committer failed: %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if killed != (tc.point != "none") {
				t.Fatalf("killed = %v at point %s", killed, tc.point)
			}
			want := newFiles(repo)
			state := func() (nOld, nNew int) {
				for i, n := range names {
					b, err := os.ReadFile(filepath.Join(repo, n))
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case string(b) == "old "+n+"\n":
						nOld++
					case bytes.Equal(b, want[i].Data):
						nNew++
					default:
						t.Fatalf("%s is neither wholly old nor wholly new (%d bytes)", n, len(b))
					}
				}
				return
			}
			state()
			// A kill inside a file's atomic write leaves its temporary file.
			stray := filepath.Join(repo, "sub", ".b.kicad_sch.tmp-123")
			if tc.wantNew && killed {
				os.WriteFile(stray, []byte("half"), 0o644)
			}
			if _, err := Recover(repo); err != nil {
				t.Fatal(err)
			}
			nOld, nNew := state()
			if tc.wantNew && nNew != len(names) || !tc.wantNew && nOld != len(names) {
				t.Fatalf("after Recover: %d old, %d new files; want all %s", nOld, nNew, map[bool]string{true: "new", false: "old"}[tc.wantNew])
			}
			if _, err := os.Stat(stray); err == nil {
				t.Fatal("Recover left a killed write's temporary file")
			}
			if entries, _ := os.ReadDir(filepath.Join(repo, Dir)); len(entries) != 0 {
				t.Fatalf("journal left behind: %v", entries)
			}
		})
	}
}

func TestResolveRefuses(t *testing.T) {
	repo := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "victim.md"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(repo, "docs"), 0o755)
	os.Symlink(outside, filepath.Join(repo, "linkdir"))
	os.Symlink(filepath.Join(outside, "victim.md"), filepath.Join(repo, "docs", "BOM.md"))
	if err := syscall.Mkfifo(filepath.Join(repo, "fifo.kicad_sch"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{"../escape.md", "outside the repository"},
		{"linkdir/BOM.md", "outside the repository"},
		{"linkdir/new/deep.md", "outside the repository"},
		{"docs/BOM.md", "outside the repository"},
		{"fifo.kicad_sch", "not a regular file"},
		{"docs", "not a regular file"},
	}
	for _, tc := range tests {
		_, err := Resolve(repo, tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolve(%s) = %v, want an error saying %q", tc.path, err, tc.want)
		}
	}
	for _, ok := range []string{"docs/NEW.md", "new/dir/file.md", "docs/../x.md"} {
		if _, err := Resolve(repo, ok); err != nil {
			t.Errorf("Resolve(%s): %v", ok, err)
		}
	}
	// Commit refuses the whole set when one path escapes, writing nothing.
	err := Commit(repo, []File{{Path: filepath.Join(repo, "docs", "NEW.md"), Data: []byte("n")}, {Path: filepath.Join(repo, "docs", "BOM.md"), Data: []byte("evil")}})
	if err == nil {
		t.Fatal("Commit through a symlink out of the repository succeeded")
	}
	if _, err := os.Stat(filepath.Join(repo, "docs", "NEW.md")); err == nil {
		t.Fatal("Commit wrote part of a refused set")
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "victim.md")); string(b) != "x" {
		t.Fatal("the file outside the repository was changed")
	}
}

func TestLock(t *testing.T) {
	repo := t.TempDir()
	ctx := context.Background()
	lock := filepath.Join(repo, LockFile)
	// Another live process holds it (pid 1, with its real start time).
	unlockA, err := Lock(ctx, repo, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	unlockA()
	os.MkdirAll(filepath.Dir(lock), 0o755)
	os.WriteFile(lock, []byte(lockText(1)), 0o644)
	_, err = Lock(ctx, repo, 300*time.Millisecond)
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "pid 1)") {
		t.Fatalf("Lock held by pid 1 = %v, want busy naming pid 1", err)
	}
	// A waiter gets the lock once the holder lets go.
	go func() { time.Sleep(200 * time.Millisecond); os.Remove(lock) }()
	unlock, err := Lock(ctx, repo, 5*time.Second)
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	// Reentrant within the process; the file goes with the outermost unlock.
	inner, err := Lock(ctx, repo, 0)
	if err != nil {
		t.Fatalf("nested Lock: %v", err)
	}
	inner()
	if _, err := os.Stat(lock); err != nil {
		t.Fatal("nested unlock removed the outer lock")
	}
	unlock()

	// A lock left by a dead process is taken over.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	os.WriteFile(lock, []byte(fmt.Sprintf("%d 1\n", dead.Process.Pid)), 0o644)
	unlock3, err := Lock(ctx, repo, time.Second)
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	unlock3()
	// A live pid whose start time differs (a reused pid) is stale too.
	os.MkdirAll(filepath.Dir(lock), 0o755)
	os.WriteFile(lock, []byte(fmt.Sprintf("%d 999999999999\n", os.Getpid())), 0o644)
	if unlock4, err := Lock(ctx, repo, time.Second); err != nil {
		t.Fatalf("lock with a reused pid not taken over: %v", err)
	} else {
		unlock4()
	}
	if _, err := os.Stat(lock); err == nil {
		t.Fatal("lock file left after unlock")
	}
}

// TestStateIsInvisibleToGit: the lock and the journal never show as
// uncommitted changes (a do run refuses a dirty tree).
func TestStateIsInvisibleToGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := t.TempDir()
	if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	unlock, err := Lock(context.Background(), repo, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	os.MkdirAll(filepath.Join(repo, Dir, "0123"), 0o755)
	os.WriteFile(filepath.Join(repo, Dir, "0123", "journal.json"), []byte("{}"), 0o644)
	out, err := exec.Command("git", "-C", repo, "status", "--porcelain", "--untracked-files=all").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 0 {
		t.Fatalf("git status shows copperhead's state:\n%s", out)
	}
}

// TestLockLeavesNoTrace: a lock taken in a repository without .copperhead
// removes what it created when nothing else was written there.
func TestLockLeavesNoTrace(t *testing.T) {
	repo := t.TempDir()
	unlock, err := Lock(context.Background(), repo, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if _, err := os.Stat(filepath.Join(repo, ".copperhead")); err == nil {
		t.Fatal(".copperhead left behind by a lock alone")
	}
	// With a journal written meanwhile, the state folder stays.
	unlock, _ = Lock(context.Background(), repo, time.Second)
	os.MkdirAll(filepath.Join(repo, Dir), 0o755)
	unlock()
	if _, err := os.Stat(filepath.Join(repo, Dir)); err != nil {
		t.Fatal("the lock's tidying removed a journal folder")
	}
}

// TestCommitRemoves: a transaction can remove files (a stale output) with
// its writes; a removal of a file already gone is no change; a symbolic
// link is removed itself, never its target; a removal outside the
// repository is refused before anything is written; and a kill after the
// commit point is rolled forward by Recover, removals included.
func TestCommitRemoves(t *testing.T) {
	t.Run("commit", func(t *testing.T) {
		repo := seed(t)
		outside := filepath.Join(t.TempDir(), "target")
		if err := os.WriteFile(outside, []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(repo, "link.csv")); err != nil {
			t.Fatal(err)
		}
		err := Commit(repo, []File{
			{Path: filepath.Join(repo, "a.kicad_sch"), Data: []byte("new a\n")},
			{Path: filepath.Join(repo, "docs/BOM.md"), Remove: true},
			{Path: filepath.Join(repo, "gone.csv"), Remove: true},
			{Path: filepath.Join(repo, "link.csv"), Remove: true},
		})
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(repo, "a.kicad_sch")); string(b) != "new a\n" {
			t.Errorf("a.kicad_sch = %q", b)
		}
		for _, n := range []string{"docs/BOM.md", "link.csv"} {
			if _, err := os.Lstat(filepath.Join(repo, n)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s not removed: %v", n, err)
			}
		}
		if b, err := os.ReadFile(outside); err != nil || string(b) != "keep" {
			t.Errorf("the link's target was touched: %q %v", b, err)
		}
	})
	t.Run("outside", func(t *testing.T) {
		repo := seed(t)
		outside := t.TempDir()
		if err := os.WriteFile(filepath.Join(outside, "x"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		err := Commit(repo, []File{
			{Path: filepath.Join(repo, "a.kicad_sch"), Data: []byte("new a\n")},
			{Path: filepath.Join(outside, "x"), Remove: true},
		})
		if err == nil {
			t.Fatal("a removal outside the repository was not refused")
		}
		if b, _ := os.ReadFile(filepath.Join(repo, "a.kicad_sch")); string(b) != "old a.kicad_sch\n" {
			t.Errorf("a.kicad_sch written despite the refusal: %q", b)
		}
		if _, err := os.Stat(filepath.Join(outside, "x")); err != nil {
			t.Errorf("the outside file was removed: %v", err)
		}
	})
	t.Run("killed after the commit point", func(t *testing.T) {
		repo := seed(t)
		prev := SetHook(func(p string) {
			if p == "committed" {
				panic("killed")
			}
		})
		func() {
			defer func() { _ = recover() }()
			_ = Commit(repo, []File{
				{Path: filepath.Join(repo, "a.kicad_sch"), Data: []byte("new a\n")},
				{Path: filepath.Join(repo, "docs/BOM.md"), Remove: true},
			})
		}()
		SetHook(prev)
		if _, err := os.Stat(filepath.Join(repo, "docs/BOM.md")); err != nil {
			t.Fatalf("the kill came before any write, yet BOM.md is gone: %v", err)
		}
		done, err := Recover(repo)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(done, ",") != "a.kicad_sch,docs/BOM.md" {
			t.Errorf("recovered %v", done)
		}
		if _, err := os.Stat(filepath.Join(repo, "docs/BOM.md")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Recover did not remove docs/BOM.md: %v", err)
		}
	})
}

// countUnderLock is one process of TestLockExcludesProcesses: under the
// lock it reads a counter, waits, and writes it back one higher, so two
// holders at once lose an increment.
func countUnderLock(repo string) int {
	unlock, err := Lock(context.Background(), repo, time.Minute)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer unlock()
	p := filepath.Join(repo, "count")
	b, _ := os.ReadFile(p)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	time.Sleep(5 * time.Millisecond)
	if err := os.WriteFile(p, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	return 0
}

// TestLockExcludesProcesses: processes started together take the lock one
// at a time; none sees another's lock half written and takes it for a
// stale one (the lock used to be created empty and written after).
func TestLockExcludesProcesses(t *testing.T) {
	repo := t.TempDir()
	const procs = 12
	cmds := make([]*exec.Cmd, procs)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), "TXN_LOCK_COUNT_REPO="+repo)
		cmds[i].Stderr = os.Stderr
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("a locking process failed: %v", err)
		}
	}
	b, err := os.ReadFile(filepath.Join(repo, "count"))
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(procs) {
		t.Fatalf("count %q after %d processes (%v): two held the lock at once", b, procs, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(repo, filepath.FromSlash(StateDir))); len(entries) > 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the state folder keeps %v", names)
	}
}

// TestRecoverFinishesADeletion: a kill while a finished journal is deleted
// leaves either its ".done.tmp" folder or (from a version that deleted it
// in place) a committed folder whose journal.json is already gone; the
// next Recover removes either, changes no file and reports nothing done.
func TestRecoverFinishesADeletion(t *testing.T) {
	for _, name := range []string{"0123456789abcdef.done.tmp", "0123456789abcdef"} {
		t.Run(name, func(t *testing.T) {
			repo := t.TempDir()
			dir := filepath.Join(repo, filepath.FromSlash(Dir), name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "0.new"), []byte("left over"), 0o644); err != nil {
				t.Fatal(err)
			}
			done, err := Recover(repo)
			if err != nil || len(done) != 0 {
				t.Fatalf("Recover = %v, %v; want nothing done and no error", done, err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("%s is still there: %v", name, err)
			}
		})
	}
}
