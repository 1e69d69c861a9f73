// Package geom is board geometry in millimetres, Y down as on a KiCad board:
// points, axis-aligned rectangles, KiCad's rotation, and the segment
// distances a router's clearance checks need. The layout draft engine and
// the fixture generator share it. It imports only the standard library.
package geom

import "math"

// Pt is a point (or a vector) in millimetres.
type Pt struct{ X, Y float64 }

func (a Pt) Add(b Pt) Pt        { return Pt{a.X + b.X, a.Y + b.Y} }
func (a Pt) Sub(b Pt) Pt        { return Pt{a.X - b.X, a.Y - b.Y} }
func (a Pt) Dot(b Pt) float64   { return a.X*b.X + a.Y*b.Y }
func (a Pt) Cross(b Pt) float64 { return a.X*b.Y - a.Y*b.X }
func (a Pt) Dist(b Pt) float64  { return math.Hypot(a.X-b.X, a.Y-b.Y) }
func (a Pt) Scale(k float64) Pt { return Pt{a.X * k, a.Y * k} }

// Rect is an axis-aligned rectangle; an empty Rect has X0 > X1.
type Rect struct{ X0, Y0, X1, Y1 float64 }

// EmptyRect is the identity for Union and AddPt.
var EmptyRect = Rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}

func (r Rect) Empty() bool            { return r.X0 > r.X1 || r.Y0 > r.Y1 }
func (r Rect) W() float64             { return r.X1 - r.X0 }
func (r Rect) H() float64             { return r.Y1 - r.Y0 }
func (r Rect) Center() Pt             { return Pt{(r.X0 + r.X1) / 2, (r.Y0 + r.Y1) / 2} }
func (r Rect) Inflate(d float64) Rect { return Rect{r.X0 - d, r.Y0 - d, r.X1 + d, r.Y1 + d} }
func (r Rect) Shift(p Pt) Rect        { return Rect{r.X0 + p.X, r.Y0 + p.Y, r.X1 + p.X, r.Y1 + p.Y} }

// AddPt grows r to hold p.
func (r Rect) AddPt(p Pt) Rect {
	return Rect{math.Min(r.X0, p.X), math.Min(r.Y0, p.Y), math.Max(r.X1, p.X), math.Max(r.Y1, p.Y)}
}

// Union is the smallest rectangle holding r and o.
func (r Rect) Union(o Rect) Rect {
	if o.Empty() {
		return r
	}
	if r.Empty() {
		return o
	}
	return Rect{math.Min(r.X0, o.X0), math.Min(r.Y0, o.Y0), math.Max(r.X1, o.X1), math.Max(r.Y1, o.Y1)}
}

// Overlaps reports whether r and o share interior area (touching is fine).
func (r Rect) Overlaps(o Rect) bool {
	return !r.Empty() && !o.Empty() && r.X0 < o.X1 && o.X0 < r.X1 && r.Y0 < o.Y1 && o.Y0 < r.Y1
}

// Contains reports whether p lies in r, edges included.
func (r Rect) Contains(p Pt) bool {
	return p.X >= r.X0 && p.X <= r.X1 && p.Y >= r.Y0 && p.Y <= r.Y1
}

// PointSegDist is the distance from p to the segment a-b.
func PointSegDist(p, a, b Pt) float64 {
	ab := b.Sub(a)
	l2 := ab.Dot(ab)
	if l2 == 0 {
		return p.Dist(a)
	}
	t := math.Max(0, math.Min(1, p.Sub(a).Dot(ab)/l2))
	return p.Dist(a.Add(ab.Scale(t)))
}

// SegsIntersect reports whether segments a-b and c-d cross properly.
func SegsIntersect(a, b, c, d Pt) bool {
	d1 := b.Sub(a).Cross(c.Sub(a))
	d2 := b.Sub(a).Cross(d.Sub(a))
	d3 := d.Sub(c).Cross(a.Sub(c))
	d4 := d.Sub(c).Cross(b.Sub(c))
	return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))
}

// SegSegDist is the distance between segments a-b and c-d.
func SegSegDist(a, b, c, d Pt) float64 {
	if SegsIntersect(a, b, c, d) {
		return 0
	}
	return math.Min(math.Min(PointSegDist(a, c, d), PointSegDist(b, c, d)),
		math.Min(PointSegDist(c, a, b), PointSegDist(d, a, b)))
}

// SegRectDist is the distance from segment a-b to rectangle r's edges, 0
// when an end lies inside.
func SegRectDist(a, b Pt, r Rect) float64 {
	if r.Contains(a) || r.Contains(b) {
		return 0
	}
	c := [4]Pt{{r.X0, r.Y0}, {r.X1, r.Y0}, {r.X1, r.Y1}, {r.X0, r.Y1}}
	m := math.Inf(1)
	for i := range 4 {
		m = math.Min(m, SegSegDist(a, b, c[i], c[(i+1)%4]))
	}
	return m
}

// Rotate turns p by deg the way KiCad does on a Y-down board (positive is
// counter-clockwise on screen), exactly for multiples of 90 degrees.
func Rotate(p Pt, deg float64) Pt {
	switch NormAngle(deg) {
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

// angleEps absorbs float noise in angles written with four decimals.
const angleEps = 1e-6

// NormAngle maps an angle to [0, 360).
func NormAngle(a float64) float64 {
	a = math.Mod(a, 360)
	if a < 0 {
		a += 360
	}
	if math.Abs(a-360) < angleEps {
		return 0
	}
	return a
}
