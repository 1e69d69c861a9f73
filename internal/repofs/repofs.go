// Package repofs keeps copperhead's file access inside the repository: every
// design file it reads or writes (sheets, the board, docs, config and
// constraints) goes through Resolve, which follows symbolic links and ".."
// to the file the operating system would really open and refuses one that
// lies outside the repository folder or is not a regular file (a named
// pipe, a device, a folder). A sheet that names ../../victim/power.kicad_sch
// or /etc/passwd, or a docs/ link pointing elsewhere, is then an error
// naming the path instead of a read or write outside the project, and a
// FIFO is refused before anything opens it (opening one blocks).
//
// It imports only the standard library.
package repofs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOutside is wrapped by the refusal of a path outside the repository.
var ErrOutside = errors.New("outside the repository")

// ErrNotRegular is wrapped by the refusal of a file that is not a regular
// file.
var ErrNotRegular = errors.New("not a regular file")

// Error is a refused path. Error() reads "<Path> is outside the repository
// (it resolves to <Resolved>)" or "<Path> is not a regular file (a named
// pipe)"; Why() is the same sentence without the path, for callers that name
// the path their own way ("sheet "Power" uses x.kicad_sch, which ...").
type Error struct {
	Path     string // the path as given
	Resolved string // where it leads, symbolic links followed
	Err      error  // ErrOutside or ErrNotRegular
	kind     string // for ErrNotRegular: "a named pipe", "a folder", ...
	linked   bool   // Resolved differs from the cleaned Path
}

func (e *Error) Error() string { return e.Path + " " + e.Why() }

// Why is the refusal without the path: "is outside the repository", with
// where the path resolves to when a link took it there.
func (e *Error) Why() string {
	var s string
	switch {
	case e.Err == ErrOutside:
		s = "is outside the repository"
	case e.kind == "not a folder":
		s = "is not a folder"
	default:
		s = "is not a regular file (" + e.kind + ")"
	}
	if e.linked {
		s += " (it resolves to " + e.Resolved + ")"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// maxLinks bounds the dangling links followed by hand, as the kernel bounds
// link chains (ELOOP).
const maxLinks = 40

// Resolve returns the absolute, link-free path that path (absolute, or
// relative to the working folder) leads to, and refuses it with an *Error
// when that lies outside root or is an existing file that is not regular.
// A path that does not exist yet resolves through its deepest existing
// ancestor (and through a dangling link's target), so a file about to be
// written is held to the same rule; it is not an error. Callers should open
// or write the returned path, not the one they passed: that is the file the
// check was made on, and writing to it keeps a link in place.
func Resolve(root, path string) (string, error) {
	base, err := resolveRoot(root)
	if err != nil {
		return "", err
	}
	return resolveIn(base, path)
}

// Within reports whether path resolves inside root, with no check of what
// kind of file it is. A path that cannot be resolved is not within.
func Within(root, path string) bool {
	base, err := resolveRoot(root)
	if err != nil {
		return false
	}
	r, err := resolve(abs(path), 0)
	return err == nil && inside(base, r)
}

func resolveRoot(root string) (string, error) {
	base, err := filepath.EvalSymlinks(abs(root))
	if err != nil {
		return "", fmt.Errorf("repository %s: %w", root, err)
	}
	return base, nil
}

func resolveIn(base, path string) (string, error) {
	r, linked, err := resolveInside(base, path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(r)
	if err == nil && !fi.Mode().IsRegular() {
		return "", &Error{Path: path, Resolved: r, Err: ErrNotRegular, kind: kind(fi.Mode()), linked: linked}
	}
	return r, nil
}

// resolveInside is the link-free path that path leads to, refused when it is
// outside base; linked reports whether a link was followed on the way.
func resolveInside(base, path string) (r string, linked bool, err error) {
	a := abs(path)
	r, err = resolve(a, 0)
	if err != nil {
		return "", false, err
	}
	if !inside(base, r) {
		return "", false, &Error{Path: path, Resolved: r, Err: ErrOutside, linked: r != a}
	}
	return r, r != a, nil
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// resolve follows every link in the absolute path a, including dangling
// ones, to the path the kernel would reach.
func resolve(a string, hops int) (string, error) {
	r, err := filepath.EvalSymlinks(a)
	if err == nil {
		return r, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if fi, lerr := os.Lstat(a); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// A link whose target does not exist (yet): follow it by hand, or a
		// write through it would land wherever it points.
		if hops >= maxLinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links", a)
		}
		t, err := os.Readlink(a)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(a), t)
		}
		return resolve(filepath.Clean(t), hops+1)
	}
	parent := filepath.Dir(a)
	if parent == a {
		return a, nil
	}
	rp, err := resolve(parent, hops)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, filepath.Base(a)), nil
}

// inside reports whether the link-free path r is base or below it.
func inside(base, r string) bool {
	rel, err := filepath.Rel(base, r)
	if err != nil {
		return false
	}
	return rel == "." || rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// ResolveDir is Resolve for a folder: it returns the link-free path of the
// folder path leads to, refusing one outside root, or an existing path that
// is not a folder. A folder that does not exist yet is not an error.
func ResolveDir(root, path string) (string, error) {
	base, err := resolveRoot(root)
	if err != nil {
		return "", err
	}
	r, linked, err := resolveInside(base, path)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(r); err == nil && !fi.IsDir() {
		return "", &Error{Path: path, Resolved: r, Err: ErrNotRegular, kind: "not a folder", linked: linked}
	}
	return r, nil
}

// Renamed returns a copy of err, when it is an *Error, naming the path as
// name (a repository-relative path for messages); other errors come back
// as they are.
func Renamed(err error, name string) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Path = name
	return &c
}

// ReadFile reads the regular file path leads to, refusing it as Resolve does.
// The file is opened without blocking and checked again once open, so a
// named pipe swapped in after the check cannot hang the read. A missing
// file's error wraps fs.ErrNotExist.
func ReadFile(root, path string) ([]byte, error) {
	r, err := Resolve(root, path)
	if err != nil {
		return nil, err
	}
	return readRegular(path, r)
}

// ReadRegular reads path (wherever it is) if it is a regular file, without
// blocking on a named pipe: for files whose place copperhead does not
// choose, such as a schematic outside any repository in a test.
func ReadRegular(path string) ([]byte, error) {
	return readRegular(path, path)
}

// CheckRegular refuses path, with an *Error wrapping ErrNotRegular, when it
// exists (links followed) and is not a regular file. It opens nothing.
func CheckRegular(path string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() {
		return nil
	}
	r, rerr := filepath.EvalSymlinks(path)
	if rerr != nil {
		r = path
	}
	return &Error{Path: path, Resolved: r, Err: ErrNotRegular, kind: kind(fi.Mode()), linked: abs(path) != abs(r)}
}

// OpenRegular opens path for reading if it is a regular file. The open does
// not block on a named pipe (O_NONBLOCK), and the check is made on the open
// file, so nothing swapped in between can hang the caller. A missing file's
// error wraps fs.ErrNotExist.
func OpenRegular(path string) (*os.File, error) {
	return openRegular(path, path)
}

func openRegular(given, r string) (*os.File, error) {
	f, err := os.OpenFile(r, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &Error{Path: given, Resolved: r, Err: ErrNotRegular, kind: kind(fi.Mode()), linked: abs(given) != r}
	}
	return f, nil
}

func readRegular(given, r string) ([]byte, error) {
	f, err := openRegular(given, r)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", given, err)
	}
	return data, nil
}
