// Package owner names a process the way copperhead's records of ownership
// do (the repository lock, a run's reference, a temporary folder): its pid
// and its start time, so a pid that an unrelated process reuses after a
// crash is not mistaken for the owner.
//
// It imports nothing from the module.
package owner

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Self names this process: "<pid> <start time>".
func Self() string { return Of(os.Getpid()) }

// Of names the process pid: "<pid> <start time>", the start time in clock
// ticks since boot (field 22 of /proc/<pid>/stat) or "-" where /proc cannot
// say.
func Of(pid int) string { return fmt.Sprintf("%d %s", pid, startTime(pid)) }

// Parse reads the pid an owner string names and reports whether that
// process still runs: it exists and, when both start times are known, it
// started when the owner did. An empty or malformed owner is pid 0, not
// alive. A bare pid (no start time) is judged by the pid alone.
func Parse(s string) (pid int, alive bool) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return 0, false
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil || pid <= 0 {
		return 0, false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return pid, false
	}
	if len(fields) > 1 && fields[1] != "-" {
		if st := startTime(pid); st != "-" && st != fields[1] {
			return pid, false
		}
	}
	return pid, true
}

// Alive reports whether the process an owner string names still runs.
func Alive(s string) bool {
	_, alive := Parse(s)
	return alive
}

// startTime is the process's start time in clock ticks since boot, or "-".
func startTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "-"
	}
	// The command name (field 2) may hold spaces or parentheses; fields
	// restart after the last ')'.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 20 {
		return "-"
	}
	return f[19]
}
