package schedit

import (
	"fmt"
	"slices"

	"copperhead/internal/sexpr"
)

// RemovePart deletes every placed unit of ref and what served only its
// pins: no-connect flags on them, labels sitting on them, and each wire from
// one of its pins, with the segments it continues into through bends and
// splits (unless another object connects along them), together with the
// labels and power symbols at the far end when nothing else is there. A
// stub whose far end joins other wiring is removed but that wiring stays,
// unless a label on the stub names that wiring's net: then the stub stays
// too, so the net keeps its name. The sheet's lib_symbols entries no
// remaining symbol uses are removed; the rest stay byte for byte. In a
// sheet used several times the part goes from every instance (Touched
// lists each reference).
//
// Removing a part that does not exist is refused as an unknown reference:
// unlike connect, there is nothing to tell "already removed" from a typo.
func RemovePart(d *Design, ref string) (*Plan, error) {
	sh, units, err := partSheet(d, ref)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Op: "remove-part " + ref}
	o := scanSheet(sh)
	var rm []*sexpr.Node
	add := func(n *sexpr.Node) {
		if !slices.Contains(rm, n) {
			rm = append(rm, n)
		}
	}
	for _, ps := range units {
		for _, r := range ps.refs {
			if !slices.Contains(plan.Touched, r) {
				plan.Touched = append(plan.Touched, r)
			}
		}
		add(ps.node)
		for _, pe := range ps.pins(sh) {
			served, err := o.stubsOf(ps, pe, true)
			if err != nil {
				return nil, err
			}
			for _, n := range served {
				add(n)
			}
		}
	}
	// Keep lib_symbols entries any remaining symbol still draws.
	used := map[string]bool{}
	for c := range sh.Root.All("symbol") {
		if !slices.Contains(rm, c) {
			used[readPlaced(c).libKey] = true
		}
	}
	for _, n := range rm {
		if n.Head() != "symbol" {
			continue
		}
		key := readPlaced(n).libKey
		if lib := libSymbol(sh, key); lib != nil && !used[key] && !slices.Contains(rm, lib) {
			rm = append(rm, lib)
			plan.Summary = append(plan.Summary, fmt.Sprintf("remove the unused library symbol %s", key))
		}
	}
	for _, n := range rm {
		plan.Add(sh.Path, removal(sh.Src, n))
		switch {
		case n.Head() == "symbol" && slices.ContainsFunc(units, func(u *placedSym) bool { return u.node == n }):
			plan.Summary = append(plan.Summary, fmt.Sprintf("remove %s (%s, unit %d)", ref, readPlaced(n).libKey, readPlaced(n).unit))
		case n.Head() == "symbol" && libSymbol(sh, n.Arg(0)) == n:
		default:
			plan.Summary = append(plan.Summary, "remove "+describeObject(n))
		}
	}
	// A KiCad 6 root lists the part's references in symbol_instances:
	// this design's entries of the removed symbols go too.
	root := d.Sheets[d.RootPath]
	var gone []*sexpr.Node
	for _, u := range units {
		for _, in := range u.insts {
			if in.legacy != nil && !slices.Contains(gone, in.legacy) {
				gone = append(gone, in.legacy)
				plan.Add(root.Path, removal(root.Src, in.legacy))
			}
		}
	}
	plan.Expect.Removed = slices.Clone(plan.Touched)
	return plan, nil
}
