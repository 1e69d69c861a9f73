package corpus

import (
	"context"
	"errors"
	"fmt"
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
	if c.IDF("footprint") >= c.IDF("courtyard") || c.IDF("footprint") <= 0 {
		t.Errorf("IDF of a rare word must exceed a common one: %v %v", c.IDF("courtyard"), c.IDF("footprint"))
	}
	if c.IDF("neverseen") != 0 {
		t.Error("a word the corpus never uses must weigh nothing")
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

// TestLoadSkipsBinaryAndOversize: an executable renamed .txt is skipped as
// binary, a file over the cap is skipped naming its size and the cap, and
// a folder where everything was skipped says so instead of "no files".
func TestLoadSkipsBinaryAndOversize(t *testing.T) {
	elf, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"tool.txt":  string(elf[:min(len(elf), 1<<20)]),
		"noise.md":  strings.Repeat("\xff\xfe\x80abc", 2000),
		"latin1.md": "Caf\xe9 au lait is a drink served in many cafés and restaurants, made with coffee and milk.",
		"good.md":   "# Good\n\nA real document about courtyards.",
	})
	big := filepath.Join(dir, "huge.txt")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	c, err := Load(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Docs) != 2 {
		t.Errorf("docs = %d, want good.md and latin1.md (skipped %v)", len(c.Docs), c.Skipped)
	}
	want := map[string]string{
		"tool.txt": "binary content", "noise.md": "are not UTF-8",
		"huge.txt": fmt.Sprintf("32.0 MiB is over the 32 MiB per-file cap (%d bytes)", maxFileBytes+1),
	}
	for name, why := range want {
		found := false
		for _, s := range c.Skipped {
			if strings.HasPrefix(s, filepath.Join(dir, name)+": ") && strings.Contains(s, why) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s not skipped with %q: %v", name, why, c.Skipped)
		}
	}
	only := t.TempDir()
	if err := os.Rename(big, filepath.Join(only, "huge.txt")); err != nil {
		t.Fatal(err)
	}
	_, err = Load(context.Background(), only)
	if err == nil || !errors.Is(err, ErrNoReadable) || !strings.Contains(err.Error(), "huge.txt: skipped: 32.0 MiB is over the 32 MiB per-file cap") ||
		strings.Contains(err.Error(), "no .md, .txt") {
		t.Errorf("Load(one oversize file) = %v", err)
	}
}

func TestLoadCancelled(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"a.md": "text"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, dir); !errors.Is(err, context.Canceled) {
		t.Errorf("Load(cancelled) = %v", err)
	}
}
