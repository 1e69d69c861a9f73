package schedit

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/sexpr"
)

// splitUnitFixture is open-telegraph with an LM358 U9 whose units sit on
// two sheets, as an FPGA's banks or an MCU's ports often do: add-part
// places its three units on the root, then unit 2 (pins 5, 6, 7) is moved
// to the power sheet, with that sheet's instance path and the library
// symbol it needs. It returns the root's path and the power sheet's.
func splitUnitFixture(t *testing.T) (string, string) {
	t.Helper()
	root := partFixture(t)
	power := filepath.Join(filepath.Dir(root), "power.kicad_sch")
	d := loadVerified(t, root)
	p, err := AddPart(d, "Amplifier_Operational:LM358", "U9", "LM358", "", &kicad.Point{X: 30.48, Y: 30.48}, "")
	if err != nil {
		t.Fatal(err)
	}
	applyVerified(t, d, p)

	rsrc, _ := os.ReadFile(root)
	rn, err := sexpr.Parse(root, rsrc)
	if err != nil {
		t.Fatal(err)
	}
	var unit2, lib *sexpr.Node
	for c := range rn.All("symbol") {
		if c.Value1("lib_id") == "Amplifier_Operational:LM358" && c.Value1("unit") == "2" {
			unit2 = c
		}
	}
	for c := range rn.Child("lib_symbols").All("symbol") {
		if c.Arg(0) == "Amplifier_Operational:LM358" {
			lib = c
		}
	}
	if unit2 == nil || lib == nil {
		t.Fatal("add-part placed no unit 2 of U9 or embedded no LM358")
	}
	psrc, _ := os.ReadFile(power)
	pn, err := sexpr.Parse(power, psrc)
	if err != nil {
		t.Fatal(err)
	}
	var powerPath string
	for c := range pn.All("symbol") {
		if in := c.Child("instances"); in != nil {
			if pr := in.Child("project"); pr != nil && pr.Child("path") != nil {
				powerPath = pr.Child("path").Arg(0)
				break
			}
		}
	}
	rootPath := unit2.Child("instances").Child("project").Child("path").Arg(0)
	if powerPath == "" || rootPath == "" {
		t.Fatal("no instance paths found")
	}
	moved := strings.Replace(string(rsrc[unit2.Start:unit2.End]), `"`+rootPath+`"`, `"`+powerPath+`"`, 1)
	// Move unit 2 off the root onto the power sheet, far from its wiring.
	moved = strings.Replace(moved, "(at 30.48", "(at 20.32", 1)
	if err := os.WriteFile(root, append(append([]byte{}, rsrc[:unit2.Start]...), rsrc[unit2.End:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	ls := pn.Child("lib_symbols")
	at := ls.Children[0].End // after the "lib_symbols" keyword
	out := string(psrc[:at]) + "\n\t\t" + string(rsrc[lib.Start:lib.End]) + string(psrc[at:])
	if err := os.WriteFile(power, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	insertTopLevel(t, power, moved)
	// KiCad reads one U9 of three units across the two sheets.
	nl := netlist(t, root)
	seen := map[string]bool{}
	for _, n := range nl.Nets {
		for _, nd := range n.Nodes {
			if nd.Refdes == "U9" {
				seen[nd.Pin] = true
			}
		}
	}
	for _, pin := range []string{"1", "5", "8"} {
		if !seen[pin] {
			t.Fatalf("KiCad's netlist of the fixture has no U9.%s (pins %v)", pin, seen)
		}
	}
	return root, power
}

// TestPartWithUnitsOnSeveralSheets: every edit of a part finds all of its
// units, whichever sheet holds them. set-field changed only the sheet the
// read model files the part under (KiCad's BOM then lists both values),
// pin edits refused a pin on another sheet's unit ("U9 has no pin 5"), and
// remove-part left the other sheets' units (a verification failure).
func TestPartWithUnitsOnSeveralSheets(t *testing.T) {
	root, power := splitUnitFixture(t)

	sp := partApply(t, root, func(d *Design) (*Plan, error) { return SetField(d, "U9", "Value", "LM2904", "") })
	// One summary line a unit, each naming its unit.
	for _, u := range []string{"U9 unit 1 Value", "U9 unit 2 Value"} {
		if !slices.ContainsFunc(sp.Summary, func(l string) bool { return strings.Contains(l, u) }) {
			t.Errorf("no summary line for %s: %v", u, sp.Summary)
		}
	}
	for _, f := range []string{root, power} {
		vals := unitValues(t, f, "Amplifier_Operational:LM358")
		if len(vals) == 0 || slices.ContainsFunc(vals, func(v string) bool { return v != "LM2904" }) {
			t.Errorf("%s: U9's units have Value %v, want LM2904 on each", filepath.Base(f), vals)
		}
	}

	for _, pin := range []string{"5", "3"} {
		partApply(t, root, func(d *Design) (*Plan, error) { return NoConnect(d, "U9", pin) })
		partApply(t, root, func(d *Design) (*Plan, error) { return Disconnect(d, "U9", pin) })
	}

	d := loadVerified(t, root)
	p, err := RemovePart(d, "U9")
	if err != nil {
		t.Fatal(err)
	}
	applyVerified(t, d, p)
	for _, f := range []string{root, power} {
		src, _ := os.ReadFile(f)
		if strings.Contains(string(src), `(reference "U9")`) {
			t.Errorf("%s still holds a unit of U9 after remove-part: %s", filepath.Base(f), strings.Join(p.Summary, "; "))
		}
	}
}

// unitValues lists the Value of each placed symbol of libID in file.
func unitValues(t *testing.T, file, libID string) []string {
	t.Helper()
	src, _ := os.ReadFile(file)
	n, err := sexpr.Parse(file, src)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for c := range n.All("symbol") {
		if c.Value1("lib_id") == libID {
			out = append(out, propertyValue(c, "Value"))
		}
	}
	return out
}
