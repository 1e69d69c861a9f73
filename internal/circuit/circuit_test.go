package circuit

import (
	"testing"

	"copperhead/internal/kicad"
)

func TestIsNoConnect(t *testing.T) {
	node := func(ref, pin string) kicad.NetNode { return kicad.NetNode{Refdes: ref, Pin: pin} }
	tests := []struct {
		name string
		net  kicad.Net
		want bool
	}{
		{"kicad unconnected", kicad.Net{Name: "unconnected-(U1-IO3-Pad15)", Nodes: []kicad.NetNode{node("U1", "15")}}, true},
		{"auto-named single pin", kicad.Net{Name: "Net-(U1-IO46)", Nodes: []kicad.NetNode{node("U1", "16")}}, true},
		{"unnamed single pin", kicad.Net{Nodes: []kicad.NetNode{node("U1", "16")}}, true},
		{"same pin twice", kicad.Net{Name: "Net-(U1-Pad1)", Nodes: []kicad.NetNode{node("U1", "1"), node("U1", "1")}}, true},
		{"labelled single pin", kicad.Net{Name: "/LED", Nodes: []kicad.NetNode{node("U1", "10")}}, false},
		{"power net single pin", kicad.Net{Name: "+3V3", Nodes: []kicad.NetNode{node("U1", "2")}}, false},
		{"auto-named two pins", kicad.Net{Name: "Net-(R1-Pad2)", Nodes: []kicad.NetNode{node("R1", "2"), node("U1", "4")}}, false},
		{"two pins of one part", kicad.Net{Name: "Net-(U3-Pad3)", Nodes: []kicad.NetNode{node("U3", "3"), node("U3", "6")}}, false},
		{"a pin twice, then another", kicad.Net{Name: "Net-(U3-Pad3)", Nodes: []kicad.NetNode{node("U3", "3"), node("U3", "3"), node("R1", "3")}}, false},
		{"no pins, no name", kicad.Net{}, true},
	}
	for _, tt := range tests {
		if got := IsNoConnect(tt.net); got != tt.want {
			t.Errorf("%s: IsNoConnect = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParseOhms(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"10k", 10e3, true}, {"4k7", 4.7e3, true}, {"2.2k", 2.2e3, true}, {"100R", 100, true},
		{"1R5", 1.5, true}, {"1M", 1e6, true}, {"470", 470, true}, {"10kΩ", 10e3, true},
		{"10 kOhm", 10e3, true}, {"10k 1%", 10e3, true}, {"0R", 0, true}, {"2,2k", 2.2e3, true},
		{"100nF", 0, false}, {"RGB", 0, false}, {"", 0, false}, {"2.2k2", 0, false},
	}
	for _, tc := range tests {
		got, ok := ParseOhms(tc.in)
		if ok != tc.ok || (ok && (got < tc.want*0.999999 || got > tc.want*1.000001)) {
			t.Errorf("ParseOhms(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRails(t *testing.T) {
	tests := []struct {
		net           string
		volts         float64
		known, isRail bool
	}{
		{"3V3", 3.3, true, true}, {"+3V3", 3.3, true, true}, {"1V8", 1.8, true, true}, {"+5V", 5, true, true},
		{"+3.3V", 3.3, true, true}, {"VCC_5V", 5, true, true}, {"VBAT", 4.2, true, true}, {"/power/VBAT", 4.2, true, true},
		{"BAT+", 4.2, true, true}, {"VBUS", 0, false, true}, {"VSYS", 0, false, true}, {"VCC", 0, false, true},
		{"KEY_DAH", 0, false, false}, {"GND", 0, false, false}, {"EN", 0, false, false}, {"USB_D+", 0, false, false},
		{"LED_5VOLT", 0, false, false}, {"VBAT_SENSE", 0, false, false}, {"3V3_EN", 0, false, false}, {"VDD_IO", 0, false, true},
	}
	for _, tc := range tests {
		v, known := RailVolts(tc.net)
		if known != tc.known || v != tc.volts || IsRail(tc.net) != tc.isRail {
			t.Errorf("%s: RailVolts %v %v, IsRail %v; want %v %v %v", tc.net, v, known, IsRail(tc.net), tc.volts, tc.known, tc.isRail)
		}
	}
	for _, g := range []string{"GND", "GNDA", "AGND", "VSS", "/power/GND"} {
		if !IsGround(g) {
			t.Errorf("IsGround(%q) = false", g)
		}
	}
}

// TestIsGround is the union of the two ground classifiers that were: the
// leakage model's (GND…, AGND, DGND, VSS…, 0V) and the layout engine's (PGND,
// SGND, CHASSISGND, EARTHGND, EARTH, any GND prefix, any case).
func TestIsGround(t *testing.T) {
	tests := []struct {
		net  string
		want bool
	}{
		// both knew
		{"GND", true}, {"GNDA", true}, {"GNDD", true}, {"GNDPWR", true}, {"GND_ISO", true},
		{"AGND", true}, {"DGND", true}, {"VSS", true}, {"VSSA", true}, {"0V", true},
		{"/power/GND", true}, {"gnd", true}, {"/Sub/agnd", true},
		// only the layout engine knew
		{"PGND", true}, {"SGND", true}, {"CHASSISGND", true}, {"EARTHGND", true}, {"EARTH", true},
		{"Earth", true}, {"/motor/PGND", true}, {"AGND_REF", true}, {"PGND2", true}, {"GND-ISO", true},
		// neither
		{"", false}, {"3V3", false}, {"VCC", false}, {"KEY_DAH", false}, {"NGND", false}, {"GROUND_SENSE", false},
		{"VBAT_SENSE", false}, {"0V5", false}, {"Net-(R1-Pad2)", false}, {"unconnected-(U1-GND-Pad3)", false},
	}
	for _, tc := range tests {
		if got := IsGround(tc.net); got != tc.want {
			t.Errorf("IsGround(%q) = %v, want %v", tc.net, got, tc.want)
		}
	}
}

func TestIsSupplyName(t *testing.T) {
	for net, want := range map[string]bool{
		"+5V": true, "-12V": true, "3V3": true, "3V3_A": true, "VCC": true, "VDD_IO": true, "/Power/VBUS": true,
		"VBAT_SENSE": true, "HT": true, "-VAA": true, "V5": true, "vmot": true,
		"SDA": false, "KEY_DAH": false, "MOTOR": false, "EN": false, "Net-(U1-VDD)": false,
	} {
		if got := IsSupplyName(net); got != want {
			t.Errorf("IsSupplyName(%q) = %v, want %v", net, got, want)
		}
	}
}

// TestSleepLeakageGrounds: a resistor to any ground IsGround knows is a path
// to ground. PGND, SGND and EARTH were signals to the leakage model before
// the classifiers were one, so these paths drew nothing.
func TestSleepLeakageGrounds(t *testing.T) {
	for _, gnd := range []string{"GND", "PGND", "SGND", "EARTH", "CHASSISGND", "/pwr/PGND"} {
		t.Run(gnd, func(t *testing.T) {
			nl := &kicad.Netlist{
				Components: []kicad.NetComponent{{Refdes: "R1", Value: "10k"}, {Refdes: "R2", Value: "10k"}, {Refdes: "R3", Value: "100k"}, {Refdes: "U1", Value: "MCU"}},
				Nets: []kicad.Net{
					{Name: "3V3", Nodes: []kicad.NetNode{{Refdes: "R1", Pin: "1"}, {Refdes: "R3", Pin: "1"}, {Refdes: "U1", Pin: "1"}}},
					{Name: "SDA", Nodes: []kicad.NetNode{{Refdes: "R1", Pin: "2"}, {Refdes: "R2", Pin: "1"}, {Refdes: "U1", Pin: "2"}}},
					{Name: gnd, Nodes: []kicad.NetNode{{Refdes: "R2", Pin: "2"}, {Refdes: "R3", Pin: "2"}, {Refdes: "U1", Pin: "3"}}},
				},
			}
			l := SleepLeakage(nl)
			// R1 10k to SDA with R2 10k to ground: 3.3 V / 20k = 165 µA;
			// R3 100k straight across: 33 µA.
			if l.IdleUA != 198 || len(l.PullUps) != 2 {
				t.Fatalf("idle %v µA, pull-ups %+v; want 198 µA from R1 and R3", l.IdleUA, l.PullUps)
			}
			if p := l.PullUps[0]; p.Refdes != "R1" || len(p.PullDown) != 1 || p.PullDown[0] != "R2 10k" || p.IdleUA != 165 {
				t.Errorf("R1 = %+v", p)
			}
			if p := l.PullUps[1]; p.Refdes != "R3" || p.Net != gnd || p.IdleUA != 33 {
				t.Errorf("R3 = %+v", p)
			}
			if l.Budget != nil || l.BudgetSource != "" {
				t.Errorf("budget %v %q: the model sets none", l.Budget, l.BudgetSource)
			}
		})
	}
}

// TestGPIONumber is the one GPIO-name rule sync's pin audit and constraint
// mentions, explain and the firmware generator read.
func TestGPIONumber(t *testing.T) {
	tests := []struct {
		name string
		n    int
		ok   bool
		of   int // GPIOOf; -1 for none
	}{
		{"GPIO5", 5, true, 5}, {"io4", 4, true, 4}, {"IO05", 5, true, 5}, {"GPIO0", 0, true, 0}, {" GPIO12 ", 12, true, 12},
		{"PB5", 0, false, -1}, {"EN", 0, false, -1}, {"GPIO", 0, false, -1}, {"IO4A", 0, false, -1},
		{"SDA/IO4", 0, false, 4}, {"TXD0/GPIO43/IO43", 0, false, 43},
	}
	for _, tc := range tests {
		n, ok := GPIONumber(tc.name)
		if n != tc.n || ok != tc.ok {
			t.Errorf("GPIONumber(%q) = %d, %v; want %d, %v", tc.name, n, ok, tc.n, tc.ok)
		}
		of, ok := GPIOOf(tc.name)
		if !ok {
			of = -1
		}
		if of != tc.of {
			t.Errorf("GPIOOf(%q) = %d; want %d", tc.name, of, tc.of)
		}
	}
}
