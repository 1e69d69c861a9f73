package layout

import (
	"fmt"
	"math"
	"strings"

	"copperhead/internal/sexpr"
)

// Footprint is a library footprint read for drafting: its tree (copied into
// the board as it is, apart from position, references and nets) and the
// geometry placement and routing need, in the footprint's own coordinates
// (rotation 0, Y down).
type Footprint struct {
	LibID string
	Node  sexpr.Node

	Pads      []Pad
	Courtyard Rect // F.CrtYd and B.CrtYd extents; empty when the footprint has none
	// courtyardEdges are the courtyard's outline segments, to tell the
	// part's own courtyard from the stretch that only outlines a rule area.
	courtyardEdges [][2]Pt
	Silk           Rect // silkscreen graphics and visible silkscreen text other than the reference
	Body           Rect // fabrication-layer graphics: the component body
	// Copper is the extent of graphics drawn on F.Cu or B.Cu (a copper
	// logo, a printed antenna): copper that must lie on the board.
	// copperArt is each such item's box and layer, for the router.
	Copper    Rect
	copperArt []copperGraphic
	// Graphics is the extent of every graphic item on any layer: what sizes
	// a footprint that has no pads, courtyard or silkscreen (a mask logo).
	Graphics Rect
	Keepouts []Keepout
	Ref      TextBox // the Reference property, re-measured once the real reference is known
	// AntennaText is where a comment or fabrication text says "Antenna", when one does.
	AntennaText    Pt
	HasAntennaText bool
}

// Pad is one pad in footprint coordinates.
type Pad struct {
	Number string
	Type   string // smd, thru_hole, np_thru_hole, connect
	Shape  string // rect, roundrect, circle, oval, trapezoid, chamfered_rect, custom
	At     Pt
	Angle  float64 // relative to the footprint
	Size   Pt
	Drill  Pt   // hole size (both equal for a round hole); zero for SMD
	Offset Pt   // the copper's offset from the hole, pad-relative
	Extent Rect // the copper's bounding box, pad-relative: size, offset and custom primitives
	Front  bool // copper on F.Cu
	Back   bool // copper on B.Cu
	// Clearance is the pad's own clearance (the pad's, else its
	// footprint's), zero when neither sets one; MaskMargin likewise for the
	// solder mask opening.
	Clearance  float64
	MaskMargin float64
}

func (p *Pad) copper() bool { return p.Front || p.Back }

// copperGraphic is one copper graphic item's box, in footprint coordinates.
type copperGraphic struct {
	Box         Rect
	Front, Back bool
}

// Keepout is a rule area's bounding box and what it forbids.
type Keepout struct {
	Box        Rect
	Tracks     bool // tracks not allowed
	Vias       bool
	Copper     bool // copper pour not allowed
	Footprints bool // other footprints not allowed
}

// TextBox is enough of a text item to estimate its extent for any string.
type TextBox struct {
	At      Pt
	Angle   float64
	Size    Pt // glyph width and height
	Thick   float64
	Justify string // "", "left" or "right"
	Silk    bool   // on a silkscreen layer and visible
}

// box estimates the extent of text drawn with t's font at rotation rot
// added to its own: KiCad's stroke font advances about 0.9 of the glyph
// width per character. An estimate is enough: it only keeps other parts'
// silkscreen and copper clear of this text.
func (t TextBox) box(text string, rot float64) Rect {
	n := float64(len([]rune(text)))
	w := n*t.Size.X*0.9 + t.Thick
	h := t.Size.Y + t.Thick
	var r Rect
	switch t.Justify {
	case "left":
		r = Rect{X0: 0, Y0: -h / 2, X1: w, Y1: h / 2}
	case "right":
		r = Rect{X0: -w, Y0: -h / 2, X1: 0, Y1: h / 2}
	default:
		r = Rect{X0: -w / 2, Y0: -h / 2, X1: w / 2, Y1: h / 2}
	}
	// The text turns with its own angle about its anchor; the anchor turns
	// with the footprint. Both are multiples of 90 in practice; anything else
	// gets the enclosing box of the rotated box.
	r = rotateBox(r, t.Angle+rot)
	return r.Shift(rotate(t.At, rot))
}

// rotateBox is rotateRect for any angle: the box enclosing r turned by deg.
func rotateBox(r Rect, deg float64) Rect {
	if math.Mod(normAngle(deg), 90) == 0 {
		return rotateRect(r, deg)
	}
	out := emptyRect
	for _, p := range []Pt{{X: r.X0, Y: r.Y0}, {X: r.X1, Y: r.Y0}, {X: r.X1, Y: r.Y1}, {X: r.X0, Y: r.Y1}} {
		out = out.AddPt(rotate(p, deg))
	}
	return out
}

// ParseFootprint reads a .kicad_mod file. It never panics on malformed
// input: a file that is not a footprint is an error, and items missing the
// fields geometry needs are skipped.
func ParseFootprint(name string, src []byte) (*Footprint, error) {
	root, err := sexpr.Parse(name, src)
	if err != nil {
		return nil, err
	}
	if h := root.Head(); h != "footprint" && h != "module" {
		return nil, fmt.Errorf("%s: not a footprint: it holds (%s ...)", name, h)
	}
	fp := &Footprint{Node: *root, Courtyard: emptyRect, Silk: emptyRect, Body: emptyRect, Copper: emptyRect, Graphics: emptyRect}
	fpClearance := positive(root.Child("clearance"))
	fpMask := positive(root.Child("solder_mask_margin"))
	for i := range root.Children {
		c := &root.Children[i]
		if c.Kind != sexpr.List {
			continue
		}
		switch c.Head() {
		case "pad":
			if p, ok := readPad(c); ok {
				if p.Clearance == 0 {
					p.Clearance = fpClearance
				}
				if p.MaskMargin == 0 {
					p.MaskMargin = fpMask
				}
				fp.Pads = append(fp.Pads, p)
			}
		case "fp_line", "fp_rect", "fp_circle", "fp_arc", "fp_poly", "fp_curve":
			box := graphicBox(c)
			fp.Graphics = fp.Graphics.Union(box)
			switch layer := c.Value1("layer"); layer {
			case "F.CrtYd", "B.CrtYd":
				fp.Courtyard = fp.Courtyard.Union(box)
				fp.courtyardEdges = append(fp.courtyardEdges, outlineEdges(c, box)...)
			case "F.SilkS", "B.SilkS":
				fp.Silk = fp.Silk.Union(box)
			case "F.Fab", "B.Fab":
				fp.Body = fp.Body.Union(box)
			case "F.Cu", "B.Cu":
				if !box.Empty() {
					fp.Copper = fp.Copper.Union(box)
					fp.copperArt = append(fp.copperArt, copperGraphic{Box: box, Front: layer == "F.Cu", Back: layer == "B.Cu"})
				}
			}
		case "property", "fp_text":
			t := readText(c)
			kind, text := c.Arg(0), c.Arg(1)
			if c.Head() == "property" && kind == "Reference" || c.Head() == "fp_text" && kind == "reference" {
				fp.Ref = t
				continue
			}
			if c.Head() == "fp_text" {
				if strings.EqualFold(strings.TrimSpace(text), "antenna") {
					fp.AntennaText, fp.HasAntennaText = t.At, true
				}
				if t.Silk {
					fp.Silk = fp.Silk.Union(t.box(text, 0))
				}
			}
		case "zone":
			if k, ok := readKeepout(c); ok {
				fp.Keepouts = append(fp.Keepouts, k)
			}
		}
	}
	return fp, nil
}

func pt(n *sexpr.Node) (Pt, bool) {
	if n == nil {
		return Pt{}, false
	}
	x, ok1 := n.Float(0)
	y, ok2 := n.Float(1)
	return Pt{X: x, Y: y}, ok1 && ok2 && !math.IsNaN(x+y) && !math.IsInf(x+y, 0)
}

func readPad(c *sexpr.Node) (Pad, bool) {
	p := Pad{Number: c.Arg(0), Type: c.Arg(1), Shape: c.Arg(2)}
	at, ok := pt(c.Child("at"))
	if !ok {
		return p, false
	}
	p.At = at
	if a, ok := c.Child("at").Float(2); ok {
		p.Angle = a
	}
	size, ok := pt(c.Child("size"))
	if !ok || size.X < 0 || size.Y < 0 {
		return p, false
	}
	p.Size = size
	if d := c.Child("drill"); d != nil {
		if off, ok := pt(d.Child("offset")); ok {
			p.Offset = off
		}
		if d.Arg(0) == "oval" {
			w, _ := d.Float(1)
			h, ok := d.Float(2)
			if !ok {
				h = w
			}
			p.Drill = Pt{X: w, Y: h}
		} else if w, ok := d.Float(0); ok {
			p.Drill = Pt{X: w, Y: w}
		}
	}
	if ls := c.Child("layers"); ls != nil {
		for _, l := range ls.Children[1:] {
			switch l.Value {
			case "F.Cu":
				p.Front = true
			case "B.Cu":
				p.Back = true
			case "*.Cu", "F&B.Cu":
				p.Front, p.Back = true, true
			}
		}
	}
	p.Clearance = positive(c.Child("clearance"))
	p.MaskMargin = positive(c.Child("solder_mask_margin"))
	p.Extent = Rect{X0: -size.X / 2, Y0: -size.Y / 2, X1: size.X / 2, Y1: size.Y / 2}.Shift(p.Offset)
	if prims := c.Child("primitives"); prims != nil && p.Shape == "custom" {
		for i := range prims.Children {
			if g := &prims.Children[i]; g.Kind == sexpr.List {
				p.Extent = p.Extent.Union(graphicBox(g).Shift(p.Offset))
			}
		}
	}
	return p, true
}

// positive reads a (name value) number that must be a sane positive
// distance, else 0.
func positive(n *sexpr.Node) float64 {
	if n == nil {
		return 0
	}
	v, ok := n.Float(0)
	if !ok || math.IsNaN(v) || v <= 0 || v > 100 {
		return 0
	}
	return v
}

// graphicBox is the extent of one graphic item, its stroke included.
func graphicBox(c *sexpr.Node) Rect {
	box := emptyRect
	for _, k := range []string{"start", "end", "mid", "center"} {
		if p, ok := pt(c.Child(k)); ok {
			box = box.AddPt(p)
		}
	}
	switch c.Head() {
	case "fp_circle", "gr_circle":
		if ctr, ok := pt(c.Child("center")); ok {
			if e, ok := pt(c.Child("end")); ok {
				r := ctr.Dist(e)
				box = box.Union(Rect{X0: ctr.X - r, Y0: ctr.Y - r, X1: ctr.X + r, Y1: ctr.Y + r})
			}
		}
	case "fp_arc", "gr_arc":
		box = box.Union(arcBox(c))
	}
	if pts := c.Child("pts"); pts != nil {
		for xy := range pts.All("xy") {
			if p, ok := pt(xy); ok {
				box = box.AddPt(p)
			}
		}
	}
	w := 0.0
	if s := c.Child("stroke"); s != nil {
		w, _ = s.Child("width").Float(0)
	} else if wn := c.Child("width"); wn != nil {
		w, _ = wn.Float(0)
	}
	if box.Empty() || math.IsNaN(w) || w < 0 || w > 100 {
		return box
	}
	return box.Inflate(w / 2)
}

// arcBox bounds an arc given by start, mid and end by its circle's extreme
// points that lie on the arc.
func arcBox(c *sexpr.Node) Rect {
	s, ok1 := pt(c.Child("start"))
	m, ok2 := pt(c.Child("mid"))
	e, ok3 := pt(c.Child("end"))
	if !ok1 || !ok2 || !ok3 {
		return emptyRect
	}
	ctr, r, ok := circleThrough(s, m, e)
	if !ok {
		return emptyRect
	}
	box := emptyRect.AddPt(s).AddPt(m).AddPt(e)
	a0 := math.Atan2(s.Y-ctr.Y, s.X-ctr.X)
	am := math.Atan2(m.Y-ctr.Y, m.X-ctr.X)
	a1 := math.Atan2(e.Y-ctr.Y, e.X-ctr.X)
	for k := range 4 {
		a := float64(k) * math.Pi / 2
		if onArc(a0, am, a1, a) {
			box = box.AddPt(Pt{X: ctr.X + r*math.Cos(a), Y: ctr.Y + r*math.Sin(a)})
		}
	}
	return box
}

func circleThrough(a, b, c Pt) (Pt, float64, bool) {
	d := 2 * (a.X*(b.Y-c.Y) + b.X*(c.Y-a.Y) + c.X*(a.Y-b.Y))
	if math.Abs(d) < 1e-12 {
		return Pt{}, 0, false
	}
	a2, b2, c2 := a.Dot(a), b.Dot(b), c.Dot(c)
	ctr := Pt{X: (a2*(b.Y-c.Y) + b2*(c.Y-a.Y) + c2*(a.Y-b.Y)) / d, Y: (a2*(c.X-b.X) + b2*(a.X-c.X) + c2*(b.X-a.X)) / d}
	return ctr, ctr.Dist(a), true
}

// onArc reports whether angle a lies on the arc from a0 through am to a1.
func onArc(a0, am, a1, a float64) bool {
	ccw := func(from, to float64) float64 { return math.Mod(to-from+4*math.Pi, 2*math.Pi) }
	if ccw(a0, am) <= ccw(a0, a1) {
		return ccw(a0, a) <= ccw(a0, a1)
	}
	return ccw(a0, a) >= ccw(a0, a1)
}

func readText(c *sexpr.Node) TextBox {
	t := TextBox{Size: Pt{X: 1, Y: 1}, Thick: 0.15}
	if at, ok := pt(c.Child("at")); ok {
		t.At = at
		t.Angle, _ = c.Child("at").Float(2)
	}
	layer := c.Value1("layer")
	t.Silk = layer == "F.SilkS" || layer == "B.SilkS"
	if c.Child("hide") != nil && c.Value1("hide") != "no" || c.HasAtom("hide") {
		t.Silk = false
	}
	if eff := c.Child("effects"); eff != nil {
		if font := eff.Child("font"); font != nil {
			if s, ok := pt(font.Child("size")); ok && s.X > 0 && s.Y > 0 && s.X < 100 && s.Y < 100 {
				// KiCad writes (size height width).
				t.Size = Pt{X: s.Y, Y: s.X}
			}
			if th, ok := font.Child("thickness").Float(0); ok && th >= 0 && th < 10 {
				t.Thick = th
			}
		}
		if j := eff.Child("justify"); j != nil {
			switch {
			case j.HasAtom("left"):
				t.Justify = "left"
			case j.HasAtom("right"):
				t.Justify = "right"
			}
		}
		if eff.HasAtom("hide") || eff.Child("hide") != nil && eff.Value1("hide") != "no" {
			t.Silk = false
		}
	}
	return t
}

func readKeepout(c *sexpr.Node) (Keepout, bool) {
	ko := c.Child("keepout")
	if ko == nil {
		return Keepout{}, false
	}
	k := Keepout{Box: emptyRect}
	if poly := c.Child("polygon"); poly != nil {
		if pts := poly.Child("pts"); pts != nil {
			for xy := range pts.All("xy") {
				if p, ok := pt(xy); ok {
					k.Box = k.Box.AddPt(p)
				}
			}
		}
	}
	if k.Box.Empty() {
		return k, false
	}
	k.Tracks = ko.Value1("tracks") == "not_allowed"
	k.Vias = ko.Value1("vias") == "not_allowed"
	k.Copper = ko.Value1("copperpour") == "not_allowed"
	k.Footprints = ko.Value1("footprints") == "not_allowed"
	return k, true
}

// outlineEdges lists a graphic item's segments: a line itself, a rectangle's
// or polygon's sides, and for curves the sides of their bounding box.
func outlineEdges(c *sexpr.Node, box Rect) [][2]Pt {
	switch c.Head() {
	case "fp_line":
		a, ok1 := pt(c.Child("start"))
		b, ok2 := pt(c.Child("end"))
		if ok1 && ok2 {
			return [][2]Pt{{a, b}}
		}
		return nil
	case "fp_poly":
		var ps []Pt
		if pts := c.Child("pts"); pts != nil {
			for xy := range pts.All("xy") {
				if p, ok := pt(xy); ok {
					ps = append(ps, p)
				}
			}
		}
		var out [][2]Pt
		for i := range ps {
			out = append(out, [2]Pt{ps[i], ps[(i+1)%len(ps)]})
		}
		return out
	}
	if box.Empty() {
		return nil
	}
	if c.Head() == "fp_rect" {
		a, ok1 := pt(c.Child("start"))
		b, ok2 := pt(c.Child("end"))
		if ok1 && ok2 {
			box = emptyRect.AddPt(a).AddPt(b)
		}
	}
	p := [4]Pt{{X: box.X0, Y: box.Y0}, {X: box.X1, Y: box.Y0}, {X: box.X1, Y: box.Y1}, {X: box.X0, Y: box.Y1}}
	return [][2]Pt{{p[0], p[1]}, {p[1], p[2]}, {p[2], p[3]}, {p[3], p[0]}}
}

// ownCourtyard is the courtyard's extent without the stretches that only
// outline the footprint's rule areas: an antenna module draws its keepout
// inside its courtyard, and other parts may sit beside the module's body.
func (fp *Footprint) ownCourtyard() Rect {
	if len(fp.Keepouts) == 0 || len(fp.courtyardEdges) == 0 {
		return fp.Courtyard
	}
	inKeepout := func(p Pt) bool {
		for _, k := range fp.Keepouts {
			if k.Box.Inflate(eps).Contains(p) {
				return true
			}
		}
		return false
	}
	box := emptyRect
	for _, e := range fp.courtyardEdges {
		if inKeepout(e[0]) && inKeepout(e[1]) {
			continue
		}
		box = box.AddPt(e[0]).AddPt(e[1])
	}
	return box
}

// padsBox is the extent of every pad's copper.
func (fp *Footprint) padsBox() Rect {
	box := emptyRect
	for i := range fp.Pads {
		p := &fp.Pads[i]
		box = box.Union(rotateBox(p.Extent, p.Angle).Shift(p.At))
	}
	return box
}
