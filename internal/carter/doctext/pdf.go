package doctext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"copperhead/internal/poppler"
)

// This file is carter's one subprocess: poppler's pdftotext, run through
// internal/poppler like the datasheet cache's.

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
	if v, ok := poppler.ParseVersion(string(vErr)); ok {
		version = v
	}
	out, _, err := run(ctx, bin, "-layout", "-enc", "UTF-8", f.Name(), "-")
	if err != nil {
		return "", "", fmt.Errorf("pdf: %w", err)
	}
	return plain(string(out)), version, nil
}

// run runs one poppler command through internal/poppler, bounded by
// pdfTimeout and maxPDFText.
func run(ctx context.Context, bin string, args ...string) (stdout, stderr []byte, err error) {
	return poppler.Run(ctx, pdfTimeout, maxPDFText, bin, args...)
}
