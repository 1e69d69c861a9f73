// Package project finds the KiCad project inside a repository: the root
// schematic, the board and the .kicad_pro beside them, from a folder to
// search, a .kicad_pro or a root .kicad_sch. It reads folder listings and,
// to name a KiCad 5 project it cannot use, the first line of a legacy .sch;
// it never parses KiCad files and imports only the standard library,
// config (for its folder's name) and repofs.
package project

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"copperhead/internal/config"
	"copperhead/internal/repofs"
)

// Project is a located KiCad project. Paths are absolute.
type Project struct {
	Repo      string // the repository folder
	Name      string // the project's base name, e.g. "open-telegraph"
	Schematic string // the root .kicad_sch
	Board     string // the .kicad_pcb, or "" when the project has none
	Pro       string // the .kicad_pro, or "" when there is none
}

// Rel returns p relative to the repository, with forward slashes.
func (pr *Project) Rel(p string) string {
	if p == "" {
		return ""
	}
	r, err := filepath.Rel(pr.Repo, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// ErrNoSchematic means the searched folder holds no .kicad_sch at all.
var ErrNoSchematic = errors.New("no KiCad schematic (.kicad_sch)")

// ErrLegacySchematic is wrapped by the refusal of a project whose
// schematic is a KiCad 5 (legacy) .sch: a format copperhead cannot read,
// which KiCad 6 and later convert on save. The refusal names the file, so a
// KiCad 5 repository is not told it holds no schematic at all; it also
// matches ErrNoSchematic, since there is no .kicad_sch to work on.
var ErrLegacySchematic = errors.New("KiCad 5 (legacy) schematic")

// ErrAmbiguous is wrapped by the refusal of a search that found several
// projects (or several schematics and no project) with none enclosing the
// others: the user must choose one.
var ErrAmbiguous = errors.New("more than one KiCad project")

// ErrBadPath is wrapped by the refusal of the path to search itself: it
// does not exist, lies outside the repository, or is neither a folder, a
// .kicad_pro nor a .kicad_sch.
var ErrBadPath = errors.New("bad path")

// locateError is a refused search with its own message that matches each
// of kinds (ErrAmbiguous, ErrBadPath, ErrLegacySchematic, ErrNoSchematic).
type locateError struct {
	msg   string
	kinds []error
}

func (e *locateError) Error() string { return e.msg }
func (e *locateError) Is(target error) bool {
	for _, k := range e.kinds {
		if target == k {
			return true
		}
	}
	return false
}

func badPath(format string, args ...any) error {
	return &locateError{msg: fmt.Sprintf(format, args...), kinds: []error{ErrBadPath}}
}

func ambiguous(format string, args ...any) error {
	return &locateError{msg: fmt.Sprintf(format, args...), kinds: []error{ErrAmbiguous}}
}

// legacy is the refusal of the KiCad 5 schematics files (absolute, at
// least one): what they are and the one way forward.
func (pr *Project) legacy(files ...string) error {
	what, it := pr.Rel(files[0])+" is a KiCad 5 (legacy) schematic", "it"
	if len(files) > 1 {
		what, it = pr.list(files)+" are KiCad 5 (legacy) schematics", "them"
	}
	return &locateError{
		msg:   what + ", which copperhead cannot read: open and save " + it + " in KiCad 6 or later (KiCad 9's File > Save converts " + it + ")",
		kinds: []error{ErrLegacySchematic, ErrNoSchematic},
	}
}

// legacyHeader opens every schematic KiCad 5 (and 4) wrote; the same
// extension is used by other tools (Eagle, gEDA), whose files are not
// KiCad's to convert.
const legacyHeader = "EESchema Schematic File Version"

// isLegacySchematic reports whether the file p starts with the KiCad 5
// schematic header.
func isLegacySchematic(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(legacyHeader))
	n, _ := io.ReadFull(f, head)
	return bytes.Equal(head[:n], []byte(legacyHeader))
}

// skipDirs are never searched: VCS data, dependencies, copperhead's own
// state and generated outputs cannot hold the design's source.
var skipDirs = map[string]bool{".git": true, "node_modules": true, config.Dir: true, "outputs": true}

// namedFile is the absolute path of the file rel (repo-relative, slashes)
// that the config names as its schematic or board (what): it must stay
// inside the repository and exist.
func namedFile(repo, what, rel string) (string, error) {
	path := filepath.Join(repo, filepath.FromSlash(rel))
	if _, err := repofs.Resolve(repo, path); err != nil {
		return "", fmt.Errorf("%s %s named in .copperhead/config.json: %w", what, rel, repofs.Renamed(err, rel))
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s %s named in .copperhead/config.json: %w", what, rel, unwrapPath(err))
	}
	return path, nil
}

// Locate finds the project at repo/sub (sub may be ""). sub is a folder to
// search, a .kicad_pro (its root schematic is the .kicad_sch of the same
// name beside it) or the root .kicad_sch itself. schematic and board, when
// non-empty, are the repo-relative paths a config names; they win over the
// search and must exist.
//
// A folder's search takes the one project found, or the one whose folder
// encloses every other project's (a repository with its board at the top
// and library or test projects in sub-folders); several projects with none
// enclosing the rest, or several in the enclosing folder, are refused
// (ErrAmbiguous).
func Locate(repo, sub, schematic, board string) (*Project, error) {
	pr := &Project{Repo: repo}
	if schematic != "" {
		var err error
		if pr.Schematic, err = namedFile(repo, "schematic", schematic); err != nil {
			return nil, err
		}
		pr.Name = strings.TrimSuffix(filepath.Base(pr.Schematic), ".kicad_sch")
		if board != "" {
			if pr.Board, err = namedFile(repo, "board", board); err != nil {
				return nil, err
			}
		}
		pr.fill()
		return pr, nil
	}
	at := filepath.Join(repo, sub)
	fi, err := os.Stat(at)
	if err != nil {
		return nil, badPath("search %s: %v", pr.Rel(at), unwrapPath(err))
	}
	if !repofs.Within(repo, at) {
		return nil, badPath("search %s: outside the repository", pr.Rel(at))
	}
	if fi.IsDir() {
		if pr.Schematic, err = pr.search(at); err != nil {
			return nil, err
		}
	} else if pr.Schematic, err = pr.named(at); err != nil {
		return nil, err
	}
	pr.Name = strings.TrimSuffix(filepath.Base(pr.Schematic), ".kicad_sch")
	if b := strings.TrimSuffix(pr.Schematic, ".kicad_sch") + ".kicad_pcb"; exists(b) {
		pr.Board = b
	}
	pr.fill()
	return pr, nil
}

// named is the root schematic of the file a --path names: a .kicad_pro's
// schematic of the same name beside it, or the .kicad_sch itself.
func (pr *Project) named(file string) (string, error) {
	if _, err := repofs.Resolve(pr.Repo, file); err != nil {
		return "", badPath("search %v", repofs.Renamed(err, pr.Rel(file)))
	}
	switch ext := filepath.Ext(file); ext {
	case ".kicad_pro":
		s := strings.TrimSuffix(file, ".kicad_pro") + ".kicad_sch"
		if !exists(s) {
			if old := strings.TrimSuffix(file, ext) + ".sch"; isLegacySchematic(old) {
				return "", pr.legacy(old) // KiCad 6+ migrated the project file, not yet the schematic
			}
			return "", fmt.Errorf("search %s: no root schematic %s beside it", pr.Rel(file), filepath.Base(s))
		}
		return s, nil
	case ".kicad_sch":
		return file, nil
	case ".sch", ".pro":
		if old := strings.TrimSuffix(file, ext) + ".sch"; isLegacySchematic(old) {
			return "", pr.legacy(old)
		}
	}
	return "", badPath("search %s: not a folder, .kicad_pro or .kicad_sch", pr.Rel(file))
}

// search finds the root schematic under dir: a .kicad_pro names its root
// schematic by sharing its base name; with no project, a lone schematic is
// the root.
func (pr *Project) search(dir string) (string, error) {
	var pros, schs, olds []string // olds: .sch files, perhaps KiCad 5 schematics
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // an unreadable subfolder cannot hold our project
		}
		if d.IsDir() {
			if p != dir && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(p) {
		case ".kicad_pro":
			pros = append(pros, p)
		case ".kicad_sch":
			schs = append(schs, p)
		case ".sch":
			olds = append(olds, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("search %s: %w", pr.Rel(dir), err)
	}
	sort.Strings(pros)
	sort.Strings(schs)
	var found []string // the .kicad_pro of each project with its root schematic
	for _, p := range pros {
		if exists(strings.TrimSuffix(p, ".kicad_pro") + ".kicad_sch") {
			found = append(found, p)
		}
	}
	if len(found) > 0 {
		top, nested := outermost(found)
		if len(top) == 1 {
			return strings.TrimSuffix(top[0], ".kicad_pro") + ".kicad_sch", nil
		}
		return "", ambiguous("found %d KiCad projects under %s: %s%s; choose one with --path (its folder or its .kicad_pro)",
			len(top), pr.relDir(dir), pr.list(top), pr.besides(nested))
	}
	switch top, nested := outermost(schs); {
	case len(top) == 1:
		return top[0], nil
	case len(top) > 1:
		return "", ambiguous("found %d schematics but no .kicad_pro under %s: %s%s; choose the root one with --path (its .kicad_sch) or set \"schematic\" in .copperhead/config.json",
			len(top), pr.relDir(dir), pr.list(top), pr.besides(nested))
	}
	if old := legacyRoots(olds); len(old) > 0 {
		return "", pr.legacy(old...)
	}
	return "", fmt.Errorf("%w found under %s", ErrNoSchematic, pr.relDir(dir))
}

// legacyRoots are the root schematics of the KiCad 5 projects among the
// .sch files olds (sorted): those with a legacy .pro of the same name, the
// outermost ones; with no .pro, the outermost KiCad 5 schematics. A
// hierarchical KiCad 5 project keeps every sheet as a .sch: naming the root
// names the file to open.
func legacyRoots(olds []string) []string {
	var sch, roots []string
	for _, p := range olds {
		if !isLegacySchematic(p) {
			continue
		}
		sch = append(sch, p)
		if exists(strings.TrimSuffix(p, ".sch") + ".pro") {
			roots = append(roots, p)
		}
	}
	if len(roots) == 0 {
		roots = sch
	}
	top, _ := outermost(roots)
	return top
}

// outermost splits files (sorted) into those in the one folder that
// encloses every other file's folder, and the number of the rest; when no
// folder encloses them all, every file is in top.
func outermost(files []string) (top []string, nested int) {
	if len(files) == 0 {
		return nil, 0
	}
	outer := filepath.Dir(files[0])
	for _, f := range files[1:] {
		if d := filepath.Dir(f); len(d) < len(outer) {
			outer = d
		}
	}
	for _, f := range files {
		d := filepath.Dir(f)
		if d == outer {
			top = append(top, f)
		} else if !strings.HasPrefix(d, outer+string(filepath.Separator)) {
			return files, 0
		}
	}
	return top, len(files) - len(top)
}

// besides notes the projects left out of a list as nested in sub-folders.
func (pr *Project) besides(nested int) string {
	switch nested {
	case 0:
		return ""
	case 1:
		return " (and 1 nested in a sub-folder)"
	}
	return fmt.Sprintf(" (and %d nested in sub-folders)", nested)
}

func (pr *Project) fill() {
	if p := strings.TrimSuffix(pr.Schematic, ".kicad_sch") + ".kicad_pro"; exists(p) {
		pr.Pro = p
	}
}

func (pr *Project) relDir(dir string) string {
	r := pr.Rel(dir)
	if r == "." {
		return "the repository"
	}
	return r
}

func (pr *Project) list(paths []string) string {
	const shown = 5
	var rel []string
	for i, p := range paths {
		if i == shown {
			rel = append(rel, fmt.Sprintf("and %d more", len(paths)-shown))
			break
		}
		rel = append(rel, pr.Rel(p))
	}
	return strings.Join(rel, ", ")
}

func exists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// unwrapPath drops the *PathError wrapper, whose path the caller already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
