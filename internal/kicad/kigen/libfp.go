package kigen

import (
	"errors"
	"fmt"

	"copperhead/internal/kicad/geom"
	"copperhead/internal/sexpr"
)

// ErrFlipped marks a board footprint on the back side: KiCad mirrors a
// flipped footprint's items and swaps their layers, which LibraryFootprint
// does not undo.
var ErrFlipped = errors.New("footprint is on the back side (flipped)")

// LibraryFootprint turns a footprint placed on a board back into library
// form, the inverse of PlaceFootprint: no position, rotation 0 (pad and text
// angles, which a board stores including the footprint's rotation, made
// footprint-relative again; rule areas, which a board stores in board
// coordinates, moved back to footprint coordinates), and none of the
// instance's data (symbol link, pad nets, UUIDs, lock). The reference
// becomes REF**, as in a library. A footprint on B.Cu is refused with
// ErrFlipped; a KiCad 5 (module ...) is refused too, its items follow other
// rules.
func LibraryFootprint(board *sexpr.Node) (sexpr.Node, error) {
	if board == nil || board.Head() != "footprint" {
		head := ""
		if board != nil {
			head = board.Head()
		}
		return sexpr.Node{}, fmt.Errorf("not a board footprint: (%s ...)", head)
	}
	if l := board.Value1("layer"); l != "F.Cu" && l != "" {
		return sexpr.Node{}, fmt.Errorf("%s on %s: %w", board.Arg(0), l, ErrFlipped)
	}
	n := Clone(board)
	var pos geom.Pt
	rot := 0.0
	if at := n.Child("at"); at != nil {
		pos.X, _ = at.Float(0)
		pos.Y, _ = at.Float(1)
		rot, _ = at.Float(2)
	}
	RemoveChildren(&n, "at", "uuid", "tstamp", "path", "sheetname", "sheetfile", "locked")
	kids := n.Children[:0]
	for i, c := range n.Children {
		switch {
		case i >= 2 && c.Kind == sexpr.Atom && (c.Value == "locked" || c.Value == "placed"):
			continue // KiCad 6 and 7 write the lock and placed flags as bare words
		case c.Kind == sexpr.List && c.Head() == "property" && (c.Arg(0) == "Sheetname" || c.Arg(0) == "Sheetfile"):
			continue // KiCad 8's spelling of the symbol link
		}
		kids = append(kids, c)
	}
	n.Children = kids
	for i := range n.Children {
		c := &n.Children[i]
		if c.Kind != sexpr.List {
			continue
		}
		switch c.Head() {
		case "property":
			if c.Arg(0) == "Reference" {
				setArgAt(c, 1, "REF**")
			}
			turnAt(c, -rot, true)
		case "fp_text":
			if c.Arg(0) == "reference" {
				setArgAt(c, 1, "REF**")
			}
			turnAt(c, -rot, true)
		case "pad":
			turnAt(c, -rot, false)
			RemoveChildren(c, "net", "pinfunction", "pintype")
		case "zone":
			zoneToLocal(c, pos, rot)
		}
	}
	return n, nil
}

// zoneToLocal moves a footprint rule area's outline from board to footprint
// coordinates, the inverse of zoneToBoard.
func zoneToLocal(c *sexpr.Node, pos geom.Pt, rot float64) {
	RemoveChildren(c, "filled_polygon")
	mapZonePoints(c, func(q geom.Pt) geom.Pt { return geom.Rotate(geom.Pt{X: q.X - pos.X, Y: q.Y - pos.Y}, -rot) })
}
