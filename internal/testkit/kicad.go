package testkit

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// MainWithPrivateKiCad runs a package's tests (call it from TestMain) with
// copperhead's KiCad configuration and result cache in a temporary folder
// (COPPERHEAD_KICAD_CONFIG, COPPERHEAD_CACHE_DIR), so no test reads or
// writes the user's; the folder is removed afterwards. pattern names it, as
// os.MkdirTemp does.
func MainWithPrivateKiCad(m *testing.M, pattern string) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("COPPERHEAD_KICAD_CONFIG", filepath.Join(dir, "config"))
	os.Setenv("COPPERHEAD_CACHE_DIR", filepath.Join(dir, "cache"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// NeedKiCadCLI skips the test unless the real kicad-cli is on PATH or
// COPPERHEAD_KICAD_CLI names one.
func NeedKiCadCLI(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("kicad-cli"); err != nil && os.Getenv("COPPERHEAD_KICAD_CLI") == "" {
		t.Skip("kicad-cli not installed (scripts/setup.sh installs it): skipping a test that runs the real kicad-cli")
	}
}

// Shared is a value a whole test binary builds once (a located kicad-cli, a
// loaded fixture) and every test then reuses, with the error building it
// gave.
type Shared[T any] struct {
	once sync.Once
	v    T
	err  error
}

// Get returns the value, building it with build on the first call.
func (s *Shared[T]) Get(build func() (T, error)) (T, error) {
	s.once.Do(func() { s.v, s.err = build() })
	return s.v, s.err
}

// CopyTree copies the folder src into dst: folders with mode 0755, files
// (links followed) with 0644, leaving out the files skip names (skip may be
// nil). Fixtures are copied, never used in place.
func CopyTree(dst, src string, skip func(path string) bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if skip != nil && skip(p) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
}

// CopyFixture copies the folder src (a fixture, a demo project) into a new
// temporary folder of t and returns that folder.
func CopyFixture(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := CopyTree(dst, src, nil); err != nil {
		t.Fatal(err)
	}
	return dst
}

// FileWriter returns a function that writes text to the file name below dir
// (making its folders) and returns the file's path, failing t on error.
func FileWriter(t testing.TB, dir string) func(name, text string) string {
	return func(name, text string) string {
		t.Helper()
		return WriteFile(t, dir, name, text, 0o644)
	}
}

// WriteFile writes body to the file rel (a slash path) below root, making
// its folders, with exactly perm (set again after the umask), failing t on
// error; it returns the file's path.
func WriteFile(t testing.TB, root, rel, body string, perm os.FileMode) string {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil {
		t.Fatal(err)
	}
	return p
}

// GitIdentity makes commits work in a test's temporary repositories without
// touching the user's git configuration: a fixed author and committer, no
// global or system config.
func GitIdentity(t testing.TB) {
	t.Setenv("GIT_AUTHOR_NAME", "test")
	t.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "test")
	t.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}
