package layout

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"regexp"
	"strings"

	"copperhead/internal/kicad/kigen"
)

// diffPairRE spots nets that want a length-matched differential pair.
var diffPairRE = regexp.MustCompile(`(?i)(USB.*D[+-]|D[+-]$|_[PN]$|[+-]$)`)

// assess turns a draft's facts into the two lists of the Draft quality
// section: what is fine, and what a human or an autorouter must redo.
func assess(rep *Report, res *draftResult, rules designRules) (fine, redo []string) {
	fine, redo = []string{}, []string{}
	d := rep.DRC
	switch {
	case d.Violations == 0 && d.Parity == 0:
		fine = append(fine, fmt.Sprintf("DRC: no violations other than %d unconnected item(s) (the ratsnest below); schematic parity clean: every footprint and pad net as in the schematic.", d.Unconnected))
	default:
		redo = append(redo, fmt.Sprintf("Fix the %d DRC violation(s) and %d parity issue(s) the draft left: %s.", d.Violations, d.Parity, strings.Join(d.Details, "; ")))
	}
	if len(rep.FromBoard) > 0 {
		var fs []string
		for _, b := range rep.FromBoard {
			fs = append(fs, fmt.Sprintf("%s for %s (from %s on %s)", b.Footprint, strings.Join(b.Refdes, ", "), b.BoardRefdes, b.Board))
		}
		redo = append(redo, "Footprints no library holds, taken from the project's board: "+strings.Join(fs, "; ")+"; add them to a footprint library the project's fp-lib-table names, so the next draft does not depend on that board.")
	}
	size := kigen.Num(rep.Outline.WidthMM) + " x " + kigen.Num(rep.Outline.HeightMM) + " mm"
	if rep.Outline.Stated {
		fine = append(fine, fmt.Sprintf("Outline: %s rectangle on Edge.Cuts, the size LAYOUT.md states (budget met).", size))
	} else {
		fine = append(fine, fmt.Sprintf("Outline: %s rectangle on Edge.Cuts, computed from footprint area.", size))
		redo = append(redo, fmt.Sprintf("Set the real board size: LAYOUT.md states none, so the draft chose %s (add a line such as \"Board: %s\" under Board outline and draft again).", size, size))
	}
	fine = append(fine, fmt.Sprintf("Placement: %d footprints on a %s mm grid, courtyards and silkscreen apart, all inside the outline.", len(rep.Parts), kigen.Num(placeGrid)))
	var met, unmet []string
	for _, r := range rep.Rules {
		s := r.Refdes + " " + r.Detail
		if r.Met {
			met = append(met, s)
		} else {
			unmet = append(unmet, fmt.Sprintf("%s (%s): %s", r.Refdes, r.Rule, r.Detail))
		}
	}
	if len(met) > 0 {
		fine = append(fine, "Placement rules met: "+strings.Join(met, "; ")+".")
	}
	if len(unmet) > 0 {
		redo = append(redo, "Placement rules not met, move by hand: "+strings.Join(unmet, "; ")+".")
	}
	for _, k := range rep.Keepouts {
		if strings.HasPrefix(k.Source, "none") {
			redo = append(redo, fmt.Sprintf("%s: antenna on the %s edge, but %s; check the RF keepout (external antenna?) by hand.", k.Refdes, k.Edge, k.Source))
			continue
		}
		fine = append(fine, fmt.Sprintf("Keepout: %s antenna end on the %s edge; keepout from %s, no part or track inside it.", k.Refdes, k.Edge, k.Source))
	}
	fine = append(fine, "Board rules: "+rep.BoardRules+"; written to the project's .kicad_pro (DRC's constraints, Default and Power net classes).")
	fine = append(fine, fmt.Sprintf("Area utilisation: %d%% of the board is parts (courtyards, pads, silkscreen).", int(math.Round(rep.Utilisation*100))))
	fine = append(fine, fmt.Sprintf("Routed %d of %d connections (%d%%) on F.Cu and B.Cu by the grid maze router (%d tracks, %d vias, %s mm grid, power nets at their class width).",
		rep.RoutedConnections, rep.Connections, int(math.Floor(rep.RoutedShare*100)), rep.Tracks, rep.Vias, kigen.Num(gridPitch)))
	if len(rep.Routed) > 0 {
		fine = append(fine, fmt.Sprintf("Fully routed nets (%d): %s.", len(rep.Routed), strings.Join(rep.Routed, ", ")))
	}
	if len(rep.Unrouted) > 0 {
		redo = append(redo, fmt.Sprintf("Route the %d unrouted nets (by hand or with an autorouter such as Freerouting): %s.", len(rep.Unrouted), strings.Join(rep.Unrouted, ", ")))
	}
	redo = append(redo, "Review the draft's routing: the router finds a path for each connection in turn and knows nothing of current return paths, crosstalk or length; tidy or reroute what matters.")
	if len(rep.Partial) > 0 {
		var ps []string
		for _, p := range rep.Partial {
			ps = append(ps, fmt.Sprintf("%s (%d of %d connections)", p.Net, p.Routed, p.Connections))
		}
		redo = append(redo, "Finish the partly routed nets: "+strings.Join(ps, ", ")+".")
	}
	if len(d.Unrouted) > 0 {
		redo = append(redo, "DRC rejected the rule-based tracks of "+strings.Join(d.Unrouted, ", ")+": they are left unrouted.")
	}
	var pairs []string
	for _, n := range res.nets {
		if diffPairRE.MatchString(baseName(n.Name)) && !strings.HasPrefix(n.Name, "unconnected-(") && !res.kinds.power[n.Name] {
			pairs = append(pairs, n.Name)
		}
	}
	if len(pairs) > 0 {
		redo = append(redo, "Route "+strings.Join(pairs, ", ")+" as length-matched differential pairs with controlled impedance: the draft does not.")
	}
	switch {
	case rep.Pour.Net == "" && len(res.kinds.ground) > 0:
		redo = append(redo, "Add a ground pour on B.Cu: no ground net has two pads on the board, so the draft poured none.")
	case rep.Pour.Net != "" && rep.Pour.Filled:
		fine = append(fine, fmt.Sprintf("Ground pour: %s on %s over the whole board, pads joined by thermal reliefs (%s mm gap, %s mm spokes), filled by KiCad's zone filler and checked by DRC.",
			rep.Pour.Net, rep.Pour.Layer, kigen.Num(thermalGap), kigen.Num(thermalBridge)))
		redo = append(redo, "Add stitching vias to the ground pour where F.Cu ground copper is large, and refill zones (B) after any edit.")
	case rep.Pour.Net != "":
		redo = append(redo, fmt.Sprintf("Fill the %s pour on %s in KiCad (B) before plotting: the draft wrote it unfilled (%s), and kicad-cli plots zones as saved.", rep.Pour.Net, rep.Pour.Layer, rep.Pour.Unfilled))
	}
	redo = append(redo, fmt.Sprintf("Size track widths for current (the draft uses %s mm for power, %s mm for signals) and review thermal, mechanical (mounting, enclosure, connector overhang) and signal-integrity placement: the rules above know none of them.",
		kigen.Num(rules.PowerWidth), kigen.Num(rules.SignalWidth)))
	return fine, redo
}

// draftQualityBody renders the Draft quality section's body.
func draftQualityBody(rep *Report) string {
	var b strings.Builder
	b.WriteString("Drafted by `copperhead draft layout` (deterministic, no model): correct, not optimal. ")
	fmt.Fprintf(&b, "Board `%s`. Re-running the draft on the same schematic and LAYOUT.md gives the same board byte for byte.\n\n", rep.Board)
	b.WriteString("What is fine:\n\n")
	for _, f := range rep.Fine {
		b.WriteString("- " + f + "\n")
	}
	b.WriteString("\nWhat a human or an autorouter must redo before fab:\n\n")
	for _, r := range rep.Redo {
		b.WriteString("- " + r + "\n")
	}
	return b.String()
}

// draftQuality returns LAYOUT.md's new bytes with the Draft quality
// section rewritten; a file that does not exist yet starts as seed, else
// as a title.
func draftQuality(path, project string, seed []byte, rep *Report) ([]byte, error) {
	md, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", rep.LayoutDoc, err)
	}
	if md == nil {
		md = seed
	}
	if md == nil {
		md = []byte("# " + project + " — Layout intent\n")
	}
	return ReplaceSection(md, DraftQualityHeading, draftQualityBody(rep)), nil
}
