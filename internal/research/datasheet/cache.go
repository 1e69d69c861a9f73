package datasheet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"copperhead/internal/atomicfile"
	"copperhead/internal/datasheets"
	"copperhead/internal/research/egress"
	"copperhead/internal/textfmt"
)

// Names re-exported from internal/datasheets, the cache's network-free
// half, so a caller of Fetch needs one import.
const (
	DirName         = datasheets.DirName
	IndexName       = datasheets.IndexName
	StatusCached    = datasheets.StatusCached
	StatusNotCached = datasheets.StatusNotCached
)

// Entry is one document in index.json (see datasheets.Entry).
type Entry = datasheets.Entry

// DefaultMaxMB is the per-file download cap when the caller passes zero
// (research.maxPdfMB). It bounds how much a single fetch can add to a
// committed repository.
const DefaultMaxMB = 10

// sniffWindow is how far into the body the "%PDF-" header may start. PDF
// readers tolerate leading junk this far in, and suppliers serve PDFs with
// wrong content types often enough that the bytes, not the label, decide.
const sniffWindow = 1024

// maxTitle caps the title recorded in index.json; a title is a label, and
// the document (untrusted) chooses it.
const maxTitle = 200

// Cache is a repository's datasheet cache. A Cache serializes its own
// writers; two processes fetching into one repository at once are not
// supported.
type Cache struct {
	// Dir is the cache folder, repo/.copperhead/datasheets.
	Dir string

	mu sync.Mutex
	// now is the clock stamped into Retrieved; tests fix it.
	now func() time.Time
}

// Open returns the cache of the repository at repoRoot. It touches nothing
// on disk; the folder is created by the first fetch.
func Open(repoRoot string) *Cache {
	return &Cache{Dir: filepath.Join(repoRoot, filepath.FromSlash(DirName))}
}

func (c *Cache) clock() time.Time {
	if c.now != nil {
		return c.now().UTC()
	}
	return time.Now().UTC()
}

// Fetch downloads the PDF at url for part mpn through client (the only
// network path research code may use), caps it at maxMB megabytes (zero:
// DefaultMaxMB), and caches it with its per-page text.
//
// The same bytes for the same part always land in the same file, and
// fetching them again is a no-op that returns the existing entry. A download
// over the cap is not stored: Fetch records a StatusNotCached entry keeping
// the URL and the reason, and returns it with a nil error. A body that is not
// a PDF, whatever its content type says, is an error and records nothing.
func (c *Cache) Fetch(ctx context.Context, client *egress.Client, url, mpn string, maxMB int) (*Entry, error) {
	mpn = strings.TrimSpace(mpn)
	if mpn == "" {
		return nil, fmt.Errorf("fetch datasheet %s: a part number is required", url)
	}
	if maxMB <= 0 {
		maxMB = DefaultMaxMB
	}
	limit := int64(maxMB) << 20
	// Find poppler first: a machine that cannot extract text fetches nothing.
	x, err := findExtractor(ctx)
	if err != nil {
		return nil, fmt.Errorf("fetch datasheet %s: %w", url, err)
	}

	// No content-type filter: suppliers serve PDFs as octet-stream,
	// force-download and worse, so isPDF sniffs the bytes instead.
	resp, err := client.Get(ctx, url, limit)
	if err != nil {
		if reason, ok := oversize(err); ok {
			return c.recordNotCached(url, mpn, reason)
		}
		return nil, fmt.Errorf("fetch datasheet %s: %w", url, err)
	}
	if resp.Status != 200 {
		return nil, fmt.Errorf("fetch datasheet %s: HTTP status %d", url, resp.Status)
	}
	if int64(len(resp.Body)) > limit {
		return c.recordNotCached(url, mpn, sizeReason(int64(len(resp.Body)), limit))
	}
	if !isPDF(resp.Body) {
		return nil, fmt.Errorf("fetch datasheet %s: not a PDF (content type %q, no %%PDF- header in the first %d bytes)",
			url, resp.ContentType, sniffWindow)
	}
	return c.store(ctx, x, url, mpn, resp.Body)
}

// oversize reports whether err is egress refusing a body over the size cap,
// and the reason to record.
func oversize(err error) (string, bool) {
	var refused *egress.RefusedError
	if !errors.As(err, &refused) {
		return "", false
	}
	// egress words every size refusal "too large: ..." (declared length,
	// body over the cap, or a compressed stream cut short by the cap).
	if strings.HasPrefix(refused.Reason, "too large") {
		return refused.Reason, true
	}
	return "", false
}

func sizeReason(size, limit int64) string {
	return fmt.Sprintf("size %d bytes exceeds the cap of %d bytes", size, limit)
}

// isPDF sniffs the PDF header; the content type a server sends is not
// trusted either way.
func isPDF(body []byte) bool {
	head := body
	if len(head) > sniffWindow {
		head = head[:sniffWindow]
	}
	return bytes.Contains(head, []byte("%PDF-"))
}

// recordNotCached adds a not-cached entry for url (once per url, mpn and
// reason) and returns it.
func (c *Cache) recordNotCached(url, mpn, reason string) (*Entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	idx, err := c.load()
	if err != nil {
		return nil, err
	}
	for _, e := range idx.Entries {
		if e.Status == StatusNotCached && e.URL == url && e.MPN == mpn && e.Reason == reason {
			return &e, nil
		}
	}
	e := Entry{MPN: mpn, URL: url, Retrieved: c.clock().Format(time.RFC3339), Status: StatusNotCached, Reason: reason}
	idx.Entries = append(idx.Entries, e)
	if err := c.save(idx); err != nil {
		return nil, err
	}
	return &e, nil
}

// store writes the PDF and its text and records the entry.
func (c *Cache) store(ctx context.Context, x *extractor, url, mpn string, body []byte) (*Entry, error) {
	sum := sha256.Sum256(body)
	sha := hex.EncodeToString(sum[:])
	name := FileName(mpn, sha)

	c.mu.Lock()
	defer c.mu.Unlock()
	idx, err := c.load()
	if err != nil {
		return nil, err
	}
	pdfPath := filepath.Join(c.Dir, name)
	for _, e := range idx.Entries {
		if e.Status == StatusCached && e.File == name && e.SHA256 == sha && exists(pdfPath) && exists(filepath.Join(c.Dir, e.TextFile)) {
			return &e, nil // same bytes, same part: nothing to do
		}
	}

	if err := atomicfile.Write(pdfPath, body, 0o644); err != nil {
		return nil, fmt.Errorf("cache datasheet %s: %w", url, err)
	}
	text, info, err := extract(ctx, x, pdfPath)
	if err != nil {
		os.Remove(pdfPath)
		return nil, fmt.Errorf("extract text of %s (from %s): %w", name, url, err)
	}
	textName := name + ".txt"
	if err := atomicfile.Write(filepath.Join(c.Dir, textName), []byte(text), 0o644); err != nil {
		os.Remove(pdfPath)
		return nil, fmt.Errorf("cache datasheet %s: %w", url, err)
	}

	e := Entry{
		MPN: mpn, URL: url, Retrieved: c.clock().Format(time.RFC3339), Status: StatusCached,
		SHA256: sha, Size: int64(len(body)), Title: info.title, Pages: info.pages,
		Extractor: ExtractorName, ExtractorVersion: x.version, File: name, TextFile: textName,
	}
	kept := idx.Entries[:0]
	for _, old := range idx.Entries {
		if old.File == name {
			continue // a stale record of this very file (its text was missing); replaced below
		}
		if old.Status == StatusCached && old.URL == url && old.SHA256 != sha {
			e.Supersedes = append(e.Supersedes, old.File)
		}
		kept = append(kept, old)
	}
	idx.Entries = append(kept, e)
	if err := c.save(idx); err != nil {
		return nil, err
	}
	return &e, nil
}

// extract builds the text file's contents, one pdftotext run per page, and
// settles the title: pdfinfo's Title, else the first non-empty line of text.
func extract(ctx context.Context, x *extractor, pdfPath string) (string, pdfInfo, error) {
	info, err := x.info(ctx, pdfPath)
	if err != nil {
		return "", pdfInfo{}, err
	}
	var b strings.Builder
	firstLine := ""
	for n := 1; n <= info.pages; n++ {
		page, err := x.page(ctx, pdfPath, n)
		if err != nil {
			return "", pdfInfo{}, err
		}
		page = datasheets.CleanPage(page)
		if firstLine == "" {
			for _, l := range strings.Split(page, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					firstLine = l
					break
				}
			}
		}
		b.WriteString(datasheets.PageMarker(n))
		b.WriteString(page)
	}
	if info.title == "" {
		info.title = firstLine
	}
	info.title = textfmt.CutBytes(textfmt.OneLine(strings.ToValidUTF8(info.title, "\uFFFD")), maxTitle)
	return b.String(), info, nil
}

// FileName is the cache file name for a part's PDF (see datasheets.FileName).
func FileName(mpn, sha256Hex string) string { return datasheets.FileName(mpn, sha256Hex) }

// PageMarker is the line that opens page n in a text file.
func PageMarker(n int) string { return datasheets.PageMarker(n) }

// Lookup returns the index entries for part mpn (compared without regard to
// case), cached and not-cached, in index order.
func (c *Cache) Lookup(mpn string) ([]Entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	idx, err := c.load()
	if err != nil {
		return nil, err
	}
	return idx.Lookup(mpn), nil
}

// load reads index.json; a missing file is an empty index.
func (c *Cache) load() (*datasheets.Index, error) { return datasheets.ReadIndex(c.Dir) }

// save writes index.json atomically and deterministically.
func (c *Cache) save(idx *datasheets.Index) error { return datasheets.WriteIndex(c.Dir, idx) }

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
