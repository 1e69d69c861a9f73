package layout

import (
	"testing"

	"copperhead/internal/kicad"
)

// TestSymbolPathsOneInstanceModel: the symbol links a drafted board gets
// come from kicad's one instance model: a leftover entry of another project
// (R33 of project "old" on this root's path, Q1 of another root) never
// names a footprint.
func TestSymbolPathsOneInstanceModel(t *testing.T) {
	sch, err := kicad.LoadSchematic("../../kicad/testdata/foreign/foreign.kicad_sch")
	if err != nil {
		t.Fatal(err)
	}
	paths, err := symbolPaths(sch)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"R3": "/f0000000-0000-4000-8000-000000000401",
		"R2": "/f0000000-0000-4000-8000-000000000301",
	}
	for ref, p := range want {
		if paths[ref] != p {
			t.Errorf("%s -> %q, want %q", ref, paths[ref], p)
		}
	}
	if p, ok := paths["R33"]; ok {
		t.Errorf("another project's R33 got a symbol link %s", p)
	}
	for _, part := range sch.Parts {
		if _, ok := paths[part.Refdes]; !ok {
			t.Errorf("part %s has no symbol link", part.Refdes)
		}
	}
}
