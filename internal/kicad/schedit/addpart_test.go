package schedit

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
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

// Issue #12 item 12: add-part refused every design whose embedded copy of
// the symbol differs from the installed library ("embeds a different
// Device:R already"). testdata/foreign embeds an older Device:R (1.27 mm
// pins, other graphics: the library's pins otherwise) and a hand-edited
// Device:C whose pin 2 is power_in.
func TestAddPartOlderEmbeddedSymbol(t *testing.T) {
	for _, c := range []struct {
		libID, ref, summary string
		entries             map[string]int // lib_symbols entries afterwards
		libName             string         // (lib_name ..) the new symbol must carry, "" for none
		// mismatch: ERC may gain one lib_symbol_mismatch, the warning
		// every sibling drawn from the same older copy already has.
		mismatch bool
	}{
		{"Device:R", "R4", "use the Device:R foreign.kicad_sch already embeds", map[string]int{"Device:R": 1, "R_1": 0}, "", true},
		{"Device:C", "C2", "embed the library's Device:C in foreign.kicad_sch as C_1: the copy it already embeds has pins", map[string]int{"Device:C": 1, "C_1": 1}, "C_1", false},
		{"Connector:TestPoint", "TP1", "embed library symbol Connector:TestPoint", map[string]int{"Connector:TestPoint": 1}, "", false},
	} {
		t.Run(c.libID, func(t *testing.T) {
			root := foreignFixture(t)
			before := partKiCad(t, root)
			d := loadVerified(t, root)
			p, err := AddPart(d, c.libID, c.ref, "", "", nil, "")
			if err != nil {
				t.Fatal(err)
			}
			sum := strings.Join(p.Summary, "\n")
			t.Log(sum)
			if !strings.Contains(sum, c.summary) {
				t.Errorf("summary does not say %q", c.summary)
			}
			if !slices.Equal(p.Expect.Added, []string{c.ref}) {
				t.Errorf("expect added %v, want %s", p.Expect.Added, c.ref)
			}
			applyVerified(t, d, p)
			src, _ := os.ReadFile(root)
			for name, n := range c.entries {
				if got := strings.Count(string(src), "(symbol "+strconv.Quote(name)); got != n {
					t.Errorf("lib_symbols has %d %s entries, want %d", got, name, n)
				}
			}
			if c.libName != "" && !strings.Contains(string(src), "(lib_name "+strconv.Quote(c.libName)+")") {
				t.Errorf("the new symbol has no (lib_name %q)", c.libName)
			}
			after := partKiCad(t, root)
			allowed := []string{"pin_not_connected"}
			if c.mismatch {
				allowed = append(allowed, "lib_symbol_mismatch")
				if g := after.erc["lib_symbol_mismatch"] - before.erc["lib_symbol_mismatch"]; g > 1 {
					t.Errorf("lib_symbol_mismatch grew by %d", g)
				}
			}
			if nv := before.newViolations(after, allowed...); len(nv) > 0 {
				t.Errorf("new ERC violations: %v (before %v, after %v)", nv, before.erc, after.erc)
			}
			// The new part's pins are where its definition draws them:
			// a stub and label on pin 1 reach it.
			partApply(t, root, func(d *Design) (*Plan, error) { return Connect(d, c.ref, "1", "BASE") })
			if got := partKiCad(t, root).pins[c.ref+".1"]; got != "/BASE" {
				t.Errorf("%s.1 is on %q after connect, want /BASE", c.ref, got)
			}
		})
	}
	// A second library Device:C reuses the C_1 the first one embedded.
	root := foreignFixture(t)
	partApply(t, root, func(d *Design) (*Plan, error) { return AddPart(d, "Device:C", "C2", "", "", nil, "") })
	d := loadVerified(t, root)
	p, err := AddPart(d, "Device:C", "C3", "", "", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if sum := strings.Join(p.Summary, "\n"); !strings.Contains(sum, "embedded in foreign.kicad_sch as C_1 already") {
		t.Errorf("second Device:C: %s", sum)
	}
	applyVerified(t, d, p)
	src, _ := os.ReadFile(root)
	if n := strings.Count(string(src), `(symbol "C_1"`); n != 1 {
		t.Errorf("%d C_1 entries after two adds, want 1", n)
	}
}

// A KiCad 6 file's Device:R (bare hide atoms, (id N) properties, 1.27 mm
// pins) has the library's pins: a new resistor draws it, and its
// reference goes to the root's symbol_instances.
func TestAddPartKiCad6EmbeddedSymbol(t *testing.T) {
	root := copyProject(t, "../testdata/kicad6", "kicad6.kicad_sch")
	d := loadVerified(t, root)
	p, err := AddPart(d, "Device:R", "R2", "", "", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if sum := strings.Join(p.Summary, "\n"); !strings.Contains(sum, "use the Device:R kicad6.kicad_sch already embeds") {
		t.Errorf("summary: %s", sum)
	}
	applyVerified(t, d, p)
	if again, err := AddPart(mustLoad(t, root), "Device:R", "R2", "", "", nil, ""); err != nil || !again.NoOp() {
		t.Errorf("again: %v %v", again, err)
	}
}
