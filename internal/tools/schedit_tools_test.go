package tools

import (
	"slices"
	"strings"
	"testing"

	"copperhead/internal/tool"
)

// TestRenameNetTool: rename_net renames the net in the schematic, updates
// PINOUT.md through the netlist and the board's net, reports the files as
// changed and so opens the ERC, DRC and drift obligations; a refusal and a repeat change nothing.
func TestRenameNetTool(t *testing.T) {
	s := toolSession(t, true)
	s.Validated = true
	orig := readRepo(t, s, schRel)

	mustFail(t, call(t, s, "rename_net", map[string]any{"old": "KEY_DAHH", "new": "KEY_DASH"}), "rename_net refused, nothing changed")
	mustFail(t, call(t, s, "rename_net", map[string]any{"old": "KEY_DAH", "new": "KEY_DIT"}), "rename_net refused", "KEY_DIT")
	if readRepo(t, s, schRel) != orig || len(s.Touched) != 0 {
		t.Fatal("a refused rename changed something")
	}

	res := mustOK(t, call(t, s, "rename_net", map[string]any{"old": "KEY_DAH", "new": "KEY_DASH"}))
	const pcbRel = "hardware/open-telegraph.kicad_pcb"
	if want := []string{schRel, pcbRel, "docs/PINOUT.md"}; !slices.Equal(res.Changed, want) {
		t.Errorf("changed = %v, want %v", res.Changed, want)
	}
	for _, w := range []string{"rename-net KEY_DAH KEY_DASH", "changed: " + schRel + ", " + pcbRel + ", docs/PINOUT.md",
		"Ledger: opened erc for " + schRel, "drc for " + pcbRel} {
		if !strings.Contains(res.Text, w) {
			t.Errorf("result does not mention %q:\n%s", w, res.Text)
		}
	}
	if strings.Contains(readRepo(t, s, schRel), `"KEY_DAH"`) {
		t.Error("KEY_DAH is still in the schematic")
	}
	if !strings.Contains(readRepo(t, s, "docs/PINOUT.md"), "| U1 | 5 | IO5 | KEY_DASH |") {
		t.Error("PINOUT.md row for U1 pin 5 not updated")
	}
	for _, o := range []struct {
		kind    tool.ObligationKind
		subject string
	}{{tool.OblERC, schRel}, {tool.OblDrift, schRel}, {tool.OblDrift, "docs/PINOUT.md"}} {
		if _, open := s.Ledger.Find(o.kind, o.subject); !open {
			t.Errorf("%s obligation for %s not opened", o.kind, o.subject)
		}
	}
	if s.SchematicEditSeq != 1 {
		t.Errorf("SchematicEditSeq = %d", s.SchematicEditSeq)
	}

	res = mustOK(t, call(t, s, "rename_net", map[string]any{"old": "KEY_DAH", "new": "KEY_DASH"}))
	if !strings.Contains(res.Text, "already applied") || len(res.Changed) != 0 {
		t.Errorf("repeat: %+v", res)
	}
}

// TestAddPartConnectTools: add_part adds a BOM row, connect_pin wires it and
// an unused MCU pin to a new net (PINOUT.md follows), no_connect_pin flags
// the other end; unknown refs are refused.
func TestAddPartConnectTools(t *testing.T) {
	s := toolSession(t, true)
	s.Validated = true

	mustFail(t, call(t, s, "add_part", map[string]any{"lib_id": "Device:R", "value": "10k", "at_x": 10}), "both at_x and at_y")
	mustFail(t, call(t, s, "connect_pin", map[string]any{"ref": "R99", "pin": "1", "net": "SPARE"}), "connect_pin refused", "R99")

	res := mustOK(t, call(t, s, "add_part", map[string]any{"lib_id": "Device:R", "ref": "R99", "value": "10k",
		"footprint": "Resistor_SMD:R_0603_1608Metric", "near": "R7"}))
	if !slices.Contains(res.Changed, schRel) || !slices.Contains(res.Changed, "docs/BOM.md") {
		t.Errorf("add_part changed %v", res.Changed)
	}
	if !strings.Contains(readRepo(t, s, "docs/BOM.md"), "| R99 | 10k | Resistor_SMD:R_0603_1608Metric |") {
		t.Error("BOM.md has no R99 row")
	}
	if _, open := s.Ledger.Find(tool.OblERC, schRel); !open {
		t.Error("add_part opened no ERC obligation")
	}

	mustOK(t, call(t, s, "connect_pin", map[string]any{"ref": "R99", "pin": "1", "net": "SPARE"}))
	res = mustOK(t, call(t, s, "connect_pin", map[string]any{"ref": "U1", "pin": "10", "net": "SPARE"}))
	if !slices.Contains(res.Changed, "docs/PINOUT.md") {
		t.Errorf("connect_pin U1.10 changed %v", res.Changed)
	}
	if !strings.Contains(readRepo(t, s, "docs/PINOUT.md"), "| U1 | 10 | IO17 | SPARE |") {
		t.Error("PINOUT.md row for U1 pin 10 not updated")
	}
	mustFail(t, call(t, s, "no_connect_pin", map[string]any{"ref": "R99", "pin": "1"}), "no_connect_pin refused")
	mustOK(t, call(t, s, "no_connect_pin", map[string]any{"ref": "R99", "pin": "2"}))
	if s.SchematicEditSeq != 4 {
		t.Errorf("SchematicEditSeq = %d, want 4", s.SchematicEditSeq)
	}
	res = mustOK(t, call(t, s, "run_erc", map[string]any{}))
	if !strings.Contains(res.Text, "clean") {
		t.Logf("ERC after the edits: %s", res.Text)
	}
}

// TestScheditToolNoSchematic: without a project the tools say so.
func TestScheditToolNoSchematic(t *testing.T) {
	s := emptySession(t)
	s.Validated = true
	mustFail(t, call(t, s, "remove_part", map[string]any{"ref": "R1"}), "no schematic")
}
