package schedit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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

// Issue #12 "net identity": connect names the net KiCad's netlist knows.
// R11 sits in chan.kicad_sch, used three times (R11, R21, R31), pin 2 free.
func TestConnectNetNames(t *testing.T) {
	all := func(net string, nets ...string) []PinNet {
		if len(nets) == 0 {
			nets = []string{net, net, net}
		}
		return []PinNet{{Ref: "R11", Pin: "2", Net: nets[0]}, {Ref: "R21", Pin: "2", Net: nets[1]}, {Ref: "R31", Pin: "2", Net: nets[2]}}
	}
	cases := []struct {
		net  string
		kind string
		want []PinNet
	}{
		// VPP is a global net by a hidden power pin: a global label, not a
		// local VPP per instance.
		{"VPP", "global label", all("VPP")},
		{"CLK", "global label", all("CLK")},
		// A local name of this sheet joins each instance's own net.
		{"SIG", "(label at", all("", "/A/SIG", "/B/SIG", "/C/SIG")},
		{"/A/SIG", "(label at", all("", "/A/SIG", "/B/SIG", "/C/SIG")},
		// A new net in a reused sheet: one local net per instance.
		{"OUT", "(label at", all("", "/A/OUT", "/B/OUT", "/C/OUT")},
		{"~{EN}", "(label at", all("", "/A/~{EN}", "/B/~{EN}", "/C/~{EN}")},
	}
	for _, c := range cases {
		t.Run(c.net, func(t *testing.T) {
			d := loadVerified(t, netsFixture(t))
			p, err := Connect(d, "R11", "2", c.net)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Expect.Pins, c.want) {
				t.Fatalf("Expect.Pins = %v, want %v", p.Expect.Pins, c.want)
			}
			if s := strings.Join(p.Summary, "\n"); !strings.Contains(s, c.kind) || !strings.Contains(s, "every instance (/A/, /B/, /C/)") {
				t.Errorf("summary %q: want a %s in every instance", s, c.kind)
			}
			applyVerified(t, d, p)
		})
	}
}

func TestConnectNetNameRefusals(t *testing.T) {
	d := loadVerified(t, netsFixture(t))
	for _, c := range []struct{ net, want string }{
		// The root's local PTT is not reachable from a sub-sheet by name.
		{"PTT", "PTT is the local net /PTT of another sheet"},
		{"/PTT", "/PTT is a net of sheet /"},
		{"/B/SIG", ""}, // the same file: accepted
		{"Net-(R1-Pad1)", "form of a name KiCad gives unlabelled nets"},
		{"{Main-BUS}", "is a bus"},
	} {
		_, err := Connect(d, "R11", "2", c.net)
		if c.want == "" {
			if err != nil {
				t.Errorf("connect %s: %v", c.net, err)
			}
			continue
		}
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("connect %s: err = %v, want refusal containing %q", c.net, err, c.want)
		}
	}
}

// Disconnect, no-connect and connect back on the root, by the overbar
// name as KiCad prints it; each step checked against KiCad's netlist.
func TestDisconnectConnectOverbar(t *testing.T) {
	root := netsFixture(t)
	steps := []struct {
		op   func(d *Design) (*Plan, error)
		want []PinNet
	}{
		{func(d *Design) (*Plan, error) { return Disconnect(d, "R2", "1") }, []PinNet{{Ref: "R2", Pin: "1"}}},
		{func(d *Design) (*Plan, error) { return NoConnect(d, "R2", "1") }, []PinNet{{Ref: "R2", Pin: "1"}}},
		{func(d *Design) (*Plan, error) { return Connect(d, "R2", "1", "/~{D_LED_EN}") }, []PinNet{{Ref: "R2", Pin: "1", Net: "/~{D_LED_EN}"}}},
		{func(d *Design) (*Plan, error) { return Disconnect(d, "R11", "1") }, []PinNet{{Ref: "R11", Pin: "1"}, {Ref: "R21", Pin: "1"}, {Ref: "R31", Pin: "1"}}},
	}
	for i, s := range steps {
		d := loadVerified(t, root)
		p, err := s.op(d)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if !reflect.DeepEqual(p.Expect.Pins, s.want) {
			t.Fatalf("%s: Expect.Pins = %v, want %v", p.Op, p.Expect.Pins, s.want)
		}
		applyVerified(t, d, p)
	}
}

// swap-pins in a sheet used three times: each instance's pins trade nets.
func TestSwapPinsReusedSheet(t *testing.T) {
	d := loadVerified(t, netsFixture(t))
	p, err := SwapPins(d, "R11", "1", "2", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []PinNet{
		{Ref: "R11", Pin: "1", Like: "R11.2"}, {Ref: "R11", Pin: "2", Like: "R11.1"},
		{Ref: "R21", Pin: "1", Like: "R21.2"}, {Ref: "R21", Pin: "2", Like: "R21.1"},
		{Ref: "R31", Pin: "1", Like: "R31.2"}, {Ref: "R31", Pin: "2", Like: "R31.1"},
	}
	if !reflect.DeepEqual(p.Expect.Pins, want) {
		t.Fatalf("Expect.Pins = %v, want %v", p.Expect.Pins, want)
	}
	applyVerified(t, d, p)
}

// A net carrying two local labels of different names: KiCad picks one by
// name, so a rename of either is refused rather than guessed.
func TestRenameNetAmbiguousLabels(t *testing.T) {
	root := netsFixture(t)
	src, _ := os.ReadFile(root)
	extra := "\t(label \"PTT_B\" (at 76.2 57.15 270) (effects (font (size 1.27 1.27)) (justify left bottom)) (uuid \"aaaaaaaa-0000-4000-8000-000000000999\"))\n"
	at := strings.LastIndex(string(src), "\t(sheet_instances")
	if err := os.WriteFile(root, []byte(string(src[:at])+extra+string(src[at:])), 0o644); err != nil {
		t.Fatal(err)
	}
	d := loadVerified(t, root)
	if got := netOf(d.Netlist)["R2.2"]; got != "/PTT" {
		t.Fatalf("R2.2 is on %q, want /PTT (the fixture edit did not join PTT_B)", got)
	}
	_, err := RenameNet(d, "PTT", "ZZZ", false)
	wantRefusal(t, err, "shares its wires on nets.kicad_sch with PTT_B")
	_, err = RenameNet(d, "PTT_B", "A", false)
	wantRefusal(t, err, "with PTT")
}

// swap-pins --net takes the net as the read commands print it.
func TestSwapPinsNetSpelling(t *testing.T) {
	root := netsFixture(t)
	d := loadVerified(t, root)
	p, err := SwapPins(d, "R21", "1", "2", "/B/SIG")
	if err != nil {
		t.Fatal(err)
	}
	applyVerified(t, d, p)
	if p, err := SwapPins(loadVerified(t, root), "R21", "1", "2", "/B/SIG"); err != nil || !p.NoOp() {
		t.Fatalf("again: %v, %v; want a no-op", p, err)
	}
}

// A seeded walk of net-naming operations on the nets fixture, with every
// name spelled as the read commands print it or bare: each plan is either
// refused (nothing written) or KiCad's netlist of the result is exactly its
// Expect.
func TestNetOpsWalkAgainstKiCad(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kicad-cli for every step")
	}
	news := []string{"PTT", "/PTT", "SIG", "VPP", "CLK", "GND", "NEW_NET", "~{NEW}", "A/B", "SCL"}
	for seed := range 5 {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 12))
			root := netsFixture(t)
			applied := 0
			for step := 0; step < 12 && applied < 4; step++ {
				d := loadVerified(t, root)
				var names []string
				for _, n := range d.Netlist.Nets {
					if !autoNetName(n.Name) {
						names = append(names, n.Name, n.Name[strings.LastIndexByte(n.Name, '/')+1:])
					}
				}
				slices.Sort(names)
				refs := []string{"R1", "R2", "R3", "R5", "R11", "R21", "R31"}
				ref, pin := refs[rng.IntN(len(refs))], []string{"1", "2"}[rng.IntN(2)]
				pick := func(l []string) string { return l[rng.IntN(len(l))] }
				var p *Plan
				var err error
				switch rng.IntN(5) {
				case 0:
					p, err = RenameNet(d, pick(names), pick(append(slices.Clone(news), names...)), rng.IntN(2) == 0)
				case 1:
					p, err = Connect(d, ref, pin, pick(append(slices.Clone(news), names...)))
				case 2:
					p, err = Disconnect(d, ref, pin)
				case 3:
					p, err = NoConnect(d, ref, pin)
				default:
					p, err = SwapPins(d, ref, "1", "2", "")
				}
				if errors.Is(err, ErrRefused) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if p.NoOp() {
					continue
				}
				t.Log(p.Op)
				applyVerified(t, d, p)
				applied++
			}
		})
	}
}

// KiCad joins a local label to a global name its own sheet shows (a global
// label, a power symbol, a hidden power pin), but not to one shown only on
// other sheets: a merge's expectation follows that rule.
func TestRenameNetMergeLocalIntoGlobal(t *testing.T) {
	cases := []struct {
		old, new string
		want     []NetRename
	}{
		{"/PTT", "CLK", []NetRename{{"/PTT", "CLK"}}},                // global label on the root
		{"/PTT", "VPP", []NetRename{{"/PTT", "VPP"}}},                // hidden power pins on the root
		{"~{D_LED_EN}", "GND", []NetRename{{"/~{D_LED_EN}", "GND"}}}, // power symbol on the root
		{"SIG", "CLK", []NetRename{{"/A/SIG", "/A/CLK"}, {"/B/SIG", "/B/CLK"}, {"/C/SIG", "/C/CLK"}}},
	}
	for _, c := range cases {
		t.Run(c.old+"->"+c.new, func(t *testing.T) {
			d := loadVerified(t, netsFixture(t))
			_, err := RenameNet(d, c.old, c.new, false)
			wantRefusal(t, err, "already exists")
			p, err := RenameNet(d, c.old, c.new, true)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Expect.Renames, c.want) {
				t.Fatalf("Renames = %v, want %v", p.Expect.Renames, c.want)
			}
			applyVerified(t, d, p)
		})
	}
}

// The rule behind the hidden-power-pin refusal, asked of kicad-cli: a
// symbol without the power flag names its global net by the hidden
// power_in pin's name, whatever its Value says.
func TestLegacyPowerNetFollowsPin(t *testing.T) {
	root := netsFixture(t)
	src, _ := os.ReadFile(root)
	s := string(src)
	i := strings.Index(s, `(property "Reference" "#PWR1"`)
	j := i + strings.Index(s[i:], `(property "Value" "VPP"`)
	s = s[:j] + `(property "Value" "VPPX"` + s[j+len(`(property "Value" "VPP"`):]
	if err := os.WriteFile(root, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := netOf(netlist(t, root))["R1.2"]; got != "VPP" {
		t.Fatalf("R1.2 is on %q after #PWR1's Value became VPPX, want VPP (the pin's name)", got)
	}
}
