// Package netdiff owns the electrical diff (`copperhead diff`): what changed
// between two versions of a design, read from KiCad's own netlist of each side
// (kicad.Netlist) and the docs and constraints that go with it.
//
// Everything here is a pure function over already-loaded values: two
// netlists, the bytes of the doc files, the read models of the schematic and
// board (for where to draw highlights) and the SVG bytes kicad-cli plotted.
// It reads no files, runs nothing, and must never import kicadcli, gitrepo,
// llm or cli: the command in internal/cli materialises each side, asks
// kicad-cli, and hands the results here.
//
// # What is reported
//
//   - components added, removed and changed, per reference designator; a
//     change lists each field that differs (value, footprint, lib_id, sheet,
//     dnp, exclude_from_bom, exclude_from_board and every symbol field such
//     as MPN or Manufacturer), old -> new;
//   - nets added and removed, with their pins;
//   - nets renamed (see the rename rule below), each once;
//   - pins that moved between nets (ref.pin: old net -> new net), pins of
//     parts present on both sides only; a pin KiCad leaves on an
//     "unconnected-(...)" net is reported as "(unconnected)", and such nets
//     are never listed as added or removed;
//   - the docs' changes that matter: SPEC.md ## Budgets values, the
//     "budgets" of .copperhead/config.json, .copperhead/constraints.json
//     entries, and BOM.md rows added, removed or changed.
//
// # The rename rule
//
// A net of the base whose name is gone from the head and a net of the head
// whose name is new are one net renamed when they share the majority of
// their pins: more than half of the old net's pins, and more than half of the
// new net's pins, counting only pins of parts present on both sides (an
// added part's pins joining a renamed net do not stop the rename). Nets
// partition the pins, so a net has at most one such partner. A rename with
// the very same pins is "exact"; otherwise the pins that joined or left are
// reported as pin moves. Everything else is a removal and an addition.
package netdiff
