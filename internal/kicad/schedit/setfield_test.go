package schedit

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestSetFieldValue(t *testing.T) {
	root := fixtureRoot(t)
	before := netlist(t, root)
	orig, _ := os.ReadFile(root)
	d := loadVerified(t, root)
	p, err := SetField(d, "R6", "Value", "4.7k", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Touched) != 1 || p.Touched[0] != "R6" {
		t.Errorf("touched = %v", p.Touched)
	}
	applyVerified(t, d, p)
	if n := diffStat(t, orig, root); n != 2 {
		t.Errorf("diff touches %d lines, want 2", n)
	}
	after := netlist(t, root)
	if diff := netDiff(before, after); len(diff) != 0 {
		t.Errorf("connectivity changed: %v", diff)
	}
	for i, c := range after.Components {
		was := before.Components[i]
		switch {
		case c.Refdes == "R6" && c.Value != "4.7k":
			t.Errorf("R6 value = %q", c.Value)
		case c.Refdes != "R6" && c.Value != was.Value:
			t.Errorf("%s value changed %q -> %q", c.Refdes, was.Value, c.Value)
		}
	}
	p2, err := SetField(mustLoad(t, root), "R6", "Value", "4.7k", "")
	if err != nil || !p2.NoOp() {
		t.Fatalf("re-apply: %v, %v; want no-op", p2, err)
	}
}

func TestSetFieldAddsMPNAndFlags(t *testing.T) {
	root := fixtureRoot(t)
	d := mustLoad(t, root)
	p, err := SetField(d, "R6", "MPN", "RC0603FR-0710KL", "")
	if err != nil {
		t.Fatal(err)
	}
	applyPlan(t, d, p)
	d = mustLoad(t, root)
	var got string
	for _, part := range d.Model.Parts {
		if part.Refdes == "R6" {
			got = part.MPN
		}
	}
	if got != "RC0603FR-0710KL" {
		t.Fatalf("R6 MPN after add = %q", got)
	}
	src, _ := os.ReadFile(root)
	i := strings.Index(string(src), `(property "MPN" "RC0603FR-0710KL"`)
	if i < 0 || !strings.Contains(string(src[i:i+400]), "(hide yes)") {
		t.Errorf("added MPN property is not hidden:\n%s", src[i:min(len(src), i+400)])
	}
	netlist(t, root) // still loads in kicad-cli

	p, err = SetField(d, "R6", "dnp", "yes", "")
	if err != nil {
		t.Fatal(err)
	}
	applyPlan(t, d, p)
	d = mustLoad(t, root)
	for _, part := range d.Model.Parts {
		if part.Refdes == "R6" && !part.DNP {
			t.Error("R6 not DNP after set-field dnp yes")
		}
	}
	if p, err := SetField(d, "R6", "dnp", "yes", ""); err != nil || !p.NoOp() {
		t.Errorf("dnp re-apply: %v, %v", p, err)
	}
	if p, err := SetField(d, "R6", "MPN", "RC0603FR-0710KL", ""); err != nil || !p.NoOp() {
		t.Errorf("MPN re-apply: %v, %v", p, err)
	}
}

func TestSetFieldRefusals(t *testing.T) {
	d := mustLoad(t, fixtureRoot(t))
	for _, c := range []struct{ ref, field, value, want string }{
		{"R99", "Value", "1k", "no part R99"},
		{"R6", "Reference", "R7", "re-annotate"},
		{"R6", "dnp", "maybe", "yes/no flag"},
		{"R6", "Footprint", "", `set-field R6 Footprint "": R6 goes on the board (on_board yes), which needs its footprint`},
	} {
		_, err := SetField(d, c.ref, c.field, c.value, "")
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SetField(%s %s %s) = %v, want refusal %q", c.ref, c.field, c.value, err, c.want)
		}
	}
}

func TestSetFieldReusedSheet(t *testing.T) {
	const demo = "/usr/share/kicad/demos/complex_hierarchy"
	if _, err := os.Stat(demo); err != nil {
		t.Skip("KiCad demos not installed")
	}
	root := copyProject(t, demo, "complex_hierarchy.kicad_sch")
	d := loadVerified(t, root)
	var ref string
	for _, p := range d.Model.Parts {
		if p.SheetFile == "ampli_ht.kicad_sch" && strings.HasPrefix(p.Refdes, "R") {
			ref = p.Refdes
			break
		}
	}
	if ref == "" {
		t.Skip("no resistor in the reused sheet")
	}
	_, err := SetField(d, ref, "Value", "1k", "")
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "--instance all") {
		t.Fatalf("per-instance value change: err = %v, want an honest refusal", err)
	}
	p, err := SetField(d, ref, "Value", "1k", AllInstances)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Expect.Fields) < 2 {
		t.Errorf("expect %v, want the value of every instance", p.Expect.Fields)
	}
	applyVerified(t, d, p)
	d = mustLoad(t, root)
	n := 0
	for _, part := range d.Model.Parts {
		if part.SheetFile == "ampli_ht.kicad_sch" && part.Value == "1k" && strings.HasPrefix(part.Refdes, "R") {
			n++
		}
	}
	if n < 2 {
		t.Errorf("%d instances took the value, want both", n)
	}
}

// kicad6Fixture copies testdata/kicad6 (format 20211123: references,
// values and footprints in the root's symbol_instances).
func kicad6Fixture(t *testing.T) string {
	return copyProject(t, "../testdata/kicad6", "kicad6.kicad_sch")
}

// Issue #12 item 3: on a KiCad 6 file set-field spliced the property only,
// and KiCad kept reading the symbol_instances entry's value.
func TestSetFieldKiCad6SymbolInstances(t *testing.T) {
	for _, c := range []struct {
		ref, field, value, instance string
		entries                     int // symbol_instances entries that must change
	}{
		{"R1", "Value", "47k", "", 1},
		{"R1", "Footprint", "Resistor_SMD:R_0805_2012Metric", "", 1},
		{"R10", "Value", "2k2", AllInstances, 2}, // Filter A and Filter B
		{"R1", "MPN", "RC0603FR-0747KL", "", 0},
		{"R1", "in_bom", "no", "", 0},
	} {
		t.Run(c.ref+"_"+c.field, func(t *testing.T) {
			root := kicad6Fixture(t)
			d := loadVerified(t, root)
			p, err := SetField(d, c.ref, c.field, c.value, c.instance)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(strings.Join(p.Summary, "\n"))
			applyVerified(t, d, p)
			now, _ := os.ReadFile(root)
			key := map[string]string{"Value": "value", "Footprint": "footprint"}[c.field]
			if key != "" {
				if got := strings.Count(string(now), "("+key+" "+`"`+c.value+`")`); got != c.entries {
					t.Errorf("symbol_instances has %d entries with (%s %q), want %d", got, key, c.value, c.entries)
				}
			}
			// set-field again is a no-op.
			if again, err := SetField(mustLoad(t, root), c.ref, c.field, c.value, c.instance); err != nil || !again.NoOp() {
				t.Errorf("again: %v, %v", again.Summary, err)
			}
		})
	}
}

// A sheet used three times (testdata/reused3) really is one symbol for
// three references: the refusal names all three, and --instance all
// changes and expects all three in KiCad's netlist.
func TestSetFieldSheetUsedThreeTimes(t *testing.T) {
	root := copyProject(t, "../testdata/reused3", "reused3.kicad_sch")
	d := loadVerified(t, root)
	_, err := SetField(d, "R201", "Value", "22k", "")
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "R201 sits in a sheet used 3 times (R101, R201, R301)") {
		t.Fatalf("err = %v, want the three references named", err)
	}
	p, err := SetField(d, "R201", "Value", "22k", AllInstances)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, f := range p.Expect.Fields {
		refs = append(refs, f.Ref+" "+f.Field+"="+f.Value)
	}
	if got := strings.Join(refs, ", "); got != "R101 Value=22k, R201 Value=22k, R301 Value=22k" {
		t.Errorf("expect %s", got)
	}
	if got := strings.Join(p.Touched, ","); got != "R101,R201,R301" {
		t.Errorf("touched %s", got)
	}
	applyVerified(t, d, p)
}

// TestSetFieldBadArgs: arguments no design could take are refused before
// any design is read (CheckSetField), as ErrBadArgs, which the command line
// makes a usage error; SetField refuses them the same way.
func TestSetFieldBadArgs(t *testing.T) {
	d := mustLoad(t, fixtureRoot(t))
	for _, c := range []struct{ ref, field, value, want string }{
		{"", "Value", "1k", "set-field needs a reference: REF is empty"},
		{" ", "Value", "1k", "REF is empty"},
		{"R6", "", "1k", "set-field needs a field name: FIELD is empty"},
		{"R6", "  ", "1k", "FIELD is empty"},
		{"R6", "Value", "", `set-field R6 Value "": a part's Value cannot be empty`},
		{"R6", "Value", "  ", "a part's Value cannot be empty"},
		{"R6", "dnp", "", `dnp is a yes/no flag, not ""`},
		{"R6", "in_bom", "maybe", `in_bom is a yes/no flag, not "maybe"`},
	} {
		for name, err := range map[string]error{"CheckSetField": CheckSetField(c.ref, c.field, c.value), "SetField": func() error {
			_, err := SetField(d, c.ref, c.field, c.value, "")
			return err
		}()} {
			if !errors.Is(err, ErrBadArgs) || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s(%q, %q, %q) = %v, want a bad-arguments refusal %q", name, c.ref, c.field, c.value, err, c.want)
			}
		}
	}
	for _, c := range [][3]string{{"R6", "Value", "1k"}, {"R6", "MPN", ""}, {"R6", "Datasheet", ""}, {"R6", "Footprint", ""}, {"R6", "dnp", "No"}} {
		if err := CheckSetField(c[0], c[1], c[2]); err != nil {
			t.Errorf("CheckSetField(%q) = %v, want nil", c, err)
		}
	}
	// A design refusal is not one of the arguments.
	if _, err := SetField(d, "R6", "Reference", "R7", ""); !errors.Is(err, ErrRefused) || errors.Is(err, ErrBadArgs) {
		t.Errorf("Reference: %v, want a refusal that is not ErrBadArgs", err)
	}
}

// TestSetFieldEmptyValue: an empty value clears a property that is there,
// adds nothing for one that is missing (an empty field is no field), and
// clears a Footprint once the part is off the board; KiCad's netlist
// agrees each time.
func TestSetFieldEmptyValue(t *testing.T) {
	root := fixtureRoot(t)
	d := loadVerified(t, root)
	p, err := SetField(d, "R6", "MPN", "", "")
	if err != nil || !p.NoOp() || p.Op != `set-field R6 MPN ""` {
		t.Fatalf("clearing a missing MPN: %+v, %v; want a no-op named set-field R6 MPN \"\"", p, err)
	}
	p, err = SetField(d, "R6", "MPN", "RC0603FR-0710KL", "")
	if err != nil {
		t.Fatal(err)
	}
	applyVerified(t, d, p)
	d = loadVerified(t, root)
	if p, err = SetField(d, "R6", "MPN", "", ""); err != nil || p.NoOp() {
		t.Fatalf("clearing MPN: %v, %v", p, err)
	}
	applyVerified(t, d, p)
	src, _ := os.ReadFile(root)
	if !strings.Contains(string(src), `(property "MPN" ""`) {
		t.Errorf("R6's MPN was not cleared")
	}

	d = loadVerified(t, root)
	if p, err = SetField(d, "R6", "on_board", "no", ""); err != nil {
		t.Fatal(err)
	}
	applyVerified(t, d, p)
	d = loadVerified(t, root)
	if p, err = SetField(d, "R6", "Footprint", "", ""); err != nil || p.NoOp() {
		t.Fatalf("clearing the footprint of a part off the board: %v, %v", p, err)
	}
	applyVerified(t, d, p)
	for _, part := range mustLoad(t, root).Model.Parts {
		if part.Refdes == "R6" && part.Footprint != "" {
			t.Errorf("R6 footprint = %q after clearing", part.Footprint)
		}
	}
}
