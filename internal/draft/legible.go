package draft

import (
	"fmt"
	"math"
	"slices"
)

// The legibility check: before a drafted sheet is written, every visible
// text (labels, power-port values, reference and value fields, pin names
// and numbers as the library shows them, group titles), every symbol body
// and every wire is a box, and no text may overlap another text, a wire or
// a body it does not belong to, no two bodies may overlap, and no wire may
// cross a body it is not attached to. A failure is the engine's bug, not
// the intent's: the draft is refused with the two items named.

type itemKind int

const (
	kindBody itemKind = iota
	kindText
	kindWire
)

// item is one thing drawn on the sheet.
type item struct {
	kind  itemKind
	owner string // the symbol, label or port it belongs to
	what  string // for the message: "value 10k of R3"
	b     box
	// placed marks a text the engine positioned itself (a power port's
	// value, a label): it is checked against its own owner too, where a
	// library's own field and pin texts are the library's design.
	placed bool
	// attach lists the symbols a wire ends on (its pin stubs start inside
	// their bodies' extents); the wire may touch those bodies.
	attach []string
	net    string // a wire's net
	// seg is a wire's two ends; anchor is where a label connects. A label
	// may sit on the wire it is anchored to, and two wires may meet where
	// one ends on the other, never anywhere else.
	seg    *[2]point
	anchor *point
}

// onSegment reports whether p lies on the segment s (ends included).
func onSegment(p point, s [2]point) bool {
	a, b := s[0], s[1]
	cross := (b.X-a.X)*(p.Y-a.Y) - (b.Y-a.Y)*(p.X-a.X)
	return math.Abs(cross) < 1e-6 && p.X >= min(a.X, b.X)-1e-6 && p.X <= max(a.X, b.X)+1e-6 &&
		p.Y >= min(a.Y, b.Y)-1e-6 && p.Y <= max(a.Y, b.Y)+1e-6
}

// LegibilityError is a failed check: two drawn items overlap.
type LegibilityError struct {
	A, B string
}

func (e *LegibilityError) Error() string {
	return fmt.Sprintf("the drafted sheet fails the legibility check, nothing written: %s overlaps %s (a drafting engine bug, or a library symbol drawn over where its pins' labels go)", e.A, e.B)
}

func (it item) describe() string {
	return fmt.Sprintf("%s at (%.2f, %.2f)", it.what, (it.b.X0+it.b.X1)/2, (it.b.Y0+it.b.Y1)/2)
}

// clearance is the least room kept between a text and another text or a
// wire: closer than that, two names read as one ("GNGND").
const clearance = 0.3

// checkLegible returns the first overlap among items, in their order.
func checkLegible(items []item) error {
	for i := range items {
		a := &items[i]
		for j := i + 1; j < len(items); j++ {
			b := &items[j]
			if !clash(a, b) {
				continue
			}
			return &LegibilityError{A: a.describe(), B: b.describe()}
		}
	}
	return nil
}

// clash reports whether a and b overlap where they may not, a text kept
// clearance away from other texts and wires.
func clash(a, b *item) bool {
	ab, bb := a.b, b.b
	if (a.kind == kindText && b.kind != kindBody) || (b.kind == kindText && a.kind != kindBody) {
		ab = ab.grow(clearance / 2)
		bb = bb.grow(clearance / 2)
	}
	return ab.overlaps(bb) && !exempt(a, b)
}

// exempt says whether two overlapping items may overlap.
func exempt(a, b *item) bool {
	if a.kind > b.kind {
		a, b = b, a
	}
	same := a.owner == b.owner
	switch {
	case a.kind == kindBody && b.kind == kindBody:
		return same
	case a.kind == kindBody && b.kind == kindText:
		return same && !b.placed
	case a.kind == kindBody && b.kind == kindWire:
		return slices.Contains(b.attach, a.owner)
	case a.kind == kindText && b.kind == kindText:
		return same && !a.placed && !b.placed
	case a.kind == kindText && b.kind == kindWire:
		// A label sits on the wire it is anchored to, as KiCad draws it; a
		// pin number sits on its pin's line, which the stub continues.
		return (a.anchor != nil && b.seg != nil && onSegment(*a.anchor, *b.seg)) || (!a.placed && slices.Contains(b.attach, a.owner))
	}
	// Wire and wire: one net's wires meet where one ends on the other;
	// anything else (two nets touching, any crossing) is refused.
	if a.net == "" || a.net != b.net || a.seg == nil || b.seg == nil {
		return false
	}
	return onSegment(a.seg[0], *b.seg) || onSegment(a.seg[1], *b.seg) || onSegment(b.seg[0], *a.seg) || onSegment(b.seg[1], *a.seg)
}
