package procgroup

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCapped(t *testing.T) {
	for _, tc := range []struct {
		max    int
		writes []string
		want   string
		over   bool
	}{
		{10, []string{"abc", "def"}, "abcdef", false},
		{4, []string{"abc", "def"}, "abcd", true},
		{3, []string{"abc"}, "abc", false},
		{0, []string{"x"}, "", true},
	} {
		c := &Capped{Max: tc.max}
		for _, w := range tc.writes {
			if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
				t.Errorf("Write(%q) = %d, %v: a capped write must take everything", w, n, err)
			}
		}
		if string(c.Bytes()) != tc.want || c.Over() != tc.over {
			t.Errorf("max %d, writes %q: kept %q over=%v, want %q over=%v", tc.max, tc.writes, c.Bytes(), c.Over(), tc.want, tc.over)
		}
	}
}

// TestOwnKillsTheGroup: a timeout ends the program and the child it
// started, not just the program (a CLI's wrapper and its native binary).
func TestOwnKillsTheGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", `sleep 60 & echo $! > "$1"; wait`, "sh", pidFile)
	Own(cmd)
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err == nil {
		t.Fatal("the program was not stopped")
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the child %d outlived its group's cancellation", pid)
	}
}

// gone reports whether pid has ended (or is a zombie awaiting its reaper:
// signal 0 fails, or /proc says it is dead), polling for up to a second.
func gone(pid int) bool {
	for range 50 {
		if err := syscall.Kill(pid, 0); err != nil {
			return true
		}
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// TestOwnDiesWithTheParent: a program Own started does not outlive
// copperhead killed with SIGKILL (its own group gets no signal from the
// terminal or from a kill of copperhead's group). The parent is this test
// binary run again (TestHelperParent), which starts sleep and waits.
func TestOwnDiesWithTheParent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	parent := exec.Command(os.Args[0], "-test.run=^TestHelperParent$")
	parent.Env = append(os.Environ(), "PROCGROUP_HELPER_PID_FILE="+pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for range 250 {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if pid == 0 {
		parent.Process.Kill()
		parent.Wait()
		t.Fatal("the helper parent never started its child")
	}
	if syscall.Kill(pid, 0) != nil {
		t.Fatalf("the child %d ended before its parent was killed", pid)
	}
	parent.Process.Kill()
	parent.Wait()
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the child %d outlived its parent killed with SIGKILL", pid)
	}
}

// TestHelperParent is TestOwnDiesWithTheParent's parent process: it starts
// sleep through Own, writes its pid and waits to be killed.
func TestHelperParent(t *testing.T) {
	pidFile := os.Getenv("PROCGROUP_HELPER_PID_FILE")
	if pidFile == "" {
		t.Skip("run by TestOwnDiesWithTheParent")
	}
	cmd := exec.CommandContext(context.Background(), "sleep", "60")
	Own(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}

// TestYield: a group Start yields: its leader, and a child it starts later, run at
// YieldNice; one not yielded keeps the parent's niceness. The child reads
// its own niceness from /proc (field 19 of stat) once the leader sees the
// change, so the test does not race the renice.
func TestYield(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	parent, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Getpriority returns 20-nice on Linux.
	base := 20 - parent
	for _, yield := range []bool{true, false} {
		want := base
		if yield {
			want = max(base, YieldNice)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		script := `nice() { cut -d' ' -f19 /proc/$1/stat; }
i=0; while [ "$(nice $$)" != "` + strconv.Itoa(want) + `" ] && [ $i -lt 100 ]; do sleep 0.02; i=$((i+1)); done
nice $$; sh -c 'cut -d" " -f19 /proc/$$/stat'`
		cmd := exec.CommandContext(ctx, "sh", "-c", script)
		Own(cmd)
		var out strings.Builder
		cmd.Stdout = &out
		if err := Start(cmd, yield); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		cancel()
		if err != nil {
			t.Fatalf("yield %v: %v", yield, err)
		}
		got := strings.Fields(out.String())
		w := strconv.Itoa(want)
		if len(got) != 2 || got[0] != w || got[1] != w {
			t.Errorf("yield %v: leader and child niceness %v, want both %s", yield, got, w)
		}
	}
}
