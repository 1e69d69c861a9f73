// Package procgroup is how copperhead runs a subprocess it wraps (kicad-cli,
// openspec, poppler, make, the saved-login CLIs): as the leader of its own
// process group, so a timeout or a cancellation ends it and every process
// it started (a node wrapper's native binary, a make's compiler), and with
// its output captured up to a bound, so a runaway program cannot exhaust
// memory.
//
// It imports nothing from the module.
package procgroup

import (
	"bytes"
	"os/exec"
	"syscall"
)

// Own makes cmd (made by exec.CommandContext, not yet started) the leader
// of a new process group, and its context's end SIGKILL the whole group.
// Where the kernel can (Linux), the program is also killed when copperhead
// dies, even by SIGKILL: its own group does not get the terminal's signals,
// so otherwise a kicad-cli would run on, writing into a run folder nobody
// removes.
func Own(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		// A negative pid signals every process in the group cmd leads.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// YieldNice is the niceness of a run that yields the CPU to the runs
// beside it (Yield). Measured on two cores (the video demo's DRC, 8
// rounds each): DRC alone 4.6 s; beside kicad-cli's ERC at the same
// priority 16% slower, with ERC at niceness 5 3.5%, at 10 the same as
// alone. 10 rather than 19 keeps a yielding run from starving behind
// every other program on a busy machine.
const YieldNice = 10

// Yield lowers the priority of the process group led by pid (started by a
// cmd that Own made) to YieldNice, so it runs on what the processes at
// normal priority leave idle: for a run beside a longer one that it would
// otherwise slow. The scheduler is work-conserving: on an idle core a
// yielding run runs at full speed. Called right after the start, before
// the program makes its threads: each thread it makes inherits the value.
// It is a scheduling hint, so a failure (the group already gone) is
// ignored.
func Yield(pid int) {
	_ = syscall.Setpriority(syscall.PRIO_PGRP, pid, YieldNice)
}

// Start starts cmd (made by Own) and, with yield, yields its group the CPU
// at once (Yield), before the program makes its threads.
func Start(cmd *exec.Cmd, yield bool) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	if yield {
		Yield(cmd.Process.Pid)
	}
	return nil
}

// Capped is an io.Writer that keeps the first Max bytes written to it and
// drops the rest, noting that it did (Over). Writes never fail, so the
// program is never stopped by a full pipe.
type Capped struct {
	Max  int
	buf  bytes.Buffer
	over bool
}

func (c *Capped) Write(p []byte) (int, error) {
	if room := c.Max - c.buf.Len(); len(p) > room {
		c.over = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// Bytes is what was kept.
func (c *Capped) Bytes() []byte { return c.buf.Bytes() }

// Over reports whether more than Max bytes arrived.
func (c *Capped) Over() bool { return c.over }
