package design

import (
	"slices"
	"strings"
	"testing"

	"copperhead/internal/kicad"
)

func TestIsIC(t *testing.T) {
	tests := map[string]bool{
		"U1": true, "U10": true, "IC3": true, "ic2": true, "U?": true,
		"USB1": false, "R1": false, "J1": false, "C1": false, "": false, "UA1": false,
	}
	for ref, want := range tests {
		if got := IsIC(ref); got != want {
			t.Errorf("IsIC(%q) = %v, want %v", ref, got, want)
		}
	}
}

func TestCanonicalPinNames(t *testing.T) {
	esp := mcuFamilyOf("RF_Module:ESP32-S3-WROOM-1", "")
	if esp == nil {
		t.Fatal("ESP32-S3 module not recognised")
	}
	tests := []struct {
		name string
		fam  *mcuFamily
		want []string
	}{
		{"IO0", nil, []string{"GPIO0"}},
		{"GPIO0", nil, []string{"GPIO0"}},
		{"gpio05", nil, []string{"GPIO5"}},
		{" io45 ", nil, []string{"GPIO45"}},
		{"GPIO19/USB_D-", nil, []string{"GPIO19", "USB_D-"}},
		{"GPIO19/USB_D-", esp, []string{"GPIO19", "USB_D-"}},
		{"USB_D-", esp, []string{"GPIO19", "USB_D-"}},
		{"MTCK", esp, []string{"GPIO39", "MTCK"}},
		{"MTCK", nil, []string{"MTCK"}},
		{"TXD0", esp, []string{"GPIO43", "TXD0"}},
		{"EN", esp, []string{"EN"}},
		{"PIO1", nil, []string{"PIO1"}},
		{"", nil, nil},
	}
	for _, tt := range tests {
		if got := canonicalPinNames(tt.name, tt.fam); !slices.Equal(got, tt.want) {
			t.Errorf("canonicalPinNames(%q, %v) = %v, want %v", tt.name, tt.fam != nil, got, tt.want)
		}
	}
}

func TestMCUFamilyOf(t *testing.T) {
	tests := []struct {
		lib, value string
		want       string
	}{
		{"RF_Module:ESP32-S3-WROOM-1", "ESP32-S3-WROOM-1", "ESP32-S3"},
		{"MCU_Espressif:ESP32-S3", "ESP32-S3", "ESP32-S3"},
		{"mylib:custom", "esp32-s3-mini-1", "ESP32-S3"},
		{"RF_Module:ESP32-WROOM-32", "ESP32-WROOM-32", ""},
		{"Device:R", "10k", ""},
	}
	for _, tt := range tests {
		got := ""
		if f := mcuFamilyOf(tt.lib, tt.value); f != nil {
			got = f.Name
		}
		if got != tt.want {
			t.Errorf("mcuFamilyOf(%q, %q) = %q, want %q", tt.lib, tt.value, got, tt.want)
		}
	}
}

func TestPinNotes(t *testing.T) {
	esp := &mcuFamilies[0]
	tests := []struct {
		name string
		fam  *mcuFamily
		want string
	}{
		{"IO0", esp, "strapping, RTC"},
		{"GPIO3", esp, "strapping, RTC"},
		{"IO45", esp, "strapping"},
		{"GPIO46", esp, "strapping"},
		{"IO4", esp, "RTC"},
		{"IO21", esp, "RTC"},
		{"IO35", esp, ""},
		{"XTAL_32K_P", esp, "RTC"},
		{"GPIO20/USB_D+", esp, "RTC"},
		{"MTCK", esp, ""},
		{"3V3", esp, ""},
		{"IO0", nil, ""},
	}
	for _, tt := range tests {
		if got := pinNotes(tt.name, tt.fam); got != tt.want {
			t.Errorf("pinNotes(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestGPIOList(t *testing.T) {
	tests := []struct {
		in   []int
		want string
	}{
		{[]int{0, 3, 45, 46}, "GPIO0, GPIO3, GPIO45, GPIO46"},
		{intRange(0, 21), "GPIO0–GPIO21"},
		{[]int{1, 2, 3, 7}, "GPIO1–GPIO3, GPIO7"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := gpioList(tt.in); got != tt.want {
			t.Errorf("gpioList(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPinoutRows(t *testing.T) {
	rows := PinoutRows(keyerNetlist())
	var got []string
	for _, r := range rows {
		got = append(got, r.Refdes+"."+r.Pin+"="+r.Net)
	}
	want := []string{
		"U1.1=GND", "U1.2=+3V3", "U1.4=/KEY_DIT", "U1.10=/LED", "U1.15=NC", "U1.16=NC", "U1.27=/BOOT", "U1.37=NC", "U1.39=/SLEEP",
		"U2.1=VBUS", "U2.2=GND", "U2.3=VBUS", "U2.5=+3V3",
		"U3.1=/SLEEP", "U3.2=GND", "U3.3=/Power/WAKE", "U3.5=+3V3", "U3.6=/Power/WAKE",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows:\n got %v\nwant %v", got, want)
	}
	if PinoutRows(nil) != nil {
		t.Error("PinoutRows(nil) != nil")
	}
}

func TestPinoutMCUWithoutICPrefix(t *testing.T) {
	nl := &kicad.Netlist{
		Components: []kicad.NetComponent{{Refdes: "M1", Value: "ESP32-S3-MINI-1", LibID: "RF_Module:ESP32-S3-MINI-1"}},
		Nets: []kicad.Net{{Name: "/KEY", Nodes: []kicad.NetNode{
			{Refdes: "M1", Pin: "5", PinFunction: "IO3"}, {Refdes: "J1", Pin: "1", PinFunction: "GPIO3"}}}},
	}
	rows := PinoutRows(nl)
	if len(rows) != 1 || rows[0].Refdes != "M1" || rows[0].Notes != "strapping, RTC" {
		t.Errorf("rows = %+v, want only M1 pin 5 marked strapping, RTC", rows)
	}
	doc := string(GeneratePinout("x", nl))
	if !strings.Contains(doc, "### M1 (ESP32-S3-MINI-1)") || !strings.Contains(doc, "On M1: pin 5 IO3 (/KEY).") {
		t.Errorf("MCU prose missing:\n%s", doc)
	}
}

func TestGeneratePinoutNoMCU(t *testing.T) {
	doc := string(GeneratePinout("x", &kicad.Netlist{}))
	if !strings.Contains(doc, "known families: ESP32-S3") {
		t.Errorf("want a note that no known MCU was found:\n%s", doc)
	}
	if _, err := ParsePinout([]byte(doc)); err != nil {
		t.Errorf("empty pinout must still have a table: %v", err)
	}
}
