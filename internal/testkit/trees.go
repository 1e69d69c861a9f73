package testkit

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// ReadTree snapshots every entry below dir as path -> contents, for tests
// that assert a tree came back byte for byte: a file is its bytes, a symlink
// "-> target" (never followed), a folder "path/" -> "folder" (so a stray
// empty folder counts as a change). The folders named in skip (slash paths
// relative to dir, such as ".copperhead/state") are left out whole.
func ReadTree(t testing.TB, dir string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case e.IsDir():
			if slices.Contains(skip, rel) {
				return filepath.SkipDir
			}
			if rel != "." {
				out[rel+"/"] = "folder"
			}
			return nil
		case e.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "-> " + target
			return err
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatalf("read tree %s: %v", dir, err)
	}
	return out
}

// DiffTrees lists the paths whose contents differ between two snapshots of
// a tree (path -> contents), sorted: changed or new in b as the path, gone
// from b as "path (gone)".
func DiffTrees(a, b map[string]string) []string {
	var out []string
	for k, v := range b {
		if a[k] != v {
			out = append(out, k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k+" (gone)")
		}
	}
	slices.Sort(out)
	return out
}
