package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		path    string
		prior   []byte
		data    []byte
		perm    os.FileMode
		wantMod os.FileMode
	}{
		{"new file in new folder", "a/b/new.md", nil, []byte("hello\n"), 0o644, 0o644},
		{"replace keeps mode", "exec.sh", []byte("old"), []byte("#!/bin/sh\n"), 0o644, 0o755},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.path)
			if tc.prior != nil {
				if err := os.WriteFile(p, tc.prior, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := Write(p, tc.data, tc.perm); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(p)
			if err != nil || string(got) != string(tc.data) {
				t.Fatalf("content = %q, %v; want %q", got, err, tc.data)
			}
			fi, _ := os.Stat(p)
			if fi.Mode().Perm() != tc.wantMod {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tc.wantMod)
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".*.tmp-*"))
			if len(left) != 0 {
				t.Errorf("temporary files left behind: %v", left)
			}
		})
	}
}

func TestWriteIntoFileFails(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "blocker")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(blocker, "x.md"), []byte("x"), 0o644); err == nil {
		t.Fatal("writing below a regular file succeeded")
	}
}
