package kicadcli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSharingInputs: within one check, ERC and the netlist export of the
// same schematic get the one set collected first; a file changed since is
// collected again; a Tool that does not share collects every time.
func TestSharingInputs(t *testing.T) {
	dir := t.TempDir()
	sch := filepath.Join(dir, "a.kicad_sch")
	if err := os.WriteFile(sch, []byte("(kicad_sch (version 20231120) (generator eeschema))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shared := (&Tool{}).SharingInputs()
	first, err := shared.inputsFor(sch, false, dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := shared.inputsFor(sch, false, dir)
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Error("the second run of the same input collected its files again")
	}
	if board, err := shared.inputsFor(sch, true, dir); err != nil || board == first {
		t.Errorf("a board run shared the schematic run's set (err %v)", err)
	}
	if err := os.WriteFile(sch, []byte("(kicad_sch (version 20231120) (generator eeschema) (paper \"A3\"))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changed, err := shared.inputsFor(sch, false, dir)
	if err != nil {
		t.Fatal(err)
	}
	if changed == first {
		t.Error("a changed schematic reused the set hashed before the change")
	}
	plain := &Tool{}
	a, _ := plain.inputsFor(sch, false, dir)
	b, _ := plain.inputsFor(sch, false, dir)
	if a == b {
		t.Error("a Tool that does not share reused a set")
	}
}
