package netdiff

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"copperhead/internal/kicad"
)

// Layout is the board half of a diff: what moved on the board, which the
// netlist cannot show (a footprint moved, rotated or flipped to the other
// side, copper added or taken up). A side without a board is nil to
// DiffBoards; the board appearing or going is said once, not listed piece by
// piece.
type Layout struct {
	BoardAdded   bool             `json:"board_added"`   // the head has a board the base lacks
	BoardRemoved bool             `json:"board_removed"` // the base had a board the head lacks
	Moved        []FootprintMove  `json:"footprints_moved"`
	Added        []BoardFootprint `json:"footprints_added"`
	Removed      []BoardFootprint `json:"footprints_removed"`
	Tracks       CopperChange     `json:"tracks"` // segments and arcs
	Vias         CopperChange     `json:"vias"`
}

// BoardFootprint is a footprint on one side only.
type BoardFootprint struct {
	Refdes string      `json:"refdes"`
	LibID  string      `json:"lib_id"`
	Layer  string      `json:"layer"`
	Pos    kicad.Point `json:"pos_mm"`
}

// FootprintMove is a footprint on both sides whose position, rotation or
// side differs.
type FootprintMove struct {
	Refdes      string      `json:"refdes"`
	From        kicad.Point `json:"from_mm"`
	To          kicad.Point `json:"to_mm"`
	OldRotation float64     `json:"old_rotation_deg"`
	NewRotation float64     `json:"new_rotation_deg"`
	OldLayer    string      `json:"old_layer"`
	NewLayer    string      `json:"new_layer"`
}

// CopperChange counts pieces of copper on one side only: Added and Removed
// are in a place (and layer) the other side has none at; Changed are in the
// same place with another width or net (a renamed net's copper).
type CopperChange struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
	Changed int `json:"changed"`
}

func (c CopperChange) empty() bool { return c.Added+c.Removed+c.Changed == 0 }

// Empty reports whether nothing changed on the board.
func (l *Layout) Empty() bool {
	return !l.BoardAdded && !l.BoardRemoved && len(l.Moved)+len(l.Added)+len(l.Removed) == 0 &&
		l.Tracks.empty() && l.Vias.empty()
}

// placeTolerance is how far (mm) a footprint may differ and still be in the
// same place: KiCad writes positions to 1 nm, and a file rounded by a script
// must not count as moved.
const placeTolerance = 1e-4

// DiffBoards compares two boards' footprints and copper. base or head nil
// is a side without a board. renamed are the electrical diff's net renames:
// copper that only took its net's new name is the rename, not a change.
func DiffBoards(base, head *kicad.Board, baseTracks, headTracks []kicad.Track, renamed []Rename) Layout {
	var l Layout
	switch {
	case base == nil && head == nil:
		return l
	case base == nil:
		l.BoardAdded = true
		return l
	case head == nil:
		l.BoardRemoved = true
		return l
	}
	// Footprints pair by reference. A reference the board carries more than
	// once (logos, "REF**", an unannotated copy) pairs by its whole place
	// instead: what is left over is added or removed.
	refCount := func(fps []kicad.Footprint) map[string]int {
		n := map[string]int{}
		for _, f := range fps {
			n[f.Refdes]++
		}
		return n
	}
	bn, hn := refCount(base.Footprints), refCount(head.Footprints)
	unique := func(ref string) bool { return ref != "" && bn[ref] == 1 && hn[ref] == 1 }
	bref := map[string]kicad.Footprint{}
	for _, f := range base.Footprints {
		if unique(f.Refdes) {
			bref[f.Refdes] = f
		}
	}
	var restBase, restHead []kicad.Footprint
	for _, f := range base.Footprints {
		if !unique(f.Refdes) {
			restBase = append(restBase, f)
		}
	}
	for _, h := range head.Footprints {
		if !unique(h.Refdes) {
			restHead = append(restHead, h)
			continue
		}
		b := bref[h.Refdes]
		if samePlace(b, h) {
			continue
		}
		l.Moved = append(l.Moved, FootprintMove{Refdes: h.Refdes, From: b.Pos, To: h.Pos,
			OldRotation: b.Rotation, NewRotation: h.Rotation, OldLayer: b.Layer, NewLayer: h.Layer})
	}
	placeKey := func(f kicad.Footprint) string {
		return f.Refdes + "|" + f.LibID + "|" + f.Layer + "|" + nm(f.Pos) + "|" + strconv.FormatFloat(normAngle(f.Rotation), 'f', 3, 64)
	}
	added, removed := onOneSide(restBase, restHead, placeKey)
	for _, f := range added {
		l.Added = append(l.Added, BoardFootprint{Refdes: f.Refdes, LibID: f.LibID, Layer: f.Layer, Pos: f.Pos})
	}
	for _, f := range removed {
		l.Removed = append(l.Removed, BoardFootprint{Refdes: f.Refdes, LibID: f.LibID, Layer: f.Layer, Pos: f.Pos})
	}
	byRef := func(a, b BoardFootprint) int {
		return cmp.Or(kicad.CompareRefdes(a.Refdes, b.Refdes), cmp.Compare(a.Pos.Y, b.Pos.Y), cmp.Compare(a.Pos.X, b.Pos.X))
	}
	slices.SortStableFunc(l.Added, byRef)
	slices.SortStableFunc(l.Removed, byRef)
	slices.SortStableFunc(l.Moved, func(a, b FootprintMove) int { return kicad.CompareRefdes(a.Refdes, b.Refdes) })

	var bt, ht, bv, hv []kicad.Track
	for _, t := range baseTracks {
		if t.Kind == "via" {
			bv = append(bv, t)
		} else {
			bt = append(bt, t)
		}
	}
	for _, t := range headTracks {
		if t.Kind == "via" {
			hv = append(hv, t)
		} else {
			ht = append(ht, t)
		}
	}
	newName := map[string]string{}
	for _, r := range renamed {
		newName[r.Old] = r.New
	}
	l.Tracks = copperChange(bt, ht, newName)
	l.Vias = copperChange(bv, hv, newName)
	return l
}

// samePlace reports whether a footprint sits where it sat: position within
// placeTolerance, the same rotation (modulo 360°) and the same side.
func samePlace(a, b kicad.Footprint) bool {
	return math.Abs(a.Pos.X-b.Pos.X) <= placeTolerance && math.Abs(a.Pos.Y-b.Pos.Y) <= placeTolerance &&
		math.Abs(normAngle(a.Rotation)-normAngle(b.Rotation)) <= 1e-3 && a.Layer == b.Layer
}

// normAngle is an angle in [0, 360).
func normAngle(a float64) float64 {
	a = math.Mod(a, 360)
	if a < 0 {
		a += 360
	}
	if a >= 360-1e-9 {
		a = 0
	}
	return a
}

// copperChange counts pieces on one side only, as TrackMarks draws them: a
// piece is its kind, layer and ends (either way round for a straight one);
// one in the same place on both sides with another width or net changed,
// unless all that changed is its net's name, by one of the renames
// (newName: old net -> new net).
func copperChange(base, head []kicad.Track, newName map[string]string) CopperChange {
	added, removed := onOneSide(base, head, trackFull)
	gone := map[string][]kicad.Track{}
	for _, t := range removed {
		gone[trackPlace(t)] = append(gone[trackPlace(t)], t)
	}
	var c CopperChange
	paired := 0
	for _, t := range added {
		g := gone[trackPlace(t)]
		if len(g) == 0 {
			c.Added++
			continue
		}
		// The same place: prefer the piece this one is a renamed copy of.
		k := slices.IndexFunc(g, func(o kicad.Track) bool { return o.Width == t.Width && newName[o.Net] == t.Net && o.Net != "" })
		if k < 0 {
			k = 0
			c.Changed++
		}
		gone[trackPlace(t)] = slices.Delete(slices.Clone(g), k, k+1)
		paired++
	}
	c.Removed = len(removed) - paired
	return c
}

func trackPlace(t kicad.Track) string {
	a, b := nm(t.From), nm(t.To)
	if b < a && t.Kind != "arc" {
		a, b = b, a
	}
	return t.Kind + "|" + t.Layer + "|" + a + "|" + nm(t.Mid) + "|" + b
}

func trackFull(t kicad.Track) string {
	return trackPlace(t) + "|" + strconv.FormatFloat(t.Width, 'g', -1, 64) + "|" + t.Net
}

// MovedMarks boxes, on the head's board, each footprint that moved (amber)
// or exists on the head only (green) and was not already marked for an
// electrical change; a footprint gone from the board is boxed red at the
// base's place.
func MovedMarks(l *Layout, e *Electrical, base, head map[string]kicad.Extent) []Mark {
	marked := map[string]bool{}
	for _, c := range e.Added {
		marked[c.Refdes] = true
	}
	for _, c := range e.Removed {
		marked[c.Refdes] = true
	}
	for _, r := range changedRefs(e) {
		marked[r] = true
	}
	var out []Mark
	put := func(kind, ref string, ext map[string]kicad.Extent) {
		if marked[ref] {
			return
		}
		if m, ok := footprintMark(kind, ref, ext); ok {
			marked[ref] = true
			out = append(out, m)
		}
	}
	for _, m := range l.Moved {
		put(MarkChanged, m.Refdes, head)
	}
	for _, f := range l.Added {
		put(MarkAdded, f.Refdes, head)
	}
	for _, f := range l.Removed {
		put(MarkRemoved, f.Refdes, base)
	}
	return out
}

// moveText says how a footprint moved: "(183.93, 78.50) -> (190.50,
// 80.00) mm", "rotated 0° -> 90°", "flipped F.Cu -> B.Cu", joined by "; ".
func moveText(m FootprintMove) string {
	var parts []string
	if math.Abs(m.From.X-m.To.X) > placeTolerance || math.Abs(m.From.Y-m.To.Y) > placeTolerance {
		parts = append(parts, fmt.Sprintf("(%.2f, %.2f) -> (%.2f, %.2f) mm", m.From.X, m.From.Y, m.To.X, m.To.Y))
	}
	if math.Abs(normAngle(m.OldRotation)-normAngle(m.NewRotation)) > 1e-3 {
		parts = append(parts, fmt.Sprintf("rotated %s° -> %s°", angleText(m.OldRotation), angleText(m.NewRotation)))
	}
	if m.OldLayer != m.NewLayer {
		parts = append(parts, fmt.Sprintf("flipped %s -> %s", quoteEmpty(m.OldLayer), quoteEmpty(m.NewLayer)))
	}
	return strings.Join(parts, "; ")
}

func angleText(a float64) string {
	return strconv.FormatFloat(normAngle(a), 'f', -1, 64)
}

// copperText is "3 added, 1 removed, 2 changed", the nonzero ones.
func copperText(c CopperChange) string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{c.Added, "added"}, {c.Removed, "removed"}, {c.Changed, "changed (width or net)"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return strings.Join(parts, ", ")
}
