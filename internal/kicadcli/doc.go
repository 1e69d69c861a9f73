// Package kicadcli is the one wrapper around the kicad-cli binary: every
// kicad-cli call in copperhead goes through it. It owns
//
//   - finding the binary (COPPERHEAD_KICAD_CLI, else kicad-cli on PATH) and
//     refusing anything older than KiCad 9;
//   - running it in a private KiCad environment (its own KICAD_CONFIG_HOME,
//     library tables and library folders), so a result never depends on the
//     user's KiCad GUI settings;
//   - running it safely: output always into a fresh temporary folder, never
//     parsed from stdout; a timeout that kills kicad-cli's whole process
//     group; errors that quote kicad-cli's own words;
//   - normalizing ERC and DRC JSON reports into one Violation type, with
//     host-library noise ("environment") kept apart from design violations;
//   - exporting the netlist (parsed by kicad.ParseNetlistXML);
//   - filling a board's zones with KiCad's own zone filler (FillZones: the
//     pcbnew Python module, since kicad-cli 9 neither fills nor refills
//     zones), the one KiCad program it runs besides kicad-cli;
//   - caching results keyed by the content of every input file.
//
// It builds on kicad for the netlist model and must never import design, llm
// or research.
//
// Environment variables read:
//
//	COPPERHEAD_KICAD_CLI     kicad-cli to run (a path, or a name looked up on PATH)
//	COPPERHEAD_KICAD_CONFIG  folder holding copperhead's KiCad library tables
//	                         (default: <user config dir>/copperhead/kicad)
//	COPPERHEAD_CACHE_DIR     cache folder (default: <user cache dir>/copperhead)
//	KICAD<N>_SYMBOL_DIR,     KiCad <N>'s library folders; an explicit setting is
//	KICAD<N>_FOOTPRINT_DIR   kept, else the installed libraries are used
//	KICAD<N>_TEMPLATE_DIR    where KiCad's default library tables live
//	HOME                     set for kicad-cli when unset
package kicadcli
