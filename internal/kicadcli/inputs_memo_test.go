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

// TestSharingSums: within one check, a file DRC's inputs hashed is not read
// again for ERC's (a schematic and its sheets, the libraries): it is taken
// with the size and modification time it had. A file changed in a way
// the stat shows is hashed again. The test swaps a sheet's bytes for
// others of the same length and puts its mtime back: the shared memo
// keeps the first hash (it did not read the file), a plain Tool reads
// the new bytes.
func TestSharingSums(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sch := write("a.kicad_sch", "(kicad_sch (version 20231120) (generator eeschema))\n")
	pcb := write("a.kicad_pcb", "(kicad_pcb (version 20240108) (generator pcbnew))\n")
	shared := (&Tool{}).SharingInputs()
	board, err := shared.inputsFor(pcb, true, dir)
	if err != nil {
		t.Fatal(err)
	}
	sumOf := func(set *inputSet, rel string) [32]byte {
		for _, f := range set.files {
			if f.rel == rel {
				return f.sum
			}
		}
		t.Fatalf("%s not among the inputs", rel)
		return [32]byte{}
	}
	fi, err := os.Stat(sch)
	if err != nil {
		t.Fatal(err)
	}
	write("a.kicad_sch", "(kicad_sch (version 20231120) (generator EESCHEMA))\n")
	if err := os.Chtimes(sch, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	erc, err := shared.inputsFor(sch, false, dir)
	if err != nil {
		t.Fatal(err)
	}
	if sumOf(erc, "a.kicad_sch") != sumOf(board, "a.kicad_sch") {
		t.Error("ERC's inputs read the schematic DRC's had already hashed")
	}
	fresh, err := (&Tool{}).inputsFor(sch, false, dir)
	if err != nil {
		t.Fatal(err)
	}
	if sumOf(fresh, "a.kicad_sch") == sumOf(board, "a.kicad_sch") {
		t.Fatal("the swapped bytes hash the same: the test proves nothing")
	}
	// A change the stat shows (another size) is hashed again.
	write("a.kicad_sch", "(kicad_sch (version 20231120) (generator eeschema) (paper \"A3\"))\n")
	again, err := shared.inputsFor(sch, false, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sumOf(again, "a.kicad_sch"), sumOf(fresh, "a.kicad_sch"); got == want || got == sumOf(board, "a.kicad_sch") {
		t.Error("a schematic whose size changed kept its old hash")
	}
}
