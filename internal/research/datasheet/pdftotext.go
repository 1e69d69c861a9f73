package datasheet

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"copperhead/internal/poppler"
)

// This file is the one place the datasheet cache runs a subprocess: poppler's
// pdftotext (text) and pdfinfo (page count and title), both from Debian's
// poppler-utils.

// pdftotextBin and pdfinfoBin name the poppler programs; tests point them at
// a binary that does not exist.
var (
	pdftotextBin = "pdftotext"
	pdfinfoBin   = "pdfinfo"
)

// ExtractorName is recorded in index.json next to each text file, so a reader
// knows which program produced the text its citations index.
const ExtractorName = "pdftotext -layout"

// popplerTimeout bounds one poppler run. Extracting one page of a datasheet
// takes well under a second; the bound exists to end a run stuck on a hostile
// or broken PDF, not to pace a slow machine.
const popplerTimeout = time.Minute

// maxPopplerOutput caps what one poppler run may print. A page of text is a
// few kilobytes; a PDF built to expand on extraction stops here.
const maxPopplerOutput = 16 << 20

// ErrNoPoppler is wrapped by the error returned when pdftotext or pdfinfo is
// not installed, so a caller can tell "the machine is not set up" from a bad
// PDF.
var ErrNoPoppler = errors.New("poppler-utils unavailable")

// extractor is a located pdftotext/pdfinfo pair and the version they report.
type extractor struct {
	pdftotext, pdfinfo string
	version            string // e.g. "22.12.0"
}

// findExtractor locates both poppler programs and reads pdftotext's version.
// It runs before any download, so a machine without poppler-utils fetches
// nothing it cannot extract.
func findExtractor(ctx context.Context) (*extractor, error) {
	var x extractor
	for _, p := range []struct {
		name string
		dst  *string
	}{{pdftotextBin, &x.pdftotext}, {pdfinfoBin, &x.pdfinfo}} {
		path, err := exec.LookPath(p.name)
		if err != nil {
			return nil, fmt.Errorf("%w: %s not found: install poppler-utils (apt-get install poppler-utils)", ErrNoPoppler, p.name)
		}
		*p.dst = path
	}
	// pdftotext -v prints "pdftotext version 22.12.0" on stderr and exits 0
	// (older releases exit 99); read whichever stream carries it.
	stdout, stderr, err := runPoppler(ctx, x.pdftotext, "-v")
	out := string(stdout) + string(stderr)
	v, ok := parsePopplerVersion(out)
	if !ok {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s -v: cannot read a version from %s", x.pdftotext, poppler.Quote(stderr))
	}
	x.version = v
	return &x, nil
}

// parsePopplerVersion finds "version X.Y.Z" in poppler's banner.
func parsePopplerVersion(out string) (string, bool) { return poppler.ParseVersion(out) }

// pdfInfo is what pdfinfo reports about a document that the cache records.
type pdfInfo struct {
	pages int
	title string
}

// info runs pdfinfo on path for the page count and the document title.
func (x *extractor) info(ctx context.Context, path string) (pdfInfo, error) {
	stdout, _, err := runPoppler(ctx, x.pdfinfo, "-enc", "UTF-8", path)
	if err != nil {
		return pdfInfo{}, err
	}
	var in pdfInfo
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch key {
		case "Title":
			in.title = val
		case "Pages":
			n, err := strconv.Atoi(val)
			if err != nil {
				return pdfInfo{}, fmt.Errorf("%s %s: page count %q is not a number", x.pdfinfo, path, val)
			}
			in.pages = n
		}
	}
	if in.pages < 1 {
		return pdfInfo{}, fmt.Errorf("%s %s: the document has no pages", x.pdfinfo, path)
	}
	return in, nil
}

// page runs `pdftotext -layout -f n -l n` on path and returns page n's text
// as UTF-8, without the form feed pdftotext ends every page with.
func (x *extractor) page(ctx context.Context, path string, n int) (string, error) {
	num := strconv.Itoa(n)
	stdout, _, err := runPoppler(ctx, x.pdftotext, "-layout", "-enc", "UTF-8", "-f", num, "-l", num, path, "-")
	if err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(stdout, []byte("\f"))), nil
}

// runPoppler runs one poppler program through internal/poppler, bounded by
// popplerTimeout and maxPopplerOutput.
func runPoppler(ctx context.Context, bin string, args ...string) (stdout, stderr []byte, err error) {
	return poppler.Run(ctx, popplerTimeout, maxPopplerOutput, bin, args...)
}
