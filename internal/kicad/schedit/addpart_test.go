package schedit

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"copperhead/internal/kicad"
)

func TestAddPartNearAndConnect(t *testing.T) {
	root := partFixture(t)
	orig, _ := os.ReadFile(root)
	before := partKiCad(t, root)
	p := partApply(t, root, func(d *Design) (*Plan, error) {
		return AddPart(d, "Device:R", "R11", "10k", "Resistor_SMD:R_0603_1608Metric", nil, "R6")
	})
	t.Log(strings.Join(p.Summary, "\n"))
	now, _ := os.ReadFile(root)
	if n := strings.Count(string(now), "(symbol \"Device:R\""); n != 1 {
		t.Fatalf("Device:R embedded %d times", n)
	}
	for _, line := range strings.Split(string(orig), "\n") {
		if strings.Contains(line, "(uuid ") && !strings.Contains(string(now), line) {
			t.Fatalf("UUID line lost: %q", line)
		}
	}
	partApply(t, root, func(d *Design) (*Plan, error) { return Connect(d, "R11", "1", "3V3") })
	partApply(t, root, func(d *Design) (*Plan, error) { return Connect(d, "R11", "2", "KEY_DIT") })
	after := partKiCad(t, root)
	partWantChanges(t, before.changes(after), "R11.1: (new) -> 3V3", "R11.2: (new) -> KEY_DIT")
	if nv := before.newViolations(after); len(nv) > 0 {
		t.Fatalf("new ERC violations: %v (before %v, after %v)", nv, before.erc, after.erc)
	}
	// And out again: remove-part takes its stubs and labels with it.
	d := partLoad(t, root)
	rp, err := RemovePart(d, "R11")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rp.Apply(d); err != nil {
		t.Fatal(err)
	}
	final, _ := os.ReadFile(root)
	if string(final) != string(orig) {
		t.Fatalf("add, connect, remove did not restore the file")
	}
}

func TestAddPartAutoReferenceAndAt(t *testing.T) {
	root := partFixture(t)
	d := partLoad(t, root)
	p, err := AddPart(d, "Device:C", "", "100n", "", &kicad.Point{X: 30.1, Y: 30}, "")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p.Summary, "\n")
	if !strings.Contains(got, "add C") || !strings.Contains(got, "at (30.48, 30.48)") {
		t.Fatalf("summary: %s", got)
	}
	if _, err := p.Apply(d); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(root); err != nil {
		t.Fatal(err)
	}
}

func TestAddPartRefusals(t *testing.T) {
	d := partLoad(t, partFixture(t))
	for _, tc := range []struct {
		name, lib, ref, near, want string
	}{
		{"taken ref", "Device:C", "R6", "", "reference R6 is taken"},
		{"unknown symbol", "Device:Rr", "R20", "", "closest: R"},
		{"unknown library", "Devise:R", "R20", "", "closest: Device"},
		{"unknown near", "Device:R", "R20", "R99", "unknown reference R99"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := AddPart(d, tc.lib, tc.ref, "1k", "", nil, tc.near)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want refusal containing %q", err, tc.want)
			}
		})
	}
}

// A multi-unit part is placed whole: every gate and the power unit, so the
// netlist has all its pins and ERC reports no unplaced unit.
func TestAddPartPlacesEveryUnit(t *testing.T) {
	root := partFixture(t)
	before := partKiCad(t, root)
	p := partApply(t, root, func(d *Design) (*Plan, error) {
		return AddPart(d, "74xx:74HC00", "U9", "", "Package_SO:SOIC-14_3.9x8.7mm_P1.27mm", nil, "R6")
	})
	if got := strings.Join(p.Summary, "\n"); !strings.Contains(got, "5 units") {
		t.Errorf("summary %q does not mention the 5 units", got)
	}
	now, _ := os.ReadFile(root)
	for u := 1; u <= 5; u++ {
		if !strings.Contains(string(now), "(unit "+string(rune('0'+u))+")") {
			t.Errorf("no placed unit %d", u)
		}
	}
	after := partKiCad(t, root)
	for pin := 1; pin <= 14; pin++ {
		k := "U9." + strconv.Itoa(pin)
		if _, ok := after.pins[k]; !ok {
			t.Errorf("netlist has no %s", k)
		}
	}
	// The unconnected gate pins are the new findings; no unit is missing
	// and nothing overlaps what was there.
	if nv := before.newViolations(after, "pin_not_connected", "pin_not_driven", "power_pin_not_driven"); len(nv) > 0 {
		t.Fatalf("new ERC violations: %v", nv)
	}
	// Removing it takes every unit.
	d := partLoad(t, root)
	rp, err := RemovePart(d, "U9")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rp.Apply(d); err != nil {
		t.Fatal(err)
	}
	if s, _ := os.ReadFile(root); strings.Contains(string(s), `"U9"`) {
		t.Error("U9 left behind after remove-part")
	}
}

// In a KiCad 6 file, references live in the root's symbol_instances: the
// new part's go there (one per instance of a reused sheet), and kicad-cli
// reads them back.
func TestAddPartKiCad6SymbolInstances(t *testing.T) {
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS("../testdata/kicad6")); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dst, "kicad6.kicad_sch")
	sub := filepath.Join(dst, "filter.kicad_sch")
	for _, f := range []string{root, sub} {
		_ = os.Chmod(f, 0o644)
	}
	_ = os.Chmod(dst, 0o755)
	p := partApply(t, root, func(d *Design) (*Plan, error) {
		return AddPart(d, "Device:C", "C5", "100n", "", nil, "R10")
	})
	t.Log(strings.Join(p.Summary, "\n"))
	src, _ := os.ReadFile(root)
	inst := string(src[strings.Index(string(src), "(symbol_instances"):])
	for _, ref := range []string{`(reference "C5")`, `(reference "C1")`} {
		if !strings.Contains(inst, ref) {
			t.Errorf("symbol_instances has no %s:\n%s", ref, inst)
		}
	}
	subSrc, _ := os.ReadFile(sub)
	if strings.Contains(string(subSrc), "(instances") {
		t.Error("a KiCad 6 sheet got a KiCad 7 (instances ..) block")
	}
	after := partKiCad(t, root)
	for _, k := range []string{"C5.1", "C1.1"} {
		if _, ok := after.pins[k]; !ok {
			t.Errorf("kicad-cli netlist has no %s (pins: %v)", k, after.pins)
		}
	}
	// remove-part takes both instances' entries out again: byte-identical.
	d := partLoad(t, root)
	rp, err := RemovePart(d, "C5")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rp.Apply(d); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]string{root: "kicad6.kicad_sch", sub: "filter.kicad_sch"} {
		got, _ := os.ReadFile(f)
		orig, _ := os.ReadFile(filepath.Join("../testdata/kicad6", want))
		if string(got) != string(orig) {
			t.Errorf("%s differs from the original after add + remove", want)
		}
	}
}
