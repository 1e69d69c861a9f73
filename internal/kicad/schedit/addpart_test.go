package schedit

import (
	"errors"
	"os"
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
