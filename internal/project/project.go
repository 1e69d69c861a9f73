// Package project finds the KiCad project inside a repository: the root
// schematic, the board and the .kicad_pro beside them. It reads folder
// listings only; it never parses KiCad files and imports only the standard
// library and repofs.
package project

import (
	"errors"
	"fmt"
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

// skipDirs are never searched: VCS data, dependencies, copperhead's own
// state and generated outputs cannot hold the design's source.
var skipDirs = map[string]bool{".git": true, "node_modules": true, config.Dir: true, "outputs": true}

// Locate finds the project under repo/sub (sub may be ""). schematic and board,
// when non-empty, are the repo-relative paths a config names; they win over
// the search and must exist.
func Locate(repo, sub, schematic, board string) (*Project, error) {
	pr := &Project{Repo: repo}
	if schematic != "" {
		pr.Schematic = filepath.Join(repo, filepath.FromSlash(schematic))
		if _, err := repofs.Resolve(repo, pr.Schematic); err != nil {
			return nil, fmt.Errorf("schematic %s named in .copperhead/config.json: %w", schematic, repofs.Renamed(err, schematic))
		}
		if _, err := os.Stat(pr.Schematic); err != nil {
			return nil, fmt.Errorf("schematic %s named in .copperhead/config.json: %w", schematic, unwrapPath(err))
		}
		pr.Name = strings.TrimSuffix(filepath.Base(pr.Schematic), ".kicad_sch")
		if board != "" {
			pr.Board = filepath.Join(repo, filepath.FromSlash(board))
			if _, err := repofs.Resolve(repo, pr.Board); err != nil {
				return nil, fmt.Errorf("board %s named in .copperhead/config.json: %w", board, repofs.Renamed(err, board))
			}
			if _, err := os.Stat(pr.Board); err != nil {
				return nil, fmt.Errorf("board %s named in .copperhead/config.json: %w", board, unwrapPath(err))
			}
		}
		pr.fill()
		return pr, nil
	}
	dir := filepath.Join(repo, sub)
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("search %s: %w", pr.Rel(dir), unwrapPath(err))
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("search %s: not a folder", pr.Rel(dir))
	}
	var pros, schs []string
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
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", pr.Rel(dir), err)
	}
	sort.Strings(pros)
	sort.Strings(schs)
	// A .kicad_pro names its root schematic by sharing its base name.
	var roots []string
	for _, p := range pros {
		s := strings.TrimSuffix(p, ".kicad_pro") + ".kicad_sch"
		if _, err := os.Stat(s); err == nil {
			roots = append(roots, s)
		}
	}
	switch {
	case len(roots) == 1:
		pr.Schematic = roots[0]
	case len(roots) > 1:
		return nil, fmt.Errorf("found %d KiCad projects under %s: %s; choose one with --path", len(roots), pr.relDir(dir), pr.list(roots))
	case len(schs) == 1:
		pr.Schematic = schs[0]
	case len(schs) > 1:
		return nil, fmt.Errorf("found %d schematics but no .kicad_pro under %s: %s; choose one with --path or set \"schematic\" in .copperhead/config.json", len(schs), pr.relDir(dir), pr.list(schs))
	default:
		return nil, fmt.Errorf("%w found under %s", ErrNoSchematic, pr.relDir(dir))
	}
	pr.Name = strings.TrimSuffix(filepath.Base(pr.Schematic), ".kicad_sch")
	if b := strings.TrimSuffix(pr.Schematic, ".kicad_sch") + ".kicad_pcb"; exists(b) {
		pr.Board = b
	}
	pr.fill()
	return pr, nil
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
