package schedit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/kicadcli"
)

// netsFixture copies testdata/nets (a converted-library VPP power symbol
// without the power flag, a bus alias, overbar names, chan.kicad_sch used
// three times) and returns its root.
func netsFixture(t *testing.T) string {
	return copyProject(t, "testdata/nets", "nets.kicad_sch")
}

func flatHierarchy(t *testing.T) string {
	const demo = "/usr/share/kicad/demos/flat_hierarchy"
	if _, err := os.Stat(demo); err != nil {
		t.Skip("KiCad demos not installed")
	}
	return copyProject(t, demo, "flat_hierarchy.kicad_sch")
}

func wantRefusal(t *testing.T, err error, want string) {
	t.Helper()
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want a refusal containing %q", err, want)
	}
}

// Issue #12 item 1: VPP in flat_hierarchy is named by a project-library
// power symbol without the (power) flag; renaming CLOCK-RB6 to it merged
// the two nets without --merge.
func TestRenameNetMergeIntoLegacyPower(t *testing.T) {
	d := loadVerified(t, flatHierarchy(t))
	_, err := RenameNet(d, "CLOCK-RB6", "VPP", false)
	wantRefusal(t, err, "a net named VPP already exists")
	p, err := RenameNet(d, "CLOCK-RB6", "VPP", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []NetRename{{"CLOCK-RB6", "VPP"}}; !reflect.DeepEqual(p.Expect.Renames, want) {
		t.Fatalf("Renames = %v, want %v", p.Expect.Renames, want)
	}
	applyVerified(t, d, p)
}

// The hand-built fixture's VPP: two symbols of a library without the power
// flag, each a hidden power_in pin. KiCad names the net by the pin (not the
// Value), so renaming it is a library change copperhead refuses; merging
// into it is a merge.
func TestRenameNetLegacyPowerPin(t *testing.T) {
	d := loadVerified(t, netsFixture(t))
	_, err := RenameNet(d, "VPP", "VPP13", false)
	wantRefusal(t, err, "hidden power-input pin VPP of #PWR")
	_, err = RenameNet(d, "CLK", "VPP", false)
	wantRefusal(t, err, "a net named VPP already exists")
	p, err := RenameNet(d, "CLK", "VPP", true)
	if err != nil {
		t.Fatal(err)
	}
	applyVerified(t, d, p)
}

// Issue #12 item 4: a member of a bus alias.
func TestRenameNetBusAliasMember(t *testing.T) {
	d := loadVerified(t, netsFixture(t))
	for _, c := range []struct{ old, new string }{
		{"SDA", "SDA2"},
		{"/SDA", "SDA2"},
		{"/PTT", "SCL2"},
		{"~{D_LED_EN}", "SCL"},
	} {
		_, err := RenameNet(d, c.old, c.new, c.new == "SCL")
		if c.old == "/PTT" {
			// SCL2 is no member: that rename is fine.
			if err != nil {
				t.Errorf("%s -> %s: %v", c.old, c.new, err)
			}
			continue
		}
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "bus alias Main-BUS") {
			t.Errorf("%s -> %s: err = %v, want a refusal naming bus alias Main-BUS", c.old, c.new, err)
		}
	}
}

// The fixture's alias is live: the rename the old code made (SDA's label
// alone) is exactly what KiCad's ERC reports as net_not_bus_member.
func TestBusAliasFixtureERC(t *testing.T) {
	root := netsFixture(t)
	tool, err := kicadcli.Find(context.Background())
	if err != nil {
		t.Skipf("kicad-cli: %v", err)
	}
	tool.NoCache = true
	count := func() int {
		r, err := tool.ERC(context.Background(), root)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, v := range r.Violations {
			if v.Type == "net_not_bus_member" {
				n++
			}
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("fixture has %d net_not_bus_member before any edit", n)
	}
	src, _ := os.ReadFile(root)
	if err := os.WriteFile(root, []byte(strings.Replace(string(src), `(label "SDA"`, `(label "SDA2"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := count(); n == 0 {
		t.Fatal("renaming the alias member's label alone gives no net_not_bus_member: the fixture no longer exercises the alias")
	}
}

// Issue #12 items 5 and 6: overbar names, and names as the read commands
// print them.
func TestRenameNetSpellings(t *testing.T) {
	cases := []struct {
		old, new string
		want     []NetRename
	}{
		{"~{D_LED_EN}", "~{LED_EN}", []NetRename{{"/~{D_LED_EN}", "/~{LED_EN}"}}},
		{"/~{D_LED_EN}", "LED_EN", []NetRename{{"/~{D_LED_EN}", "/LED_EN"}}},
		{"A~{B}", "~{AB}", []NetRename{{"/A~{B}", "/~{AB}"}}},
		{"/PTT", "PTT_N", []NetRename{{"/PTT", "/PTT_N"}}},
		{"/PTT", "/PTT_N", []NetRename{{"/PTT", "/PTT_N"}}},
		{"PTT", "PTT_N", []NetRename{{"/PTT", "/PTT_N"}}},
		{"CLK", "CLK_N", []NetRename{{"CLK", "CLK_N"}}},
		{"GND", "GNDA", []NetRename{{"GND", "GNDA"}}},
		{"SIG", "SIG_N", []NetRename{{"/A/SIG", "/A/SIG_N"}, {"/B/SIG", "/B/SIG_N"}, {"/C/SIG", "/C/SIG_N"}}},
	}
	for _, c := range cases {
		t.Run(c.old+"->"+c.new, func(t *testing.T) {
			d := loadVerified(t, netsFixture(t))
			p, err := RenameNet(d, c.old, c.new, false)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Expect.Renames, c.want) {
				t.Fatalf("Renames = %v, want %v", p.Expect.Renames, c.want)
			}
			if len(c.want) > 1 && !slices.ContainsFunc(p.Summary, func(s string) bool { return strings.HasPrefix(s, "renames 3 nets: /A/SIG -> /A/SIG_N") }) {
				t.Errorf("summary %q does not say 3 nets change", p.Summary)
			}
			applyVerified(t, d, p)
			// The reverse, spelled as the read commands now print it.
			d = loadVerified(t, d.RootPath)
			back := c.want[0].New
			if len(c.want) > 1 {
				back = "SIG_N"
			}
			p, err = RenameNet(d, back, c.old[strings.LastIndexByte(c.old, '/')+1:], false)
			if err != nil {
				t.Fatal(err)
			}
			applyVerified(t, d, p)
		})
	}
}

// "/PTT" and "PTT" plan the same splices.
func TestRenameNetScopedEqualsBare(t *testing.T) {
	d := mustLoad(t, netsFixture(t))
	d.Netlist = netlist(t, d.RootPath)
	a, err := RenameNet(d, "/PTT", "PTT_N", false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := RenameNet(d, "PTT", "PTT_N", false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Edits, b.Edits) || !reflect.DeepEqual(a.Expect, b.Expect) {
		t.Fatalf("/PTT plans %v, PTT plans %v", a.Edits, b.Edits)
	}
}

func TestRenameNetNameRefusals(t *testing.T) {
	d := loadVerified(t, netsFixture(t))
	cases := []struct {
		old, new string
		want     string
	}{
		// One instance of a sheet used three times.
		{"/A/SIG", "SIG_N", "also names /B/SIG and /C/SIG"},
		// A target that exists in any spelling is a merge.
		{"PTT", "SIG", "a net named SIG already exists (/A/SIG, /B/SIG and /C/SIG)"},
		{"CLK", "/PTT", "without a sheet path"},
		{"CLK", "PTT", "a net named PTT already exists (/PTT)"},
		{"PTT", "CLK", "a net named CLK already exists (CLK)"},
		{"/PTX", "X", "no net named /PTX (did you mean /PTT"},
		{"/B/NOPE", "X", "no net named /B/NOPE"},
		{"unconnected-(R11-Pad2)", "X", "has no label to rename"},
		{"{Main-BUS}", "X", "is a bus"},
	}
	for _, c := range cases {
		_, err := RenameNet(d, c.old, c.new, false)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RenameNet(%s, %s) err = %v, want refusal containing %q", c.old, c.new, err, c.want)
		}
	}
}

func TestIsBusName(t *testing.T) {
	cases := map[string]bool{
		"D[0..7]":      true,
		"{SDA SCL}":    true,
		"I2C{SDA SCL}": true,
		"{Main-BUS}":   true,
		"~{D}[0..7]":   true,
		"~{D_LED_EN}":  false,
		"~{RESET}":     false,
		"A~{B}":        false,
		"V_{DD}":       false,
		"x^{2}":        false,
		"PTT":          false,
		"~RESET":       false,
	}
	for name, want := range cases {
		if got := isBusName(name); got != want {
			t.Errorf("isBusName(%q) = %v, want %v", name, got, want)
		}
	}
}

// The fixture loads in kicad-cli with the nets the tests above name.
func TestNetsFixtureNets(t *testing.T) {
	root := netsFixture(t)
	nl := netlist(t, root)
	var names []string
	for _, n := range nl.Nets {
		if !strings.HasPrefix(n.Name, "unconnected-") {
			names = append(names, n.Name)
		}
	}
	for _, want := range []string{"/A/SIG", "/B/SIG", "/C/SIG", "/PTT", "/~{D_LED_EN}", "/A~{B}", "/SDA", "/SCL", "CLK", "GND", "VPP"} {
		if !slices.Contains(names, want) {
			t.Errorf("netlist has no %s (nets: %v)", want, names)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "chan.kicad_sch")); err != nil {
		t.Fatal(err)
	}
}
