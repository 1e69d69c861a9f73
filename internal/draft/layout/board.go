package layout

import (
	"slices"
	"sort"
	"strings"

	"copperhead/internal/kicad"
	"copperhead/internal/kicad/kigen"
	"copperhead/internal/sexpr"
)

// boardFileVersion is the .kicad_pcb format KiCad 9 writes.
const boardFileVersion = 20241229

// Where the outline's top-left corner sits on the A4 page, in mm: far enough
// in that a board up to 190 x 150 mm stays on the sheet.
const (
	pageX = 100.0
	pageY = 50.0
)

// DraftMarker is written into every drafted board's title block. The engine
// overwrites a board carrying it there (an earlier draft) without asking; any
// other existing file, footprints or not, may be somebody's work and needs
// Options.Force.
const DraftMarker = "Layout draft by copperhead draft layout"

// uuidFor derives a stable UUID from the project and what the object is
// ("fp/U1", "seg/GND/3"), so the same draft always carries the same UUIDs
// and two objects never share one.
func uuidFor(project, purpose string) string {
	return kigen.NameUUID("copperhead/draft/layout\x00" + project + "\x00" + purpose)
}

// boardWriter assembles the board's node tree.
type boardWriter struct {
	project string
	netID   map[string]int
	sheets  []string // human sheet paths ("/", "/Power/"), longest first
}

// netName is a netlist net name as KiCad writes it in a board: a '/' that
// is part of the name, not of its sheet path, becomes {slash}. kicad-cli's
// XML netlist gives names unescaped ("/VOUT/AB" for the root sheet's label
// VOUT/AB, "unconnected-(U1-SENSE/ADJ-Pad2)"), while DRC's schematic parity
// compares the board's pad nets with the escaped names. The sheet path is
// the longest sheet's path the name starts with.
func (bw *boardWriter) netName(name string) string {
	if !strings.Contains(name, "/") {
		return name
	}
	prefix := ""
	if strings.HasPrefix(name, "/") {
		prefix = "/"
		for _, sp := range bw.sheets {
			if strings.HasPrefix(name, sp) {
				prefix = sp
				break
			}
		}
	}
	return prefix + strings.ReplaceAll(name[len(prefix):], "/", "{slash}")
}

// boardNetName is a netlist net name as the board spells it (see netName).
func boardNetName(sch *kicad.Schematic, name string) string {
	bw := boardWriter{sheets: sheetPaths(sch)}
	return bw.netName(name)
}

// sheetPaths lists the schematic's human sheet paths, longest first, each
// ending in '/'.
func sheetPaths(sch *kicad.Schematic) []string {
	out := []string{"/"}
	if sch != nil {
		for _, sh := range sch.Sheets {
			if p := sh.Path; strings.HasPrefix(p, "/") && strings.HasSuffix(p, "/") && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

func (bw *boardWriter) uuid(purpose string) sexpr.Node {
	return kigen.N("uuid", uuidFor(bw.project, purpose))
}

// abs converts a board-relative point to page coordinates.
func abs(p Pt) (float64, float64) { return pageX + p.X, pageY + p.Y }

// footprintNode turns a library footprint into a placed board footprint
// (kigen.PlaceFootprint): position and rotation, reference and value, the
// symbol link, pad nets, and stable UUIDs for every item.
func (bw *boardWriter) footprintNode(p *part) sexpr.Node {
	x, y := abs(p.pos)
	var link []sexpr.Node
	if p.Path != "" {
		link = append(link, kigen.N("path", p.Path))
	}
	link = append(link, kigen.N("sheetname", p.SheetName), kigen.N("sheetfile", p.SheetFile))
	return kigen.PlaceFootprint(&p.fp.Node, kigen.Placement{
		LibID: p.FootprintID, X: x, Y: y, Rot: p.rot, Ref: p.Refdes, Value: p.Value,
		UUID: func(item string) string { return uuidFor(bw.project, "fp/"+p.Refdes+item) },
		Pad: func(num string) (kigen.PadNet, bool) {
			pin, ok := p.pins[num]
			if !ok || pin.Net == "" {
				return kigen.PadNet{}, false
			}
			return kigen.PadNet{Net: kigen.N("net", bw.netID[pin.Net], bw.netName(pin.Net)), PinFunction: pin.PinFunction, PinType: pin.PinType}, true
		},
		Link: link,
	})
}

// pourZone is the ground pour: a zone of net on layer covering r, pads
// joined by thermal reliefs (spokes thermalBridge wide across a thermalGap
// gap), islands removed. filled holds the filled polygons when known (the
// zone filler's, see fillZones); none leaves KiCad to fill it.
func (bw *boardWriter) pourZone(net, layer string, r Rect, clearance float64, filled []sexpr.Node) sexpr.Node {
	x0, y0 := abs(Pt{X: r.X0, Y: r.Y0})
	x1, y1 := abs(Pt{X: r.X1, Y: r.Y1})
	args := []any{
		kigen.N("net", bw.netID[net]), kigen.N("net_name", bw.netName(net)),
		kigen.N("layer", layer),
		bw.uuid("pour/" + net + "/" + layer),
		kigen.N("name", net+" pour"),
		kigen.N("hatch", kigen.Sym("edge"), 0.5),
		kigen.N("connect_pads", kigen.N("clearance", clearance)),
		kigen.N("min_thickness", 0.25),
		kigen.N("filled_areas_thickness", kigen.Sym("no")),
		fillNode(len(filled) > 0),
		kigen.N("polygon", kigen.N("pts",
			kigen.N("xy", x0, y0), kigen.N("xy", x1, y0), kigen.N("xy", x1, y1), kigen.N("xy", x0, y1))),
	}
	for _, f := range filled {
		args = append(args, f)
	}
	return kigen.N("zone", args...)
}

func fillNode(filled bool) sexpr.Node {
	args := []any{}
	if filled {
		args = append(args, kigen.Sym("yes"))
	}
	args = append(args, kigen.N("thermal_gap", thermalGap), kigen.N("thermal_bridge_width", thermalBridge), kigen.N("island_removal_mode", 0))
	return kigen.N("fill", args...)
}

// Thermal relief of the ground pour: a 0.5 mm gap round each pad, crossed
// by 0.5 mm spokes (KiCad's defaults; wide enough to carry a pad's current,
// narrow enough to solder).
const (
	thermalGap    = 0.5
	thermalBridge = 0.5
)

// keepoutZone is a board-level rule area: no tracks, vias or copper pour,
// footprints allowed (the module it protects overlaps it).
func (bw *boardWriter) keepoutZone(name string, r Rect) sexpr.Node {
	x0, y0 := abs(Pt{X: r.X0, Y: r.Y0})
	x1, y1 := abs(Pt{X: r.X1, Y: r.Y1})
	return kigen.N("zone",
		kigen.N("net", 0), kigen.N("net_name", ""),
		kigen.N("layers", "F.Cu", "B.Cu"),
		bw.uuid("keepout/"+name),
		kigen.N("name", name),
		kigen.N("hatch", kigen.Sym("edge"), 0.5),
		kigen.N("connect_pads", kigen.N("clearance", 0)),
		kigen.N("min_thickness", 0.25),
		kigen.N("filled_areas_thickness", kigen.Sym("no")),
		kigen.N("keepout",
			kigen.N("tracks", kigen.Sym("not_allowed")),
			kigen.N("vias", kigen.Sym("not_allowed")),
			kigen.N("pads", kigen.Sym("allowed")),
			kigen.N("copperpour", kigen.Sym("not_allowed")),
			kigen.N("footprints", kigen.Sym("allowed"))),
		kigen.N("placement", kigen.N("enabled", kigen.Sym("no")), kigen.N("sheetname", "")),
		kigen.N("fill", kigen.N("thermal_gap", 0.5), kigen.N("thermal_bridge_width", 0.5)),
		kigen.N("polygon", kigen.N("pts",
			kigen.N("xy", x0, y0), kigen.N("xy", x1, y0), kigen.N("xy", x1, y1), kigen.N("xy", x0, y1))),
	)
}

// setupNode is KiCad 9's board setup for a fresh two-layer board. Design
// rules live in the .kicad_pro, not here.
func setupNode() sexpr.Node { return kigen.TwoLayerSetup() }
