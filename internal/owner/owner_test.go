package owner

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

func TestAlive(t *testing.T) {
	// A process that has exited: its pid names nobody (or, reused, a
	// process with another start time).
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := Of(cmd.Process.Pid)
	self := Self()
	for _, tc := range []struct {
		name  string
		owner string
		want  bool
	}{
		{"this process", self, true},
		{"this process by pid alone", strconv.Itoa(os.Getpid()), true},
		{"this pid, another start time", strconv.Itoa(os.Getpid()) + " 1", false},
		{"an exited process", dead, false},
		{"empty", "", false},
		{"not a pid", "abc 12", false},
		{"pid 0", "0 12", false},
		{"negative", "-5 12", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Alive(tc.owner); got != tc.want {
				t.Errorf("Alive(%q) = %v, want %v", tc.owner, got, tc.want)
			}
		})
	}
}

func TestParseNamesThePid(t *testing.T) {
	pid, alive := Parse(Self())
	if pid != os.Getpid() || !alive {
		t.Errorf("Parse(Self()) = %d, %v; want %d, true", pid, alive, os.Getpid())
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "1 2", Self(), "x", "99999999999999999999 1", "1 - extra"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pid, alive := Parse(s)
		if alive && pid <= 0 {
			t.Errorf("Parse(%q) = %d alive", s, pid)
		}
	})
}
