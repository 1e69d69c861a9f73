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
func Own(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// A negative pid signals every process in the group cmd leads.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
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
