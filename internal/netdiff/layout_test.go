package netdiff

import (
	"reflect"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/testkit"
)

// TestDiffBoards: footprints pair by reference (moved, rotated, flipped;
// -90° is 270°, a nanometre is no move); a reference the board carries
// twice pairs by place; copper counts pieces on one side only, a piece in
// the same place with another width or net as changed, unless only its
// net's name changed by a rename; a board on one side only is said once.
func TestDiffBoards(t *testing.T) {
	fp := func(ref string, x, y, rot float64, layer string) kicad.Footprint {
		return kicad.Footprint{Refdes: ref, LibID: "L:" + ref, Layer: layer, Pos: kicad.Point{X: x, Y: y}, Rotation: rot}
	}
	seg := func(x1, y1, x2, y2, w float64, net string) kicad.Track {
		return kicad.Track{Kind: "segment", From: kicad.Point{X: x1, Y: y1}, To: kicad.Point{X: x2, Y: y2}, Width: w, Layer: "F.Cu", Net: net}
	}
	via := func(x, y float64, net string) kicad.Track {
		return kicad.Track{Kind: "via", From: kicad.Point{X: x, Y: y}, To: kicad.Point{X: x, Y: y}, Width: 0.6, Layer: "F.Cu-B.Cu", Net: net}
	}
	board := func(fps ...kicad.Footprint) *kicad.Board { return &kicad.Board{Footprints: fps} }
	for _, tc := range []struct {
		name                   string
		base, head             *kicad.Board
		baseTracks, headTracks []kicad.Track
		renamed                []Rename
		want                   Layout
	}{
		{name: "no boards"},
		{name: "board added", head: board(fp("R1", 1, 1, 0, "F.Cu")), want: Layout{BoardAdded: true}},
		{name: "board removed", base: board(fp("R1", 1, 1, 0, "F.Cu")), want: Layout{BoardRemoved: true}},
		{
			name: "unchanged within a nanometre, -90 is 270",
			base: board(fp("R1", 1, 1, -90, "F.Cu")), head: board(fp("R1", 1.000001, 1, 270, "F.Cu")),
		},
		{
			name: "moved, rotated, flipped",
			base: board(fp("R1", 1, 1, 0, "F.Cu"), fp("R2", 5, 5, 0, "F.Cu"), fp("R3", 9, 9, 0, "F.Cu")),
			head: board(fp("R1", 2, 1, 0, "F.Cu"), fp("R2", 5, 5, 180, "F.Cu"), fp("R3", 9, 9, 0, "B.Cu")),
			want: Layout{Moved: []FootprintMove{
				{Refdes: "R1", From: kicad.Point{X: 1, Y: 1}, To: kicad.Point{X: 2, Y: 1}, OldLayer: "F.Cu", NewLayer: "F.Cu"},
				{Refdes: "R2", From: kicad.Point{X: 5, Y: 5}, To: kicad.Point{X: 5, Y: 5}, NewRotation: 180, OldLayer: "F.Cu", NewLayer: "F.Cu"},
				{Refdes: "R3", From: kicad.Point{X: 9, Y: 9}, To: kicad.Point{X: 9, Y: 9}, OldLayer: "F.Cu", NewLayer: "B.Cu"},
			}},
		},
		{
			name: "board-only footprints added and removed, a doubled reference by place",
			base: board(fp("R1", 1, 1, 0, "F.Cu"), fp("G***", 3, 3, 0, "F.Cu"), fp("G***", 4, 4, 0, "F.Cu"), fp("H1", 8, 8, 0, "F.Cu")),
			head: board(fp("R1", 1, 1, 0, "F.Cu"), fp("G***", 4, 4, 0, "F.Cu"), fp("G***", 6, 6, 0, "F.Cu"), fp("H2", 7, 7, 0, "F.Cu")),
			want: Layout{
				Added:   []BoardFootprint{{Refdes: "G***", LibID: "L:G***", Layer: "F.Cu", Pos: kicad.Point{X: 6, Y: 6}}, {Refdes: "H2", LibID: "L:H2", Layer: "F.Cu", Pos: kicad.Point{X: 7, Y: 7}}},
				Removed: []BoardFootprint{{Refdes: "G***", LibID: "L:G***", Layer: "F.Cu", Pos: kicad.Point{X: 3, Y: 3}}, {Refdes: "H1", LibID: "L:H1", Layer: "F.Cu", Pos: kicad.Point{X: 8, Y: 8}}},
			},
		},
		{
			name: "copper: reversed segment is the same, one redrawn, one narrower, a via added",
			base: board(), head: board(),
			baseTracks: []kicad.Track{seg(0, 0, 1, 0, 0.25, "A"), seg(1, 0, 2, 0, 0.25, "A"), seg(2, 0, 3, 0, 0.25, "A")},
			headTracks: []kicad.Track{seg(1, 0, 0, 0, 0.25, "A"), seg(1, 0, 2, 1, 0.25, "A"), seg(2, 0, 3, 0, 0.2, "A"), via(3, 0, "A")},
			want:       Layout{Tracks: CopperChange{Added: 1, Removed: 1, Changed: 1}, Vias: CopperChange{Added: 1}},
		},
		{
			name: "copper of a renamed net is the rename; another net's is a change",
			base: board(), head: board(),
			baseTracks: []kicad.Track{seg(0, 0, 1, 0, 0.25, "OLD"), via(1, 0, "OLD"), seg(5, 0, 6, 0, 0.25, "X")},
			headTracks: []kicad.Track{seg(0, 0, 1, 0, 0.25, "NEW"), via(1, 0, "NEW"), seg(5, 0, 6, 0, 0.25, "Y")},
			renamed:    []Rename{{Old: "OLD", New: "NEW", Exact: true, Pins: 2}},
			want:       Layout{Tracks: CopperChange{Changed: 1}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DiffBoards(tc.base, tc.head, tc.baseTracks, tc.headTracks, tc.renamed)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("DiffBoards:\n got %+v\nwant %+v", got, tc.want)
			}
			if got.Empty() != reflect.DeepEqual(tc.want, Layout{}) {
				t.Errorf("Empty() = %v", got.Empty())
			}
		})
	}
}

// TestLayoutText: the text, markdown and summary of a board-only change.
func TestLayoutText(t *testing.T) {
	r := &Result{Layout: Layout{
		Moved:  []FootprintMove{{Refdes: "U1", From: kicad.Point{X: 10, Y: 20}, To: kicad.Point{X: 10, Y: 20}, OldRotation: 0, NewRotation: -90, OldLayer: "F.Cu", NewLayer: "B.Cu"}},
		Tracks: CopperChange{Removed: 2},
		Vias:   CopperChange{Added: 1},
	}}
	if r.Empty() {
		t.Fatal("a board-only change is empty")
	}
	if got, want := Summary(r), "1 footprint moved, 2 tracks changed, 1 via changed"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if got, want := moveText(r.Layout.Moved[0]), "rotated 0° -> 270°; flipped F.Cu -> B.Cu"; got != want {
		t.Errorf("moveText = %q, want %q", got, want)
	}
	md := Markdown("a", "b", r, nil)
	testkit.ContainsAll(t, "markdown", md, "#### Board", "| moved | `U1` | `rotated 0° -> 270°; flipped F.Cu -> B.Cu` |", "| tracks | — | 2 removed |", "| vias | — | 1 added |")
}
