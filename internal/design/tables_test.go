package design

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseBOM(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		want    []BOMRow
		wantErr bool
	}{
		{
			name: "generated column order",
			doc:  "| Refdes | Value | Footprint | MPN | Rationale |\n| --- | --- | --- | --- | --- |\n| R1 | 10k | R_0603 | UNVERIFIED | pull-up |\n",
			want: []BOMRow{{Refdes: "R1", Value: "10k", Footprint: "R_0603", MPN: "UNVERIFIED", Rationale: "pull-up"}},
		},
		{
			name: "columns reordered, renamed, extra column, no MPN",
			doc:  "| Footprint | Qty | ref | VALUE |\n|---|---|---|---|\n| R_0603 | 1 | R1 | 10k |\n",
			want: []BOMRow{{Refdes: "R1", Value: "10k", Footprint: "R_0603"}},
		},
		{
			name: "rows without refdes skipped, duplicates kept",
			doc:  "| Refdes | Value | Footprint |\n|---|---|---|\n|  | x | y |\n| R1 | 1 | a |\n| R1 | 2 | b |\n",
			want: []BOMRow{{Refdes: "R1", Value: "1", Footprint: "a"}, {Refdes: "R1", Value: "2", Footprint: "b"}},
		},
		{
			name: "other tables ignored, split tables merged",
			doc: "| Net | Why |\n|---|---|\n| GND | - |\n\n| Refdes | Value | Footprint |\n|---|---|---|\n| R1 | 1 | a |\n\n" +
				"| Refdes | Value | Footprint |\n|---|---|---|\n| R2 | 2 | b |\n",
			want: []BOMRow{{Refdes: "R1", Value: "1", Footprint: "a"}, {Refdes: "R2", Value: "2", Footprint: "b"}},
		},
		{
			name: "header only",
			doc:  "| Refdes | Value | Footprint |\n|---|---|---|\n",
			want: nil,
		},
		{name: "no table", doc: "# BOM\n\nnothing yet\n", wantErr: true},
		{name: "table without footprint", doc: "| Refdes | Value |\n|---|---|\n| R1 | 1 |\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBOM([]byte(tt.doc))
			if tt.wantErr {
				var nt *NoTableError
				if !errors.As(err, &nt) {
					t.Fatalf("err = %v, want NoTableError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestParsePinout(t *testing.T) {
	doc := "| Pin | Refdes | Net | Name | Notes |\n|---|---|---|---|---|\n" +
		"| 1 | U1 | GND | GND | |\n| 2 | U1 | NC | IO3 | strapping |\n| 3 | U1 | n/c | | |\n| 4 | U1 | — | | |\n| 5 | U1 | | | |\n| 6 | U1 | - | | |\n" +
		"| 7 | U1 | `/KEY_DIT` | IO4 | RTC |\n"
	got, err := ParsePinout([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []PinoutRow{
		{Refdes: "U1", Pin: "1", Name: "GND", Net: "GND"},
		{Refdes: "U1", Pin: "2", Name: "IO3", Net: NCMarker, Notes: "strapping"},
		{Refdes: "U1", Pin: "3", Net: NCMarker},
		{Refdes: "U1", Pin: "4", Net: NCMarker},
		{Refdes: "U1", Pin: "5", Net: NCMarker},
		{Refdes: "U1", Pin: "6", Net: NCMarker},
		{Refdes: "U1", Pin: "7", Name: "IO4", Net: "/KEY_DIT", Notes: "RTC"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
	if _, err := ParsePinout([]byte("| Refdes | Pin |\n|---|---|\n| U1 | 1 |\n")); err == nil {
		t.Error("table without a Net column: want an error")
	}
}

func TestGeneratedTablesReadBack(t *testing.T) {
	p := keyerProject()
	bom, err := ParseBOM(GenerateBOM(p.Name, p.Schematic))
	if err != nil {
		t.Fatal(err)
	}
	if want := BOMRows(p.Schematic); !reflect.DeepEqual(bom, want) {
		t.Errorf("BOM read back:\n got %#v\nwant %#v", bom, want)
	}
	pins, err := ParsePinout(GeneratePinout(p.Name, p.Netlist))
	if err != nil {
		t.Fatal(err)
	}
	if want := PinoutRows(p.Netlist); !reflect.DeepEqual(pins, want) {
		t.Errorf("PINOUT read back:\n got %#v\nwant %#v", pins, want)
	}
}
