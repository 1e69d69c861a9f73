// Package fab is the one table of the board houses copperhead targets: each
// house's name (the --fab value of `draft layout` and `outputs`), its label
// and the board rules its standard two-layer process can make, with the
// published page each number comes from. The layout engine writes these
// rules into a drafted board's .kicad_pro and routes within them; outputs
// picks its Gerber and drill recipe by the same name, so a board drafted for
// a house is checked and packaged for that house.
//
// It is a leaf: it imports only the standard library.
package fab

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Rules are a house's limits for a standard 2-layer, 1 oz, 1.6 mm board,
// in millimetres, and the net-class values the draft routes with (always
// inside the limits, with a margin where the house asks for one).
type Rules struct {
	// The house's minimums: DRC's hard constraints in the .kicad_pro.
	MinClearance     float64 // copper to copper
	MinTrackWidth    float64
	MinViaDiameter   float64 // via pad, 2-layer
	MinViaDrill      float64 // via hole, 2-layer
	MinThroughHole   float64 // any drilled hole (pads included)
	MinAnnularRing   float64 // via annular ring
	MinHoleToHole    float64 // hole edge to hole edge
	MinHoleClearance float64 // copper to a hole of another net
	EdgeClearance    float64 // copper to the board edge
	// What the draft routes with (net classes "Default" and "Power").
	Clearance  float64
	TrackWidth float64
	PowerWidth float64
	ViaDiam    float64
	ViaDrill   float64
}

// House is one board house.
type House struct {
	Name   string // "jlcpcb", the --fab value
	Label  string // "JLCPCB", for humans
	Rules  Rules
	Source string // where the rules come from, for the reader of the .kicad_pro and LAYOUT.md
}

// Houses is the table. Numbers are the houses' published standard-process
// capabilities; where a draft value differs from the minimum it is larger,
// never smaller.
//
//   - JLCPCB (jlcpcb.com/capabilities/Capabilities, "Drill/Hole Size"): drill 0.20–6.30 mm (so a module's
//     0.2 mm thermal vias are made); single/double layer via hole 0.3 mm and
//     via diameter 0.6 mm (0.15 mm ring; multilayer boards go to 0.2/0.45);
//     track and spacing: jlcpcb.com/capabilities/pcb-capabilities gives
//     0.10 mm for 1 oz copper; the table keeps 0.127 mm (5 mil), the older
//     and more conservative 1–2 layer figure, not re-verified here; pad
//     hole-to-hole 0.45 mm (jlcpcb.com/capabilities/pcb-capabilities,
//     "Drilling"). PTH annular rings are "enlarged to 0.15 mm in
//     production", so a smaller ring is made, not refused: DRC's minimum
//     ring stays KiCad's 0.1 mm (KiCad applies it to pads too, and library
//     THT footprints such as TO-92 have 0.125 mm), while the draft's own
//     vias have 0.15 mm.
//   - PCBWay (pcbway.com/capabilities.html, "Quick-turn PCB"): min trace and
//     spacing 4 mil (0.1 mm), 6 mil (0.15 mm) strongly suggested; min drill
//     0.2 mm, holes under 0.3 mm at extra cost, so the draft's vias drill
//     0.3 mm in 0.6 mm pads (0.15 mm ring) and the via minimum is the same;
//     DRC's minimum ring is KiCad's 0.1 mm, as for JLCPCB.
//
// Hole clearance (0.25 mm) and copper to edge (0.5 mm) are KiCad 9's
// defaults, kept: neither house publishes a tighter figure we rely on.
var Houses = map[string]House{
	"jlcpcb": {
		Name: "jlcpcb", Label: "JLCPCB",
		Rules: Rules{
			MinClearance: 0.127, MinTrackWidth: 0.127,
			MinViaDiameter: 0.6, MinViaDrill: 0.3, MinThroughHole: 0.2, MinAnnularRing: 0.1,
			MinHoleToHole: 0.45, MinHoleClearance: 0.25, EdgeClearance: 0.5,
			Clearance: 0.15, TrackWidth: 0.2, PowerWidth: 0.5, ViaDiam: 0.6, ViaDrill: 0.3,
		},
		Source: "JLCPCB capabilities, standard 2-layer 1 oz (jlcpcb.com/capabilities/Capabilities)",
	},
	"pcbway": {
		Name: "pcbway", Label: "PCBWay",
		Rules: Rules{
			MinClearance: 0.1, MinTrackWidth: 0.1,
			MinViaDiameter: 0.6, MinViaDrill: 0.3, MinThroughHole: 0.2, MinAnnularRing: 0.1,
			MinHoleToHole: 0.5, MinHoleClearance: 0.25, EdgeClearance: 0.5,
			Clearance: 0.15, TrackWidth: 0.2, PowerWidth: 0.5, ViaDiam: 0.6, ViaDrill: 0.3,
		},
		Source: "PCBWay quick-turn PCB capabilities (pcbway.com/capabilities.html)",
	},
}

// Default is the house used when none is named.
const Default = "jlcpcb"

// Names lists the houses, sorted: what --fab accepts.
func Names() []string { return slices.Sorted(maps.Keys(Houses)) }

// Lookup returns the named house, case-insensitively ("" is Default), or an
// error naming the houses there are.
func Lookup(name string) (House, error) {
	if name == "" {
		name = Default
	}
	h, ok := Houses[strings.ToLower(name)]
	if !ok {
		return House{}, fmt.Errorf("unknown fab %q: want one of %s", name, strings.Join(Names(), ", "))
	}
	return h, nil
}
