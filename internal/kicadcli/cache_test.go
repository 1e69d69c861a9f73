package kicadcli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCacheEntryChecksum: entries are written without a sync, so a damaged
// one (what a crash can leave: the file's bytes changed, even into JSON
// that still parses) must read as a miss, never as a result.
func TestCacheEntryChecksum(t *testing.T) {
	tool := &Tool{CacheDir: t.TempDir()}
	tool.storeCached("k", cacheEntry{Stderr: "note\n", Data: `{"violations": []}`})
	if e, ok := tool.loadCached("k"); !ok || e.Data != `{"violations": []}` || e.Stderr != "note\n" {
		t.Fatalf("stored entry read back as %+v, %v", e, ok)
	}
	path := tool.cachePath("k")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, damaged := range map[string][]byte{
		"data changed":   bytes.Replace(good, []byte("violations"), []byte("violationz"), 1),
		"stderr changed": bytes.Replace(good, []byte("note"), []byte("nope"), 1),
		"sum removed":    bytes.Replace(good, []byte(`"sum"`), []byte(`"sux"`), 1),
		"zeros":          make([]byte, len(good)),
		"empty":          nil,
	} {
		if bytes.Equal(damaged, good) {
			t.Fatalf("%s: the damage did not change the file", name)
		}
		if err := os.WriteFile(path, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		if e, ok := tool.loadCached("k"); ok {
			t.Errorf("%s: a damaged entry was a hit: %+v", name, e)
		}
	}
}

// TestPruneThrottled: a store prunes entries unused for cacheMaxAge, but
// lists the folder at most once every pruneEvery.
func TestPruneThrottled(t *testing.T) {
	tool := &Tool{CacheDir: t.TempDir()}
	dir := filepath.Join(tool.CacheDir, cacheSubdir)
	old := func(name string) string {
		p := filepath.Join(dir, name+".json")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		stale := time.Now().Add(-cacheMaxAge - time.Hour)
		if err := os.Chtimes(p, stale, stale); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := func(p string) bool { _, err := os.Stat(p); return os.IsNotExist(err) }

	first := old("first")
	tool.storeCached("a", cacheEntry{Data: "x"})
	if !gone(first) {
		t.Error("the first store did not prune a stale entry")
	}
	second := old("second")
	tool.storeCached("b", cacheEntry{Data: "y"})
	if gone(second) {
		t.Error("a store right after a prune listed the folder again")
	}
	if _, ok := tool.loadCached("a"); !ok {
		t.Error("pruning removed a fresh entry")
	}
	lastPrune := time.Now().Add(-pruneEvery - time.Minute)
	if err := os.Chtimes(filepath.Join(dir, pruneMark), lastPrune, lastPrune); err != nil {
		t.Fatal(err)
	}
	tool.storeCached("c", cacheEntry{Data: "z"})
	if !gone(second) {
		t.Error("a store an hour after the last prune did not prune")
	}
	if gone(filepath.Join(dir, pruneMark)) {
		t.Error("pruning removed its own mark")
	}
}

// TestFlush: a Tool sharing its inputs writes cache entries in the
// background, and Flush returns once they are on disk; a plain Tool has
// written before finish returns.
func TestFlush(t *testing.T) {
	for _, shared := range []bool{true, false} {
		tool := &Tool{CacheDir: t.TempDir()}
		if shared {
			tool = tool.SharingInputs()
		}
		var keys []string
		for i := range 20 {
			p := &prepared{res: &result{}, key: string(rune('a' + i)), inputs: &inputSet{}}
			tool.finish(p, nil, bytes.Repeat([]byte("x"), 1<<16))
			keys = append(keys, p.key)
		}
		if shared {
			tool.Flush()
		}
		for _, k := range keys {
			if _, ok := tool.loadCached(k); !ok {
				t.Errorf("shared %v: entry %s not written when it should be", shared, k)
			}
		}
	}
}
