package layout

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/kicad/kigen"
)

// oddOnBoard is footprint Odd:Odd as a board places it: at (x, y) turned
// rot degrees on layer, its pads' angles including the rotation.
func oddOnBoard(ref, layer string, x, y, rot float64, uuid string) string {
	r := kigen.Num(rot)
	return `(footprint "Odd:Odd" (layer "` + layer + `") (uuid "` + uuid + `") (at ` + kigen.Num(x) + ` ` + kigen.Num(y) + ` ` + r + `)
		(property "Reference" "` + ref + `" (at 0 -2 ` + r + `) (layer "F.SilkS") (effects (font (size 1 1) (thickness 0.15))))
		(property "Value" "odd" (at 0 2 ` + r + `) (layer "F.Fab") (effects (font (size 1 1) (thickness 0.15))))
		(path "/x") (sheetname "/") (sheetfile "padless.kicad_sch")
		(attr smd)
		(fp_rect (start -2 -1) (end 2 1) (stroke (width 0.05) (type default)) (fill no) (layer "F.CrtYd"))
		(pad "1" smd rect (at -1.2 0 ` + r + `) (size 0.8 1.4) (layers "F.Cu" "F.Paste" "F.Mask") (net 1 "/A"))
		(pad "2" smd rect (at 1.2 0 ` + kigen.Num(rot+90) + `) (size 0.8 1.4) (layers "F.Cu" "F.Paste" "F.Mask") (net 2 "/B")))`
}

// oddInput is padlessInput with R3 and R4 of footprint Odd:Odd, which no
// library holds, and the project's board at board (holding the footprints
// given, "" for no board file at all).
func oddInput(t *testing.T, footprints ...string) (input, string) {
	t.Helper()
	in := padlessInput(t, "", 0, 0)
	in.netlist.Components = append(in.netlist.Components,
		kicad.NetComponent{Refdes: "R4", Value: "odd", Footprint: "Odd:Odd"},
		kicad.NetComponent{Refdes: "R3", Value: "odd", Footprint: "Odd:Odd"})
	board := filepath.Join(t.TempDir(), "padless.kicad_pcb")
	if footprints != nil {
		src := "(kicad_pcb (version 20241229) (generator \"pcbnew\")\n" + strings.Join(footprints, "\n") + ")\n"
		if err := os.WriteFile(board, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in.board = &boardSource{path: board, name: "padless.kicad_pcb"}
	return in, board
}

// TestFootprintFromBoard: a footprint no library holds is taken from the
// project's board, the instance with the part's own reference first (front
// side only), back in footprint coordinates however it was turned.
func TestFootprintFromBoard(t *testing.T) {
	tests := []struct {
		name       string
		footprints []string
		wantRef    string
		wantUUID   string
	}{
		{"its own reference, turned 90", []string{
			oddOnBoard("R9", "F.Cu", 10, 10, 0, "u9"),
			oddOnBoard("R4", "F.Cu", 30, 20, 90, "u4"),
		}, "R4", "u4"},
		{"the first reference of the group", []string{
			oddOnBoard("R4", "F.Cu", 30, 20, 180, "u4"),
			oddOnBoard("R3", "F.Cu", 40, 20, 270, "u3"),
		}, "R3", "u3"},
		{"its own is on the back: another instance", []string{
			oddOnBoard("R3", "B.Cu", 30, 20, 180, "u3"),
			oddOnBoard("R7", "F.Cu", 50, 20, 90, "u7"),
		}, "R7", "u7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, _ := oddInput(t, tc.footprints...)
			parts, _, from, err := collectParts(in)
			if err != nil {
				t.Fatal(err)
			}
			want := BoardFootprint{Footprint: "Odd:Odd", Refdes: []string{"R3", "R4"}, Board: "padless.kicad_pcb", BoardRefdes: tc.wantRef, BoardFootprint: tc.wantUUID}
			if len(from) != 1 || from[0].Footprint != want.Footprint || !slices.Equal(from[0].Refdes, want.Refdes) || from[0].Board != want.Board ||
				from[0].BoardRefdes != want.BoardRefdes || from[0].BoardFootprint != want.BoardFootprint {
				t.Fatalf("from board %+v, want [%+v]", from, want)
			}
			var r3 *part
			for _, p := range parts {
				if p.Refdes == "R3" {
					r3 = p
				}
			}
			if r3 == nil {
				t.Fatal("R3 not among the parts")
			}
			fp := r3.fp
			if fp.LibID != "Odd:Odd" || len(fp.Pads) != 2 {
				t.Fatalf("footprint %s with %d pads", fp.LibID, len(fp.Pads))
			}
			for i, w := range []struct {
				at    Pt
				angle float64
			}{{Pt{X: -1.2}, 0}, {Pt{X: 1.2}, 90}} {
				if p := fp.Pads[i]; p.At != w.at || p.Angle != w.angle {
					t.Errorf("pad %s at %+v %v°, want %+v %v°", p.Number, p.At, p.Angle, w.at, w.angle)
				}
			}
			if fp.Courtyard != (Rect{X0: -2.025, Y0: -1.025, X1: 2.025, Y1: 1.025}) { // the line's half width outside
				t.Errorf("courtyard %+v", fp.Courtyard)
			}
			// The whole draft goes through with it.
			res, err := build(in)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(res.board), `(footprint "Odd:Odd"`); n != 2 {
				t.Errorf("the board holds %d Odd:Odd footprints, want 2", n)
			}
			if strings.Contains(string(res.board), `"/x"`) {
				t.Error("the board footprint's symbol link was copied")
			}
		})
	}
}

// TestFootprintFromBoardRefused: when neither a library nor the board has
// the footprint, the refusal names both, once for all the parts using it.
func TestFootprintFromBoardRefused(t *testing.T) {
	lib := "R3, R4: footprint Odd:Odd: footprint not found: no library Odd in the project's fp-lib-table or " + footprintDir()
	other := strings.Replace(oddOnBoard("R3", "F.Cu", 10, 10, 0, "u3"), `"Odd:Odd"`, `"padless:R_2pad"`, 1)
	tests := []struct {
		name       string
		footprints []string
		want       string
	}{
		{"no board", nil, lib + ", and no board to take it from (none at padless.kicad_pcb)"},
		{"a different footprint there", []string{other}, lib + ", and not on the board padless.kicad_pcb (its R3 there is padless:R_2pad, a different footprint)"},
		{"nothing of theirs there", []string{}, lib + ", and not on the board padless.kicad_pcb (no R3, R4 there)"},
		{"only on the back", []string{oddOnBoard("R4", "B.Cu", 10, 10, 0, "u4")}, lib + ", and on the board padless.kicad_pcb only on the back side (R4 there), which the draft does not flip back"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, _ := oddInput(t, tc.footprints...)
			_, _, _, err := collectParts(in)
			if err == nil {
				t.Fatal("no error")
			}
			want := "cannot draft the layout: " + tc.want
			if err.Error() != want {
				t.Errorf("err\n%v\nwant\n%s", err, want)
			}
		})
	}
}
