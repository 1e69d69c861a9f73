package layout

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"copperhead/internal/sexpr"
)

// defaultFootprintDir is where Debian's kicad-footprints package installs
// KiCad's standard footprint libraries; KICAD9_FOOTPRINT_DIR overrides it,
// as for KiCad itself.
const defaultFootprintDir = "/usr/share/kicad/footprints"

func footprintDir() string {
	if v := os.Getenv("KICAD9_FOOTPRINT_DIR"); v != "" {
		return v
	}
	return defaultFootprintDir
}

// Libraries maps footprint library nicknames to their .pretty folders. It
// mirrors how schedit resolves symbol libraries: the project's fp-lib-table
// beside the root schematic first (${KIPRJMOD} and ${KICADn_FOOTPRINT_DIR}
// expanded), then every library installed in the footprint folder under its
// folder name. The user's global fp-lib-table is never read, so a draft
// resolves from the project and the installed set alone and comes out the
// same on every machine.
type Libraries map[string]string

// FindLibraries builds the library map for the project whose root
// schematic lives in projectDir.
func FindLibraries(projectDir string) Libraries {
	libs := Libraries{}
	dir := footprintDir()
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if name, ok := strings.CutSuffix(e.Name(), ".pretty"); ok {
				libs[name] = filepath.Join(dir, e.Name())
			}
		}
	}
	table, _, err := sexpr.ParseFile(filepath.Join(projectDir, "fp-lib-table"))
	if err != nil {
		return libs
	}
	for lib := range table.All("lib") {
		if t := lib.Value1("type"); t != "KiCad" && t != "" {
			continue
		}
		uri := expandURI(lib.Value1("uri"), projectDir, dir)
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

// errNoFootprint marks a footprint the libraries do not hold.
var errNoFootprint = errors.New("footprint not found")

// Load reads the footprint libID ("Lib:Name") from its library.
func (l Libraries) Load(libID string) (*Footprint, error) {
	nick, name, ok := strings.Cut(libID, ":")
	if !ok || nick == "" || name == "" {
		return nil, fmt.Errorf("footprint %q: %w: want LIBRARY:NAME", libID, errNoFootprint)
	}
	dir, ok := l[nick]
	if !ok {
		return nil, fmt.Errorf("footprint %s: %w: no library %s in the project's fp-lib-table or %s", libID, errNoFootprint, nick, footprintDir())
	}
	path := filepath.Join(dir, name+".kicad_mod")
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("footprint %s: %w: %s does not exist", libID, errNoFootprint, path)
	}
	if err != nil {
		return nil, fmt.Errorf("footprint %s: %w", libID, err)
	}
	fp, err := ParseFootprint(path, src)
	if err != nil {
		return nil, fmt.Errorf("footprint %s: %w", libID, err)
	}
	fp.LibID = libID
	return fp, nil
}
