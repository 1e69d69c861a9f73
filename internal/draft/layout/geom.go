package layout

import (
	"math"

	"copperhead/internal/kicad/geom"
)

// Board geometry is internal/kicad/geom's, shared with the fixture
// generator.
type (
	Pt   = geom.Pt
	Rect = geom.Rect
)

var emptyRect = geom.EmptyRect

// eps absorbs float noise in comparisons of millimetre coordinates that are
// written with four decimals.
const eps = 1e-6

func rotate(p Pt, deg float64) Pt      { return geom.Rotate(p, deg) }
func normAngle(a float64) float64      { return geom.NormAngle(a) }
func pointSegDist(p, a, b Pt) float64  { return geom.PointSegDist(p, a, b) }
func segSegDist(a, b, c, d Pt) float64 { return geom.SegSegDist(a, b, c, d) }
func segRectDist(a, b Pt, r Rect) float64 {
	return geom.SegRectDist(a, b, r)
}

// rotateRect turns r by a multiple of 90 degrees about the origin.
func rotateRect(r Rect, deg float64) Rect {
	if r.Empty() {
		return r
	}
	a, b := rotate(Pt{X: r.X0, Y: r.Y0}, deg), rotate(Pt{X: r.X1, Y: r.Y1}, deg)
	return emptyRect.AddPt(a).AddPt(b)
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
		return Rect{X0: s.a.X - s.r, Y0: s.a.Y - s.r, X1: s.a.X + s.r, Y1: s.a.Y + s.r}
	case shapeCapsule:
		return emptyRect.AddPt(s.a).AddPt(s.b).Inflate(s.r)
	}
	return s.box
}
