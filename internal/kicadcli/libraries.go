package kicadcli

import (
	"fmt"
	"os"
	"strings"
)

// Library is one of KiCad's standard library folders as kicad-cli will see it.
type Library struct {
	Name    string // "symbol libraries" or "footprint libraries"
	Var     string // the path variable KiCad resolves, e.g. KICAD9_SYMBOL_DIR
	Dir     string // the folder, or "" when it is not installed
	Package string // the Debian package that provides it
}

// Libraries reports where the standard symbol and footprint libraries are,
// using the same resolution as every kicad-cli run (an explicit KICADn_*_DIR
// first, then the share folder beside the binary, then the system ones).
func (t *Tool) Libraries() []Library {
	major := strings.SplitN(t.version, ".", 2)[0]
	shares := shareDirs(t.Path)
	var out []Library
	for _, l := range []struct{ name, suffix, sub, pkg string }{
		{"symbol libraries", "SYMBOL_DIR", "symbols", "kicad-symbols"},
		{"footprint libraries", "FOOTPRINT_DIR", "footprints", "kicad-footprints"},
	} {
		v := fmt.Sprintf("KICAD%s_%s", major, l.suffix)
		dir := os.Getenv(v)
		if dir == "" {
			dir = firstDir(shares, l.sub)
		} else if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			dir = ""
		}
		out = append(out, Library{Name: l.name, Var: v, Dir: dir, Package: l.pkg})
	}
	return out
}
