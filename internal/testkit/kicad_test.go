package testkit

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCopyTree(t *testing.T) {
	src := t.TempDir()
	for rel, body := range map[string]string{"a.txt": "a", "sub/b.kicad_sch": "b", "sub/c.kicad_pcb": "c"} {
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "copy")
	if err := CopyTree(dst, src, func(p string) bool { return strings.HasSuffix(p, ".kicad_pcb") }); err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(dst, p)
		if !d.IsDir() {
			data, _ := os.ReadFile(p)
			rel += "=" + string(data)
		}
		got = append(got, rel)
		return nil
	})
	if g, want := strings.Join(got, ", "), "., a.txt=a, sub, sub/b.kicad_sch=b"; g != want {
		t.Errorf("copied %s, want %s", g, want)
	}
	if err := CopyTree(dst, filepath.Join(src, "missing"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("CopyTree of a missing folder: %v", err)
	}
}

func TestSharedBuildsOnce(t *testing.T) {
	var s Shared[int]
	calls := 0
	build := func() (int, error) { calls++; return 7, errors.New("once") }
	for range 3 {
		if v, err := s.Get(build); v != 7 || err == nil || err.Error() != "once" {
			t.Fatalf("Get = %d, %v", v, err)
		}
	}
	if calls != 1 {
		t.Errorf("build ran %d times, want 1", calls)
	}
}

func TestDiffTrees(t *testing.T) {
	a := map[string]string{"same": "x", "changed": "1", "gone": "g"}
	b := map[string]string{"same": "x", "changed": "2", "new": "n"}
	if got, want := DiffTrees(a, b), []string{"changed", "gone (gone)", "new"}; !slices.Equal(got, want) {
		t.Errorf("DiffTrees = %v, want %v", got, want)
	}
}

func TestReadTree(t *testing.T) {
	dir := t.TempDir()
	WriteFile(t, dir, "a.txt", "A", 0o644)
	WriteFile(t, dir, "sub/b.txt", "B", 0o644)
	WriteFile(t, dir, ".copperhead/state/lock", "held", 0o644)
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../elsewhere", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	got := ReadTree(t, dir, ".copperhead/state")
	want := map[string]string{
		"a.txt": "A", "sub/": "folder", "sub/b.txt": "B", "empty/": "folder",
		"link": "-> ../elsewhere", ".copperhead/": "folder",
	}
	if !maps.Equal(got, want) {
		t.Errorf("ReadTree = %v, want %v", got, want)
	}
}
