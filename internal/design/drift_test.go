package design

import (
	"encoding/json"
	"strings"
	"testing"

	"copperhead/internal/kicad"
)

// generatedFiles is what init writes for the keyer project.
func generatedFiles() Files {
	return GenerateDocs(keyerProject())
}

func TestDriftRoundTripClean(t *testing.T) {
	p := keyerProject()
	r := Drift(generatedFiles(), p.Config, p.Schematic, p.Netlist)
	if !r.Clean() || len(r.Warnings) != 0 {
		t.Fatalf("freshly generated docs drift: %+v", r)
	}
}

func TestDriftOneEdit(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		old     string
		new     string
		want    Mismatch
		message string
	}{
		{
			name: "BOM value",
			doc:  "docs/BOM.md", old: "| R2 | 100k |", new: "| R2 | 10k |",
			want:    Mismatch{Doc: "docs/BOM.md", Kind: MismatchField, Refdes: "R2", Field: "value", Claim: "10k", Actual: "100k"},
			message: `docs/BOM.md: R2 value is "10k" in the doc but "100k" in the schematic`,
		},
		{
			name: "BOM value reformatted is not drift but a different value is",
			doc:  "docs/BOM.md", old: "| R2 | 100k |", new: "|R2|   **1M**   |",
			want:    Mismatch{Doc: "docs/BOM.md", Kind: MismatchField, Refdes: "R2", Field: "value", Claim: "1M", Actual: "100k"},
			message: `docs/BOM.md: R2 value is "1M" in the doc but "100k" in the schematic`,
		},
		{
			name: "BOM footprint",
			doc:  "docs/BOM.md", old: "| C1 | 10uF | Capacitor_SMD:C_0805_2012Metric |", new: "| C1 | 10uF | Capacitor_SMD:C_0603_1608Metric |",
			want: Mismatch{Doc: "docs/BOM.md", Kind: MismatchField, Refdes: "C1", Field: "footprint",
				Claim: "Capacitor_SMD:C_0603_1608Metric", Actual: "Capacitor_SMD:C_0805_2012Metric"},
			message: `docs/BOM.md: C1 footprint is "Capacitor_SMD:C_0603_1608Metric" in the doc but "Capacitor_SMD:C_0805_2012Metric" in the schematic`,
		},
		{
			name: "BOM MPN when the schematic has one",
			doc:  "docs/BOM.md", old: "| RC0603FR-071KL |", new: "| RC0603FR-0710KL |",
			want:    Mismatch{Doc: "docs/BOM.md", Kind: MismatchField, Refdes: "R10", Field: "mpn", Claim: "RC0603FR-0710KL", Actual: "RC0603FR-071KL"},
			message: `docs/BOM.md: R10 MPN is "RC0603FR-0710KL" in the doc but "RC0603FR-071KL" in the schematic`,
		},
		{
			name: "BOM row deleted",
			doc:  "docs/BOM.md", old: "| R1 | 10k | Resistor_SMD:R_0603_1608Metric | UNVERIFIED | TODO: why this part |\n", new: "",
			want:    Mismatch{Doc: "docs/BOM.md", Kind: MismatchMissingRow, Refdes: "R1", Claim: "(no row)", Actual: "10k, Resistor_SMD:R_0603_1608Metric"},
			message: `docs/BOM.md: R1 (10k, Resistor_SMD:R_0603_1608Metric) is in the schematic but has no row in the doc`,
		},
		{
			name: "BOM row added",
			doc:  "docs/BOM.md", old: "| R10 |", new: "| R9 | 1k | R_0402 | UNVERIFIED | extra |\n| R10 |",
			want:    Mismatch{Doc: "docs/BOM.md", Kind: MismatchExtraRow, Refdes: "R9", Claim: "1k, R_0402", Actual: "(not in the schematic)"},
			message: `docs/BOM.md: R9 has a row in the doc (1k, R_0402) but is not in the schematic`,
		},
		{
			name: "BOM row duplicated",
			doc:  "docs/BOM.md", old: "| R10 |", new: "| R2 | 100k | Resistor_SMD:R_0603_1608Metric | | |\n| R10 |",
			want:    Mismatch{Doc: "docs/BOM.md", Kind: MismatchDuplicateRow, Refdes: "R2", Claim: "2 rows", Actual: "1 part"},
			message: `docs/BOM.md: R2 has 2 rows in the doc but is one part in the schematic`,
		},
		{
			name: "PINOUT net",
			doc:  "docs/PINOUT.md", old: "| U1 | 4 | IO4 | /KEY_DIT |", new: "| U1 | 4 | IO4 | /KEY_DAH |",
			want:    Mismatch{Doc: "docs/PINOUT.md", Kind: MismatchField, Refdes: "U1", Pin: "4", Field: "net", Claim: "/KEY_DAH", Actual: "/KEY_DIT"},
			message: `docs/PINOUT.md: U1 pin 4 net is "/KEY_DAH" in the doc but "/KEY_DIT" in the netlist`,
		},
		{
			name: "PINOUT claims NC for a connected pin",
			doc:  "docs/PINOUT.md", old: "| U1 | 27 | IO0 | /BOOT |", new: "| U1 | 27 | IO0 | — |",
			want:    Mismatch{Doc: "docs/PINOUT.md", Kind: MismatchField, Refdes: "U1", Pin: "27", Field: "net", Claim: "NC", Actual: "/BOOT"},
			message: `docs/PINOUT.md: U1 pin 27 net is "NC" in the doc but "/BOOT" in the netlist`,
		},
		{
			name: "PINOUT row deleted",
			doc:  "docs/PINOUT.md", old: "| U2 | 3 | EN | VBUS | input |  |\n", new: "",
			want:    Mismatch{Doc: "docs/PINOUT.md", Kind: MismatchMissingRow, Refdes: "U2", Pin: "3", Claim: "(no row)", Actual: "VBUS"},
			message: `docs/PINOUT.md: U2 pin 3 (EN) is on net "VBUS" in the netlist but has no row in the doc`,
		},
		{
			name: "PINOUT row for a pin that does not exist",
			doc:  "docs/PINOUT.md", old: "| U2 | 1 |", new: "| U2 | 9 | X | GND | | |\n| U2 | 1 |",
			want:    Mismatch{Doc: "docs/PINOUT.md", Kind: MismatchExtraRow, Refdes: "U2", Pin: "9", Claim: "GND", Actual: "(not in the netlist)"},
			message: `docs/PINOUT.md: U2 pin 9 has a row in the doc (net "GND") but the netlist has no such pin`,
		},
		{
			name: "PINOUT connector row is checked though not required",
			doc:  "docs/PINOUT.md", old: "| U2 | 1 |", new: "| J1 | A4 | VBUS | GND | | |\n| U2 | 1 |",
			want:    Mismatch{Doc: "docs/PINOUT.md", Kind: MismatchField, Refdes: "J1", Pin: "A4", Field: "net", Claim: "GND", Actual: "VBUS"},
			message: `docs/PINOUT.md: J1 pin A4 net is "GND" in the doc but "VBUS" in the netlist`,
		},
	}
	p := keyerProject()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := generatedFiles()
			doc := string(files[tt.doc])
			if !strings.Contains(doc, tt.old) {
				t.Fatalf("%s has no %q", tt.doc, tt.old)
			}
			files[tt.doc] = []byte(strings.Replace(doc, tt.old, tt.new, 1))
			r := Drift(files, p.Config, p.Schematic, p.Netlist)
			if len(r.Mismatches) != 1 {
				t.Fatalf("got %d mismatches, want 1: %+v", len(r.Mismatches), r.Mismatches)
			}
			got := r.Mismatches[0]
			if got.Message != tt.message {
				t.Errorf("message:\n got %s\nwant %s", got.Message, tt.message)
			}
			got.Message = ""
			if got != tt.want {
				t.Errorf("mismatch:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestDriftMPNUnverifiedFlagTolerated(t *testing.T) {
	p := keyerProject()
	files := generatedFiles()
	files["docs/BOM.md"] = []byte(strings.Replace(string(files["docs/BOM.md"]), "| RC0603FR-071KL |", "| RC0603FR-071KL (UNVERIFIED) |", 1))
	files["docs/BOM.md"] = []byte(strings.Replace(string(files["docs/BOM.md"]), "| R1 | 10k | Resistor_SMD:R_0603_1608Metric | UNVERIFIED |",
		"| R1 | 10k | Resistor_SMD:R_0603_1608Metric | CRCW060310K0 UNVERIFIED |", 1))
	if r := Drift(files, p.Config, p.Schematic, p.Netlist); !r.Clean() {
		t.Errorf("MPN flags are not drift: %+v", r.Mismatches)
	}
}

func TestDriftMissingDocs(t *testing.T) {
	p := keyerProject()
	files := generatedFiles()
	delete(files, "docs/BOM.md")
	delete(files, "docs/PINOUT.md")
	r := Drift(files, p.Config, p.Schematic, p.Netlist)
	want := []string{
		"docs/BOM.md: the file is missing but the schematic has 12 parts",
		"docs/PINOUT.md: the file is missing but the netlist has 18 IC pins",
	}
	if len(r.Mismatches) != 2 || r.Mismatches[0].Message != want[0] || r.Mismatches[1].Message != want[1] {
		t.Fatalf("got %+v", r.Mismatches)
	}
	if r.Mismatches[0].Kind != MismatchDocMissing {
		t.Errorf("kind = %s", r.Mismatches[0].Kind)
	}
}

func TestDriftTableMissing(t *testing.T) {
	p := keyerProject()
	files := generatedFiles()
	files["docs/BOM.md"] = []byte("# BOM\n\nTo do.\n")
	r := Drift(files, p.Config, p.Schematic, p.Netlist)
	if len(r.Mismatches) != 1 || r.Mismatches[0].Kind != MismatchTableMissing ||
		r.Mismatches[0].Message != "docs/BOM.md: no table with columns Refdes, Value, Footprint, but the schematic has 12 parts" {
		t.Fatalf("got %+v", r.Mismatches)
	}
}

func TestDriftEmptySchematic(t *testing.T) {
	cfg := keyerConfig()
	empty := &kicad.Schematic{Parts: []kicad.Part{{Refdes: "#PWR01", Value: "GND"}}}
	tests := []struct {
		name     string
		files    Files
		warnings int
	}{
		{"no docs", Files{}, 0},
		{"empty BOM", Files{"docs/BOM.md": GenerateBOM("x", empty)}, 0},
		{"populated BOM and PINOUT", generatedFiles(), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Drift(tt.files, cfg, empty, &kicad.Netlist{})
			if !r.Clean() {
				t.Errorf("zero-part schematic reported mismatches: %+v", r.Mismatches)
			}
			if len(r.Warnings) != tt.warnings {
				t.Errorf("warnings = %q, want %d", r.Warnings, tt.warnings)
			}
		})
	}
	r := Drift(generatedFiles(), cfg, empty, nil)
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "docs/BOM.md lists 12 parts but the schematic has none yet") {
		t.Errorf("warnings = %q", r.Warnings)
	}
}

func TestDriftNilInputs(t *testing.T) {
	p := keyerProject()
	if r := Drift(Files{}, p.Config, nil, nil); !r.Clean() || len(r.Warnings) != 0 {
		t.Errorf("nothing to compare: %+v", r)
	}
	// Only the netlist: the PINOUT check runs, the BOM check does not.
	r := Drift(Files{}, p.Config, nil, p.Netlist)
	if len(r.Mismatches) != 1 || r.Mismatches[0].Doc != "docs/PINOUT.md" {
		t.Errorf("got %+v", r.Mismatches)
	}
	// No ICs: a missing PINOUT.md is fine.
	nl := &kicad.Netlist{Nets: []kicad.Net{{Name: "GND", Nodes: []kicad.NetNode{{Refdes: "R1", Pin: "1"}, {Refdes: "C1", Pin: "1"}}}}}
	if r := Drift(Files{}, p.Config, nil, nl); !r.Clean() {
		t.Errorf("no ICs, no PINOUT.md: %+v", r.Mismatches)
	}
}

func TestDriftCustomDocsDir(t *testing.T) {
	p := keyerProject()
	p.Config.Docs = "design/"
	files := GenerateDocs(p)
	if _, ok := files["design/BOM.md"]; !ok {
		t.Fatalf("files = %v", files)
	}
	if r := Drift(files, p.Config, p.Schematic, p.Netlist); !r.Clean() {
		t.Errorf("got %+v", r.Mismatches)
	}
}

func TestDriftReportJSON(t *testing.T) {
	p := keyerProject()
	files := generatedFiles()
	files["docs/BOM.md"] = []byte(strings.Replace(string(files["docs/BOM.md"]), "| R2 | 100k |", "| R2 | 10k |", 1))
	data, err := json.Marshal(Drift(files, p.Config, p.Schematic, p.Netlist))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"mismatches":[{"doc":"docs/BOM.md","kind":"field","refdes":"R2","field":"value","claim":"10k","actual":"100k",` +
		`"message":"docs/BOM.md: R2 value is \"10k\" in the doc but \"100k\" in the schematic"}],"warnings":[]}`
	if string(data) != want {
		t.Errorf("JSON:\n got %s\nwant %s", data, want)
	}
}
