package main

import (
	"math"

	"copperhead/internal/kicad/geom"
)

// Board geometry is internal/kicad/geom's, shared with the layout engine.
type (
	Pt   = geom.Pt
	Rect = geom.Rect
)

func rotPt(p Pt, deg float64) Pt          { return geom.Rotate(p, deg) }
func pointSegDist(p, a, b Pt) float64     { return geom.PointSegDist(p, a, b) }
func segSegDist(a, b, c, d Pt) float64    { return geom.SegSegDist(a, b, c, d) }
func segRectDist(a, b Pt, r Rect) float64 { return geom.SegRectDist(a, b, r) }

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
		return Rect{X0: s.A.X - s.R, Y0: s.A.Y - s.R, X1: s.A.X + s.R, Y1: s.A.Y + s.R}
	case ShCapsule:
		return Rect{X0: math.Min(s.A.X, s.B.X) - s.R, Y0: math.Min(s.A.Y, s.B.Y) - s.R, X1: math.Max(s.A.X, s.B.X) + s.R, Y1: math.Max(s.A.Y, s.B.Y) + s.R}
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
