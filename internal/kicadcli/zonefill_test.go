package kicadcli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFillZones: testdata/zone_unfilled.kicad_pcb is a 20 x 20 mm board
// with one GND zone saved unfilled (islands kept: it has no pads);
// FillZones returns it filled by KiCad's own filler and leaves the file
// itself untouched. A board that does not load is an error that names it.
func TestFillZones(t *testing.T) {
	tool := kicadTool(t)
	if _, err := findPcbnewPython(context.Background()); errors.Is(err, ErrNoZoneFiller) {
		t.Skip(err)
	}
	src := "testdata/zone_unfilled.kicad_pcb"
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(orig, []byte("(filled_polygon")) {
		t.Fatal("the fixture is already filled: the test proves nothing")
	}
	board := filepath.Join(t.TempDir(), "b.kicad_pcb")
	if err := os.WriteFile(board, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	filled, err := tool.FillZones(context.Background(), board)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(filled, []byte("(filled_polygon")) {
		t.Error("FillZones returned a board without filled polygons")
	}
	if now, _ := os.ReadFile(board); !bytes.Equal(now, orig) {
		t.Error("FillZones changed the board file")
	}
	bad := filepath.Join(t.TempDir(), "bad.kicad_pcb")
	os.WriteFile(bad, []byte("(kicad_pcb (version"), 0o644)
	if _, err := tool.FillZones(context.Background(), bad); err == nil || !bytes.Contains([]byte(err.Error()), []byte("bad.kicad_pcb")) {
		t.Errorf("a broken board: err = %v, want one naming it", err)
	}
}
