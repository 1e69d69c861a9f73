package layout

import (
	"crypto/sha1"
	"fmt"

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
// overwrites a board carrying it (an earlier draft) without asking; any other
// board with footprints is somebody's work and needs Options.Force.
const DraftMarker = "Layout draft by copperhead draft layout"

// uuidFor derives a stable UUID from the project and what the object is
// ("fp/U1", "seg/GND/3"): SHA-1 name hashing with the version and variant
// bits of an RFC 4122 version 5 UUID, so the same draft always carries the
// same UUIDs and two objects never share one.
func uuidFor(project, purpose string) string {
	sum := sha1.Sum([]byte("copperhead/draft/layout\x00" + project + "\x00" + purpose))
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}

// boardWriter assembles the board's node tree.
type boardWriter struct {
	project string
	netID   map[string]int
}

func (bw *boardWriter) uuid(purpose string) sexpr.Node {
	return kigen.N("uuid", uuidFor(bw.project, purpose))
}

// abs converts a board-relative point to page coordinates.
func abs(p Pt) (float64, float64) { return pageX + p.X, pageY + p.Y }

// footprintNode turns a library footprint into a placed board footprint:
// position and rotation, reference and value, the symbol link, pad nets,
// and stable UUIDs for every item the library left without one.
func (bw *boardWriter) footprintNode(p *part) sexpr.Node {
	n := kigen.Clone(&p.fp.Node)
	if len(n.Children) < 2 {
		n.Children = append(n.Children, kigen.Str(""))
	}
	kigen.SetArg(&n, 0, kigen.Str(p.FootprintID))
	kigen.RemoveChildren(&n, "version", "generator", "generator_version", "uuid", "at", "path", "sheetname", "sheetfile")
	x, y := abs(p.pos)
	at := kigen.N("at", x, y)
	if p.rot != 0 {
		at = kigen.N("at", x, y, p.rot)
	}
	if n.Child("layer") == nil {
		kigen.InsertAfter(&n, "", kigen.N("layer", "F.Cu"))
	}
	kigen.InsertAfter(&n, "layer", bw.uuid("fp/"+p.Refdes), at)
	last := 0
	for i := range n.Children {
		c := &n.Children[i]
		if c.Kind != sexpr.List {
			continue
		}
		switch c.Head() {
		case "property", "fp_text", "fp_text_box", "fp_line", "fp_rect", "fp_circle", "fp_arc", "fp_poly", "fp_curve", "pad", "zone", "group", "dimension":
			// Every item gets a UUID of its own: library UUIDs repeat in
			// every copy of a footprint (and some libraries have none), and
			// KiCad resolves DRC items by UUID.
			kigen.RemoveChildren(c, "uuid")
			c.Children = append(c.Children, bw.uuid(fmt.Sprintf("fp/%s/item/%d", p.Refdes, i)))
		}
		switch c.Head() {
		case "property":
			last = i
			switch c.Arg(0) {
			case "Reference":
				setText(c, p.Refdes)
			case "Value":
				setText(c, p.Value)
			}
			turnAt(c, p.rot, true)
		case "fp_text":
			switch c.Arg(0) {
			case "reference":
				setArgAt(c, 1, p.Refdes)
			case "value":
				setArgAt(c, 1, p.Value)
			}
			turnAt(c, p.rot, true)
		case "pad":
			turnAt(c, p.rot, false)
			bw.padNet(c, p)
		case "zone":
			bw.zoneToBoard(c, p)
		}
	}
	link := []sexpr.Node{}
	if p.Path != "" {
		link = append(link, kigen.N("path", p.Path))
	}
	link = append(link, kigen.N("sheetname", p.SheetName), kigen.N("sheetfile", p.SheetFile))
	kids := make([]sexpr.Node, 0, len(n.Children)+len(link))
	kids = append(kids, n.Children[:last+1]...)
	kids = append(kids, link...)
	kids = append(kids, n.Children[last+1:]...)
	n.Children = kids
	return n
}

// setText sets a property's value (its second argument).
func setText(c *sexpr.Node, v string) { setArgAt(c, 1, v) }

func setArgAt(c *sexpr.Node, i int, v string) {
	for len(c.Children) <= i+1 {
		c.Children = append(c.Children, kigen.Str(""))
	}
	kigen.SetArg(c, i, kigen.Str(v))
}

// turnAt adds the footprint's rotation to an item's own angle: on a board,
// pad and text angles are absolute, positions stay footprint-relative.
// Texts always carry an angle; pads only when it is not zero.
func turnAt(c *sexpr.Node, rot float64, keepZero bool) {
	at := c.Child("at")
	if at == nil || rot == 0 {
		return
	}
	x, _ := at.Float(0)
	y, _ := at.Float(1)
	a, _ := at.Float(2)
	na := normAngle(a + rot)
	rest := []sexpr.Node{}
	for _, k := range at.Children[1:] {
		if k.Kind == sexpr.Atom && k.Value == "unlocked" {
			rest = append(rest, k)
		}
	}
	if na == 0 && !keepZero && at.Arg(2) == "" {
		*at = kigen.N("at", x, y, rest)
		return
	}
	*at = kigen.N("at", x, y, na, rest)
}

// padNet writes the pad's net, pin function and pin type, before its uuid.
func (bw *boardWriter) padNet(c *sexpr.Node, p *part) {
	kigen.RemoveChildren(c, "net", "pinfunction", "pintype")
	num := c.Arg(0)
	pin, ok := p.pins[num]
	if !ok || num == "" || pin.Net == "" {
		return
	}
	extra := []sexpr.Node{kigen.N("net", bw.netID[pin.Net], pin.Net)}
	if pin.PinFunction != "" {
		extra = append(extra, kigen.N("pinfunction", pin.PinFunction))
	}
	if pin.PinType != "" {
		extra = append(extra, kigen.N("pintype", pin.PinType))
	}
	kids := make([]sexpr.Node, 0, len(c.Children)+len(extra))
	for _, k := range c.Children {
		if k.Kind == sexpr.List && k.Head() == "uuid" {
			kids = append(kids, extra...)
			extra = nil
		}
		kids = append(kids, k)
	}
	c.Children = append(kids, extra...)
}

// zoneToBoard moves a footprint rule area's outline to board coordinates:
// zones are the one footprint item a board stores in absolute positions.
func (bw *boardWriter) zoneToBoard(c *sexpr.Node, p *part) {
	for _, poly := range []string{"polygon", "filled_polygon"} {
		pg := c.Child(poly)
		if pg == nil || pg.Child("pts") == nil {
			continue
		}
		for xy := range pg.Child("pts").All("xy") {
			q, ok := pt(xy)
			if !ok {
				continue
			}
			x, y := abs(p.pos.Add(rotate(q, p.rot)))
			*xy = kigen.N("xy", x, y)
		}
	}
}

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
func setupNode() sexpr.Node {
	yes, no := kigen.Sym("yes"), kigen.Sym("no")
	return kigen.N("setup",
		kigen.N("pad_to_mask_clearance", 0),
		kigen.N("allow_soldermask_bridges_in_footprints", no),
		kigen.N("tenting", kigen.Sym("front"), kigen.Sym("back")),
		kigen.N("pcbplotparams",
			kigen.N("layerselection", kigen.Sym("0x00000000_00000000_55555555_5755f5ff")),
			kigen.N("plot_on_all_layers_selection", kigen.Sym("0x00000000_00000000_00000000_00000000")),
			kigen.N("disableapertmacros", no),
			kigen.N("usegerberextensions", no),
			kigen.N("usegerberattributes", yes),
			kigen.N("usegerberadvancedattributes", yes),
			kigen.N("creategerberjobfile", yes),
			kigen.N("dashed_line_dash_ratio", kigen.Sym("12.000000")),
			kigen.N("dashed_line_gap_ratio", kigen.Sym("3.000000")),
			kigen.N("svgprecision", 4),
			kigen.N("plotframeref", no),
			kigen.N("mode", 1),
			kigen.N("useauxorigin", no),
			kigen.N("hpglpennumber", 1),
			kigen.N("hpglpenspeed", 20),
			kigen.N("hpglpendiameter", kigen.Sym("15.000000")),
			kigen.N("pdf_front_fp_property_popups", yes),
			kigen.N("pdf_back_fp_property_popups", yes),
			kigen.N("pdf_metadata", yes),
			kigen.N("pdf_single_document", no),
			kigen.N("dxfpolygonmode", yes),
			kigen.N("dxfimperialunits", yes),
			kigen.N("dxfusepcbnewfont", yes),
			kigen.N("psnegative", no),
			kigen.N("psa4output", no),
			kigen.N("plot_black_and_white", yes),
			kigen.N("plotinvisibletext", no),
			kigen.N("sketchpadsonfab", no),
			kigen.N("plotpadnumbers", no),
			kigen.N("hidednponfab", no),
			kigen.N("sketchdnponfab", yes),
			kigen.N("crossoutdnponfab", yes),
			kigen.N("subtractmaskfromsilk", no),
			kigen.N("outputformat", 1),
			kigen.N("mirror", no),
			kigen.N("drillshape", 1),
			kigen.N("scaleselection", 1),
			kigen.N("outputdirectory", ""),
		),
	)
}
