package draft

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/testkit"
)

func needLibraries(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(InstalledLibrary().SymDir, "Device.kicad_sym")); err != nil {
		t.Skip("KiCad symbol libraries are not installed")
	}
}

// draftFile validates and draws testdata/<name>.json into a temp dir and
// returns the sheet's path.
func draftFile(t *testing.T, name string) (string, *Report) {
	t.Helper()
	return draftPath(t, filepath.Join("testdata", name+".json"))
}

// draftPath validates and draws the intent at path into a temp dir, twice
// to hold the engine to the same bytes, and returns the sheet's path.
func draftPath(t *testing.T, intent string) (string, *Report) {
	t.Helper()
	needLibraries(t)
	in, err := ReadIntent(intent)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Validate(in, filepath.Base(intent), Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := Schematic(r, in.Project, Options{})
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := Schematic(r, in.Project, Options{})
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("a second draw of the same intent differs (err %v)", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, rep.File)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, rep
}

// TestSchematicIntents draws each intent and holds the result to what
// KiCad says: it loads, ERC is clean, and kicad-cli's netlist has exactly
// the intent's connectivity.
func TestSchematicIntents(t *testing.T) {
	for _, name := range []string{"ldo", "mcu_usb", "opamp"} {
		t.Run(name, func(t *testing.T) {
			path, rep := draftFile(t, name)
			t.Logf("%+v", *rep)
			items, bad := sheetItems(t, path)
			if err := checkLegible(items); err != nil || len(bad) > 0 {
				t.Errorf("the written sheet: %v %v", err, bad)
			}
			tool, err := kicadcli.Find(context.Background())
			if err != nil {
				t.Skipf("kicad-cli: %v", err)
			}
			tool.NoCache = true
			erc, err := tool.ERC(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			var problems []string
			for _, v := range erc.Violations {
				problems = append(problems, v.Type+": "+v.Description)
			}
			if len(problems) > 0 {
				t.Errorf("ERC on the drafted sheet: %d violations:\n%s", len(problems), strings.Join(problems, "\n"))
			}
			nl, err := tool.Netlist(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			in, _ := ReadIntent(filepath.Join("testdata", name+".json"))
			wantNets(t, in, nl)
		})
	}
}

// netPins is kicad-cli's netlist as net name (the root sheet's "/" prefix
// dropped) -> its pins as REF.PIN.
func netPins(nl *kicad.Netlist) map[string][]string {
	got := map[string][]string{}
	for _, n := range nl.Nets {
		name := strings.TrimPrefix(n.Name, "/")
		for _, nd := range n.Nodes {
			got[name] = append(got[name], nd.Refdes+"."+nd.Pin)
		}
	}
	return got
}

// wantNets compares kicad-cli's netlist with the intent: every intent net
// exists under its name (KiCad prefixes local labels with the sheet path
// "/") with exactly the intent's pins, numbers resolved.
func wantNets(t *testing.T, in *Intent, nl *kicad.Netlist) {
	t.Helper()
	r, err := Validate(in, "intent", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := netPins(nl)
	for _, n := range r.nets {
		pins := got[n.Name]
		for _, p := range n.Pins {
			found := false
			for _, g := range pins {
				if g == p {
					found = true
				}
			}
			if !found {
				t.Errorf("net %s: kicad-cli has %v, missing %s", n.Name, pins, p)
			}
		}
		if len(pins) < len(n.Pins) {
			t.Errorf("net %s: kicad-cli has %d pins, the intent %d", n.Name, len(pins), len(n.Pins))
		}
	}
}

func TestValidateFindings(t *testing.T) {
	needLibraries(t)
	in := &Intent{
		Parts: []IntentPart{
			{Ref: "R1", LibID: "Device:R", Footprint: "Resistor_SMD:R_0603_1608Metric"},
			{Ref: "R1", LibID: "Device:R", Footprint: "Resistor_SMD:R_0603_1608Metric"},
			{Ref: "U1", LibID: "Regulator_Linear:AP2112K-3.4", Footprint: "Package_TO_SOT_SMD:SOT-23-5"},
			{Ref: "C1", LibID: "Devise:C", Footprint: "Capacitor_SMD:C_0603_1608Metric"},
			{Ref: "C2", LibID: "Device:C", Footprint: "Capacitor_SMD:C_0603_1608Metrix"},
			{Ref: "P1", LibID: "power:GND"},
			{Ref: "9X", LibID: "Device:R"},
		},
		Nets: []IntentNet{
			{Name: "A", Pins: []string{"R1.1", "C2.1"}},
			{Name: "B", Pins: []string{"R1.1", "C2.3"}},
			{Name: "ONE", Pins: []string{"C2.2"}},
			{Name: "D", Pins: []string{"R9.1", "R1.x"}},
		},
	}
	_, err := Validate(in, "bad.json", Options{BOM: map[string]string{"R1": "10k", "R7": "1k"}})
	var fe *FindingsError
	if !errors.As(err, &fe) {
		t.Fatalf("Validate = %v, want findings", err)
	}
	msg := err.Error()
	testkit.ContainsAll(t, "Validate's error", msg,
		"reference R1 is used twice",
		"symbol Regulator_Linear:AP2112K-3.4 not found (closest: AP2112K-3.3",
		"symbol library Devise not found (closest: Device",
		"footprint Capacitor_SMD:C_0603_1608Metrix not found (closest: C_0603_1608Metric",
		"power:GND is a power symbol",
		`reference "9X" must be letters then a number`,
		"R1.1 is already on net A",
		"C2 (Device:C) has no pin 3",
		"net ONE has 1 pin",
		"unknown reference R9",
		"R1 (Device:R) has no pin x",
		"R1: R1.2 in no net and not no-connect",
		"R1: value R differs from BOM.md's 10k",
		"R7: in BOM.md but not in the intent",
	)
}

func TestParseIntentErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"parts": [}`, "x.json:1:12"},
		{`{"parts": [], "no_conect": []}`, `unknown field "no_conect"`},
		{`{"parts": "R1"}`, "parts must be"},
		{``, "empty intent file"},
		{`{} {}`, "trailing data"},
	}
	for _, c := range cases {
		if _, err := ParseIntent([]byte(c.in), "x.json"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseIntent(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}

func TestSearchAndLookupSymbols(t *testing.T) {
	needLibraries(t)
	lib := InstalledLibrary()
	hits, err := SearchSymbols(lib, "AP2112K 3.3", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].LibID != "Regulator_Linear:AP2112K-3.3" {
		t.Errorf("search AP2112K 3.3: %+v", hits)
	}
	if _, err := SearchSymbols(lib, "  ", 5); err == nil {
		t.Error("an empty query was accepted")
	}
	info, err := LookupSymbol(lib, "Amplifier_Operational:LM358")
	if err != nil {
		t.Fatal(err)
	}
	if info.Units != 3 || len(info.Pins) != 8 || info.Reference != "U" {
		t.Errorf("LM358: %d units, %d pins, prefix %q; want 3, 8, U", info.Units, len(info.Pins), info.Reference)
	}
	if _, err := LookupSymbol(lib, "Amplifier_Operational:LM359x"); err == nil || !strings.Contains(err.Error(), "closest") {
		t.Errorf("unknown symbol: %v", err)
	}
}

// TestValidateStackedUnitZero: MAX4820's GND pins 9, 18 and 21 are in unit
// 0 and stacked on unit 1's pin 12; splitting them across nets would be
// drawn as one net, so validation refuses it.
func TestValidateStackedUnitZero(t *testing.T) {
	needLibraries(t)
	parts := []IntentPart{
		{Ref: "U1", LibID: "Driver_Relay:MAX4820xUP"},
		{Ref: "R1", LibID: "Device:R", Footprint: "Resistor_SMD:R_0603_1608Metric"},
		{Ref: "R2", LibID: "Device:R", Footprint: "Resistor_SMD:R_0603_1608Metric"},
	}
	cases := []struct {
		name string
		nets []IntentNet
		want string // "" for no stacked-pin finding
	}{
		{"split", []IntentNet{
			{Name: "GND", Pins: []string{"U1.12", "R1.2"}},
			{Name: "PGND", Pins: []string{"U1.18", "R2.2"}},
		}, "stacked at one point of the symbol, so KiCad joins them, but the intent puts them on nets GND, PGND"},
		{"one net", []IntentNet{
			{Name: "GND", Pins: []string{"U1.12", "U1.18", "R1.2", "R2.2"}},
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := &Intent{Parts: parts, Nets: c.nets, NoConnect: []string{"U1.*", "R1.1", "R2.1"}}
			_, err := Validate(in, "relay.json", Options{})
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			switch {
			case c.want == "" && strings.Contains(msg, "stacked"):
				t.Errorf("Validate = %v, want no stacked-pin finding", err)
			case c.want != "" && !strings.Contains(msg, c.want):
				t.Errorf("Validate = %v, want %q", err, c.want)
			}
			if c.want != "" && !strings.Contains(msg, "U1.12 (GND)") {
				t.Errorf("the finding does not name pin 12: %v", err)
			}
		})
	}
}

// TestValidateNetNames: names KiCad reads as a bus or escapes are refused
// with the reason and a plain name to use; ordinary punctuation is fine.
func TestValidateNetNames(t *testing.T) {
	needLibraries(t)
	cases := []struct{ name, want string }{
		{"USB_D+", ""},
		{"+3V3", ""},
		{"~RESET", ""},
		{"D[0..3]", `net name "D[0..3]" is KiCad's bus syntax (a vector bus [0..3] is several nets, not one): name it once per signal instead, e.g. D0, D1 as separate nets`},
		{"{SDA SCL}", `has braces, which KiCad reads as a bus group or text markup`},
		{"~{RST}", `name it "RST_N"`},
		{"A/B", `net name "A/B" has a '/', KiCad's sheet-path separator, which it escapes as {slash} in the board: name it "A_B"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := &Intent{
				Parts: []IntentPart{{Ref: "R1", LibID: "Device:R", Footprint: "Resistor_SMD:R_0603_1608Metric"},
					{Ref: "R2", LibID: "Device:R", Footprint: "Resistor_SMD:R_0603_1608Metric"}},
				Nets: []IntentNet{{Name: c.name, Pins: []string{"R1.1", "R2.1"}}, {Name: "GND", Pins: []string{"R1.2", "R2.2"}}},
			}
			_, err := Validate(in, "names.json", Options{})
			switch {
			case c.want == "" && err != nil:
				t.Errorf("Validate(%q) = %v, want ok", c.name, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("Validate(%q) = %v, want %q", c.name, err, c.want)
			case c.want != "" && strings.Contains(err.Error(), "in no net"):
				t.Errorf("Validate(%q): the refused net's pins are reported as in no net too: %v", c.name, err)
			}
		})
	}
}
