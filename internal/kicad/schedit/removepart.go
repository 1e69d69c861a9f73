package schedit

import (
	"fmt"
	"slices"

	"copperhead/internal/kicad"
	"copperhead/internal/sexpr"
)

// RemovePart deletes every placed unit of ref and what served only its
// pins: no-connect flags on them, labels sitting on them, and each wire from
// one of its pins, with the segments it continues into through bends and
// splits, together with the labels and power symbols along it and at its
// far end when nothing else connects there. A stub that leads into other
// wiring or pins goes up to the first thing along it that connects or
// names a net (a label, a power symbol, a pin, a junction, another wire's
// end): the wire carrying that is shortened to end there, so the net it
// leads to keeps its name and no wire end is left dangling. Wires drawn on
// through a pin (a daisy chain) stay, joined where the pin was, when one of
// them leads on to other wiring or pins. The sheet's lib_symbols entries no
// remaining symbol uses are removed; the rest stay byte for byte. In a
// sheet used several times the part goes from every instance (Touched
// lists each reference).
//
// Removing a part that does not exist is refused as an unknown reference:
// unlike connect, there is nothing to tell "already removed" from a typo.
func RemovePart(d *Design, ref string) (*Plan, error) {
	sheets, err := partSheets(d, ref)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Op: "remove-part " + ref}
	var all []*placedSym
	for _, su := range sheets {
		if err := removeUnits(plan, su.sh, ref, su.units, len(sheets) > 1); err != nil {
			return nil, err
		}
		all = append(all, su.units...)
	}
	// A KiCad 6 root lists the part's references in symbol_instances:
	// this design's entries of the removed symbols go too.
	root := d.Sheets[d.RootPath]
	var gone []*sexpr.Node
	for _, u := range all {
		for _, in := range u.insts {
			if in.legacy != nil && !slices.Contains(gone, in.legacy) {
				gone = append(gone, in.legacy)
				plan.Add(root.Path, removal(root.Src, in.legacy))
			}
		}
	}
	plan.Expect.Removed = slices.Clone(plan.Touched)
	plan.Summary = append(plan.Summary, leftAlone(d, plan.Touched)...)
	return plan, nil
}

// leftAlone says which pins the removal leaves as the only pin of a net
// they shared with the part (by KiCad's netlist as loaded): the edit is
// right, but the engineer should know a pin now connects to nothing.
func leftAlone(d *Design, gone []string) []string {
	if d.Netlist == nil {
		return nil
	}
	var out []string
	for _, n := range d.Netlist.Nets {
		var others []kicad.NetNode
		mine := false
		for _, nd := range n.Nodes {
			if slices.Contains(gone, nd.Refdes) {
				mine = true
			} else {
				others = append(others, nd)
			}
		}
		if mine && len(others) == 1 {
			pin := others[0].Refdes + "." + others[0].Pin
			if f := others[0].PinFunction; f != "" && f != others[0].Pin {
				pin += " (" + f + ")"
			}
			out = append(out, fmt.Sprintf("%s is now the only pin on %s", pin, n.Name))
		}
	}
	return out
}

// removeUnits plans the removal of ref's units on one sheet file, with what
// served only their pins there; named says the summary names the sheet (the
// part has units on several).
func removeUnits(plan *Plan, sh *Sheet, ref string, units []*placedSym, named bool) error {
	where := ""
	if named {
		where = " on " + sh.Rel
	}
	o := scanSheet(sh)
	var rm []*sexpr.Node
	var trims []trim
	var ports []*sexpr.Node
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
			served, cut, kept, err := o.stubsOf(ps, pe, true)
			if err != nil {
				return err
			}
			for _, n := range kept {
				if !slices.Contains(ports, n) {
					ports = append(ports, n)
				}
			}
			for _, n := range served {
				add(n)
			}
			trims = append(trims, cut...)
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
			plan.Summary = append(plan.Summary, fmt.Sprintf("remove the unused library symbol %s%s", key, where))
		}
	}
	for _, n := range rm {
		plan.Add(sh.Path, removal(sh.Src, n))
		switch {
		case n.Head() == "symbol" && slices.ContainsFunc(units, func(u *placedSym) bool { return u.node == n }):
			plan.Summary = append(plan.Summary, fmt.Sprintf("remove %s (%s, unit %d)%s", ref, readPlaced(n).libKey, readPlaced(n).unit, where))
		case n.Head() == "symbol" && libSymbol(sh, n.Arg(0)) == n:
		default:
			plan.Summary = append(plan.Summary, "remove "+describeObject(n))
		}
	}
	plan.Summary = append(plan.Summary, keptPorts(ports)...)
	for _, t := range trims {
		if slices.Contains(rm, t.wire.node) {
			continue
		}
		e, ok := t.edit()
		if !ok {
			return fmt.Errorf("remove-part %s: the wire to shorten at (%s, %s)%s has no end there", ref, mm(t.from.X), mm(t.from.Y), where)
		}
		plan.Add(sh.Path, e)
		plan.Summary = append(plan.Summary, fmt.Sprintf("shorten a wire to end at (%s, %s) instead of (%s, %s)", mm(t.to.X), mm(t.to.Y), mm(t.from.X), mm(t.from.Y)))
	}
	return nil
}
