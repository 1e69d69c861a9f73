package kigen

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"copperhead/internal/sexpr"
)

// DefaultFootprintDir is where Debian's kicad-footprints package installs
// KiCad's standard footprint libraries; KICAD9_FOOTPRINT_DIR overrides it,
// as for KiCad itself.
const DefaultFootprintDir = "/usr/share/kicad/footprints"

// FootprintDir is the installed footprint folder in use.
func FootprintDir() string {
	if v := os.Getenv("KICAD9_FOOTPRINT_DIR"); v != "" {
		return v
	}
	return DefaultFootprintDir
}

// ErrNoFootprint marks a footprint the libraries do not hold.
var ErrNoFootprint = errors.New("footprint not found")

// FootprintLibraries maps footprint library nicknames to their .pretty
// folders. It mirrors how schedit resolves symbol libraries: the project's
// fp-lib-table beside the root schematic first (${KIPRJMOD} and
// ${KICADn_FOOTPRINT_DIR} expanded), then every library installed in the
// footprint folder under its folder name. The user's global fp-lib-table is
// never read, so a result depends on the project and the installed set
// alone and comes out the same on every machine.
type FootprintLibraries map[string]string

// FindFootprintLibraries builds the library map for the project whose root
// schematic lives in projectDir.
func FindFootprintLibraries(projectDir string) FootprintLibraries {
	dir := FootprintDir()
	return LibraryTable(projectDir, "fp-lib-table", dir, ".pretty", func(uri string) string {
		return expandURI(uri, projectDir, dir)
	})
}

// LibraryTable maps library nicknames to their paths the way KiCad resolves
// a project's libraries, for symbols and footprints alike: every entry of
// the installed folder dir whose name ends in suffix, under its name without
// the suffix; then the KiCad-format rows of the project's own table
// (tableName, such as "sym-lib-table", in projectDir), each uri passed
// through expand, which win over an installed library of the same name. A
// missing or unreadable table leaves the installed set alone.
func LibraryTable(projectDir, tableName, dir, suffix string, expand func(uri string) string) map[string]string {
	libs := map[string]string{}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if name, ok := strings.CutSuffix(e.Name(), suffix); ok {
				libs[name] = filepath.Join(dir, e.Name())
			}
		}
	}
	table, _, err := sexpr.ParseFile(filepath.Join(projectDir, tableName))
	if err != nil {
		return libs
	}
	for lib := range table.All("lib") {
		if t := lib.Value1("type"); t != "KiCad" && t != "" {
			continue
		}
		uri := expand(lib.Value1("uri"))
		if name := lib.Value1("name"); name != "" && uri != "" {
			libs[name] = uri
		}
	}
	return libs
}

// expandURI expands the variables a library table may use: ${VAR} and the
// legacy $(VAR) spelling some demos still carry.
func expandURI(uri, projectDir, fpDir string) string {
	uri = strings.NewReplacer("$(", "${", ")", "}").Replace(uri)
	return os.Expand(uri, func(v string) string {
		switch {
		case v == "KIPRJMOD":
			return projectDir
		case strings.HasPrefix(v, "KICAD") && strings.HasSuffix(v, "_FOOTPRINT_DIR"):
			return fpDir
		}
		return os.Getenv(v)
	})
}

// Source reads the footprint libID ("Lib:Name"): the .kicad_mod file's path
// and bytes. A footprint the libraries do not hold is an error wrapping
// ErrNoFootprint.
func (l FootprintLibraries) Source(libID string) (string, []byte, error) {
	nick, name, ok := strings.Cut(libID, ":")
	if !ok || nick == "" || name == "" {
		return "", nil, fmt.Errorf("footprint %q: %w: want LIBRARY:NAME", libID, ErrNoFootprint)
	}
	dir, ok := l[nick]
	if !ok {
		return "", nil, fmt.Errorf("footprint %s: %w: no library %s in the project's fp-lib-table or %s", libID, ErrNoFootprint, nick, FootprintDir())
	}
	path := filepath.Join(dir, name+".kicad_mod")
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("footprint %s: %w: %s does not exist", libID, ErrNoFootprint, path)
	}
	if err != nil {
		return "", nil, fmt.Errorf("footprint %s: %w", libID, err)
	}
	return path, src, nil
}

// LoadFootprint reads and parses the footprint libID.
func (l FootprintLibraries) LoadFootprint(libID string) (*sexpr.Node, error) {
	path, src, err := l.Source(libID)
	if err != nil {
		return nil, err
	}
	root, err := sexpr.Parse(path, src)
	if err != nil {
		return nil, fmt.Errorf("footprint %s: %w", libID, err)
	}
	if h := root.Head(); h != "footprint" && h != "module" {
		return nil, fmt.Errorf("footprint %s: %s is not a footprint: it holds (%s ...)", libID, path, h)
	}
	return root, nil
}
