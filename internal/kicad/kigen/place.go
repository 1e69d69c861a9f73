package kigen

import (
	"crypto/sha1"
	"fmt"

	"copperhead/internal/kicad/geom"
	"copperhead/internal/sexpr"
)

// NameUUID derives a stable UUID from seed: SHA-1 name hashing with the
// version and variant bits of an RFC 4122 version 5 UUID, so the same seed
// always gives the same UUID and two seeds never share one.
func NameUUID(seed string) string {
	sum := sha1.Sum([]byte(seed))
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}

// PadNet is what a board pad carries from the netlist. Net is the whole
// (net ...) node as the board writes it ((net 3 "GND") in KiCad 9).
type PadNet struct {
	Net                  sexpr.Node
	PinFunction, PinType string
}

// Placement says where and as what a library footprint goes on a board
// (front side).
type Placement struct {
	LibID      string  // the footprint's "Lib:Name", written as its first argument
	X, Y       float64 // board position in mm
	Rot        float64 // rotation in degrees
	Ref, Value string
	// UUID returns the UUID of the footprint (item "") and of each of its
	// items (item "/item/N", N the item's index in the placed footprint).
	UUID func(item string) string
	// Pad returns the net of the pad numbered num; ok false leaves the pad
	// without one.
	Pad func(num string) (PadNet, bool)
	// Link is the symbol link ((path ..), (sheetname ..), (sheetfile ..))
	// and any further properties, inserted after the last property.
	Link []sexpr.Node
}

// PlaceFootprint turns a library footprint (a parsed .kicad_mod) into a
// placed board footprint: position and rotation (pad and text angles are
// absolute on a board, positions stay footprint-relative, rule areas move to
// board coordinates), reference and value, the symbol link, pad nets, and a
// UUID for every item (library UUIDs repeat in every copy of a footprint,
// some libraries have none, and KiCad resolves DRC items by UUID).
func PlaceFootprint(lib *sexpr.Node, p Placement) sexpr.Node {
	n := Clone(lib)
	if len(n.Children) < 2 {
		n.Children = append(n.Children, Str(""))
	}
	SetArg(&n, 0, Str(p.LibID))
	RemoveChildren(&n, "version", "generator", "generator_version", "uuid", "at", "path", "sheetname", "sheetfile")
	at := N("at", p.X, p.Y)
	if p.Rot != 0 {
		at = N("at", p.X, p.Y, p.Rot)
	}
	if n.Child("layer") == nil {
		// After the name: (footprint "Lib:Name" (layer "F.Cu") ...).
		n.Children = append(n.Children[:2], append([]sexpr.Node{N("layer", "F.Cu")}, n.Children[2:]...)...)
	}
	InsertAfter(&n, "layer", N("uuid", p.UUID("")), at)
	last := 0
	for i := range n.Children {
		c := &n.Children[i]
		if c.Kind != sexpr.List {
			continue
		}
		switch c.Head() {
		case "property", "fp_text", "fp_text_box", "fp_line", "fp_rect", "fp_circle", "fp_arc", "fp_poly", "fp_curve", "pad", "zone", "group", "dimension":
			RemoveChildren(c, "uuid")
			c.Children = append(c.Children, N("uuid", p.UUID(fmt.Sprintf("/item/%d", i))))
		}
		switch c.Head() {
		case "property":
			last = i
			placeText(c, p, "Reference", "Value")
		case "fp_text":
			placeText(c, p, "reference", "value")
		case "pad":
			turnAt(c, p.Rot, false)
			padNet(c, p.Pad)
		case "zone":
			zoneToBoard(c, p)
		}
	}
	kids := make([]sexpr.Node, 0, len(n.Children)+len(p.Link))
	kids = append(kids, n.Children[:last+1]...)
	kids = append(kids, p.Link...)
	kids = append(kids, n.Children[last+1:]...)
	n.Children = kids
	return n
}

// placeText sets a footprint text to the part's reference or value when it
// is the text named ref or value (a property capitalises the names, an
// fp_text does not), and turns it with the footprint.
func placeText(c *sexpr.Node, p Placement, ref, value string) {
	switch c.Arg(0) {
	case ref:
		setArgAt(c, 1, p.Ref)
	case value:
		setArgAt(c, 1, p.Value)
	}
	turnAt(c, p.Rot, true)
}

func setArgAt(c *sexpr.Node, i int, v string) {
	for len(c.Children) <= i+1 {
		c.Children = append(c.Children, Str(""))
	}
	SetArg(c, i, Str(v))
}

// turnAt adds the footprint's rotation to an item's own angle. Texts always
// carry an angle; pads only when it is not zero.
func turnAt(c *sexpr.Node, rot float64, keepZero bool) {
	at := c.Child("at")
	if at == nil || rot == 0 {
		return
	}
	x, _ := at.Float(0)
	y, _ := at.Float(1)
	a, _ := at.Float(2)
	na := geom.NormAngle(a + rot)
	rest := []sexpr.Node{}
	for _, k := range at.Children[1:] {
		if k.Kind == sexpr.Atom && k.Value == "unlocked" {
			rest = append(rest, k)
		}
	}
	if na == 0 && !keepZero && at.Arg(2) == "" {
		*at = N("at", x, y, rest)
		return
	}
	*at = N("at", x, y, na, rest)
}

// padNet writes the pad's net, pin function and pin type, before its uuid.
func padNet(c *sexpr.Node, pad func(string) (PadNet, bool)) {
	RemoveChildren(c, "net", "pinfunction", "pintype")
	num := c.Arg(0)
	if num == "" || pad == nil {
		return
	}
	pn, ok := pad(num)
	if !ok {
		return
	}
	extra := []sexpr.Node{pn.Net}
	if pn.PinFunction != "" {
		extra = append(extra, N("pinfunction", pn.PinFunction))
	}
	if pn.PinType != "" {
		extra = append(extra, N("pintype", pn.PinType))
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
func zoneToBoard(c *sexpr.Node, p Placement) {
	mapZonePoints(c, func(q geom.Pt) geom.Pt {
		q = geom.Rotate(q, p.Rot)
		return geom.Pt{X: p.X + q.X, Y: p.Y + q.Y}
	})
}

// mapZonePoints rewrites every point of a zone's outline and fill by f.
func mapZonePoints(c *sexpr.Node, f func(geom.Pt) geom.Pt) {
	for _, poly := range []string{"polygon", "filled_polygon"} {
		pg := c.Child(poly)
		if pg == nil || pg.Child("pts") == nil {
			continue
		}
		for xy := range pg.Child("pts").All("xy") {
			x, ok1 := xy.Float(0)
			y, ok2 := xy.Float(1)
			if !ok1 || !ok2 {
				continue
			}
			q := f(geom.Pt{X: x, Y: y})
			*xy = N("xy", q.X, q.Y)
		}
	}
}
