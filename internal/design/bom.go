package design

import (
	"cmp"
	"slices"
	"strings"

	"copperhead/internal/kicad"
)

// RationalePlaceholder is the Rationale cell init writes: the human (or the
// agent, with a reason) replaces it.
const RationalePlaceholder = "TODO: why this part"

// Parts returns the schematic's real parts, one per reference designator:
// references starting with '#' (power symbols, flags) are dropped, and the
// same reference seen more than once (units of one symbol placed on several
// sheets) is merged, units unioned, first non-empty field wins. Sorted in
// natural refdes order. Parts with in_bom=false, on_board=false or DNP are
// kept: kicad-cli's netlist export lists them too, and BOM.md must have one row
// per reference it lists.
func Parts(sch *kicad.Schematic) []kicad.Part {
	if sch == nil {
		return nil
	}
	byRef := map[string]int{}
	var parts []kicad.Part
	for _, p := range sch.Parts {
		if p.Refdes == "" || strings.HasPrefix(p.Refdes, "#") {
			continue
		}
		i, seen := byRef[p.Refdes]
		if !seen {
			byRef[p.Refdes] = len(parts)
			p.Units = slices.Clone(p.Units)
			parts = append(parts, p)
			continue
		}
		merged := &parts[i]
		for _, u := range p.Units {
			if !slices.Contains(merged.Units, u) {
				merged.Units = append(merged.Units, u)
			}
		}
		slices.Sort(merged.Units)
		merged.Value = cmp.Or(merged.Value, p.Value)
		merged.Footprint = cmp.Or(merged.Footprint, p.Footprint)
		merged.MPN = cmp.Or(merged.MPN, p.MPN)
		merged.DNP = merged.DNP || p.DNP
	}
	slices.SortFunc(parts, func(a, b kicad.Part) int { return kicad.CompareRefdes(a.Refdes, b.Refdes) })
	return parts
}

// BOMRows is the as-built BOM table: one row per part from Parts. MPN is the
// schematic's own, else MPNUnverified. The Rationale placeholder is prefixed
// with the part's assembly flags ("DNP.", "Not in BOM (in_bom=no).", "Not on
// board (on_board=no).") so a human sees at a glance why the row is special.
func BOMRows(sch *kicad.Schematic) []BOMRow {
	var rows []BOMRow
	for _, p := range Parts(sch) {
		rows = append(rows, BOMRow{
			Refdes:    p.Refdes,
			Value:     p.Value,
			Footprint: p.Footprint,
			MPN:       cmp.Or(p.MPN, MPNUnverified),
			Rationale: strings.Join(append(partFlags(p), RationalePlaceholder), " "),
		})
	}
	return rows
}

func partFlags(p kicad.Part) []string {
	var flags []string
	if p.DNP {
		flags = append(flags, "DNP.")
	}
	if !p.InBOM {
		flags = append(flags, "Not in BOM (in_bom=no).")
	}
	if !p.OnBoard {
		flags = append(flags, "Not on board (on_board=no).")
	}
	return flags
}

// GenerateBOM renders docs/BOM.md from the schematic.
func GenerateBOM(project string, sch *kicad.Schematic) []byte {
	rows := BOMRows(sch)
	var b strings.Builder
	docHead(&b, project, "Bill of materials")
	b.WriteString("One row per part reference in the schematic (all units of a multi-unit part in one row), the same set kicad-cli's netlist export lists. " +
		"Parts marked DNP, not in BOM or not on board keep their row; the flag leads the Rationale. " +
		"`MPN` is `" + MPNUnverified + "` until someone checks a manufacturer part number against its datasheet; never invent one. " +
		"`copperhead check` compares Refdes, Value, Footprint (and MPN when the schematic carries one) with the schematic; " +
		"write a one-line reason for each part in `Rationale`.\n\n")
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = []string{r.Refdes, r.Value, r.Footprint, r.MPN, r.Rationale}
	}
	b.WriteString(markdownTable(BOMColumns, cells))
	return []byte(b.String())
}
