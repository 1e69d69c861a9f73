package kicad

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestFootprintExtents(t *testing.T) {
	// A hand-built board: R1 unrotated, R2 turned 90° (its pad at local +x
	// ends up above it, Y down), H1 without pads.
	const board = `(kicad_pcb (version 20240108) (generator "pcbnew")
  (footprint "R:R" (layer "F.Cu") (at 10 20)
    (property "Reference" "R1")
    (pad "1" smd rect (at -1 0) (size 0.8 1.2) (layers "F.Cu"))
    (pad "2" smd rect (at 1 0) (size 0.8 1.2) (layers "F.Cu")))
  (footprint "R:R" (layer "F.Cu") (at 30 40 90)
    (property "Reference" "R2")
    (pad "1" smd rect (at 0 0 90) (size 1 2) (layers "F.Cu"))
    (pad "2" smd rect (at 5 0 90) (size 1 2) (layers "F.Cu")))
  (footprint "MountingHole" (layer "F.Cu") (at 50 50)
    (property "Reference" "H1"))
  (gr_line (start 0 0) (end 10 0) (layer "Edge.Cuts"))
)
`
	path := filepath.Join(t.TempDir(), "b.kicad_pcb")
	if err := os.WriteFile(path, []byte(board), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := FootprintExtents(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Extent{
		"R1": {Min: Point{X: 8.6, Y: 19.4}, Max: Point{X: 11.4, Y: 20.6}},
		"R2": {Min: Point{X: 29, Y: 34.5}, Max: Point{X: 31, Y: 40.5}},
		"H1": {Min: Point{X: 50, Y: 50}, Max: Point{X: 50, Y: 50}},
	}
	near := func(a, b Point) bool { return math.Abs(a.X-b.X) < 1e-9 && math.Abs(a.Y-b.Y) < 1e-9 }
	for ref, w := range want {
		g, ok := got[ref]
		if !ok || !near(g.Min, w.Min) || !near(g.Max, w.Max) {
			t.Errorf("%s: extent %+v, want %+v", ref, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("extents for %d footprints, want %d", len(got), len(want))
	}

	// The fixture: R6 at (116, 63), 0603 pads 0.8 x 0.95 at x ±0.825.
	fx, err := FootprintExtents(filepath.Join("..", "..", "examples", "open-telegraph", "hardware", "open-telegraph.kicad_pcb"))
	if err != nil {
		t.Fatal(err)
	}
	if r6, w := fx["R6"], (Extent{Min: Point{X: 114.775, Y: 62.525}, Max: Point{X: 117.225, Y: 63.475}}); !near(r6.Min, w.Min) || !near(r6.Max, w.Max) {
		t.Errorf("R6's extent %+v, want %+v", r6, w)
	}

	if _, err := FootprintExtents(filepath.Join(t.TempDir(), "missing.kicad_pcb")); err == nil {
		t.Error("a missing board has extents")
	}
	bad := filepath.Join(t.TempDir(), "bad.kicad_pcb")
	os.WriteFile(bad, []byte("(kicad_pcb (footprint"), 0o644)
	if _, err := FootprintExtents(bad); err == nil {
		t.Error("a truncated board has extents")
	}
}
