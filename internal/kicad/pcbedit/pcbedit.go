// Package pcbedit makes the few board edits that must follow a schematic
// edit without a layout decision: renaming nets (RenameNets splices the
// string atoms of (net N "name") and (net_name "name")) and the footprint
// fields a set-field changed (FollowFields: value text, parity attributes,
// and a footprint swapped for the library one in place, the way KiCad's
// Update PCB from Schematic does). Every edit is a splice through the
// lossless reader, so tracks, zones and every other byte of the .kicad_pcb
// stay as they were. It builds on sexpr, kicad and kigen and must never
// import design, llm, agent or research.
package pcbedit

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"copperhead/internal/kicad"
	"copperhead/internal/sexpr"
)

// NetRenames pairs the nets of two netlists of one design that hold exactly
// the same pins under different names: old name -> new name. Nets whose
// pins changed (a connect, a swap, a removed part) are not renames, and
// the board keeps them for KiCad's "Update PCB from Schematic" to resolve.
func NetRenames(before, after *kicad.Netlist) map[string]string {
	key := func(n kicad.Net) string {
		pins := make([]string, 0, len(n.Nodes))
		for _, nd := range n.Nodes {
			pins = append(pins, nd.Refdes+"."+nd.Pin)
		}
		slices.Sort(pins)
		return strings.Join(pins, "\x00")
	}
	byPins := map[string]string{}
	for _, n := range after.Nets {
		if len(n.Nodes) > 0 {
			byPins[key(n)] = n.Name
		}
	}
	out := map[string]string{}
	for _, n := range before.Nets {
		if len(n.Nodes) == 0 {
			continue
		}
		if name, ok := byPins[key(n)]; ok && name != n.Name {
			out[n.Name] = name
		}
	}
	return out
}

// RenameNets returns src (a .kicad_pcb, named name in errors) with every net
// in renames renamed, and one summary line per renamed net. A board that
// has none of the old names, or already has the new ones, comes back
// unchanged with no lines. A rename onto a name the board already uses for
// another net is refused: it would merge two nets on copper.
func RenameNets(name string, src []byte, renames map[string]string) ([]byte, []string, error) {
	if len(renames) == 0 {
		return src, nil, nil
	}
	root, err := sexpr.Parse(name, src)
	if err != nil {
		return nil, nil, err
	}
	declared := map[string]bool{}
	for n := range root.All("net") {
		if len(n.Children) >= 3 && n.Children[2].Kind == sexpr.String {
			declared[n.Children[2].Value] = true
		}
	}
	for old, nw := range renames {
		// A name that is itself renamed away frees up (two nets trading
		// names is a swap, not a merge).
		if _, freed := renames[nw]; declared[old] && declared[nw] && !freed {
			return nil, nil, fmt.Errorf("%s: renaming net %s to %s would merge it with the board's existing net %s", name, old, nw, nw)
		}
	}
	var edits []sexpr.Edit
	count := map[string]int{}
	var walk func(n *sexpr.Node)
	walk = func(n *sexpr.Node) {
		if n.Kind != sexpr.List {
			return
		}
		switch n.Head() {
		case "net", "net_name":
			for i := 1; i < len(n.Children); i++ {
				c := &n.Children[i]
				if nw, ok := renames[c.Value]; ok && c.Kind == sexpr.String {
					edits = append(edits, sexpr.Edit{Start: c.Start, End: c.End, Text: sexpr.Quote(nw)})
					count[c.Value]++
				}
			}
			return
		}
		for i := range n.Children {
			walk(&n.Children[i])
		}
	}
	walk(root)
	if len(edits) == 0 {
		return src, nil, nil
	}
	next, err := splice(name, src, edits)
	if err != nil {
		return nil, nil, err
	}
	var lines []string
	for old, n := range count {
		lines = append(lines, fmt.Sprintf("%s: net %s -> %s (%d references)", name, old, renames[old], n))
	}
	sort.Strings(lines)
	return next, lines, nil
}

// splice applies edits to a board and proves the result still parses.
func splice(name string, src []byte, edits []sexpr.Edit) ([]byte, error) {
	next, err := sexpr.Splice(src, edits)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, err := sexpr.Parse(name, next); err != nil {
		return nil, fmt.Errorf("%s would no longer parse: %w", name, err)
	}
	return next, nil
}
