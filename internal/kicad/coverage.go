package kicad

import (
	"fmt"
	"path/filepath"
	"strings"
)

// SheetsNotLoaded returns the sheet instances of s that hold annotated parts
// in copperhead's parse none of which KiCad's netlist nl lists: sheets
// kicad-cli could not load. (References, not sheet paths, are compared: a
// part whose units sit on several sheets may be filed under either.) kicad-cli does not fail when a sub-sheet will not load (a token
// it does not know, a newer format): it exports the rest of the design, exit
// 0, as if it were whole, and every command would then work from half a
// design. Sorted as s.Sheets.
func SheetsNotLoaded(s *Schematic, nl *Netlist) []SheetInstance {
	if s == nil || nl == nil {
		return nil
	}
	inNetlist := map[string]bool{}
	for _, c := range nl.Components {
		inNetlist[c.Refdes] = true
	}
	parts, found := map[string]int{}, map[string]bool{}
	for _, p := range s.Parts {
		if strings.HasSuffix(p.Refdes, "?") {
			continue // unannotated: KiCad may number it differently
		}
		parts[p.SheetPath]++
		if inNetlist[p.Refdes] {
			found[p.SheetPath] = true
		}
	}
	var out []SheetInstance
	for _, sh := range s.Sheets {
		if parts[sh.Path] > 0 && !found[sh.Path] {
			out = append(out, sh)
		}
	}
	return out
}

// CheckNetlistCovers refuses a netlist that leaves out sheets copperhead's
// parse holds parts in (see SheetsNotLoaded), naming the first such sheet's
// file and how many parts are missing, in one line.
func CheckNetlistCovers(s *Schematic, nl *Netlist) error {
	missing := SheetsNotLoaded(s, nl)
	if len(missing) == 0 {
		return nil
	}
	sh := missing[0]
	file := func(sh SheetInstance) string { return filepath.Join(filepath.Dir(s.Root), filepath.FromSlash(sh.File)) }
	n := 0
	for _, p := range s.Parts {
		if p.SheetPath == sh.Path {
			n++
		}
	}
	more := ""
	if len(missing) > 1 {
		files := make([]string, 0, len(missing)-1)
		for _, m := range missing[1:] {
			files = append(files, file(m))
		}
		more = fmt.Sprintf(" (and %s)", strings.Join(files, ", "))
	}
	return fmt.Errorf("kicad-cli could not load %s (sheet %s)%s: its netlist leaves out the sheet's %d parts although copperhead's parser reads the file, so the cause is something only KiCad checks (a token it does not know, a newer file format): open the sheet in KiCad to see", file(sh), sh.Path, more, n)
}
