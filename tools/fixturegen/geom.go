package main

import "math"

// Pt is a point in board millimetres (Y down).
type Pt struct{ X, Y float64 }

func (a Pt) Sub(b Pt) Pt        { return Pt{a.X - b.X, a.Y - b.Y} }
func (a Pt) Add(b Pt) Pt        { return Pt{a.X + b.X, a.Y + b.Y} }
func (a Pt) Dot(b Pt) float64   { return a.X*b.X + a.Y*b.Y }
func (a Pt) Cross(b Pt) float64 { return a.X*b.Y - a.Y*b.X }
func (a Pt) Dist(b Pt) float64  { return math.Hypot(a.X-b.X, a.Y-b.Y) }
func (a Pt) Scale(k float64) Pt { return Pt{a.X * k, a.Y * k} }

// Rect is an axis-aligned rectangle.
type Rect struct{ X0, Y0, X1, Y1 float64 }

func (r Rect) Contains(p Pt) bool {
	return p.X >= r.X0 && p.X <= r.X1 && p.Y >= r.Y0 && p.Y <= r.Y1
}

func (r Rect) Inflate(d float64) Rect { return Rect{r.X0 - d, r.Y0 - d, r.X1 + d, r.Y1 + d} }

// rotPt rotates p by deg the way KiCad does on a Y-down board (positive =
// counter-clockwise on screen).
func rotPt(p Pt, deg float64) Pt {
	switch math.Mod(math.Mod(deg, 360)+360, 360) {
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

func pointSegDist(p, a, b Pt) float64 {
	ab := b.Sub(a)
	l2 := ab.Dot(ab)
	if l2 == 0 {
		return p.Dist(a)
	}
	t := p.Sub(a).Dot(ab) / l2
	t = math.Max(0, math.Min(1, t))
	return p.Dist(a.Add(ab.Scale(t)))
}

func segsIntersect(a, b, c, d Pt) bool {
	d1 := b.Sub(a).Cross(c.Sub(a))
	d2 := b.Sub(a).Cross(d.Sub(a))
	d3 := d.Sub(c).Cross(a.Sub(c))
	d4 := d.Sub(c).Cross(b.Sub(c))
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
	if r.Contains(a) || r.Contains(b) {
		return 0
	}
	c := [4]Pt{{r.X0, r.Y0}, {r.X1, r.Y0}, {r.X1, r.Y1}, {r.X0, r.Y1}}
	m := math.Inf(1)
	for i := 0; i < 4; i++ {
		m = math.Min(m, segSegDist(a, b, c[i], c[(i+1)%4]))
	}
	return m
}

// ShapeKind distinguishes obstacle geometry.
type ShapeKind int

const (
	ShCircle ShapeKind = iota
	ShCapsule
	ShRect
)

// Shape is copper (or a hole) seen by the router.
type Shape struct {
	Kind ShapeKind
	A, B Pt      // circle centre in A; capsule axis A-B
	R    float64 // circle/capsule radius
	Box  Rect    // rect
}

// segDist is the distance from segment a-b (zero width) to the shape's edge
// (0 when touching or overlapping).
func (s *Shape) segDist(a, b Pt) float64 {
	switch s.Kind {
	case ShCircle:
		return math.Max(0, pointSegDist(s.A, a, b)-s.R)
	case ShCapsule:
		return math.Max(0, segSegDist(a, b, s.A, s.B)-s.R)
	default:
		return segRectDist(a, b, s.Box)
	}
}

func (s *Shape) bbox() Rect {
	switch s.Kind {
	case ShCircle:
		return Rect{s.A.X - s.R, s.A.Y - s.R, s.A.X + s.R, s.A.Y + s.R}
	case ShCapsule:
		return Rect{math.Min(s.A.X, s.B.X) - s.R, math.Min(s.A.Y, s.B.Y) - s.R,
			math.Max(s.A.X, s.B.X) + s.R, math.Max(s.A.Y, s.B.Y) + s.R}
	default:
		return s.Box
	}
}

// contains reports whether p lies inside the shape, shrunk by margin.
func (s *Shape) contains(p Pt, margin float64) bool {
	switch s.Kind {
	case ShCircle:
		return p.Dist(s.A) <= s.R-margin
	case ShCapsule:
		return pointSegDist(p, s.A, s.B) <= s.R-margin
	default:
		return s.Box.Inflate(-margin).Contains(p)
	}
}
