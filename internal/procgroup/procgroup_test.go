package procgroup

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
	// The child is gone (or a zombie awaiting init): signal 0 fails, or
	// /proc says it is dead.
	for range 50 {
		if err := syscall.Kill(pid, 0); err != nil {
			return
		}
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("the child %d outlived its group's cancellation", pid)
}
