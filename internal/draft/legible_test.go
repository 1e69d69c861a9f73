package draft

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/kicad/kigen"
)

// TestCheckLegible: the pair rules of the legibility check, on boxes
// placed by hand: what may touch and what is refused, naming both items.
func TestCheckLegible(t *testing.T) {
	body := func(owner string, b box) item {
		return item{kind: kindBody, owner: owner, what: "body of " + owner, b: b}
	}
	text := func(owner, what string, b box, placed bool) item {
		return item{kind: kindText, owner: owner, what: what, b: b, placed: placed}
	}
	wire := func(net string, a, b point, attach ...string) item {
		return item{kind: kindWire, owner: "wire/" + net, what: "wire " + net, b: segBox(a, b, wireHalf), net: net, attach: attach, seg: &[2]point{a, b}}
	}
	label := func(net string, at, out point) item {
		return item{kind: kindText, owner: "label/" + net, what: "label " + net, b: labelBox(at, out, net), placed: true, anchor: &at}
	}
	cases := []struct {
		name  string
		items []item
		want  string // "" for legible
	}{
		{"apart", []item{body("U1", box{0, 0, 10, 10}), body("U2", box{20, 0, 30, 10})}, ""},
		{"bodies overlap", []item{body("U1", box{0, 0, 10, 10}), body("U2", box{9, 0, 20, 10})}, "body of U1 at (5.00, 5.00) overlaps body of U2"},
		{"two texts", []item{text("R1", "reference R1", box{0, 0, 3, 1.4}, false), text("R2", "reference R2", box{2, 0.5, 5, 1.9}, false)},
			"reference R1 at (1.50, 0.70) overlaps reference R2"},
		{"texts closer than the clearance", []item{text("R1", "reference R1", box{0, 0, 3, 1.4}, false),
			text("R2", "reference R2", box{3.1, 0, 6, 1.4}, false)}, "reference R1"},
		{"library texts of one symbol", []item{text("U1", "pin name A of U1", box{0, 0, 3, 1.4}, false),
			text("U1", "value X of U1", box{1, 0, 4, 1.4}, false)}, ""},
		{"library field inside its own body", []item{body("R1", box{-1, -2.54, 1, 2.54}), text("R1", "value 10k of R1", box{-0.7, -1.5, 0.7, 1.5}, false)}, ""},
		{"port value on its own port", []item{body("port/1", box{-1.27, 0, 1.27, 2.54}),
			text("port/1", "power port value GND", box{-1.5, 2, 1.5, 3.4}, true)}, "body of port/1"},
		{"label over a foreign body", []item{body("U1", box{0, 0, 10, 10}), label("SIG", point{12, 5}, point{-1, 0})}, "body of U1"},
		{"label on its own wire", []item{wire("SIG", point{0, 5}, point{10, 5}), label("SIG", point{0, 5}, point{1, 0})}, ""},
		{"label over another net's wire", []item{wire("SIG", point{-5, 5}, point{0, 5}), wire("GND", point{2, 4}, point{8, 4}),
			label("SIG", point{0, 5}, point{1, 0})}, "wire GND"},
		{"label on another wire of its net", []item{wire("SIG", point{0, 5}, point{10, 5}), label("SIG", point{0, 6}, point{1, 0})}, "wire SIG"},
		{"wires of one net meet", []item{wire("SIG", point{0, 0}, point{5, 0}), wire("SIG", point{5, 0}, point{5, 5})}, ""},
		{"wires of one net cross", []item{wire("SIG", point{0, 0}, point{10, 0}), wire("SIG", point{5, -5}, point{5, 5})}, "wire SIG"},
		{"two nets' wires cross", []item{wire("SIG", point{0, 0}, point{10, 0}), wire("GND", point{5, -5}, point{5, 5})}, "wire SIG"},
		{"stub into its own body", []item{body("U1", box{0, 0, 10, 10}), wire("SIG", point{5, 5}, point{-2.54, 5}, "U1")}, ""},
		{"wire across a foreign body", []item{body("U1", box{0, 0, 10, 10}), wire("SIG", point{-5, 5}, point{15, 5}, "U2")}, "body of U1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkLegible(c.items)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("checkLegible = %v, want legible", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("checkLegible = %v, want an overlap naming %q", err, c.want)
			}
		})
	}
}

// crowdedSymbol is a library symbol whose own drawing (a note left of its
// pin 1) covers the place the engine puts that pin's label: no placement
// can draw it legibly, so the draft must be refused, not written.
const crowdedSymbol = `(kicad_symbol_lib (version 20241209) (generator "test")
	(symbol "CROWDED" (pin_names (offset 0.508)) (exclude_from_sim no) (in_bom yes) (on_board yes)
		(property "Reference" "U" (at 0 7.62 0) (effects (font (size 1.27 1.27))))
		(property "Value" "CROWDED" (at 0 -7.62 0) (effects (font (size 1.27 1.27))))
		(property "Footprint" "Package_SO:SOIC-8_3.9x4.9mm_P1.27mm" (at 0 0 0) (effects (font (size 1.27 1.27)) (hide yes)))
		(symbol "CROWDED_0_1"
			(rectangle (start -5.08 5.08) (end 5.08 -5.08) (stroke (width 0.254) (type default)) (fill (type background)))
			(text "NOTE: keep this area clear" (at -22 0 0) (effects (font (size 1.27 1.27))))
		)
		(symbol "CROWDED_1_1"
			(pin passive line (at -7.62 0 0) (length 2.54) (name "A" (effects (font (size 1.27 1.27)))) (number "1" (effects (font (size 1.27 1.27)))))
			(pin passive line (at 7.62 0 180) (length 2.54) (name "B" (effects (font (size 1.27 1.27)))) (number "2" (effects (font (size 1.27 1.27)))))
			(pin passive line (at 0 -7.62 90) (length 2.54) (name "C" (effects (font (size 1.27 1.27)))) (number "3" (effects (font (size 1.27 1.27)))))
		)
	)
)
`

// TestSchematicRefusesCrowded forces an overlap through the whole engine:
// the sheet is refused with an error naming the two items, and
// WriteSchematic leaves no file behind.
func TestSchematicRefusesCrowded(t *testing.T) {
	needLibraries(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Test.kicad_sym"), []byte(crowdedSymbol), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := &kigen.Library{SymDir: dir, FPDir: InstalledLibrary().FPDir}
	in := &Intent{
		Project: "crowded",
		Parts:   []IntentPart{{Ref: "U1", LibID: "Test:CROWDED"}, {Ref: "U2", LibID: "Test:CROWDED"}},
		Nets: []IntentNet{
			{Name: "SIG", Pins: []string{"U1.1", "U2.1"}},
			{Name: "OUT", Pins: []string{"U1.2", "U2.2"}},
			{Name: "ZERO", Pins: []string{"U1.3", "U2.3"}},
		},
	}
	r, err := Validate(in, "crowded.json", Options{Library: lib})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Schematic(r, "crowded", Options{Library: lib})
	var le *LegibilityError
	if !errors.As(err, &le) {
		t.Fatalf("Schematic = %v, want a legibility error", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "label SIG") || !strings.Contains(msg, "body of U") || strings.Contains(msg, "\n") {
		t.Errorf("error = %q, want one line naming label SIG and the body it covers", msg)
	}
	out := filepath.Join(t.TempDir(), "hw")
	if _, err := WriteSchematic(in, "crowded.json", out, false, Options{Library: lib}); !errors.As(err, &le) {
		t.Fatalf("WriteSchematic = %v, want the legibility error", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("WriteSchematic left %s behind (stat: %v)", out, err)
	}
}
