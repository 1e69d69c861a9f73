package design

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/kicad"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

// keyerSchematic is a hand-built two-sheet design: an ESP32-S3 module keyer
// with a regulator sheet, a two-unit part split across sheets, a DNP part, a
// part excluded from BOM and board, and values that need Markdown escaping.
func keyerSchematic() *kicad.Schematic {
	part := func(ref, value, fp, lib, sheet string, units ...int) kicad.Part {
		if len(units) == 0 {
			units = []int{1}
		}
		file := "keyer.kicad_sch"
		if sheet == "/Power/" {
			file = "power.kicad_sch"
		}
		return kicad.Part{Refdes: ref, Value: value, Footprint: fp, LibID: lib, Units: units,
			InBOM: true, OnBoard: true, SheetPath: sheet, SheetFile: file}
	}
	r10 := part("R10", "1k", "Resistor_SMD:R_0603_1608Metric", "Device:R", "/")
	r10.MPN = "RC0603FR-071KL"
	c2 := part("C2", "100nF", "Capacitor_SMD:C_0402_1005Metric", "Device:C", "/Power/")
	c2.DNP = true
	h1 := part("H1", "MountingHole", "MountingHole:MountingHole_2.5mm", "Mechanical:MountingHole", "/")
	h1.InBOM, h1.OnBoard = false, false
	return &kicad.Schematic{
		Root: "hardware/keyer.kicad_sch",
		Sheets: []kicad.SheetInstance{
			{Path: "/", UUIDPath: "/", File: "keyer.kicad_sch"},
			{Path: "/Power/", UUIDPath: "/a1", Name: "Power", File: "power.kicad_sch"},
		},
		Parts: []kicad.Part{
			part("#PWR01", "GND", "", "power:GND", "/"),
			part("C1", "10uF", "Capacitor_SMD:C_0805_2012Metric", "Device:C", "/Power/"),
			c2,
			h1,
			part("J1", "USB_C_Receptacle", "Connector_USB:USB_C_Receptacle_GCT_USB4105", "Connector:USB_C_Receptacle_USB2.0_16P", "/"),
			part("R1", "10k", "Resistor_SMD:R_0603_1608Metric", "Device:R", "/"),
			part("R2", "100k", "Resistor_SMD:R_0603_1608Metric", "Device:R", "/"),
			part("R3", "4k7 | 1% *thin film*", "Resistor_SMD:R_0603_1608Metric", "Device:R", "/"),
			r10,
			part("SW1", "DIT", "Button_Switch_SMD:SW_SPST_B3U-1000P", "Switch:SW_Push", "/"),
			part("U1", "ESP32-S3-WROOM-1", "RF_Module:ESP32-S3-WROOM-1", "RF_Module:ESP32-S3-WROOM-1", "/"),
			part("U2", "AP2112K-3.3", "Package_TO_SOT_SMD:SOT-23-5", "Regulator_Linear:AP2112K-3.3", "/Power/"),
			part("U3", "74LVC2G14", "Package_TO_SOT_SMD:SOT-363_SC-70-6", "74xGxx:74LVC2G14", "/", 1),
			part("U3", "74LVC2G14", "Package_TO_SOT_SMD:SOT-363_SC-70-6", "74xGxx:74LVC2G14", "/Power/", 2),
		},
		PowerNets: []string{"+3V3", "GND", "VBUS"},
	}
}

// keyerNetlist is the netlist kicad-cli would export for keyerSchematic.
func keyerNetlist() *kicad.Netlist {
	node := func(ref, pin, fn, typ string) kicad.NetNode {
		return kicad.NetNode{Refdes: ref, Pin: pin, PinFunction: fn, PinType: typ}
	}
	return &kicad.Netlist{
		Components: []kicad.NetComponent{
			{Refdes: "C1", Value: "10uF", LibID: "Device:C"},
			{Refdes: "J1", Value: "USB_C_Receptacle", LibID: "Connector:USB_C_Receptacle_USB2.0_16P"},
			{Refdes: "R1", Value: "10k", LibID: "Device:R"},
			{Refdes: "R2", Value: "100k", LibID: "Device:R"},
			{Refdes: "SW1", Value: "DIT", LibID: "Switch:SW_Push"},
			{Refdes: "U1", Value: "ESP32-S3-WROOM-1", LibID: "RF_Module:ESP32-S3-WROOM-1"},
			{Refdes: "U2", Value: "AP2112K-3.3", LibID: "Regulator_Linear:AP2112K-3.3"},
			{Refdes: "U3", Value: "74LVC2G14", LibID: "74xGxx:74LVC2G14"},
		},
		Nets: []kicad.Net{
			{Code: "1", Name: "+3V3", Nodes: []kicad.NetNode{
				node("U1", "2", "3V3", "power_in"), node("U2", "5", "VOUT", "power_out"),
				node("R1", "1", "", "passive"), node("U3", "5", "VCC", "power_in")}},
			{Code: "2", Name: "GND", Nodes: []kicad.NetNode{
				node("U1", "1", "GND", "power_in"), node("U2", "2", "GND", "power_in"),
				node("C1", "2", "", "passive"), node("U3", "2", "GND", "power_in")}},
			{Code: "3", Name: "VBUS", Nodes: []kicad.NetNode{
				node("J1", "A4", "VBUS", "passive"), node("U2", "1", "VIN", "power_in"),
				node("U2", "3", "EN", "input"), node("C1", "1", "", "passive")}},
			{Code: "4", Name: "/KEY_DIT", Nodes: []kicad.NetNode{
				node("U1", "4", "IO4", "bidirectional"), node("SW1", "1", "1", "passive"), node("R1", "2", "", "passive")}},
			{Code: "5", Name: "/BOOT", Nodes: []kicad.NetNode{
				node("U1", "27", "IO0", "bidirectional"), node("R2", "1", "", "passive")}},
			{Code: "6", Name: "unconnected-(U1-IO3-Pad15)", Nodes: []kicad.NetNode{
				node("U1", "15", "IO3", "bidirectional+no_connect")}},
			{Code: "7", Name: "Net-(U1-IO46)", Nodes: []kicad.NetNode{
				node("U1", "16", "IO46", "bidirectional")}},
			{Code: "8", Name: "/LED", Nodes: []kicad.NetNode{
				node("U1", "10", "IO21", "bidirectional")}},
			{Code: "9", Name: "/SLEEP", Nodes: []kicad.NetNode{
				node("U1", "39", "IO1", "bidirectional"), node("U3", "1", "", "input")}},
			{Code: "10", Name: "Net-(SW1-Pad2)", Nodes: []kicad.NetNode{
				node("SW1", "2", "2", "passive"), node("R2", "2", "", "passive")}},
			{Code: "11", Name: "unconnected-(U1-TXD0-Pad37)", Nodes: []kicad.NetNode{
				node("U1", "37", "TXD0", "bidirectional")}},
			{Code: "12", Name: "/Power/WAKE", Nodes: []kicad.NetNode{
				node("U3", "6", "", "output"), node("U3", "3", "", "input")}},
		},
	}
}

func keyerConfig() config.Config {
	cfg := config.DefaultConfig()
	cfg.Schematic = "hardware/keyer.kicad_sch"
	cfg.Board = "hardware/keyer.kicad_pcb"
	cfg.Budgets = map[string]float64{"sleep_current_uA": 25, "battery_life_days": 365.5}
	return cfg
}

func keyerProject() Project {
	return Project{Name: "keyer", Schematic: keyerSchematic(), Netlist: keyerNetlist(), Config: keyerConfig()}
}

// golden compares got with testdata/golden/<name>, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file (run go test -update after checking the diff)\n--- got ---\n%s", name, got)
	}
}
