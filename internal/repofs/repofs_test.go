package repofs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tree builds repo/ and victim/ side by side in a temp folder and returns
// their absolute paths.
func tree(t *testing.T) (repo, victim string) {
	t.Helper()
	dir := t.TempDir()
	repo, victim = filepath.Join(dir, "repo"), filepath.Join(dir, "victim")
	for _, d := range []string{repo + "/sub", repo + "/docs", victim} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(repo+"/top.kicad_sch", "top")
	write(repo+"/sub/power.kicad_sch", "power")
	write(victim+"/power.kicad_sch", "victim")
	link := func(target, name string) {
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	link("../victim", repo+"/out")                        // a folder link leading outside
	link("sub", repo+"/in")                               // a folder link staying inside
	link(victim+"/power.kicad_sch", repo+"/p.kicad_sch")  // a file link leading outside
	link("../../victim/new.md", repo+"/docs/dangling.md") // a dangling link leading outside
	link("../sub/new.md", repo+"/docs/inside.md")         // a dangling link staying inside
	if err := syscall.Mkfifo(repo+"/fifo.kicad_sch", 0o644); err != nil {
		t.Fatal(err)
	}
	return repo, victim
}

func TestResolve(t *testing.T) {
	repo, victim := tree(t)
	tests := []struct {
		path string
		want string // the resolved path, or "" for a refusal
		err  error
		msg  string
	}{
		{"top.kicad_sch", repo + "/top.kicad_sch", nil, ""},
		{"sub/../top.kicad_sch", repo + "/top.kicad_sch", nil, ""},
		{"in/power.kicad_sch", repo + "/sub/power.kicad_sch", nil, ""},
		{"docs/BOM.md", repo + "/docs/BOM.md", nil, ""},             // not written yet
		{"new/deeper/BOM.md", repo + "/new/deeper/BOM.md", nil, ""}, // nor its folders
		{"docs/inside.md", repo + "/sub/new.md", nil, ""},           // through a dangling link inside
		{"../victim/power.kicad_sch", "", ErrOutside, "../victim/power.kicad_sch is outside the repository"},
		{"sub/../../victim/power.kicad_sch", "", ErrOutside, "is outside the repository"},
		{"/etc/passwd", "", ErrOutside, "/etc/passwd is outside the repository"},
		{"out/power.kicad_sch", "", ErrOutside, "out/power.kicad_sch is outside the repository (it resolves to " + victim + "/power.kicad_sch)"},
		{"out/BOM.md", "", ErrOutside, "(it resolves to " + victim + "/BOM.md)"},
		{"p.kicad_sch", "", ErrOutside, "p.kicad_sch is outside the repository (it resolves to " + victim + "/power.kicad_sch)"},
		{"docs/dangling.md", "", ErrOutside, "(it resolves to " + victim + "/new.md)"},
		{"fifo.kicad_sch", "", ErrNotRegular, "fifo.kicad_sch is not a regular file (a named pipe)"},
		{"sub", "", ErrNotRegular, "sub is not a regular file (a folder)"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			p := tc.path
			if !filepath.IsAbs(p) {
				t.Chdir(repo)
			}
			got, err := Resolve(repo, p)
			if tc.err == nil {
				if err != nil || got != tc.want {
					t.Fatalf("Resolve = %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			var e *Error
			if !errors.Is(err, tc.err) || !errors.As(err, &e) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Resolve = %q, %v; want an *Error wrapping %v containing %q", got, err, tc.err, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), tc.path+" ") || e.Error() != tc.path+" "+e.Why() {
				t.Errorf("message %q does not start with the path as given", err)
			}
		})
	}
}

// TestRepositoryBehindLink: a repository reached through a link (as /tmp
// often is) holds its own files.
func TestRepositoryBehindLink(t *testing.T) {
	repo, _ := tree(t)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(repo, alias); err != nil {
		t.Fatal(err)
	}
	if got, err := Resolve(alias, filepath.Join(alias, "sub/power.kicad_sch")); err != nil || got != repo+"/sub/power.kicad_sch" {
		t.Fatalf("Resolve = %q, %v", got, err)
	}
	if !Within(alias, repo+"/top.kicad_sch") || Within(alias, repo+"/out/x") {
		t.Error("Within disagrees with Resolve")
	}
}

func TestReadFile(t *testing.T) {
	repo, _ := tree(t)
	if b, err := ReadFile(repo, repo+"/in/power.kicad_sch"); err != nil || string(b) != "power" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if _, err := ReadFile(repo, repo+"/absent.kicad_sch"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent file: %v does not wrap fs.ErrNotExist", err)
	}
	if _, err := ReadFile(repo, repo+"/p.kicad_sch"); !errors.Is(err, ErrOutside) {
		t.Errorf("link outside: %v", err)
	}
	// A named pipe with no writer would block an ordinary open forever:
	// both ReadFile and ReadRegular return at once with a refusal.
	done := make(chan error, 2)
	go func() {
		_, err := ReadFile(repo, repo+"/fifo.kicad_sch")
		done <- err
	}()
	go func() {
		_, err := ReadRegular(repo + "/fifo.kicad_sch")
		done <- err
	}()
	for range 2 {
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a named pipe") {
				t.Errorf("fifo: %v", err)
			}
		case <-time.After(20 * time.Second): // a hang detector, not a timing bound
			t.Fatal("reading a named pipe hung")
		}
	}
}
