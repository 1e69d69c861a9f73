package layout

import "math"

// Pt is a point in millimetres, Y down (KiCad's board coordinates).
type Pt struct{ X, Y float64 }

func (a Pt) add(b Pt) Pt        { return Pt{a.X + b.X, a.Y + b.Y} }
func (a Pt) sub(b Pt) Pt        { return Pt{a.X - b.X, a.Y - b.Y} }
func (a Pt) dot(b Pt) float64   { return a.X*b.X + a.Y*b.Y }
func (a Pt) cross(b Pt) float64 { return a.X*b.Y - a.Y*b.X }
func (a Pt) dist(b Pt) float64  { return math.Hypot(a.X-b.X, a.Y-b.Y) }
func (a Pt) scale(k float64) Pt { return Pt{a.X * k, a.Y * k} }

// Rect is an axis-aligned rectangle; an empty Rect has X0 > X1.
type Rect struct{ X0, Y0, X1, Y1 float64 }

// emptyRect is the identity for union.
var emptyRect = Rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}

func (r Rect) empty() bool            { return r.X0 > r.X1 || r.Y0 > r.Y1 }
func (r Rect) w() float64             { return r.X1 - r.X0 }
func (r Rect) h() float64             { return r.Y1 - r.Y0 }
func (r Rect) center() Pt             { return Pt{(r.X0 + r.X1) / 2, (r.Y0 + r.Y1) / 2} }
func (r Rect) inflate(d float64) Rect { return Rect{r.X0 - d, r.Y0 - d, r.X1 + d, r.Y1 + d} }
func (r Rect) shift(p Pt) Rect        { return Rect{r.X0 + p.X, r.Y0 + p.Y, r.X1 + p.X, r.Y1 + p.Y} }

func (r Rect) addPt(p Pt) Rect {
	return Rect{math.Min(r.X0, p.X), math.Min(r.Y0, p.Y), math.Max(r.X1, p.X), math.Max(r.Y1, p.Y)}
}

func (r Rect) union(o Rect) Rect {
	if o.empty() {
		return r
	}
	if r.empty() {
		return o
	}
	return Rect{math.Min(r.X0, o.X0), math.Min(r.Y0, o.Y0), math.Max(r.X1, o.X1), math.Max(r.Y1, o.Y1)}
}

// overlaps reports whether r and o share interior area (touching is fine).
func (r Rect) overlaps(o Rect) bool {
	return !r.empty() && !o.empty() && r.X0 < o.X1 && o.X0 < r.X1 && r.Y0 < o.Y1 && o.Y0 < r.Y1
}

func (r Rect) contains(p Pt) bool {
	return p.X >= r.X0 && p.X <= r.X1 && p.Y >= r.Y0 && p.Y <= r.Y1
}

// eps absorbs float noise in comparisons of millimetre coordinates that are
// written with four decimals.
const eps = 1e-6

// rotate turns p by deg the way KiCad does on a Y-down board (positive is
// counter-clockwise on screen).
func rotate(p Pt, deg float64) Pt {
	switch normAngle(deg) {
	case 0:
		return p
	case 90:
		return Pt{p.Y, -p.X}
	case 180:
		return Pt{-p.X, -p.Y}
	case 270:
		return Pt{-p.Y, p.X}
	}
	r := deg * math.Pi / 180
	s, c := math.Sin(r), math.Cos(r)
	return Pt{p.X*c + p.Y*s, -p.X*s + p.Y*c}
}

// rotateRect turns r by a multiple of 90 degrees about the origin.
func rotateRect(r Rect, deg float64) Rect {
	if r.empty() {
		return r
	}
	a, b := rotate(Pt{r.X0, r.Y0}, deg), rotate(Pt{r.X1, r.Y1}, deg)
	return emptyRect.addPt(a).addPt(b)
}

func normAngle(a float64) float64 {
	a = math.Mod(a, 360)
	if a < 0 {
		a += 360
	}
	if math.Abs(a-360) < eps {
		return 0
	}
	return a
}

func pointSegDist(p, a, b Pt) float64 {
	ab := b.sub(a)
	l2 := ab.dot(ab)
	if l2 == 0 {
		return p.dist(a)
	}
	t := math.Max(0, math.Min(1, p.sub(a).dot(ab)/l2))
	return p.dist(a.add(ab.scale(t)))
}

func segsIntersect(a, b, c, d Pt) bool {
	d1 := b.sub(a).cross(c.sub(a))
	d2 := b.sub(a).cross(d.sub(a))
	d3 := d.sub(c).cross(a.sub(c))
	d4 := d.sub(c).cross(b.sub(c))
	return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))
}

func segSegDist(a, b, c, d Pt) float64 {
	if segsIntersect(a, b, c, d) {
		return 0
	}
	return math.Min(math.Min(pointSegDist(a, c, d), pointSegDist(b, c, d)),
		math.Min(pointSegDist(c, a, b), pointSegDist(d, a, b)))
}

func segRectDist(a, b Pt, r Rect) float64 {
	if r.contains(a) || r.contains(b) {
		return 0
	}
	c := [4]Pt{{r.X0, r.Y0}, {r.X1, r.Y0}, {r.X1, r.Y1}, {r.X0, r.Y1}}
	m := math.Inf(1)
	for i := range 4 {
		m = math.Min(m, segSegDist(a, b, c[i], c[(i+1)%4]))
	}
	return m
}

// shapeKind distinguishes copper geometry seen by the router.
type shapeKind uint8

const (
	shapeRect shapeKind = iota
	shapeCircle
	shapeCapsule
)

// shape is a pad's copper or a hole, in board coordinates.
type shape struct {
	kind shapeKind
	box  Rect    // shapeRect
	a, b Pt      // circle centre in a; capsule axis a-b
	r    float64 // circle and capsule radius
}

// segDist is the distance from the zero-width segment a-b to the shape's
// edge, 0 when they touch or overlap.
func (s shape) segDist(a, b Pt) float64 {
	switch s.kind {
	case shapeCircle:
		return math.Max(0, pointSegDist(s.a, a, b)-s.r)
	case shapeCapsule:
		return math.Max(0, segSegDist(a, b, s.a, s.b)-s.r)
	}
	return segRectDist(a, b, s.box)
}

func (s shape) bbox() Rect {
	switch s.kind {
	case shapeCircle:
		return Rect{s.a.X - s.r, s.a.Y - s.r, s.a.X + s.r, s.a.Y + s.r}
	case shapeCapsule:
		return emptyRect.addPt(s.a).addPt(s.b).inflate(s.r)
	}
	return s.box
}
