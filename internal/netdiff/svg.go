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

// Mark is one highlight: a rectangle in KiCad's millimetres (page
// coordinates, Y down) around a changed symbol, label or footprint.
type Mark struct {
	Kind  string      `json:"kind"`
	What  string      `json:"what"` // "R11", "label KEY_DASH"
	Min   kicad.Point `json:"min"`
	Max   kicad.Point `json:"max"`
	Sheet string      `json:"sheet,omitempty"` // the sheet path for a schematic mark
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
			out[sheet] = append(out[sheet], Mark{Kind: kind, What: what, Sheet: sheet,
				Min: kicad.Point{X: box[0].X - symbolPad, Y: box[0].Y - symbolPad},
				Max: kicad.Point{X: box[1].X + symbolPad, Y: box[1].Y + symbolPad}})
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
				out[l.SheetPath] = append(out[l.SheetPath], Mark{Kind: kind, What: "label " + l.Name, Sheet: l.SheetPath,
					Min: kicad.Point{X: l.Pos.X - labelPad, Y: l.Pos.Y - labelPad},
					Max: kicad.Point{X: l.Pos.X + labelPad, Y: l.Pos.Y + labelPad}})
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
	return out
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
		x, ok := ext[ref]
		if !ok {
			return
		}
		out = append(out, Mark{Kind: kind, What: ref,
			Min: kicad.Point{X: x.Min.X - footprintPad, Y: x.Min.Y - footprintPad},
			Max: kicad.Point{X: x.Max.X + footprintPad, Y: x.Max.Y + footprintPad}})
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
// rectangle per mark (class "copperhead-added", "-removed" or "-changed")
// with a <title> naming it. The result is checked to be well-formed XML.
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
