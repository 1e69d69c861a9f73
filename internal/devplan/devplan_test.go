package devplan

import (
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
)

const fixture = "../../examples/open-telegraph"

func fixtureInput(t *testing.T, firmwareLine string) Input {
	t.Helper()
	sch, err := kicad.LoadSchematic(filepath.Join(fixture, "hardware", "open-telegraph.kicad_sch"))
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs(fixture)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.LoadConfig(repo)
	if err != nil {
		t.Fatal(err)
	}
	in, err := FromRepo(repo, cfg, sch, "U1 (ESP32-S3-WROOM-1)", "U1", firmwareLine, "KEY_DIT (IO4) toggles LED_R (IO6)")
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestGenerateFixture(t *testing.T) {
	tests := []struct {
		name     string
		firmware string
		want     []string // substrings, in this order
		absent   []string
	}{
		{
			name:     "not compiled here",
			firmware: "not compiled here: ESP-IDF (idf.py) not installed",
			want: []string{
				"# open-telegraph — Development plan",
				"## Bring-up",
				"resistance from each rail to GND (VBUS, VSYS, 3V3, VBAT)",
				"Source rails (nothing in PINOUT.md regulates them: an input or a discrete power path): VBUS, VSYS.",
				"Measure 3V3 (made by U4 (AP2112K-3.3) from VSYS) against its nominal value before going on. It supplies the MCU.",
				"Measure VBAT (made by U3 (MCP73831-2-OT) from VBUS)",
				"At the MCU U1 (ESP32-S3-WROOM-1), measure its supply pins: pin 2 3V3.",
				"Check the firmware happy path: KEY_DIT (IO4) toggles LED_R (IO6).",
				"Firmware: not compiled here: ESP-IDF (idf.py) not installed.",
				"## Test points",
				"- Power: VBUS, VSYS, 3V3, VBAT, GND",
				"- Programming and debug: EN, USB_D+, USB_D-",
				"## What to measure first",
				"- Budget `sleep_current_uA`: 25 (SPEC.md)",
				"## Risks",
				"- U1 ESP32-S3-WROOM-1 (RF_Module:ESP32-S3-WROOM-1): UNVERIFIED",
				"- Passives with no verified MPN (19): C1, C2,",
				"- Firmware not compiled here: ESP-IDF (idf.py) not installed: build it",
				"## Order plan",
				"| R5, R6, R7 | 10k | Resistor_SMD:R_0603_1608Metric | 3 | 11 |",
				"| U1 | ESP32-S3-WROOM-1 | RF_Module:ESP32-S3-WROOM-1 | 1 | 3 |",
			},
		},
		{
			name:     "compiled",
			firmware: "compiled with avr-gcc (GCC) 5.4.0: build/firmware.elf, build/firmware.hex",
			want:     []string{"Firmware: compiled with avr-gcc (GCC) 5.4.0: build/firmware.elf, build/firmware.hex."},
			absent:   []string{"- Firmware "},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := fixtureInput(t, tc.firmware)
			doc := string(Generate(in))
			rest := doc
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("DEVPLAN lacks (or has out of order) %q:\n%s", w, doc)
				}
				rest = rest[i+len(w):]
			}
			for _, a := range tc.absent {
				if strings.Contains(doc, a) {
					t.Errorf("DEVPLAN has %q", a)
				}
			}
			if again := string(Generate(fixtureInput(t, tc.firmware))); again != doc {
				t.Error("Generate is not deterministic")
			}
		})
	}
}

// TestPowerTreeOrder: a regulator's output comes after its input, and a
// ground is never a rail to measure, by whichever name (circuit.IsGround:
// PGND, SGND and EARTH were rails here before the two ground classifiers
// were one).
func TestPowerTreeOrder(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"regulators in order", Input{Pinout: []design.PinoutRow{
			{Refdes: "U2", Net: "+3V3", Type: "power_out"}, {Refdes: "U2", Net: "+5V", Type: "power_in"},
			{Refdes: "U3", Net: "+1V8", Type: "power_out"}, {Refdes: "U3", Net: "+3V3", Type: "power_in"},
			{Refdes: "U1", Net: "+1V8", Type: "power_in"}, {Refdes: "U1", Net: "GND", Type: "power_in"},
		}, PowerNets: []string{"+5V", "GND"}}, "+5V +3V3 +1V8"},
		{"every ground skipped", Input{Pinout: []design.PinoutRow{
			{Refdes: "U2", Net: "+3V3", Type: "power_out"}, {Refdes: "U2", Net: "+5V", Type: "power_in"},
			{Refdes: "U2", Net: "PGND", Type: "power_in"}, {Refdes: "U1", Net: "SGND", Type: "power_in"},
		}, PowerNets: []string{"+5V", "GND", "PGND", "EARTH"}}, "+5V +3V3"},
	}
	for _, tc := range tests {
		var got []string
		for _, r := range powerTree(tc.in) {
			got = append(got, r.name)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: power tree %v, want %s", tc.name, got, tc.want)
		}
	}
}
