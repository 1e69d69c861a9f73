package kicad

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestBoardTracks(t *testing.T) {
	// KiCad 9 numbers nets and names them once; a track may also name its
	// net (a newer file). Pieces that cannot be drawn are skipped.
	const board = `(kicad_pcb (version 20241229) (generator "pcbnew")
  (net 0 "")
  (net 1 "GND")
  (net 2 "/KEY_DIT")
  (footprint "R:R" (layer "F.Cu") (at 10 20) (property "Reference" "R1")
    (pad "1" smd rect (at -1 0) (size 0.8 1.2) (layers "F.Cu") (net 1 "GND")))
  (segment (start 1 2) (end 3 4) (width 0.25) (layer "F.Cu") (net 1) (uuid "a"))
  (arc (start 0 0) (mid 1 1) (end 2 0) (width 0.2) (layer "B.Cu") (net 2) (uuid "b"))
  (via (at 5 6) (size 0.6) (drill 0.3) (layers "F.Cu" "B.Cu") (net 1) (uuid "c"))
  (segment (start 7 8) (end 9 10) (width 0.3) (layer "B.Cu") (net "VBUS") (uuid "d"))
  (segment (start nan 8) (end 9 10) (width 0.3) (layer "B.Cu") (net 1) (uuid "e"))
  (segment (end 9 10) (width 0.3) (layer "B.Cu") (net 1) (uuid "f"))
)
`
	path := filepath.Join(t.TempDir(), "b.kicad_pcb")
	if err := os.WriteFile(path, []byte(board), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := BoardTracks(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Track{
		{Kind: "segment", From: Point{1, 2}, To: Point{3, 4}, Width: 0.25, Layer: "F.Cu", Net: "GND"},
		{Kind: "arc", From: Point{0, 0}, Mid: Point{1, 1}, To: Point{2, 0}, Width: 0.2, Layer: "B.Cu", Net: "/KEY_DIT"},
		{Kind: "via", From: Point{5, 6}, To: Point{5, 6}, Width: 0.6, Layer: "F.Cu-B.Cu", Net: "GND"},
		{Kind: "segment", From: Point{7, 8}, To: Point{9, 10}, Width: 0.3, Layer: "B.Cu", Net: "VBUS"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BoardTracks =\n%+v\nwant\n%+v", got, want)
	}

	// The bundled board: every segment and via of the file, none dropped.
	fx := filepath.Join("..", "..", "examples", "open-telegraph", "hardware", "open-telegraph.kicad_pcb")
	tracks, err := BoardTracks(fx)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(fx)
	kinds := map[string]int{}
	for _, tr := range tracks {
		kinds[tr.Kind]++
		if tr.Net == "" || strings.HasPrefix(tr.Net, "1") {
			t.Fatalf("track %+v: its net was not named", tr)
		}
	}
	if kinds["segment"] != strings.Count(string(src), "\t(segment\n") || kinds["via"] != strings.Count(string(src), "\t(via\n") || kinds["segment"] == 0 {
		t.Errorf("read %v from the fixture, want every top-level segment and via", kinds)
	}

	for _, bad := range []string{"", "(kicad_sch)", "(kicad_pcb (segment (start 1 2)"} {
		p := filepath.Join(t.TempDir(), "bad.kicad_pcb")
		os.WriteFile(p, []byte(bad), 0o644)
		if _, err := BoardTracks(p); err == nil {
			t.Errorf("BoardTracks(%q) = nil error", bad)
		}
	}
}

func TestSchematicWires(t *testing.T) {
	sch, err := LoadSchematic(filepath.Join("..", "..", "examples", "open-telegraph", "hardware", "open-telegraph.kicad_sch"))
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, w := range sch.Wires {
		per[w.SheetPath]++
		if w.From == w.To {
			t.Errorf("a wire of no length at %v", w.From)
		}
	}
	// 43 wires on the root, 50 on the power sheet (one instance each).
	if per["/"] != 43 || len(per) != 2 {
		t.Errorf("wires per sheet %v, want 43 on / and the power sheet's", per)
	}
}

func FuzzBoardTracks(f *testing.F) {
	f.Add([]byte(`(kicad_pcb (net 1 "A") (segment (start 1 2) (end 3 4) (width 0.2) (layer "F.Cu") (net 1)))`))
	f.Add([]byte(`(kicad_pcb (via (at 1 2) (size 0.6) (layers "F.Cu" "B.Cu") (net 0)) (arc (start 0 0) (mid 1 1) (end 2 0)))`))
	f.Add([]byte(`(kicad_pcb (segment (start inf 2) (end 3 4)) (via (layers)))`))
	path := filepath.Join(f.TempDir(), "f.kicad_pcb")
	f.Fuzz(func(t *testing.T, src []byte) {
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		tracks, err := BoardTracks(path)
		if err != nil {
			return
		}
		for _, tr := range tracks {
			for _, p := range []Point{tr.From, tr.To} {
				if CheckPoint(p) != nil {
					t.Fatalf("track %+v is not drawable", tr)
				}
			}
		}
	})
}
