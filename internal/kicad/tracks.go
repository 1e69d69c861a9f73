package kicad

import (
	"fmt"
	"math"
	"strings"

	"copperhead/internal/repofs"
	"copperhead/internal/sexpr"
)

// Track is one piece of copper a board routes: a straight segment, an arc
// (From, Mid, To) or a via (From = To = its position, Width its diameter,
// Layer its layers joined by "-").
type Track struct {
	Kind  string  `json:"kind"` // "segment", "arc" or "via"
	From  Point   `json:"from_mm"`
	Mid   Point   `json:"mid_mm,omitzero"`
	To    Point   `json:"to_mm"`
	Width float64 `json:"width_mm"`
	Layer string  `json:"layer"`
	Net   string  `json:"net"`
}

// BoardTracks reads the tracks and vias of the board at path, in file
// order, with their net's name (KiCad 9 numbers nets and names them once at
// the top; a file that names the net in the track is read as it is). Like
// LoadBoard only the lists it needs are parsed. Pieces whose coordinates are
// not coordinates (CheckPoint) are skipped: they cannot be drawn.
func BoardTracks(path string) ([]Track, error) {
	src, err := repofs.ReadRegular(path)
	if err != nil {
		return nil, fmt.Errorf("board tracks: %w", err)
	}
	head, spans, ok := skimTopLevel(src, "net", "segment", "arc", "via")
	if !ok || head != "kicad_pcb" {
		if _, err := LoadBoard(path); err != nil {
			return nil, fmt.Errorf("board tracks: %w", err)
		}
		return nil, fmt.Errorf("board tracks: %s: not a board", path)
	}
	// One parse of the lists laid side by side, as LoadBoard does: a board
	// has thousands of segments.
	joined := []byte{'('}
	for _, sp := range spans {
		joined = append(joined, ' ')
		joined = append(joined, src[sp.start:sp.end]...)
	}
	joined = append(joined, ')')
	all, err := sexpr.Parse(path, joined)
	if err != nil || len(all.Children) != len(spans) {
		return nil, fullParseError(path, src)
	}
	nets := map[string]string{}
	var out []Track
	for i := range all.Children {
		n := &all.Children[i]
		if n.Head() == "net" {
			nets[n.Arg(0)] = strings.Clone(n.Arg(1))
			continue
		}
		t := Track{Kind: n.Head(), Layer: strings.Clone(n.Value1("layer")), Net: strings.Clone(n.Value1("net"))}
		if name, ok := nets[t.Net]; ok {
			t.Net = name
		}
		var pts []Point
		if t.Kind == "via" {
			p, _ := readAt(n)
			t.From, t.To = p, p
			t.Width, _ = n.Child("size").Float(0)
			var layers []string
			if ls := n.Child("layers"); ls != nil {
				for _, l := range ls.Children[1:] {
					if l.Kind == sexpr.Atom || l.Kind == sexpr.String {
						layers = append(layers, strings.Clone(l.Value))
					}
				}
			}
			t.Layer = strings.Join(layers, "-")
			pts = []Point{p}
		} else {
			t.From, t.To = readXY(n.Child("start")), readXY(n.Child("end"))
			t.Width, _ = n.Child("width").Float(0)
			pts = []Point{t.From, t.To}
			if t.Kind == "arc" {
				t.Mid = readXY(n.Child("mid"))
				pts = append(pts, t.Mid)
			}
		}
		drawable := true
		for _, p := range pts {
			drawable = drawable && CheckPoint(p) == nil
		}
		if drawable {
			out = append(out, t)
		}
	}
	return out, nil
}

// readXY reads (start x y)-style points; missing numbers read as NaN, so
// CheckPoint refuses a point the file does not give.
func readXY(n *sexpr.Node) Point {
	x, okx := n.Float(0)
	y, oky := n.Float(1)
	if !okx || !oky {
		return Point{X: math.NaN(), Y: math.NaN()}
	}
	return Point{X: x, Y: y}
}
