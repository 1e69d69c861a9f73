// Package outputs owns the fab/output package of a KiCad project: the
// outputs/ folder a board house and a buyer need (spec §2.5, create stage 6).
//
//	outputs/
//	  gerbers-<fab>.zip    Gerbers + Excellon drill, per fab profile (JLCPCB, PCBWay)
//	  board-outline.dxf    Edge.Cuts only, millimetres: the enclosure reference
//	  board.step           3D board (parts whose model is missing are listed)
//	  schematic/*.svg      one SVG per sheet
//	  board.svg            copper, silkscreen and outline
//	  board-3d.png         kicad-cli's ray-traced top view
//	  bom-<supplier>.csv   ordering BOM: grouped refdes, qty, value, footprint,
//	                       manufacturer, MPN, supplier part number, search link
//	  cpl-<fab>.csv        pick-and-place: every placed part, both sides, mm,
//	                       in the fab's column names (cpl.go)
//	  manifest.json        every file with its size and sha256, the kicad-cli
//	                       version, each artifact's status and reason, the
//	                       board's DRC result and its draft flag
//
// The board's DRC runs first; Options.Release refuses a board that is not
// DRC-clean or is a copperhead layout draft before anything is written.
// Every export runs through kicadcli (the one kicad-cli wrapper) into a
// staging folder (outputs/.staging-*) that holds the whole new package; only
// when it is complete are its files renamed into outputs/, and the manifest
// is written last, so an interrupted run keeps the previous package and a
// reader never sees a manifest naming half-written files. Staging folders a
// killed run left are removed by the next run.
// Verify is the stage's completion gate: it re-reads the folder and checks the
// manifest against the bytes on disk, never trusting the run's own claim.
//
// It must never import llm, agent or research: producing outputs is
// deterministic work that runs with no model and no network (a test asserts
// it with go list -deps).
package outputs
