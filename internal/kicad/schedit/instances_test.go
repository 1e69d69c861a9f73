package schedit

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// foreignFixture is a flat KiCad 9 design whose symbols carry other
// projects' leftover (instances ..) entries: R18 three of project "other"
// (a sheet used three times there), R2 one saying Q1, R3 one of an "old"
// project name on this design's own root path.
func foreignFixture(t *testing.T) string {
	return copyProject(t, "../testdata/foreign", "foreign.kicad_sch")
}

// Issue #12 item 2: remove-part Q1 removed Q1 and R2, whose foreign entry
// said Q1.
func TestRemovePartIgnoresForeignInstances(t *testing.T) {
	root := foreignFixture(t)
	d := loadVerified(t, root)
	p, err := RemovePart(d, "Q1")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Touched, []string{"Q1"}) || !slices.Equal(p.Expect.Removed, []string{"Q1"}) {
		t.Errorf("touched %v, expect removed %v; want Q1 alone", p.Touched, p.Expect.Removed)
	}
	applyVerified(t, d, p)
	src, _ := os.ReadFile(root)
	if !strings.Contains(string(src), `(reference "R2")`) {
		t.Error("R2 was removed with Q1")
	}
}

// Issue #12 item 2: set-field R18 on a flat design was refused as "sits in
// a sheet used 4 times", counting project "other"'s entries.
func TestSetFieldIgnoresForeignInstances(t *testing.T) {
	for _, c := range []struct{ ref, field, value string }{
		{"R18", "Value", "22k"},
		{"R2", "Footprint", "Resistor_SMD:R_0805_2012Metric"},
		{"R3", "Value", "2k2"}, // "old" project's entry on this root path: R3's own wins
		{"R18", "dnp", "yes"},
		{"R2", "in_bom", "no"},
		{"R3", "on_board", "no"},
		{"Q1", "MPN", "MMBT3904"},
	} {
		t.Run(c.ref+"_"+c.field, func(t *testing.T) {
			d := loadVerified(t, foreignFixture(t))
			p, err := SetField(d, c.ref, c.field, c.value, "")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.Touched, []string{c.ref}) || len(p.Expect.Fields) != 1 || p.Expect.Fields[0].Ref != c.ref {
				t.Errorf("touched %v, expect %v; want %s alone", p.Touched, p.Expect.Fields, c.ref)
			}
			applyVerified(t, d, p)
		})
	}
}
