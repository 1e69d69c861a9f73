// Package poppler is the one wrapper around Debian's poppler-utils programs
// (pdftotext, pdfinfo): a run in its own process group with a fixed locale
// and no inherited environment, bounded in time and output, killed whole on
// timeout or cancellation, with errors that name the command and quote its
// stderr. The datasheet cache and carter's PDF extractor both run poppler
// through it. It imports only the standard library.
package poppler

import (
	"context"
	"copperhead/internal/procgroup"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// maxQuoted caps how much stderr an error quotes, so a chatty failure still
// fits a one-line error.
const maxQuoted = 500

// maxStderr caps the stderr kept from one run.
const maxStderr = 64 << 10

// waitDelay is how long Wait waits for the pipes to close once the process
// group has been killed.
const waitDelay = 5 * time.Second

// Run runs bin with args, bounded by timeout and the caller's context, and
// keeps at most maxOut bytes of stdout: more is an error, so a PDF built to
// expand on extraction stops there.
func Run(ctx context.Context, timeout time.Duration, maxOut int, bin string, args ...string) (stdout, stderr []byte, err error) {
	label := bin + " " + strings.Join(args, " ")
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, bin, args...)
	// Poppler needs no environment of ours; a fixed locale keeps its output
	// stable.
	cmd.Env = []string{"LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"}
	cmd.Dir = os.TempDir()
	procgroup.Own(cmd)
	cmd.WaitDelay = waitDelay
	out, errb := &procgroup.Capped{Max: maxOut}, &procgroup.Capped{Max: maxStderr}
	cmd.Stdout, cmd.Stderr = out, errb
	runErr := cmd.Run()
	stdout, stderr = out.Bytes(), errb.Bytes()
	switch {
	case runCtx.Err() != nil && ctx.Err() == nil:
		return stdout, stderr, fmt.Errorf("%s: timed out after %s", label, timeout)
	case ctx.Err() != nil:
		return stdout, stderr, fmt.Errorf("%s: %w", label, ctx.Err())
	case runErr != nil:
		return stdout, stderr, fmt.Errorf("%s: %v: %s", label, runErr, Quote(stderr))
	case out.Over():
		return stdout, stderr, fmt.Errorf("%s: output exceeds %d bytes", label, maxOut)
	}
	return stdout, stderr, nil
}

// ParseVersion finds "version X.Y.Z" in a poppler banner (pdftotext -v
// prints it on stderr).
func ParseVersion(banner string) (string, bool) {
	_, rest, ok := strings.Cut(banner, "version ")
	if !ok {
		return "", false
	}
	v, _, _ := strings.Cut(rest, "\n")
	v = strings.TrimSpace(v)
	return v, v != ""
}

// Quote renders a program's stderr for an error message: trimmed, capped,
// and Go-quoted so control bytes from a hostile PDF cannot reach a terminal.
func Quote(stderr []byte) string {
	s := strings.TrimSpace(string(stderr))
	if s == "" {
		return "(no output on stderr)"
	}
	if len(s) > maxQuoted {
		s = s[:maxQuoted] + "..."
	}
	return strconv.Quote(s)
}
