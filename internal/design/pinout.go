package design

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"copperhead/internal/circuit"
	"copperhead/internal/kicad"
)

// NCMarker is the Net cell of a pin that is connected to nothing. Readers also
// accept N/C, -, — and an empty cell as the same claim.
const NCMarker = "NC"

// IsIC reports whether a reference designator names an integrated circuit,
// the parts whose pins PINOUT.md lists: the letters before the number are "U"
// or "IC" (U1, IC3; not USB1). Parts copperhead recognises as a known MCU are
// listed whatever their prefix (see pinoutPart).
func IsIC(refdes string) bool {
	switch strings.ToUpper(refdesPrefix(refdes)) {
	case "U", "IC":
		return true
	}
	return false
}

func refdesPrefix(refdes string) string {
	i := 0
	for i < len(refdes) && (refdes[i] < '0' || refdes[i] > '9') && refdes[i] != '?' {
		i++
	}
	return refdes[:i]
}

// pinoutPart decides whether a part's pins belong in PINOUT.md and in the
// forbidden-pin check: ICs by refdes, and any part of a known MCU family.
func pinoutPart(refdes string, comp kicad.NetComponent) bool {
	return IsIC(refdes) || mcuFamilyOf(comp.LibID, comp.Value) != nil
}

// PinoutNet is the Net cell PINOUT.md shows for a net.
func PinoutNet(n kicad.Net) string {
	if circuit.IsNoConnect(n) {
		return NCMarker
	}
	return n.Name
}

// PinoutRows is the as-built pin table, from the netlist (authoritative for
// hierarchy, multi-unit parts and unconnected pins): one row per (IC refdes,
// pin number), ordered by refdes then pin in natural order. Notes carry the
// strapping/RTC facts of known MCU families.
func PinoutRows(nl *kicad.Netlist) []PinoutRow {
	if nl == nil {
		return nil
	}
	comps := componentsByRef(nl)
	seen := map[[2]string]bool{}
	var rows []PinoutRow
	for _, n := range nl.Nets {
		for _, nd := range n.Nodes {
			comp := comps[nd.Refdes]
			if strings.HasPrefix(nd.Refdes, "#") || !pinoutPart(nd.Refdes, comp) {
				continue
			}
			key := [2]string{nd.Refdes, nd.Pin}
			if seen[key] {
				continue
			}
			seen[key] = true
			rows = append(rows, PinoutRow{
				Refdes: nd.Refdes,
				Pin:    nd.Pin,
				Name:   nd.PinFunction,
				Net:    PinoutNet(n),
				Type:   nd.PinType,
				Notes:  pinNotes(nd.PinFunction, mcuFamilyOf(comp.LibID, comp.Value)),
			})
		}
	}
	slices.SortFunc(rows, func(a, b PinoutRow) int { return comparePins(a.Refdes, a.Pin, b.Refdes, b.Pin) })
	return rows
}

// comparePins orders (refdes, pin) pairs by kicad.CompareRefdes, the one
// natural order of the project (R2 < R10), on refdes and then on pin number
// (pin 2 < pin 10, A9 < A10).
func comparePins(ra, pa, rb, pb string) int {
	if c := kicad.CompareRefdes(ra, rb); c != 0 {
		return c
	}
	return kicad.CompareRefdes(pa, pb)
}

func componentsByRef(nl *kicad.Netlist) map[string]kicad.NetComponent {
	m := map[string]kicad.NetComponent{}
	for _, c := range nl.Components {
		if _, dup := m[c.Refdes]; !dup {
			m[c.Refdes] = c
		}
	}
	return m
}

// GeneratePinout renders docs/PINOUT.md from the netlist: a prose section per
// recognised MCU naming its strapping and RTC-capable pins, then the pin table.
func GeneratePinout(project string, nl *kicad.Netlist) []byte {
	rows := PinoutRows(nl)
	var b strings.Builder
	docHead(&b, project, "Pinout")
	b.WriteString("One row per pin of every IC (reference designator U… or IC…, plus any part recognised as a known MCU), " +
		"read from kicad-cli's netlist export. `Net` is the net on the pin, or `" + NCMarker + "` when the pin is connected to nothing. " +
		"`Notes` marks MCU pins that are `" + NoteStrapping + "` (sampled at reset) or `" + NoteRTC + "` (RTC-capable, can wake the chip from deep sleep). " +
		"`copperhead check` compares Refdes, Pin and Net with the schematic; Name, Type and Notes are for humans.\n\n")

	b.WriteString("## Strapping and RTC pins\n\n")
	wrote := false
	if nl != nil {
		comps := componentsByRef(nl)
		for _, ref := range mcuRefs(rows, comps) {
			comp := comps[ref]
			fam := mcuFamilyOf(comp.LibID, comp.Value)
			wrote = true
			fmt.Fprintf(&b, "### %s (%s)\n\n", escapeCell(ref), escapeCell(cmp.Or(comp.Value, comp.LibID, fam.Name)))
			fmt.Fprintf(&b, "- Strapping pins (%s): %s. Their level at reset selects the boot mode; do not give them a load or an input that can hold them at the wrong level during boot.\n",
				fam.Name, gpioList(fam.Strapping))
			fmt.Fprintf(&b, "  On %s: %s.\n", escapeCell(ref), pinsWithNote(rows, ref, NoteStrapping))
			fmt.Fprintf(&b, "- RTC-capable pins (%s): %s. Only these can wake the chip from deep sleep or keep their state while it sleeps.\n",
				fam.Name, gpioList(fam.RTC))
			fmt.Fprintf(&b, "  On %s: %s.\n", escapeCell(ref), pinsWithNote(rows, ref, NoteRTC))
			fmt.Fprintf(&b, "- Source: %s.\n\n", fam.Source)
		}
	}
	if !wrote {
		b.WriteString("No MCU copperhead knows pin facts for was found (known families: " + knownFamilies() +
			"). Check the datasheet's strapping and wake-capable pin tables by hand and note them here.\n\n")
	}

	b.WriteString("## Pin assignments\n\n")
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = []string{r.Refdes, r.Pin, r.Name, r.Net, r.Type, r.Notes}
	}
	b.WriteString(markdownTable(PinoutColumns, cells))
	return []byte(b.String())
}

func mcuRefs(rows []PinoutRow, comps map[string]kicad.NetComponent) []string {
	var refs []string
	for _, r := range rows {
		c := comps[r.Refdes]
		if mcuFamilyOf(c.LibID, c.Value) != nil && !slices.Contains(refs, r.Refdes) {
			refs = append(refs, r.Refdes)
		}
	}
	return refs
}

func pinsWithNote(rows []PinoutRow, ref, note string) string {
	var out []string
	for _, r := range rows {
		if r.Refdes != ref || !slices.Contains(strings.Split(r.Notes, ", "), note) {
			continue
		}
		out = append(out, fmt.Sprintf("pin %s %s (%s)", r.Pin, r.Name, r.Net))
	}
	if len(out) == 0 {
		return "none"
	}
	return escapeCell(strings.Join(out, ", "))
}

func knownFamilies() string {
	var names []string
	for _, f := range mcuFamilies {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}
