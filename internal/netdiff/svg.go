package netdiff

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"copperhead/internal/kicad"
)

// Mark kinds, and the colours the overlay draws them in.
const (
	MarkAdded   = "added"   // green
	MarkRemoved = "removed" // red, drawn where the base had it
	MarkChanged = "changed" // amber
)

var markColour = map[string]string{MarkAdded: "#1f9d3a", MarkRemoved: "#d62828", MarkChanged: "#e69b00"}

// Mark is one highlight in KiCad's millimetres (page coordinates, Y down):
// a rectangle around a changed symbol, label, footprint or via, or, when
// Line is set, the wire or track itself drawn over the picture (Min and Max
// are then its bounding box).
type Mark struct {
	Kind  string        `json:"kind"`
	What  string        `json:"what"` // "R11", "label KEY_DASH", "wire", "track /KEY_DIT F.Cu"
	Min   kicad.Point   `json:"min"`
	Max   kicad.Point   `json:"max"`
	Sheet string        `json:"sheet,omitempty"` // the sheet path for a schematic mark
	Line  []kicad.Point `json:"line,omitempty"`  // a wire's or track's points, in order
	Width float64       `json:"width,omitempty"` // a track's copper width; 0 draws the default
}

// symbolPad is the margin around a symbol's pins: a pin's end is where a
// wire meets it, the body lies inside.
const symbolPad = 2.54

// labelPad sizes the mark of a label, whose extent the read model does not
// carry; footprintPad is the margin around a footprint's pads.
const (
	labelPad     = 1.8
	footprintPad = 0.8
)

// symbolBoxes is refdes -> sheet path -> the box around its pins there.
func symbolBoxes(sch *kicad.Schematic) map[string]map[string][2]kicad.Point {
	out := map[string]map[string][2]kicad.Point{}
	if sch == nil {
		return out
	}
	for _, p := range sch.Pins() {
		if p.Power {
			continue
		}
		bySheet := out[p.Refdes]
		if bySheet == nil {
			bySheet = map[string][2]kicad.Point{}
			out[p.Refdes] = bySheet
		}
		box, ok := bySheet[p.SheetPath]
		if !ok {
			box = [2]kicad.Point{p.Pos, p.Pos}
		}
		box[0].X, box[0].Y = math.Min(box[0].X, p.Pos.X), math.Min(box[0].Y, p.Pos.Y)
		box[1].X, box[1].Y = math.Max(box[1].X, p.Pos.X), math.Max(box[1].Y, p.Pos.Y)
		bySheet[p.SheetPath] = box
	}
	return out
}

// labelNet reports whether a label named name on sheet (a path like "/" or
// "/power/") is the label of net: a global label's net is its name, a local
// or hierarchical one's KiCad prefixes with the sheet path.
func labelNet(l kicad.Label, net string) bool {
	if l.Name == net {
		return true
	}
	return l.Kind != kicad.LabelGlobal && strings.TrimSuffix(l.SheetPath, "/")+"/"+l.Name == net
}

// SheetMarks places the diff's highlights on the schematic's sheets: parts
// added (head position, green), removed (base position, red), changed or
// with a moved pin (head, amber), and the labels of nets added (green),
// removed (red) and renamed (amber). The result is keyed by sheet path; a
// removed part's sheet path is the base's.
func SheetMarks(e *Electrical, base, head *kicad.Schematic) map[string][]Mark {
	out := map[string][]Mark{}
	hb, bb := symbolBoxes(head), symbolBoxes(base)
	put := func(kind, what string, boxes map[string][2]kicad.Point) {
		for _, sheet := range slices.Sorted(maps.Keys(boxes)) {
			box := boxes[sheet]
			out[sheet] = append(out[sheet], boxMark(kind, what, sheet, box[0], box[1], symbolPad))
		}
	}
	for _, c := range e.Added {
		put(MarkAdded, c.Refdes, hb[c.Refdes])
	}
	for _, c := range e.Removed {
		put(MarkRemoved, c.Refdes, bb[c.Refdes])
	}
	for _, ref := range changedRefs(e) {
		put(MarkChanged, ref, hb[ref])
	}
	labels := func(kind, net string, sch *kicad.Schematic) {
		if sch == nil {
			return
		}
		for _, l := range sch.Labels {
			if labelNet(l, net) {
				out[l.SheetPath] = append(out[l.SheetPath], boxMark(kind, "label "+l.Name, l.SheetPath, l.Pos, l.Pos, labelPad))
			}
		}
	}
	for _, n := range e.NetsAdded {
		labels(MarkAdded, n.Name, head)
	}
	for _, n := range e.NetsRemoved {
		labels(MarkRemoved, n.Name, base)
	}
	for _, n := range e.Renamed {
		labels(MarkChanged, n.New, head)
	}
	for _, m := range wireMarks(base, head) {
		out[m.Sheet] = append(out[m.Sheet], m)
	}
	return out
}

// wireMarks are the wires and buses drawn on one side only: added (green,
// in the head) and removed (red, where the base had them), per sheet
// instance. A wire is the same on both sides when its ends are (either way
// round, to the nanometre); redrawing a wire in other pieces shows as the
// pieces removed and added.
func wireMarks(base, head *kicad.Schematic) []Mark {
	key := func(w kicad.Wire) string {
		a, b := nm(w.From), nm(w.To)
		if b < a {
			a, b = b, a
		}
		return fmt.Sprintf("%s|%t|%s|%s", w.SheetPath, w.Bus, a, b)
	}
	wires := func(s *kicad.Schematic) []kicad.Wire {
		if s == nil {
			return nil
		}
		return s.Wires
	}
	var out []Mark
	mark := func(kind string, w kicad.Wire) {
		what := "wire"
		if w.Bus {
			what = "bus"
		}
		out = append(out, lineMark(kind, what, w.SheetPath, 0, w.From, w.To))
	}
	added, removed := onOneSide(wires(base), wires(head), key)
	for _, w := range added {
		mark(MarkAdded, w)
	}
	for _, w := range removed {
		mark(MarkRemoved, w)
	}
	return out
}

// TrackMarks are the board's tracks and vias on one side only: added
// (green) and removed (red, where the base had them); a piece whose ends,
// kind and layer match but whose width or net differ is changed (amber). nil
// is a side without a board.
func TrackMarks(base, head []kicad.Track) []Mark {
	place := func(t kicad.Track) string {
		a, b := nm(t.From), nm(t.To)
		if b < a && t.Kind != "arc" {
			a, b = b, a
		}
		return t.Kind + "|" + t.Layer + "|" + a + "|" + nm(t.Mid) + "|" + b
	}
	full := func(t kicad.Track) string {
		return place(t) + "|" + strconv.FormatFloat(t.Width, 'g', -1, 64) + "|" + t.Net
	}
	var out []Mark
	mark := func(kind string, t kicad.Track) {
		what := strings.TrimSpace(t.Kind + " " + t.Net + " " + t.Layer)
		if t.Kind == "via" {
			r := t.Width / 2
			out = append(out, Mark{Kind: kind, What: what,
				Min: kicad.Point{X: t.From.X - r - footprintPad/2, Y: t.From.Y - r - footprintPad/2},
				Max: kicad.Point{X: t.From.X + r + footprintPad/2, Y: t.From.Y + r + footprintPad/2}})
			return
		}
		pts := []kicad.Point{t.From, t.To}
		if t.Kind == "arc" {
			pts = []kicad.Point{t.From, t.Mid, t.To}
		}
		out = append(out, lineMark(kind, what, "", t.Width, pts...))
	}
	added, removed := onOneSide(base, head, full)
	// A piece in the same place on both sides changed its width or net.
	gone := map[string][]kicad.Track{}
	for _, t := range removed {
		gone[place(t)] = append(gone[place(t)], t)
	}
	for _, t := range added {
		if g := gone[place(t)]; len(g) > 0 {
			gone[place(t)] = g[1:]
			mark(MarkChanged, t)
			continue
		}
		mark(MarkAdded, t)
	}
	for _, t := range removed {
		if g := gone[place(t)]; len(g) > 0 && g[0] == t {
			gone[place(t)] = g[1:]
			mark(MarkRemoved, t)
		}
	}
	return out
}

// onOneSide compares two lists as multisets under key: what head has more
// of (added) and what base has more of (removed), each in its list's order.
func onOneSide[T any](base, head []T, key func(T) string) (added, removed []T) {
	count := map[string]int{}
	for _, v := range base {
		count[key(v)]++
	}
	for _, v := range head {
		if k := key(v); count[k] > 0 {
			count[k]--
		} else {
			added = append(added, v)
		}
	}
	for _, v := range slices.Backward(base) {
		if k := key(v); count[k] > 0 {
			count[k]--
			removed = append(removed, v)
		}
	}
	slices.Reverse(removed)
	return added, removed
}

// nm writes a point in whole nanometres, KiCad's own unit, so values that
// print differently but mean the same place compare equal.
func nm(p kicad.Point) string {
	return strconv.FormatInt(int64(math.Round(p.X*1e6)), 10) + "," + strconv.FormatInt(int64(math.Round(p.Y*1e6)), 10)
}

// lineMark is a mark drawn along pts, boxed for consumers that read only
// Min and Max.
func lineMark(kind, what, sheet string, width float64, pts ...kicad.Point) Mark {
	m := Mark{Kind: kind, What: what, Sheet: sheet, Line: pts, Width: width, Min: pts[0], Max: pts[0]}
	for _, p := range pts[1:] {
		m.Min.X, m.Min.Y = math.Min(m.Min.X, p.X), math.Min(m.Min.Y, p.Y)
		m.Max.X, m.Max.Y = math.Max(m.Max.X, p.X), math.Max(m.Max.Y, p.Y)
	}
	return m
}

// changedRefs are the parts changed or with a pin that moved, sorted.
func changedRefs(e *Electrical) []string {
	var refs []string
	for _, c := range e.Changed {
		refs = append(refs, c.Refdes)
	}
	for _, m := range e.PinMoves {
		ref, _, _ := strings.Cut(m.Pin, ".")
		refs = append(refs, ref)
	}
	slices.SortFunc(refs, kicad.CompareRefdes)
	return slices.Compact(refs)
}

// BoardMarks places the diff's part highlights on the board: footprints of
// parts added (green), removed (at the base's position, red), changed or
// with a moved pin (amber). base and head are each side's footprint
// extents (kicad.FootprintExtents); nil is a side without a board.
func BoardMarks(e *Electrical, base, head map[string]kicad.Extent) []Mark {
	var out []Mark
	put := func(kind, ref string, ext map[string]kicad.Extent) {
		if m, ok := footprintMark(kind, ref, ext); ok {
			out = append(out, m)
		}
	}
	for _, c := range e.Added {
		put(MarkAdded, c.Refdes, head)
	}
	for _, c := range e.Removed {
		put(MarkRemoved, c.Refdes, base)
	}
	for _, ref := range changedRefs(e) {
		put(MarkChanged, ref, head)
	}
	return out
}

var (
	svgOpenRE = regexp.MustCompile(`(?s)<svg\b[^>]*>`)
	attrRE    = func(name string) *regexp.Regexp {
		return regexp.MustCompile(`\s` + name + `\s*=\s*"([^"]*)"`)
	}
	widthRE   = attrRE("width")
	viewBoxRE = attrRE("viewBox")
)

// svgFrame is how millimetres map to an SVG's user units: kicad-cli writes
// width="297.0022mm" and a viewBox in the same millimetres from the page's
// origin, so this is the identity for its output; anything else is scaled.
type svgFrame struct{ x0, y0, scale float64 }

func readFrame(svg []byte) (svgFrame, error) {
	open := svgOpenRE.Find(svg)
	if open == nil {
		return svgFrame{}, fmt.Errorf("no <svg> element")
	}
	vb := viewBoxRE.FindSubmatch(open)
	if vb == nil {
		return svgFrame{}, fmt.Errorf("the <svg> element has no viewBox")
	}
	f := strings.Fields(strings.ReplaceAll(string(vb[1]), ",", " "))
	if len(f) != 4 {
		return svgFrame{}, fmt.Errorf("viewBox %q is not four numbers", vb[1])
	}
	var n [4]float64
	for i, s := range f {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return svgFrame{}, fmt.Errorf("viewBox %q is not four numbers", vb[1])
		}
		n[i] = v
	}
	fr := svgFrame{x0: n[0], y0: n[1], scale: 1}
	if w := widthRE.FindSubmatch(open); w != nil {
		if mm, ok := strings.CutSuffix(string(w[1]), "mm"); ok {
			if v, err := strconv.ParseFloat(mm, 64); err == nil && v > 0 && n[2] > 0 {
				fr.scale = n[2] / v
			}
		}
	}
	return fr, nil
}

// OverlayID is the id of the group Overlay adds.
const OverlayID = "copperhead-diff"

// Overlay draws marks over an SVG kicad-cli plotted: one group, id
// OverlayID, appended last so it lies on top, holding one unfilled
// rectangle per mark (class "copperhead-added", "-removed" or "-changed"),
// or a translucent polyline along a wire or track mark (class
// "copperhead-line-added", ...), each with a <title> naming it. The result
// is checked to be well-formed XML.
func Overlay(svg []byte, marks []Mark) ([]byte, error) {
	fr, err := readFrame(svg)
	if err != nil {
		return nil, fmt.Errorf("overlay: %w", err)
	}
	end := bytes.LastIndex(svg, []byte("</svg>"))
	if end < 0 {
		return nil, fmt.Errorf("overlay: no </svg> end tag")
	}
	var g bytes.Buffer
	fmt.Fprintf(&g, "<g id=%q style=\"fill:none; stroke-width:%s; stroke-opacity:0.9\">\n", OverlayID, num(0.5*fr.scale))
	for _, m := range marks {
		colour, ok := markColour[m.Kind]
		if !ok {
			return nil, fmt.Errorf("overlay: unknown mark kind %q", m.Kind)
		}
		x, y := fr.x0+m.Min.X*fr.scale, fr.y0+m.Min.Y*fr.scale
		w, h := (m.Max.X-m.Min.X)*fr.scale, (m.Max.Y-m.Min.Y)*fr.scale
		for _, v := range []float64{x, y, w, h} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("overlay: mark %s is not at a finite position", m.What)
			}
		}
		var title bytes.Buffer
		_ = xml.EscapeText(&title, []byte(m.Kind+" "+m.What))
		if len(m.Line) > 0 {
			// The piece itself, wider than the copper or the wire so it
			// shows around it, translucent so what is under it reads.
			var pts []string
			for _, p := range m.Line {
				px, py := fr.x0+p.X*fr.scale, fr.y0+p.Y*fr.scale
				if math.IsNaN(px) || math.IsInf(px, 0) || math.IsNaN(py) || math.IsInf(py, 0) {
					return nil, fmt.Errorf("overlay: mark %s is not at a finite position", m.What)
				}
				pts = append(pts, num(px)+","+num(py))
			}
			width := max(m.Width+0.5, 0.8) * fr.scale
			fmt.Fprintf(&g, "<polyline class=\"copperhead-line-%s\" points=\"%s\" stroke=\"%s\" stroke-width=\"%s\" stroke-opacity=\"0.55\" stroke-linecap=\"round\" stroke-linejoin=\"round\"><title>%s</title></polyline>\n",
				m.Kind, strings.Join(pts, " "), colour, num(width), title.String())
			continue
		}
		fmt.Fprintf(&g, "<rect class=\"copperhead-%s\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" rx=\"%s\" stroke=\"%s\"><title>%s</title></rect>\n",
			m.Kind, num(x), num(y), num(w), num(h), num(0.6*fr.scale), colour, title.String())
	}
	g.WriteString("</g>\n")
	out := make([]byte, 0, len(svg)+g.Len())
	out = append(out, svg[:end]...)
	out = append(out, g.Bytes()...)
	out = append(out, svg[end:]...)
	if err := WellFormed(out); err != nil {
		return nil, fmt.Errorf("overlay: %w", err)
	}
	return out, nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// WellFormed reports whether b is well-formed XML.
func WellFormed(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	for {
		_, err := d.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// boxMark is a Mark around the box min-max grown by pad on every side.
func boxMark(kind, what, sheet string, min, max kicad.Point, pad float64) Mark {
	return Mark{Kind: kind, What: what, Sheet: sheet,
		Min: kicad.Point{X: min.X - pad, Y: min.Y - pad},
		Max: kicad.Point{X: max.X + pad, Y: max.Y + pad}}
}

// footprintMark boxes ref's footprint in ext; false when ext has none.
func footprintMark(kind, ref string, ext map[string]kicad.Extent) (Mark, bool) {
	x, ok := ext[ref]
	if !ok {
		return Mark{}, false
	}
	return boxMark(kind, ref, "", x.Min, x.Max, footprintPad), true
}
