// Package layout is the deterministic layout-draft engine (stage 5 of the
// create pipeline, spec §2.5 "First-draft layout"): from a schematic, the
// footprints its symbols name and the LAYOUT.md intent, it writes a KiCad 9
// .kicad_pcb with an Edge.Cuts outline, every footprint placed by rule
// (connectors on edges, decoupling next to its IC, crystals next to the MCU,
// antenna ends at an edge behind a keepout; ICs and large parts largest
// first at their best rotation, each IC's crystal, load caps and decoupling
// caps at its pins right after it), every net routed on F.Cu and B.Cu by a
// grid A* maze router with vias (astar.go: exact clearance checks, power
// nets at the Power class width, rip-up and retry), a GND pour on B.Cu with
// thermal reliefs filled by KiCad's zone filler, and what the router cannot
// reach left as ratsnest. The .kicad_pro gets the board house's published
// rules (internal/fab), which the router works within. It then rewrites the
// `## Draft quality` section of LAYOUT.md with exactly what is fine and what
// a human or an autorouter must redo.
//
// The engine needs no model: the same schematic, footprints and intent give
// a byte-identical board (UUIDs are derived from content, every list is
// sorted). Connectivity comes from kicad-cli's own netlist export, so pad
// nets match the schematic exactly (a '/' in a name written as KiCad's
// {slash}) and DRC's schematic parity is clean. A board is only ever
// replaced when its title block carries DraftMarker, or with Force.
// DRC is the judge: a routed net that DRC faults is unrouted again before the
// draft is reported, so every track that remains passes DRC.
//
// It builds on sexpr, kicad, kicad/kigen, kicadcli and fab, and must never
// import llm, agent, research or cli.
package layout
