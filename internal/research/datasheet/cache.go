package datasheet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"copperhead/internal/atomicfile"
	"copperhead/internal/research/egress"
)

// DirName is the cache folder inside a repository. It is committed: a cached
// datasheet is design evidence, not a run artifact.
const DirName = ".copperhead/datasheets"

// IndexName is the cache's index file inside DirName.
const IndexName = "index.json"

// DefaultMaxMB is the per-file download cap when the caller passes zero
// (research.maxPdfMB). It bounds how much a single fetch can add to a
// committed repository.
const DefaultMaxMB = 10

// sniffWindow is how far into the body the "%PDF-" header may start. PDF
// readers tolerate leading junk this far in, and suppliers serve PDFs with
// wrong content types often enough that the bytes, not the label, decide.
const sniffWindow = 1024

// maxMPNInName caps the part-number part of a file name; the hash suffix
// already makes names unique.
const maxMPNInName = 64

// maxTitle caps the title recorded in index.json; a title is a label, and
// the document (untrusted) chooses it.
const maxTitle = 200

// Entry statuses.
const (
	// StatusCached: the PDF and its text are in the cache folder.
	StatusCached = "cached"
	// StatusNotCached: the fetch was refused for size; only the URL is kept,
	// so a citation of it stays traceable.
	StatusNotCached = "not-cached"
)

// Entry is one document in index.json. File and TextFile are names inside
// the cache folder.
type Entry struct {
	MPN              string `json:"mpn"`
	URL              string `json:"url"`
	Retrieved        string `json:"retrieved"` // RFC 3339, UTC
	Status           string `json:"status"`
	Reason           string `json:"reason,omitempty"` // why not-cached
	SHA256           string `json:"sha256,omitempty"`
	Size             int64  `json:"size,omitempty"`
	Title            string `json:"title,omitempty"`
	Pages            int    `json:"pages,omitempty"`
	Extractor        string `json:"extractor,omitempty"`
	ExtractorVersion string `json:"extractor_version,omitempty"`
	File             string `json:"file,omitempty"`
	TextFile         string `json:"text_file,omitempty"`
	// Supersedes lists the files of earlier cached entries for the same URL
	// whose bytes differed: citations of those files need a revisit (D5).
	Supersedes []string `json:"supersedes,omitempty"`
}

// index is index.json's shape.
type index struct {
	Entries []Entry `json:"entries"`
}

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
		page = cleanPage(page)
		if firstLine == "" {
			for _, l := range strings.Split(page, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					firstLine = l
					break
				}
			}
		}
		b.WriteString(PageMarker(n))
		b.WriteString(page)
	}
	if info.title == "" {
		info.title = firstLine
	}
	info.title = clip(strings.Join(strings.Fields(strings.ToValidUTF8(info.title, "\uFFFD")), " "), maxTitle)
	return b.String(), info, nil
}

// PageMarker is the line that opens page n in a text file.
func PageMarker(n int) string { return "=== page " + strconv.Itoa(n) + " ===\n" }

// markerRE matches a marker line (without its newline).
var markerRE = regexp.MustCompile(`^=== page ([0-9]+) ===$`)

// cleanPage makes extracted text safe to store between markers: valid UTF-8,
// no NULs or form feeds, a final newline, and no line that reads as a marker
// (such a line gets one leading space, which whitespace-normalized quoting
// ignores).
func cleanPage(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.NewReplacer("\x00", "", "\f", "\n", "\r\n", "\n", "\r", "\n").Replace(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if markerRE.MatchString(l) {
			lines[i] = " " + l
		}
	}
	s = strings.Join(lines, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// FileName is the cache file name for a part's PDF: the part number made
// safe for any file system, a dash, and the first 8 hex digits of the
// SHA-256 of the bytes. It is the one place names are made, so the same
// bytes for the same part always map to the same file.
func FileName(mpn, sha256Hex string) string {
	var b strings.Builder
	for _, r := range mpn {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.', r == '+':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), "._-")
	if len(s) > maxMPNInName {
		s = s[:maxMPNInName]
	}
	if s == "" {
		s = "part"
	}
	return s + "-" + sha256Hex[:8] + ".pdf"
}

// Lookup returns the index entries for part mpn (compared without regard to
// case), cached and not-cached, in index order.
func (c *Cache) Lookup(mpn string) ([]Entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	idx, err := c.load()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, e := range idx.Entries {
		if strings.EqualFold(e.MPN, strings.TrimSpace(mpn)) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (c *Cache) indexPath() string { return filepath.Join(c.Dir, IndexName) }

// load reads index.json; a missing file is an empty index.
func (c *Cache) load() (*index, error) {
	data, err := os.ReadFile(c.indexPath())
	if errors.Is(err, os.ErrNotExist) {
		return &index{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read datasheet index: %w", err)
	}
	var idx index
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("read datasheet index %s: %w", c.indexPath(), err)
	}
	return &idx, nil
}

// save writes index.json atomically and deterministically: entries sorted by
// part, retrieval time, URL and hash; two-space indent; final newline.
func (c *Cache) save(idx *index) error {
	sort.SliceStable(idx.Entries, func(i, j int) bool {
		a, b := idx.Entries[i], idx.Entries[j]
		if a.MPN != b.MPN {
			return a.MPN < b.MPN
		}
		if a.Retrieved != b.Retrieved {
			return a.Retrieved < b.Retrieved
		}
		if a.URL != b.URL {
			return a.URL < b.URL
		}
		return a.SHA256 < b.SHA256
	})
	if idx.Entries == nil {
		idx.Entries = []Entry{}
	}
	data, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return fmt.Errorf("write datasheet index: %w", err)
	}
	if err := atomicfile.Write(c.indexPath(), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write datasheet index: %w", err)
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
