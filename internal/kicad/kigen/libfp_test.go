package kigen

import (
	"errors"
	"strings"
	"testing"

	"copperhead/internal/sexpr"
)

// libOdd is a small library footprint: two pads (one turned), a reference
// property, a line and a rule area.
const libOdd = `(footprint "Odd" (layer "F.Cu")
	(property "Reference" "REF**" (at 0 -2 0) (layer "F.SilkS"))
	(property "Value" "Odd" (at 0 2 0) (layer "F.Fab"))
	(fp_line (start -2 -1) (end 2 -1) (stroke (width 0.1) (type solid)) (layer "F.SilkS"))
	(pad "1" smd rect (at -1.5 0) (size 1 1.2) (layers "F.Cu" "F.Paste" "F.Mask"))
	(pad "2" smd rect (at 1.5 0.5 90) (size 1 1.2) (layers "F.Cu" "F.Paste" "F.Mask"))
	(zone (net 0) (net_name "") (layer "F.Cu") (keepout (tracks not_allowed)) (polygon (pts (xy -1 3) (xy 1 3) (xy 1 4) (xy -1 4))))
)`

func parseNode(t *testing.T, src string) *sexpr.Node {
	t.Helper()
	n, err := sexpr.Parse("test", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// itemAt is the (at ...) of the first head item whose first argument is arg.
func itemAt(n *sexpr.Node, head, arg string) string {
	for c := range n.All(head) {
		if c.Arg(0) == arg {
			return strings.TrimSpace(Format(c.Child("at")))
		}
	}
	return ""
}

// TestLibraryFootprint: a footprint placed on a board at any rotation comes
// back in library form: pad and text angles footprint-relative, positions
// unchanged, the rule area in footprint coordinates, and no instance data.
func TestLibraryFootprint(t *testing.T) {
	lib := parseNode(t, libOdd)
	for _, rot := range []float64{0, 90, 180, 270, 30} {
		placed := PlaceFootprint(lib, Placement{
			LibID: "Odd:Odd", X: 30, Y: 20, Rot: rot, Ref: "R7", Value: "1k",
			UUID: func(item string) string { return NameUUID("R7" + item) },
			Pad: func(num string) (PadNet, bool) {
				return PadNet{Net: N("net", 1, "A"), PinFunction: "x", PinType: "passive"}, true
			},
			Link: []sexpr.Node{N("path", "/abc"), N("sheetname", "/"), N("sheetfile", "x.kicad_sch")},
		})
		got, err := LibraryFootprint(&placed)
		if err != nil {
			t.Fatalf("rot %v: %v", rot, err)
		}
		text := Format(&got)
		for _, gone := range []string{"(at 30 20", "(path", "(sheetname", "(sheetfile", "(net 1", "pinfunction", "pintype", `"R7"`} {
			if strings.Contains(text, gone) {
				t.Errorf("rot %v: %q left in\n%s", rot, gone, text)
			}
		}
		if got.Child("at") != nil {
			t.Errorf("rot %v: footprint keeps its position", rot)
		}
		if a := itemAt(&got, "pad", "1"); a != "(at -1.5 0)" && a != "(at -1.5 0 0)" {
			t.Errorf("rot %v: pad 1 at %s, want (at -1.5 0)", rot, a)
		}
		if a := itemAt(&got, "pad", "2"); a != "(at 1.5 0.5 90)" {
			t.Errorf("rot %v: pad 2 at %s, want (at 1.5 0.5 90)", rot, a)
		}
		if a := itemAt(&got, "property", "Reference"); a != "(at 0 -2 0)" {
			t.Errorf("rot %v: reference at %s, want (at 0 -2 0)", rot, a)
		}
		var pts []string
		for xy := range got.Child("zone").Child("polygon").Child("pts").All("xy") {
			pts = append(pts, strings.TrimSpace(Format(xy)))
		}
		if s := strings.Join(pts, " "); s != "(xy -1 3) (xy 1 3) (xy 1 4) (xy -1 4)" {
			t.Errorf("rot %v: rule area %s, want the library's", rot, s)
		}
		// Placed again it is the same board footprint.
		again := PlaceFootprint(&got, Placement{
			LibID: "Odd:Odd", X: 30, Y: 20, Rot: rot, Ref: "R7", Value: "1k",
			UUID: func(item string) string { return NameUUID("R7" + item) },
		})
		if a, b := itemAt(&again, "pad", "2"), itemAt(&placed, "pad", "2"); a != b {
			t.Errorf("rot %v: placed again pad 2 at %s, was %s", rot, a, b)
		}
	}
}

// TestLibraryFootprintKiCadBoard: a footprint as KiCad 9 saves it, turned
// 90 degrees, with KiCad 8's link properties and a lock.
func TestLibraryFootprintKiCadBoard(t *testing.T) {
	board := parseNode(t, `(footprint "Odd:Odd" (layer "F.Cu") (locked yes) (uuid "u1") (at 50 40 90)
		(property "Reference" "R1" (at 0 -2 90) (layer "F.SilkS") (uuid "u2"))
		(property "Sheetfile" "odd.kicad_sch" (at 0 0 90) (layer "F.Fab") (hide yes))
		(path "/p1") (sheetname "/") (sheetfile "odd.kicad_sch")
		(pad "1" smd rect (at -1.5 0 90) (size 1 1.2) (layers "F.Cu" "F.Paste" "F.Mask") (net 2 "A") (pintype "passive") (uuid "u3"))
		(pad "2" smd rect (at 1.5 0 180) (size 1 1.2) (layers "F.Cu" "F.Paste" "F.Mask") (net 3 "B") (pintype "passive") (uuid "u4")))`)
	got, err := LibraryFootprint(board)
	if err != nil {
		t.Fatal(err)
	}
	text := Format(&got)
	for _, gone := range []string{"(at 50 40", "locked", "Sheetfile", "(path", "(net", "pintype", `"R1"`, `"u1"`} {
		if strings.Contains(text, gone) {
			t.Errorf("%q left in\n%s", gone, text)
		}
	}
	for _, tc := range []struct{ head, arg, want string }{
		{"pad", "1", "(at -1.5 0 0)"},
		{"pad", "2", "(at 1.5 0 90)"},
		{"property", "Reference", "(at 0 -2 0)"},
	} {
		if a := itemAt(&got, tc.head, tc.arg); a != tc.want {
			t.Errorf("%s %s at %s, want %s", tc.head, tc.arg, a, tc.want)
		}
	}
}

// TestLibraryFootprintRefused: a footprint on the back side is mirrored on
// the board and refused (ErrFlipped), as is anything not a footprint.
func TestLibraryFootprintRefused(t *testing.T) {
	back := parseNode(t, `(footprint "Odd:Odd" (layer "B.Cu") (at 10 10 180) (pad "1" smd rect (at -1.5 0 180) (size 1 1) (layers "B.Cu")))`)
	if _, err := LibraryFootprint(back); !errors.Is(err, ErrFlipped) {
		t.Errorf("back side: err %v, want ErrFlipped", err)
	}
	mod := parseNode(t, `(module "Odd:Odd" (layer "F.Cu") (at 10 10))`)
	if _, err := LibraryFootprint(mod); err == nil || errors.Is(err, ErrFlipped) {
		t.Errorf("module: err %v, want a refusal", err)
	}
}
