package datasheets

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"copperhead/internal/atomicfile"
	"copperhead/internal/config"
)

// DirName is the cache folder inside a repository. It is committed: a cached
// datasheet is design evidence, not a run artifact.
const DirName = config.DatasheetsDir

// IndexName is the cache's index file inside DirName.
const IndexName = "index.json"

// maxMPNInName caps the part-number part of a file name; the hash suffix
// already makes names unique.
const maxMPNInName = 64

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

// Index is index.json: every document of one cache folder.
type Index struct {
	Entries []Entry `json:"entries"`
}

// ReadIndex reads dir's index.json; a missing file is an empty index.
func ReadIndex(dir string) (*Index, error) {
	path := filepath.Join(dir, IndexName)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Index{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read datasheet index: %w", err)
	}
	var idx Index
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("read datasheet index %s: %w", path, err)
	}
	return &idx, nil
}

// WriteIndex writes dir's index.json atomically and deterministically:
// entries sorted by part, retrieval time, URL and hash; two-space indent;
// final newline.
func WriteIndex(dir string, idx *Index) error {
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
	if err := atomicfile.Write(filepath.Join(dir, IndexName), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write datasheet index: %w", err)
	}
	return nil
}

// Lookup returns the entries for part mpn (compared without regard to case
// or surrounding space), cached and not-cached, in index order.
func (idx *Index) Lookup(mpn string) []Entry {
	var out []Entry
	for _, e := range idx.Entries {
		if strings.EqualFold(e.MPN, strings.TrimSpace(mpn)) {
			out = append(out, e)
		}
	}
	return out
}

// Cached returns the cached entry whose PDF is file (a name in the cache
// folder), and whether there is one.
func (idx *Index) Cached(file string) (Entry, bool) {
	for _, e := range idx.Entries {
		if e.Status == StatusCached && e.File == file {
			return e, true
		}
	}
	return Entry{}, false
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
	return s + "-" + sha256Hex[:min(8, len(sha256Hex))] + ".pdf"
}
