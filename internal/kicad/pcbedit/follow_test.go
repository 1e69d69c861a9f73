package pcbedit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/kicad/kigen"
	"copperhead/internal/kicad/schedit"
	"copperhead/internal/kicadcli"
	"copperhead/internal/sexpr"
	"copperhead/internal/testkit"
)

func kicadTool(t *testing.T) *kicadcli.Tool {
	t.Helper()
	tool, err := kicadcli.Find(context.Background())
	if err != nil {
		t.Skipf("kicad-cli: %v", err)
	}
	return tool
}

func needFootprints(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(kigen.FootprintDir(), "Resistor_SMD.pretty", "R_0805_2012Metric.kicad_mod")); err != nil {
		t.Skipf("KiCad footprint libraries not installed: %v", err)
	}
}

// copyDir copies the files of dir (not sub-folders) into a temporary folder.
func copyDir(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// parity runs KiCad's DRC with schematic parity and returns the
// footprint/symbol mismatches naming ref, and the DRC violations.
func parity(t *testing.T, tool *kicadcli.Tool, pcb, ref string) (par, drc []string) {
	t.Helper()
	r, err := tool.DRC(context.Background(), pcb)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range r.Parity {
		if v.Type != "footprint_symbol_mismatch" {
			continue // the KiCad 6 fixture board has no nets on its pads
		}
		for _, it := range v.Items {
			if strings.Contains(it.Description, ref) {
				par = append(par, v.Type+": "+v.Description)
			}
		}
	}
	for _, v := range r.Violations {
		drc = append(drc, v.Type+": "+v.Description)
	}
	return par, drc
}

// TestFollowFieldsFixtureBoard sets a resistor's value and footprint in the
// fixture's schematic (schedit, as edit set-field does) and checks that the
// board followed: KiCad's schematic parity, which flags both without
// FollowFields, is clean for the part again, and the new footprint's pads
// kept their nets.
func TestFollowFieldsFixtureBoard(t *testing.T) {
	tool := kicadTool(t)
	needFootprints(t)
	dir := copyDir(t, "../../../examples/open-telegraph/hardware")
	root := filepath.Join(dir, "open-telegraph.kicad_sch")
	pcb := filepath.Join(dir, "open-telegraph.kicad_pcb")
	src, err := os.ReadFile(pcb)
	if err != nil {
		t.Fatal(err)
	}
	const ref, newFP = "R1", "Resistor_SMD:R_0805_2012Metric"
	for _, f := range [][3]string{{ref, "Value", "4.7k"}, {ref, "Footprint", newFP}, {"R2", "dnp", "yes"}, {"R2", "in_bom", "no"}} {
		d, err := schedit.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		p, err := schedit.SetField(d, f[0], f[1], f[2], "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Apply(d); err != nil {
			t.Fatal(err)
		}
	}
	if par, _ := parity(t, tool, pcb, ref); len(par) != 2 {
		t.Fatalf("without FollowFields: parity %q, want the value and the footprint mismatch", par)
	}
	if par, _ := parity(t, tool, pcb, "R2"); len(par) != 2 {
		t.Fatalf("without FollowFields: R2 parity %q, want the DNP and BOM mismatch", par)
	}
	changes := []FieldChange{{Ref: ref, Field: "Value", Value: "4.7k"}, {Ref: ref, Field: "Footprint", Value: newFP}, {Ref: "R99", Field: "Value", Value: "1k"},
		{Ref: "R2", Field: "dnp", Value: "yes"}, {Ref: "R2", Field: "in_bom", Value: "no"}}
	next, lines, err := FollowFields("open-telegraph.kicad_pcb", src, changes, kigen.FindFootprintLibraries(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 || !strings.Contains(lines[0], `R1 Value "5.1k" -> "4.7k"`) || !strings.Contains(lines[1], "R1 footprint Resistor_SMD:R_0603_1608Metric -> "+newFP) ||
		!strings.Contains(lines[2], "R2 attributes (smd) -> (smd exclude_from_bom dnp)") {
		t.Errorf("lines %q", lines)
	}
	if err := os.WriteFile(pcb, next, 0o644); err != nil {
		t.Fatal(err)
	}
	par, drc := parity(t, tool, pcb, ref)
	if r2, _ := parity(t, tool, pcb, "R2"); len(par)+len(r2) != 0 {
		t.Errorf("after FollowFields: parity %q %q", par, r2)
	}
	t.Logf("DRC after the footprint change: %q", drc)
	// The new footprint is the 0805 one, with the old pads' nets, UUID and
	// symbol link; nothing else on the board moved.
	b, err := sexpr.Parse("next", next)
	if err != nil {
		t.Fatal(err)
	}
	var fp *sexpr.Node
	for f := range b.All("footprint") {
		if footprintRef(f) == ref {
			fp = f
		}
	}
	if fp == nil || fp.Arg(0) != newFP || fp.Value1("uuid") != "af358795-8a27-4682-b761-9e0bde6f1c70" ||
		fp.Value1("path") != "/e67a66c3-4558-4f17-86ff-a7d4f3168eca/b90480a3-bdfb-47d5-924e-026bb6c13243" || footprintValue(fp) != "4.7k" {
		t.Fatalf("new R1 footprint: %s", kigen.Format(fp))
	}
	nets := map[string]string{}
	for p := range fp.All("pad") {
		nets[p.Arg(0)] = p.Child("net").Arg(1)
	}
	if nets["1"] != "CC1" || nets["2"] != "GND" {
		t.Errorf("pad nets %v, want 1 CC1, 2 GND", nets)
	}
	start := bytes.Index(src, []byte(`(footprint "Resistor_SMD:R_0603_1608Metric"`+"\n\t\t(layer \"F.Cu\")\n\t\t(uuid \"af358795"))
	if start < 0 || !bytes.Equal(next[:start], src[:start]) {
		t.Error("bytes before R1 changed")
	}
	// Applying again changes nothing.
	again, lines, err := FollowFields("b", next, changes, kigen.FindFootprintLibraries(dir))
	if err != nil || len(lines) != 0 || !bytes.Equal(again, next) {
		t.Errorf("second follow: %q %v", lines, err)
	}
}

func TestFollowFieldsRefusals(t *testing.T) {
	needFootprints(t)
	src, err := os.ReadFile(fixtureBoard)
	if err != nil {
		t.Fatal(err)
	}
	libs := kigen.FindFootprintLibraries(t.TempDir())
	cases := []struct {
		name   string
		change FieldChange
		want   string
	}{
		{"not installed", FieldChange{Ref: "R1", Field: "Footprint", Value: "Resistor_SMD:R_9999_Nope"}, "R_9999_Nope.kicad_mod does not exist"},
		{"no library", FieldChange{Ref: "R1", Field: "Footprint", Value: "NoSuchLib:R"}, "no library NoSuchLib"},
		{"pads not covered", FieldChange{Ref: "U2", Field: "Footprint", Value: "Resistor_SMD:R_0805_2012Metric"}, "has no pad for pad 3 (net"},
		{"reference", FieldChange{Ref: "R1", Field: "Reference", Value: "R100"}, "changing reference R1"},
		{"new pads", FieldChange{Ref: "R1", Field: "Footprint", Value: "Package_TO_SOT_SMD:SOT-23"}, "has pads 3 that R1's"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := FollowFields("board.kicad_pcb", src, []FieldChange{c.change}, libs)
			if !errors.Is(err, ErrUpdateInKiCad) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Tools > Update PCB from Schematic (F8)") {
				t.Errorf("err = %v, want ErrUpdateInKiCad naming %q and the KiCad action", err, c.want)
			}
		})
	}
}

// TestFollowFieldsKiCad6Board: a KiCad 6 board writes values as
// (fp_text value ..), quoted or bare. Its value follows (KiCad's parity for
// the part clean again); a footprint change is refused, since a KiCad 9
// library footprint does not belong in a KiCad 6 file.
func TestFollowFieldsKiCad6Board(t *testing.T) {
	tool := kicadTool(t)
	needFootprints(t)
	dir := t.TempDir()
	for src, dst := range map[string]string{
		"../testdata/kicad6/kicad6.kicad_sch": "kicad6.kicad_sch",
		"../testdata/kicad6/filter.kicad_sch": "filter.kicad_sch",
		"../testdata/board/legacy.kicad_pcb":  "kicad6.kicad_pcb",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if dst == "kicad6.kicad_sch" {
			// R1's value as KiCad 6 keeps it: the symbol's property and the
			// root's symbol_instances entry (what set-field writes there).
			b = bytes.ReplaceAll(b, []byte(`"Value" "10k"`), []byte(`"Value" "47k"`))
			b = bytes.ReplaceAll(b, []byte(`(value "10k")`), []byte(`(value "47k")`))
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pcb := filepath.Join(dir, "kicad6.kicad_pcb")
	src, err := os.ReadFile(pcb)
	if err != nil {
		t.Fatal(err)
	}
	if par, _ := parity(t, tool, pcb, "R1"); len(par) != 1 {
		t.Fatalf("without FollowFields: parity %q, want R1's value mismatch", par)
	}
	libs := kigen.FindFootprintLibraries(dir)
	next, lines, err := FollowFields("kicad6.kicad_pcb", src, []FieldChange{{Ref: "R1", Field: "Value", Value: "47k"}, {Ref: "C10", Field: "Value", Value: "1u"}}, libs)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || !bytes.Contains(next, []byte(`(fp_text value "47k" (at 0 1.43 90)`)) || !bytes.Contains(next, []byte(`(fp_text value "1u" (at 0 1.43)`)) {
		t.Errorf("lines %q, board:\n%s", lines, next)
	}
	if len(next)-len(src) != len(`"47k"`)-len(`"10k"`)+len(`"1u"`)-len(`100n`) {
		t.Error("more than the two values changed")
	}
	if err := os.WriteFile(pcb, next, 0o644); err != nil {
		t.Fatal(err)
	}
	if par, _ := parity(t, tool, pcb, "R1"); len(par) != 0 {
		t.Errorf("after FollowFields: parity %q", par)
	}
	_, _, err = FollowFields("kicad6.kicad_pcb", src, []FieldChange{{Ref: "R1", Field: "Footprint", Value: "Resistor_SMD:R_0805_2012Metric"}}, libs)
	if !errors.Is(err, ErrUpdateInKiCad) || !strings.Contains(err.Error(), "board's format (20211014) is older") {
		t.Errorf("footprint change on a KiCad 6 board: %v, want a refusal", err)
	}
	// The bottom-side mounting hole is not replaced either.
	_, _, err = FollowFields("kicad6.kicad_pcb", src, []FieldChange{{Ref: "H1", Field: "Footprint", Value: "MountingHole:MountingHole_3.2mm_M3_Pad"}}, libs)
	if !errors.Is(err, ErrUpdateInKiCad) || !strings.Contains(err.Error(), "bottom side") {
		t.Errorf("bottom-side footprint change: %v, want a refusal", err)
	}
}

// tinyBoard is a KiCad 9 board with one footprint carrying a symbol field
// (MPN) and one placed twice under the same reference.
var tinyBoard = `(kicad_pcb
	(version 20241229)
	(footprint "Resistor_SMD:R_0603_1608Metric"
		(layer "F.Cu")
		(uuid "00000000-0000-4000-8000-000000000001")
		(at 10 20 90)
		(property "Reference" "R1" (at 0 -1.43 90) (layer "F.SilkS"))
		(property "Value" "10k" (at 0 1.43 90) (layer "F.Fab"))
		(property "MPN" "RC0603FR-0710KL" (at 0 0 0) (layer "F.Fab") (hide yes))
		(path "/00000000-0000-4000-8000-0000000000a1")
		(attr smd)
		(pad "1" smd roundrect (at -0.825 0 90) (size 0.8 0.95) (layers "F.Cu" "F.Mask" "F.Paste") (net 1 "A"))
		(pad "2" smd roundrect (at 0.825 0 90) (size 0.8 0.95) (layers "F.Cu" "F.Mask" "F.Paste") (net 2 "B"))
	)
` + tinyR2("2", "30") + tinyR2("3", "50") + ")\n"

// tinyR2 is one placement of tinyBoard's R2: n ends its uuid and path, x is
// where it stands.
func tinyR2(n, x string) string {
	return strings.NewReplacer("{n}", n, "{x}", x).Replace(`	(footprint "Resistor_SMD:R_0603_1608Metric"
		(layer "F.Cu")
		(uuid "00000000-0000-4000-8000-00000000000{n}")
		(at {x} 20)
		(property "Reference" "R2" (at 0 -1.43 0) (layer "F.SilkS"))
		(property "Value" "1k" (at 0 1.43 0) (layer "F.Fab"))
		(path "/00000000-0000-4000-8000-0000000000a{n}")
	)
`)
}

func TestFollowFieldsSplices(t *testing.T) {
	needFootprints(t)
	libs := kigen.FindFootprintLibraries(t.TempDir())
	cases := []struct {
		name    string
		changes []FieldChange
		has     []string // in the new board
		lines   []string
		err     string
	}{
		{"symbol field and flags", []FieldChange{{Ref: "R1", Field: "MPN", Value: "RC0603FR-0747KL"}, {Ref: "R1", Field: "dnp", Value: "yes"}, {Ref: "R1", Field: "in_bom", Value: "no"}},
			[]string{`(property "MPN" "RC0603FR-0747KL" (at 0 0 0)`, "(attr smd exclude_from_bom dnp)"},
			[]string{"R1 attributes (smd) -> (smd exclude_from_bom dnp)", `R1 MPN "RC0603FR-0710KL" -> "RC0603FR-0747KL"`}, ""},
		{"flag back off, no attr yet", []FieldChange{{Ref: "R2", Field: "dnp", Value: "yes", Path: "/00000000-0000-4000-8000-0000000000a3"}},
			[]string{"(path \"/00000000-0000-4000-8000-0000000000a3\")\n\t\t(attr dnp)"}, []string{"R2 attributes () -> (dnp)"}, ""},
		{"flags already so", []FieldChange{{Ref: "R1", Field: "dnp", Value: "no"}, {Ref: "R1", Field: "exclude_from_sim", Value: "yes"}}, nil, nil, ""},
		{"swap keeps fields and flags", []FieldChange{{Ref: "R1", Field: "Footprint", Value: "Resistor_SMD:R_0805_2012Metric"}, {Ref: "R1", Field: "MPN", Value: "X"}, {Ref: "R1", Field: "dnp", Value: "yes"}},
			[]string{`(footprint "Resistor_SMD:R_0805_2012Metric"`, "\t\t(at 10 20 90)\n", `(property "MPN" "X"`, "(attr smd dnp)", `(net 1 "A")`, `(net 2 "B")`, "(at -0.9125 0 90)"},
			[]string{"R1 footprint Resistor_SMD:R_0603_1608Metric -> Resistor_SMD:R_0805_2012Metric", "R1 attributes () -> (dnp)"}, ""},
		{"repeated reference without a path", []FieldChange{{Ref: "R2", Field: "Value", Value: "2k"}}, nil, nil, "2 footprints are named R2"},
		{"on_board no", []FieldChange{{Ref: "R1", Field: "on_board", Value: "no"}}, nil, nil, "R1 is on the board and its symbol no longer is"},
		{"exclude_from_board yes", []FieldChange{{Ref: "R1", Field: "exclude_from_board", Value: "yes"}}, nil, nil, "R1 is on the board and its symbol no longer is"},
		{"as schedit.Expect spells the flags", []FieldChange{{Ref: "R1", Field: "exclude_from_bom", Value: "yes"}, {Ref: "R1", Field: "exclude_from_board", Value: "no"}},
			[]string{"(attr smd exclude_from_bom)"}, []string{"R1 attributes (smd) -> (smd exclude_from_bom)"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next, lines, err := FollowFields("tiny.kicad_pcb", []byte(tinyBoard), c.changes, libs)
			if c.err != "" {
				if !errors.Is(err, ErrUpdateInKiCad) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			testkit.ContainsAll(t, "board", string(next), c.has...)
			if len(lines) != len(c.lines) {
				t.Fatalf("lines %q, want %q", lines, c.lines)
			}
			for i, l := range c.lines {
				if !strings.Contains(lines[i], l) {
					t.Errorf("line %q, want %q", lines[i], l)
				}
			}
			if len(c.lines) == 0 && string(next) != tinyBoard {
				t.Error("board changed")
			}
		})
	}
}
