package draft

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"copperhead/internal/kicad/kigen"
	"copperhead/internal/sexpr"
)

// This file is what things cover on the sheet: a library symbol's body and
// pin texts, its fields, a label, a power port's value. Coordinates are
// sheet millimetres, Y down; the library's Y-up coordinates are flipped on
// reading. Text extents are estimated from KiCad's stroke font, a little
// generously, so a box that clears here clears on the drawn sheet.

// box is an axis-aligned rectangle, X0 <= X1 and Y0 <= Y1.
type box struct{ X0, Y0, X1, Y1 float64 }

// eps keeps boxes that only touch (a stub ending on a pin end, ports on
// neighbouring 2.54 mm pins) from counting as overlapping.
const eps = 0.02

func (b box) overlaps(o box) bool {
	return b.X0 < o.X1-eps && o.X0 < b.X1-eps && b.Y0 < o.Y1-eps && o.Y0 < b.Y1-eps
}

func (b box) union(o box) box {
	return box{min(b.X0, o.X0), min(b.Y0, o.Y0), max(b.X1, o.X1), max(b.Y1, o.Y1)}
}

func (b box) move(p point) box { return box{b.X0 + p.X, b.Y0 + p.Y, b.X1 + p.X, b.Y1 + p.Y} }

func (b box) grow(d float64) box { return box{b.X0 - d, b.Y0 - d, b.X1 + d, b.Y1 + d} }

func (b box) empty() bool { return b.X1 < b.X0 }

// noBox is the empty box union starts from.
var noBox = box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}

func ptBox(a, b point) box {
	return box{min(a.X, b.X), min(a.Y, b.Y), max(a.X, b.X), max(a.Y, b.Y)}
}

// orient is a symbol's rotation on the sheet, counter-clockwise as KiCad's
// (at x y angle) reads it.
type orient int

// apply turns a sheet-frame offset (Y down) by the rotation.
func (o orient) apply(p point) point {
	switch o {
	case 90:
		return point{p.Y, -p.X}
	case 180:
		return point{-p.X, -p.Y}
	case 270:
		return point{-p.Y, p.X}
	}
	return p
}

func (o orient) box(b box) box {
	return ptBox(o.apply(point{b.X0, b.Y0}), o.apply(point{b.X1, b.Y1}))
}

// sideways reports whether the rotation swaps horizontal and vertical.
func (o orient) sideways() bool { return o == 90 || o == 270 }

// textWidth bounds the drawn length of s at font size from above: KiCad's
// stroke font draws an upper-case glyph about 1.05 em wide with its
// spacing (TestTextWidthCoversKiCad holds this to the lengths kicad-cli's
// SVG export reports); markup (~{X}, _{X}) draws nothing.
func textWidth(s string, size float64) float64 {
	s = strings.NewReplacer("~{", "", "_{", "", "^{", "", "}", "").Replace(s)
	return (float64(utf8.RuneCountInString(s))*1.06 + 0.4) * size
}

// textHeight is the drawn height of one line at font size.
func textHeight(size float64) float64 { return size * 1.1 }

// justified is the box of a text anchored at p, reading along angle 0 or
// 90 (sheet frame), with KiCad's justification: h is left, right or
// center along the reading direction, v is top, bottom or center across it.
func justified(p point, w, h float64, angle90 bool, hj, vj string) box {
	var a0, a1, c0, c1 float64 // along and across, relative to p
	switch hj {
	case "left":
		a0, a1 = 0, w
	case "right":
		a0, a1 = -w, 0
	default:
		a0, a1 = -w/2, w/2
	}
	switch vj {
	case "bottom":
		c0, c1 = -h, 0
	case "top":
		c0, c1 = 0, h
	default:
		c0, c1 = -h/2, h/2
	}
	if !angle90 {
		return box{p.X + a0, p.Y + c0, p.X + a1, p.Y + c1}
	}
	// Reading upward: along runs to -Y, "above" the text is -X.
	return box{p.X + c0, p.Y - a1, p.X + c1, p.Y - a0}
}

// textEffects reads a text's font size, justification and hidden flag.
func textEffects(n *sexpr.Node) (size float64, hj, vj string, hidden bool) {
	size = 1.27
	hj, vj = "center", "center"
	e := n.Child("effects")
	if e == nil {
		return size, hj, vj, false
	}
	if f := e.Child("font"); f != nil {
		if s := f.Child("size"); s != nil {
			if v, ok := s.Float(1); ok {
				size = v
			}
		}
	}
	if j := e.Child("justify"); j != nil {
		for i := 0; j.Arg(i) != ""; i++ {
			switch a := j.Arg(i); a {
			case "left", "right":
				hj = a
			case "top", "bottom":
				vj = a
			}
		}
	}
	if h := e.Child("hide"); h != nil && h.Arg(0) != "no" {
		hidden = true
	}
	if e.HasAtom("hide") {
		hidden = true
	}
	return size, hj, vj, hidden
}

// symGeo is what one unit of a library symbol covers, relative to its
// origin, unrotated: the body's shapes, each pin's line, and the pin names
// and numbers the library shows. Each is a box of its own: a pin shorter
// than its neighbours ends inside the box around them all, and its label
// must not count as over the body.
type symGeo struct {
	body   box   // every shape's union
	shapes []box // each shape (rectangle, polyline, circle, arc, text)
	pins   []box
	texts  []labelled
}

// extent is everything the unit draws.
func (g symGeo) extent() box {
	b := g.body
	for _, p := range g.pins {
		b = b.union(p)
	}
	for _, t := range g.texts {
		b = b.union(t.b)
	}
	return b
}

// labelled is a box and what it is, for the check's messages.
type labelled struct {
	what string
	b    box
}

// unitGeometry reads the drawn extent of unit u (body style 1) of s.
func unitGeometry(s *kigen.SymDef, u int) symGeo {
	g := symGeo{body: noBox}
	nameOff, namesShown, numbersShown := 0.508, true, true
	if pn := s.Node.Child("pin_names"); pn != nil {
		if o := pn.Child("offset"); o != nil {
			if v, ok := o.Float(0); ok {
				nameOff = v
			}
		}
		if hiddenFlag(pn) {
			namesShown = false
		}
	}
	if pn := s.Node.Child("pin_numbers"); pn != nil && hiddenFlag(pn) {
		numbersShown = false
	}
	for sub := range s.Node.All("symbol") {
		parts := strings.Split(sub.Arg(0), "_")
		if len(parts) < 3 {
			continue
		}
		unit, err1 := strconv.Atoi(parts[len(parts)-2])
		style, err2 := strconv.Atoi(parts[len(parts)-1])
		if err1 != nil || err2 != nil || (unit != 0 && unit != u) || style > 1 {
			continue
		}
		for i := range sub.Children {
			c := &sub.Children[i]
			if c.Kind != sexpr.List {
				continue
			}
			shape := noBox
			grow := func(b box) { shape = shape.union(b) }
			switch c.Head() {
			case "rectangle":
				grow(ptBox(xyOf(c.Child("start")), xyOf(c.Child("end"))))
			case "polyline", "bezier":
				if pts := c.Child("pts"); pts != nil {
					for xy := range pts.All("xy") {
						p := xyOf(xy)
						grow(box{p.X, p.Y, p.X, p.Y})
					}
				}
			case "circle":
				ctr := xyOf(c.Child("center"))
				r := 0.0
				if rn := c.Child("radius"); rn != nil {
					r, _ = rn.Float(0)
				}
				grow(box{ctr.X - r, ctr.Y - r, ctr.X + r, ctr.Y + r})
			case "arc":
				for _, k := range []string{"start", "mid", "end"} {
					if n := c.Child(k); n != nil {
						p := xyOf(n)
						grow(box{p.X, p.Y, p.X, p.Y})
					}
				}
			case "text":
				size, hj, vj, hidden := textEffects(c)
				if hidden {
					continue
				}
				at := c.Child("at")
				p := xyOf(at)
				ang, _ := at.Float(2)
				if math.Abs(ang) >= 360 {
					ang /= 10 // a symbol's graphic text keeps its angle in tenths of a degree (900 is vertical)
				}
				grow(justified(p, textWidth(c.Arg(0), size), textHeight(size), int(ang)%180 == 90, hj, vj))
			case "pin":
				pinGeometry(&g, c, s.Node.Child("pin_names") != nil && nameOff == 0, nameOff, namesShown, numbersShown)
			}
			// A shape that draws nothing (a zero-size rectangle some
			// libraries leave behind) covers nothing.
			if !shape.empty() && (shape.X1-shape.X0 > 1e-6 || shape.Y1-shape.Y0 > 1e-6) {
				g.body = g.body.union(shape)
				g.shapes = append(g.shapes, shape)
			}
		}
	}
	if g.body.empty() {
		g.body = box{}
	}
	return g
}

func hiddenFlag(n *sexpr.Node) bool {
	if n.HasAtom("hide") {
		return true
	}
	h := n.Child("hide")
	return h != nil && h.Arg(0) != "no"
}

// xyOf reads (start x y), (xy x y), (at x y ...) into sheet coordinates.
func xyOf(n *sexpr.Node) point {
	if n == nil {
		return point{}
	}
	x, _ := n.Float(0)
	y, _ := n.Float(1)
	return point{x, -y}
}

// pinGeometry adds a pin's line to the body and its shown name and number
// to the texts, placed as KiCad places them: with a name offset the name
// sits inside the body past the pin and the number above the pin line;
// with offset 0 the name is above the line and the number below.
func pinGeometry(g *symGeo, c *sexpr.Node, outside bool, nameOff float64, namesShown, numbersShown bool) {
	if hiddenFlag(c) {
		return
	}
	at := c.Child("at")
	end := xyOf(at)
	ang, _ := at.Float(2)
	length := 2.54
	if l := c.Child("length"); l != nil {
		length, _ = l.Float(0)
	}
	dir := pinOut(ang)
	dir = point{-dir.X, -dir.Y} // from the pin end toward the body
	inner := point{end.X + dir.X*length, end.Y + dir.Y*length}
	g.pins = append(g.pins, ptBox(end, inner))
	vertical := dir.X == 0
	mid := point{(end.X + inner.X) / 2, (end.Y + inner.Y) / 2}
	const gap = 0.2
	// side places a text centred on the pin line's middle, on the side
	// above it (left of a vertical pin) or below it (right).
	side := func(w, h float64, above bool) box {
		if !vertical {
			if above {
				return box{mid.X - w/2, mid.Y - gap - h, mid.X + w/2, mid.Y - gap}
			}
			return box{mid.X - w/2, mid.Y + gap, mid.X + w/2, mid.Y + gap + h}
		}
		if above {
			return box{mid.X - gap - h, mid.Y - w/2, mid.X - gap, mid.Y + w/2}
		}
		return box{mid.X + gap, mid.Y - w/2, mid.X + gap + h, mid.Y + w/2}
	}
	if n := c.Child("name"); n != nil && namesShown {
		name := n.Arg(0)
		size, _, _, hidden := textEffects(n)
		if name != "" && name != "~" && !hidden {
			w, h := textWidth(name, size), textHeight(size)
			var b box
			if outside {
				b = side(w, h, true)
			} else {
				a := point{inner.X + dir.X*nameOff, inner.Y + dir.Y*nameOff}
				far := point{a.X + dir.X*w, a.Y + dir.Y*w}
				b = ptBox(a, far)
				if vertical {
					b.X0, b.X1 = a.X-h/2, a.X+h/2
				} else {
					b.Y0, b.Y1 = a.Y-h/2, a.Y+h/2
				}
			}
			g.texts = append(g.texts, labelled{"pin name " + name, b})
		}
	}
	if n := c.Child("number"); n != nil && numbersShown {
		num := n.Arg(0)
		size, _, _, hidden := textEffects(n)
		if num != "" && !hidden {
			g.texts = append(g.texts, labelled{"pin number " + num, side(textWidth(num, size), textHeight(size), !outside)})
		}
	}
}

// fieldBox is the drawn box of a field of an unrotated symbol, stored at
// pos with its own angle and justification.
func fieldBox(pos point, ang float64, text string, size float64, hj, vj string) box {
	return justified(pos, textWidth(text, size), textHeight(size), int(ang)%180 == 90, hj, vj)
}
