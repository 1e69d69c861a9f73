package corpus

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/carter/retrieve"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadAndSearch(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"courtyard.md":      "# Courtyards\n\nThe DRC reports courtyard overlaps between footprints.\n\nA courtyard surrounds a footprint.",
		"sub/zones.html":    "<html><head><title>Zones</title></head><body><p>Zones are filled copper areas.</p></body></html>",
		"notes.txt":         "Footprints have pads.",
		".hidden/secret.md": "courtyard courtyard courtyard",
		"image.png":         "\x89PNG",
		"empty.md":          "   \n",
	})
	c, err := Load(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Docs) != 3 {
		t.Fatalf("docs = %d (skipped %v)", len(c.Docs), c.Skipped)
	}
	if len(c.Skipped) != 1 || !strings.Contains(c.Skipped[0], "empty.md: no text") {
		t.Errorf("skipped = %v", c.Skipped)
	}
	hits, err := c.Search(context.Background(), "courtyard overlaps", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || !strings.HasSuffix(hits[0].URL, "/courtyard.md") || hits[0].Rank != 1 || hits[0].Title != "Courtyards" {
		t.Fatalf("hits = %+v", hits)
	}
	hits, _ = c.Search(context.Background(), "footprints", 10)
	if len(hits) != 2 {
		t.Fatalf("footprint hits = %+v", hits)
	}
	doc, err := c.Fetch(context.Background(), hits[0])
	if err != nil || doc.Text == "" || len(doc.ContentHash) != 64 {
		t.Fatalf("fetch: %+v %v", doc, err)
	}
	if _, err := c.Fetch(context.Background(), retrieve.Candidate{URL: "file:///etc/passwd"}); err == nil {
		t.Error("fetched a file outside the corpus")
	}
	if c.IDF("courtyard") >= c.IDF("neverseen") {
		t.Error("IDF of a rare word must exceed a common one")
	}
	if hits, _ := c.Search(context.Background(), "the of and", 5); len(hits) != 0 {
		t.Errorf("stop-word query matched %v", hits)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.md")
	write(t, dir, map[string]string{"a.md": "x"})
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, want string }{
		{filepath.Join(dir, "missing"), "no such file or directory"},
		{file, "not a folder"},
		{empty, "no .md, .txt, .html or .pdf files"},
	} {
		_, err := Load(context.Background(), tt.dir)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%s) = %v, want %q", tt.dir, err, tt.want)
		}
	}
	if _, err := Load(context.Background(), empty); !errors.Is(err, ErrNoDocuments) {
		t.Errorf("not ErrNoDocuments: %v", err)
	}
}

func TestPassages(t *testing.T) {
	text := strings.Repeat("word ", 300) + "\n\n" + "short para\n\n" + strings.Repeat("x ", 10)
	spans := Passages(text)
	if len(spans) != 2 {
		t.Fatalf("spans = %v", spans)
	}
	for _, s := range spans {
		if s[0] < 0 || s[1] > len(text) || s[0] >= s[1] {
			t.Errorf("bad span %v", s)
		}
	}
}
