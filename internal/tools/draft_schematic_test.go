package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func needSymbolLibraries(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/share/kicad/symbols/Device.kicad_sym"); err != nil && os.Getenv("KICAD9_SYMBOL_DIR") == "" {
		t.Skip("KiCad symbol libraries are not installed")
	}
}

// The drafting tools from an empty repository: symbol_pins shows real pins,
// draft_schematic refuses a bad intent with every finding and draws a good
// one, opening the ERC obligation; the same intent again changes nothing.
func TestDraftSchematicTool(t *testing.T) {
	needSymbolLibraries(t)
	s := emptySession(t)
	res := mustOK(t, call(t, s, "symbol_pins", map[string]any{"lib_id": "Device:R"}))
	if !strings.Contains(res.Text, `"number":"1"`) || !strings.Contains(res.Text, `"reference_prefix":"R"`) {
		t.Errorf("symbol_pins Device:R:\n%s", res.Text)
	}
	mustFail(t, call(t, s, "symbol_pins", map[string]any{"lib_id": "Device:Rx"}), "closest")

	intent := `{"project": "div", "parts": [
  {"ref": "R1", "lib_id": "Device:R", "value": "10k", "footprint": "Resistor_SMD:R_0603_1608Metric"},
  {"ref": "R2", "lib_id": "Device:R", "value": "10k", "footprint": "Resistor_SMD:R_0603_1608Metric"},
  {"ref": "J1", "lib_id": "Connector_Generic:Conn_01x03", "footprint": "Connector_PinHeader_2.54mm:PinHeader_1x03_P2.54mm_Vertical"}],
 "nets": [{"name": "+5V", "pins": ["J1.1", "R1.1"]}, {"name": "MID", "pins": ["R1.2", "R2.1", "J1.2"]}, {"name": "GND", "pins": ["R2.2", "J1.3"]}]}`
	if err := os.MkdirAll(filepath.Join(s.Repo, "hardware"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Repo, "hardware", "intent.json"), []byte(intent), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Repo, "bad.json"), []byte(`{"parts": [{"ref": "R1", "lib_id": "Device:Q"}], "nets": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mustFail(t, call(t, s, "draft_schematic", map[string]any{"intent": "hardware/intent.json"}), "locked until validate_change passes")
	s.Validated = true
	mustFail(t, call(t, s, "draft_schematic", map[string]any{"intent": "bad.json"}), "nothing written", "symbol Device:Q not found")
	res = mustOK(t, call(t, s, "draft_schematic", map[string]any{"intent": "hardware/intent.json"}))
	if want := []string{"hardware/div.kicad_sch", "hardware/div.kicad_pro"}; strings.Join(res.Changed, ",") != strings.Join(want, ",") {
		t.Errorf("changed %v, want %v", res.Changed, want)
	}
	if !strings.Contains(res.Text, "opened erc for hardware/div.kicad_sch") {
		t.Errorf("no ERC obligation opened:\n%s", res.Text)
	}
	res = mustOK(t, call(t, s, "draft_schematic", map[string]any{"intent": "hardware/intent.json"}))
	if len(res.Changed) != 0 || !strings.Contains(res.Text, "already holds exactly this draft") {
		t.Errorf("second draw: %v\n%s", res.Changed, res.Text)
	}
}

// With kicad-cli, a first draw also writes PINOUT.md from the netlist of
// the new sheet (an IC's pins with their nets), opening its drift
// obligation; an existing PINOUT.md is never overwritten.
func TestDraftSchematicWritesPinout(t *testing.T) {
	needSymbolLibraries(t)
	s := emptySession(t)
	s.KiCad = realKiCad(t)
	s.Validated = true
	intent := `{"project": "amp", "parts": [
  {"ref": "U1", "lib_id": "Amplifier_Operational:LM358", "footprint": "Package_SO:SOIC-8_3.9x4.9mm_P1.27mm"},
  {"ref": "J1", "lib_id": "Connector_Generic:Conn_01x04", "footprint": "Connector_PinHeader_2.54mm:PinHeader_1x04_P2.54mm_Vertical"}],
 "nets": [{"name": "+5V", "pins": ["J1.1", "U1.8"]}, {"name": "GND", "pins": ["J1.2", "U1.4"]},
  {"name": "IN", "pins": ["J1.3", "U1.3", "U1.5"]}, {"name": "OUT", "pins": ["J1.4", "U1.1", "U1.2", "U1.6", "U1.7"]}]}`
	if err := os.WriteFile(filepath.Join(s.Repo, "intent.json"), []byte(intent), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustOK(t, call(t, s, "draft_schematic", map[string]any{"intent": "intent.json"}))
	if !strings.Contains(strings.Join(res.Changed, ","), "docs/PINOUT.md") || !strings.Contains(res.Text, "Wrote docs/PINOUT.md") {
		t.Fatalf("PINOUT.md not written: %v\n%s", res.Changed, res.Text)
	}
	pinout, err := os.ReadFile(filepath.Join(s.Repo, "docs", "PINOUT.md"))
	if err != nil || !strings.Contains(string(pinout), "| U1 | 8 |") || !strings.Contains(string(pinout), "+5V") {
		t.Errorf("PINOUT.md (%v):\n%s", err, pinout)
	}
	if err := os.WriteFile(filepath.Join(s.Repo, "docs", "PINOUT.md"), []byte("hand-written\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustOK(t, call(t, s, "draft_schematic", map[string]any{"intent": "intent.json", "force": true}))
	if got, _ := os.ReadFile(filepath.Join(s.Repo, "docs", "PINOUT.md")); string(got) != "hand-written\n" {
		t.Error("an existing PINOUT.md was overwritten")
	}
}
