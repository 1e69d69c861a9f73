package design

import (
	"reflect"
	"slices"
	"testing"

	"copperhead/internal/kicad"
)

func TestParts(t *testing.T) {
	sch := &kicad.Schematic{Parts: []kicad.Part{
		{Refdes: "R10", Value: "1k", Units: []int{1}},
		{Refdes: "#PWR01", Value: "GND"},
		{Refdes: "U1", Value: "", Units: []int{2}, SheetPath: "/B/"},
		{Refdes: "R2", Value: "2k", Units: []int{1}},
		{Refdes: "U1", Value: "LM358", Footprint: "SOIC-8", Units: []int{1, 3}, SheetPath: "/A/", DNP: true},
		{Refdes: "", Value: "orphan"},
	}}
	got := Parts(sch)
	var refs []string
	for _, p := range got {
		refs = append(refs, p.Refdes)
	}
	if want := []string{"R2", "R10", "U1"}; !slices.Equal(refs, want) {
		t.Fatalf("refs = %v, want %v", refs, want)
	}
	u1 := got[2]
	if u1.Value != "LM358" || u1.Footprint != "SOIC-8" || !u1.DNP || !slices.Equal(u1.Units, []int{1, 2, 3}) || u1.SheetPath != "/B/" {
		t.Errorf("merged U1 = %+v", u1)
	}
	if sch.Parts[2].Units[0] != 2 || len(sch.Parts[2].Units) != 1 {
		t.Error("Parts modified its input")
	}
	if Parts(nil) != nil {
		t.Error("Parts(nil) != nil")
	}
}

func TestBOMRows(t *testing.T) {
	tests := []struct {
		name string
		part kicad.Part
		want BOMRow
	}{
		{"plain", kicad.Part{Refdes: "R1", Value: "10k", Footprint: "R_0603", InBOM: true, OnBoard: true},
			BOMRow{Refdes: "R1", Value: "10k", Footprint: "R_0603", MPN: MPNUnverified, Rationale: RationalePlaceholder}},
		{"schematic MPN", kicad.Part{Refdes: "R1", MPN: "RC0603", InBOM: true, OnBoard: true},
			BOMRow{Refdes: "R1", MPN: "RC0603", Rationale: RationalePlaceholder}},
		{"dnp", kicad.Part{Refdes: "R1", DNP: true, InBOM: true, OnBoard: true},
			BOMRow{Refdes: "R1", MPN: MPNUnverified, Rationale: "DNP. " + RationalePlaceholder}},
		{"excluded", kicad.Part{Refdes: "H1"},
			BOMRow{Refdes: "H1", MPN: MPNUnverified, Rationale: "Not in BOM (in_bom=no). Not on board (on_board=no). " + RationalePlaceholder}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BOMRows(&kicad.Schematic{Parts: []kicad.Part{tt.part}})
			if !reflect.DeepEqual(got, []BOMRow{tt.want}) {
				t.Errorf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestBOMOneRowPerReference(t *testing.T) {
	p := keyerProject()
	rows, err := ParseBOM(GenerateBOM(p.Name, p.Schematic))
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]bool{}
	for _, part := range p.Schematic.Parts {
		if part.Refdes[0] != '#' {
			refs[part.Refdes] = true
		}
	}
	if len(rows) != len(refs) {
		t.Errorf("BOM has %d rows, schematic has %d distinct references", len(rows), len(refs))
	}
}
