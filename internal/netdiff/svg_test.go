package netdiff

import (
	"cmp"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/testkit"
)

func TestOverlay(t *testing.T) {
	const page = `<?xml version="1.0" standalone="no"?>
 <!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns="http://www.w3.org/2000/svg" version="1.1"
  width="297.0022mm" height="210.0072mm" viewBox="0.0000 0.0000 297.0022 210.0072">
<g></g>
</svg>
`
	marks := []Mark{
		{Kind: MarkAdded, What: "R11", Min: kicad.Point{X: 10, Y: 20}, Max: kicad.Point{X: 15, Y: 30}},
		{Kind: MarkRemoved, What: "R<5>&", Min: kicad.Point{X: 1, Y: 2}, Max: kicad.Point{X: 3, Y: 4}},
		{Kind: MarkChanged, What: "U1", Min: kicad.Point{X: 0, Y: 0}, Max: kicad.Point{X: 1, Y: 1}},
	}
	out, err := Overlay([]byte(page), marks)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	testkit.ContainsAll(t, "overlay", s,
		`<g id="copperhead-diff"`,
		`<rect class="copperhead-added" x="10.0000" y="20.0000" width="5.0000" height="10.0000"`,
		`stroke="#1f9d3a"><title>added R11</title>`,
		`<title>removed R&lt;5&gt;&amp;</title>`,
		`class="copperhead-changed"`,
	)
	if !strings.HasSuffix(strings.TrimSpace(s), "</g>\n</svg>") {
		t.Errorf("the overlay is not the last thing drawn:\n%s", s)
	}

	// A viewBox in other units than the mm width is scaled.
	scaled, err := Overlay([]byte(`<svg width="100mm" height="50mm" viewBox="5 5 1000 500"></svg>`), marks[:1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(scaled), `x="105.0000" y="205.0000" width="50.0000" height="100.0000"`) {
		t.Errorf("scaled overlay:\n%s", scaled)
	}

	for _, bad := range []string{"", "<svg></svg>", `<svg viewBox="0 0 a b"></svg>`, `<svg viewBox="0 0 1 1">`} {
		if _, err := Overlay([]byte(bad), marks); err == nil {
			t.Errorf("Overlay(%q) succeeded", bad)
		}
	}
	if _, err := Overlay([]byte(page), []Mark{{Kind: "purple"}}); err == nil {
		t.Error("an unknown mark kind was drawn")
	}
}

// TestSheetMarks places marks from the real fixture's read model: a part's
// box holds its symbol's position, a renamed net's labels are marked, and
// a sub-sheet's part lands on that sheet.
func TestSheetMarks(t *testing.T) {
	sch, err := kicad.LoadSchematic(filepath.Join("..", "..", "examples", "open-telegraph", "hardware", "open-telegraph.kicad_sch"))
	if err != nil {
		t.Fatal(err)
	}
	var sub kicad.Part
	for _, p := range sch.Parts {
		if p.SheetPath != "/" {
			sub = p
			break
		}
	}
	if sub.Refdes == "" {
		t.Fatal("the fixture has no part on a sub-sheet")
	}
	e := &Electrical{
		Changed:  []ComponentChange{{Refdes: "R6"}},
		Removed:  []Component{{Refdes: sub.Refdes}},
		Renamed:  []Rename{{Old: "X", New: "KEY_DAH"}},
		PinMoves: []PinMove{{Pin: "U1.5"}},
	}
	marks := SheetMarks(e, sch, sch)
	find := func(sheet, what string) *Mark {
		for i, m := range marks[sheet] {
			if m.What == what {
				return &marks[sheet][i]
			}
		}
		return nil
	}
	r6 := find("/", "R6")
	if r6 == nil || r6.Kind != MarkChanged {
		t.Fatalf("no changed mark for R6 on /: %+v", marks["/"])
	}
	// R6 sits at (50.8, 88.9) in the fixture.
	if !(r6.Min.X < 50.8 && 50.8 < r6.Max.X && r6.Min.Y < 88.9 && 88.9 < r6.Max.Y) {
		t.Errorf("R6's box %+v does not hold its position (50.8, 88.9)", *r6)
	}
	if m := find("/", "U1"); m == nil || m.Kind != MarkChanged {
		t.Errorf("the part with a moved pin is not marked changed")
	}
	if m := find(sub.SheetPath, sub.Refdes); m == nil || m.Kind != MarkRemoved {
		t.Errorf("no removed mark for %s on %s: %+v", sub.Refdes, sub.SheetPath, marks)
	}
	if m := find("/", "label KEY_DAH"); m == nil || m.Kind != MarkChanged {
		t.Errorf("the renamed net's label is not marked: %+v", marks["/"])
	}

}

func TestBoardMarks(t *testing.T) {
	base := map[string]kicad.Extent{"R9": {Min: kicad.Point{X: 1, Y: 1}, Max: kicad.Point{X: 2, Y: 2}}, "U1": {Min: kicad.Point{X: 10, Y: 10}, Max: kicad.Point{X: 20, Y: 30}}}
	head := map[string]kicad.Extent{"R11": {Min: kicad.Point{X: 5, Y: 5}, Max: kicad.Point{X: 6, Y: 6}}, "U1": {Min: kicad.Point{X: 11, Y: 10}, Max: kicad.Point{X: 21, Y: 30}}}
	e := &Electrical{
		Added:    []Component{{Refdes: "R11"}, {Refdes: "R12"}}, // R12 is not on the board yet
		Removed:  []Component{{Refdes: "R9"}},
		PinMoves: []PinMove{{Pin: "U1.3"}},
	}
	got := BoardMarks(e, base, head)
	want := []Mark{
		{Kind: MarkAdded, What: "R11", Min: kicad.Point{X: 4.2, Y: 4.2}, Max: kicad.Point{X: 6.8, Y: 6.8}},
		{Kind: MarkRemoved, What: "R9", Min: kicad.Point{X: 0.2, Y: 0.2}, Max: kicad.Point{X: 2.8, Y: 2.8}},
		{Kind: MarkChanged, What: "U1", Min: kicad.Point{X: 10.2, Y: 9.2}, Max: kicad.Point{X: 21.8, Y: 30.8}},
	}
	if len(got) != len(want) {
		t.Fatalf("marks %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Kind != w.Kind || g.What != w.What || math.Abs(g.Min.X-w.Min.X) > 1e-9 || math.Abs(g.Max.Y-w.Max.Y) > 1e-9 {
			t.Errorf("mark %d: %+v, want %+v", i, g, w)
		}
	}
	if got := BoardMarks(e, nil, nil); len(got) != 0 {
		t.Errorf("marks without boards: %+v", got)
	}
}

func TestWireMarks(t *testing.T) {
	w := func(sheet string, x1, y1, x2, y2 float64) kicad.Wire {
		return kicad.Wire{SheetPath: sheet, From: kicad.Point{X: x1, Y: y1}, To: kicad.Point{X: x2, Y: y2}}
	}
	base := &kicad.Schematic{Wires: []kicad.Wire{
		w("/", 0, 0, 10, 0),  // kept, drawn the other way round in head
		w("/", 0, 5, 10, 5),  // removed
		w("/p/", 1, 1, 2, 2), // kept
		w("/", 3, 3, 4, 4),   // one of two identical wires removed
		w("/", 3, 3, 4, 4),
	}}
	head := &kicad.Schematic{Wires: []kicad.Wire{
		w("/", 10, 0, 0, 0.0000001), // the same place to the nanometre
		w("/p/", 1, 1, 2, 2),
		w("/", 3, 3, 4, 4),
		w("/p/", 5, 5, 6, 5), // added
		{SheetPath: "/", From: kicad.Point{X: 0, Y: 5}, To: kicad.Point{X: 10, Y: 5}, Bus: true}, // a bus where a wire was
	}}
	marks := SheetMarks(&Electrical{}, base, head)
	type got struct{ sheet, kind, what string }
	var all []got
	for sheet, ms := range marks {
		for _, m := range ms {
			if len(m.Line) != 2 {
				t.Errorf("wire mark %+v is not a line", m)
			}
			all = append(all, got{sheet, m.Kind, m.What})
		}
	}
	slices.SortFunc(all, func(a, b got) int {
		return cmp.Or(strings.Compare(a.sheet, b.sheet), strings.Compare(a.kind, b.kind), strings.Compare(a.what, b.what))
	})
	want := []got{{"/", MarkAdded, "bus"}, {"/", MarkRemoved, "wire"}, {"/", MarkRemoved, "wire"}, {"/p/", MarkAdded, "wire"}}
	if !slices.Equal(all, want) {
		t.Errorf("wire marks %v, want %v", all, want)
	}
	if m := marks["/p/"][0]; m.Min != (kicad.Point{X: 5, Y: 5}) || m.Max != (kicad.Point{X: 6, Y: 5}) {
		t.Errorf("the added wire's box %v-%v, want its ends", m.Min, m.Max)
	}
}

func TestTrackMarks(t *testing.T) {
	seg := func(x1, y1, x2, y2, width float64, net string) kicad.Track {
		return kicad.Track{Kind: "segment", From: kicad.Point{X: x1, Y: y1}, To: kicad.Point{X: x2, Y: y2}, Width: width, Layer: "F.Cu", Net: net}
	}
	via := kicad.Track{Kind: "via", From: kicad.Point{X: 5, Y: 5}, To: kicad.Point{X: 5, Y: 5}, Width: 0.6, Layer: "F.Cu-B.Cu", Net: "GND"}
	arc := kicad.Track{Kind: "arc", From: kicad.Point{X: 0, Y: 0}, Mid: kicad.Point{X: 1, Y: 1}, To: kicad.Point{X: 2, Y: 0}, Width: 0.2, Layer: "B.Cu", Net: "A"}
	base := []kicad.Track{seg(0, 0, 1, 0, 0.25, "A"), seg(0, 1, 1, 1, 0.25, "B"), seg(2, 2, 3, 3, 0.25, "C"), via}
	head := []kicad.Track{seg(1, 0, 0, 0, 0.25, "A"), seg(0, 1, 1, 1, 0.5, "B"), arc, seg(9, 9, 8, 8, 0.3, "D")}
	got := TrackMarks(base, head)
	var summary []string
	for _, m := range got {
		summary = append(summary, m.Kind+" "+m.What)
	}
	want := []string{"changed segment B F.Cu", "added arc A B.Cu", "added segment D F.Cu", "removed segment C F.Cu", "removed via GND F.Cu-B.Cu"}
	if !slices.Equal(summary, want) {
		t.Errorf("track marks %q, want %q", summary, want)
	}
	for _, m := range got {
		switch {
		case strings.Contains(m.What, "via") && m.Line != nil:
			t.Errorf("a via is boxed, not drawn as a line: %+v", m)
		case strings.Contains(m.What, "arc") && len(m.Line) != 3:
			t.Errorf("an arc is drawn through its mid point: %+v", m)
		}
	}
	if len(TrackMarks(nil, nil)) != 0 || len(TrackMarks(base, base)) != 0 {
		t.Error("identical or absent boards give marks")
	}
}

func TestOverlayLines(t *testing.T) {
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="100mm" height="50mm" viewBox="0 0 100 50"><g/></svg>`)
	out, err := Overlay(svg, []Mark{lineMark(MarkRemoved, "track GND F.Cu", "", 0.25, kicad.Point{X: 1, Y: 2}, kicad.Point{X: 3, Y: 4})})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `<polyline class="copperhead-line-removed" points="1.0000,2.0000 3.0000,4.0000" stroke="#d62828" stroke-width="0.8000"`) {
		t.Errorf("no red polyline along the track:\n%s", out)
	}
	if _, err := Overlay(svg, []Mark{lineMark(MarkAdded, "wire", "/", 0, kicad.Point{X: math.NaN(), Y: 0}, kicad.Point{X: 1, Y: 1})}); err == nil {
		t.Error("a line through NaN was drawn")
	}
}
