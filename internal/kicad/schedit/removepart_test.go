package schedit

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestRemovePartR8(t *testing.T) {
	root := partFixture(t)
	orig, _ := os.ReadFile(root)
	before := partKiCad(t, root)
	d := loadVerified(t, root)
	p, err := RemovePart(d, "R8")
	if err != nil {
		t.Fatal(err)
	}
	applyVerified(t, d, p)
	t.Log(strings.Join(p.Summary, "\n"))
	after := partKiCad(t, root)
	partWantChanges(t, before.changes(after), "R8.1: LED_RK -> (gone)", "R8.2: LED_R -> (gone)")
	// The labels that named R8's nets at R8 go with it, so the labels left
	// at U1 and D2 are single-pin global labels, which KiCad 9 reports as
	// global_label_dangling: that is the removal, not damage.
	if nv := before.newViolations(after, "global_label_dangling"); len(nv) > 0 {
		t.Fatalf("new ERC violations: %v (before %v, after %v)", nv, before.erc, after.erc)
	}
	now, _ := os.ReadFile(root)
	if !strings.Contains(string(now), "(lib_id \"Device:R\")") {
		t.Fatal("Device:R library symbol removed while other resistors use it")
	}
	// Every UUID left in the file was there before.
	for _, line := range strings.Split(string(now), "\n") {
		if strings.Contains(line, "(uuid ") && !strings.Contains(string(orig), line) {
			t.Fatalf("new or changed UUID line %q", line)
		}
	}
	if _, err := RemovePart(partLoad(t, root), "R8"); !errors.Is(err, ErrRefused) {
		t.Fatalf("second removal: %v, want unknown reference", err)
	}
}

// TestRemovePartKeepsTheNetsItsWiresName: removing a part whose wires run
// straight to another part's pins, with the net's label on them, keeps
// those wires: the other part stays on the labelled net (FuzzPlanner found
// the labels orphaned). In a sheet used three times all three go.
func TestRemovePartKeepsTheNetsItsWiresName(t *testing.T) {
	root := copyProject(t, "../testdata/reused3", "reused3.kicad_sch")
	d := loadVerified(t, root)
	p, err := RemovePart(d, "R101")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Expect.Removed; len(got) != 3 {
		t.Fatalf("Expect.Removed = %v, want the three instances", got)
	}
	applyVerified(t, d, p)
}

// TestRenameNetOldFormatPowerSymbol: in a file older than KiCad 8, KiCad
// names a power net by the library pin, not the Value, so renaming the
// Value would change nothing KiCad shows: refused, saying why.
func TestRenameNetOldFormatPowerSymbol(t *testing.T) {
	root := copyProject(t, "../testdata/kicad6", "kicad6.kicad_sch")
	d := loadVerified(t, root)
	_, err := RenameNet(d, "GND", "GND_A", false)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "older than KiCad 8") {
		t.Fatalf("RenameNet GND on a KiCad 6 file = %v, want a refusal naming the file format", err)
	}
}
