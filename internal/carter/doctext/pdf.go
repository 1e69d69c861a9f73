package doctext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// This file is carter's one subprocess: poppler's pdftotext. (The datasheet
// cache wraps the same program for its own layout; its helpers are not
// exported.)

// PDFToText names the program; tests point it at one that does not exist.
var PDFToText = "pdftotext"

// pdfTimeout bounds one extraction: a manual of a few hundred pages takes
// seconds; the bound ends a run stuck on a hostile or broken PDF.
const pdfTimeout = 2 * time.Minute

// maxPDFText caps the text one PDF may produce; a PDF built to expand on
// extraction stops here.
const maxPDFText = 32 << 20

// ErrNoPDFToText is wrapped when poppler-utils is not installed.
var ErrNoPDFToText = errors.New("pdftotext unavailable")

// PDF extracts data's text with `pdftotext -layout -enc UTF-8`, page breaks
// (form feeds) turned into blank lines. It returns the text and poppler's
// version for the record.
func PDF(ctx context.Context, data []byte) (text, version string, err error) {
	bin, err := exec.LookPath(PDFToText)
	if err != nil {
		return "", "", fmt.Errorf("%w: install poppler-utils (apt-get install poppler-utils)", ErrNoPDFToText)
	}
	if !bytes.HasPrefix(bytes.TrimLeft(data, "\x00\t\r\n "), []byte("%PDF-")) {
		return "", "", errors.New("pdf: not a PDF (no %PDF- header)")
	}
	f, err := os.CreateTemp("", "carter-*.pdf")
	if err != nil {
		return "", "", fmt.Errorf("pdf: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", "", fmt.Errorf("pdf: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", "", fmt.Errorf("pdf: %w", err)
	}
	_, vErr, _ := run(ctx, bin, "-v")
	version = "unknown"
	if _, rest, ok := strings.Cut(string(vErr), "version "); ok {
		version, _, _ = strings.Cut(rest, "\n")
		version = strings.TrimSpace(version)
	}
	out, stderr, err := run(ctx, bin, "-layout", "-enc", "UTF-8", f.Name(), "-")
	if err != nil {
		return "", "", fmt.Errorf("pdftotext: %v: %s", err, quoteStderr(stderr))
	}
	return plain(string(out)), version, nil
}

// run runs one poppler command in its own process group with a fixed
// locale, killing the group on timeout.
func run(ctx context.Context, bin string, args ...string) (stdout, stderr []byte, err error) {
	ctx, cancel := context.WithTimeout(ctx, pdfTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"}
	cmd.Dir = os.TempDir()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb capped
	out.max, errb.max = maxPDFText, 64<<10
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, errb.Bytes(), fmt.Errorf("timed out or cancelled: %w", ctx.Err())
	}
	if out.over {
		return nil, errb.Bytes(), fmt.Errorf("output exceeds %d bytes", maxPDFText)
	}
	return out.Bytes(), errb.Bytes(), err
}

type capped struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); len(p) > room {
		c.over = true
		if room > 0 {
			c.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

func quoteStderr(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "(no output on stderr)"
	}
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return strconv.Quote(s)
}
