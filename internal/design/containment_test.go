package design

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/repofs"
)

// TestReadsStayInsideTheRepository: a docs folder, config.json or
// constraints.json that leads outside the repository through a symbolic
// link is refused naming the repository path, and a named pipe is refused
// without blocking; the same files read fine through links that stay inside.
func TestReadsStayInsideTheRepository(t *testing.T) {
	type setup func(t *testing.T, repo, outside string)
	link := func(target, name string) setup {
		return func(t *testing.T, repo, outside string) {
			target := strings.ReplaceAll(target, "$OUT", outside)
			if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	fifo := func(name string) setup {
		return func(t *testing.T, repo, outside string) {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(repo, name), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	read := func(repo string) error {
		if _, _, err := config.LoadConfig(repo); err != nil {
			return err
		}
		if _, err := LoadConstraints(repo); err != nil {
			return err
		}
		_, err := ReadFiles(repo, config.DefaultConfig())
		return err
	}
	tests := []struct {
		name  string
		setup setup
		want  string // "" for no error
		is    error
	}{
		{"docs folder linked outside", link("$OUT", "docs"), "docs is outside the repository (it resolves to $OUT)", repofs.ErrOutside},
		{"doc linked outside", link("$OUT/BOM.md", "docs/BOM.md"), "docs/BOM.md is outside the repository (it resolves to $OUT/BOM.md)", repofs.ErrOutside},
		{"config linked outside", link("$OUT/config.json", ".copperhead/config.json"), ".copperhead/config.json is outside the repository", repofs.ErrOutside},
		{"constraints linked outside", link("../../outside/constraints.json", ".copperhead/constraints.json"), ".copperhead/constraints.json is outside the repository", repofs.ErrOutside},
		{"docs is a file", func(t *testing.T, repo, _ string) {
			if err := os.WriteFile(filepath.Join(repo, "docs"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "docs is not a folder", repofs.ErrNotRegular},
		{"constraints is a fifo", fifo(".copperhead/constraints.json"), ".copperhead/constraints.json is not a regular file (a named pipe)", repofs.ErrNotRegular},
		{"doc is a fifo", fifo("docs/BOM.md"), "docs/BOM.md is not a regular file (a named pipe)", repofs.ErrNotRegular},
		{"docs linked inside", func(t *testing.T, repo, _ string) {
			if err := os.MkdirAll(filepath.Join(repo, "documentation"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(repo, "documentation/BOM.md"), []byte("# BOM\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			link("documentation", "docs")(t, repo, "")
		}, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			repo, outside := filepath.Join(dir, "repo"), filepath.Join(dir, "outside")
			if err := os.MkdirAll(repo, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"BOM.md", "config.json", "constraints.json"} {
				if err := os.WriteFile(filepath.Join(outside, f), []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tc.setup(t, repo, outside)
			done := make(chan error, 1)
			go func() { done <- read(repo) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second): // a hang detector only
				t.Fatal("reading the repository hung")
			}
			want := strings.ReplaceAll(tc.want, "$OUT", outside)
			if want == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, tc.is) {
				t.Fatalf("err = %v, want one starting %q wrapping %v", err, want, tc.is)
			}
		})
	}
}
