package tools

import (
	"strings"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/tool"
)

func TestRecordConstraintDualWrite(t *testing.T) {
	s := toolSession(t, false)
	s.Validated = true
	res := mustOK(t, call(t, s, "record_constraint", map[string]any{
		"key": "rf.antenna_keepout_mm", "min": 5, "source": "ESP32-S3-MINI datasheet §antenna",
		"affects": []string{"U1", "R6", "R99", "zone:top", "GPIO-pullups", "docs/ENCLOSURE.md"},
		"doc":     "docs/LAYOUT.md", "doc_text": "keep copper at least 5 mm from the antenna (ASSUMED)",
	}))
	for _, w := range []string{"recorded rf.antenna_keepout_mm in .copperhead/constraints.json and docs/LAYOUT.md",
		"Revisit now", "U1, R6, zone:top, GPIO-pullups", "R99 (R99 is not in the schematic yet)", "docs/ENCLOSURE.md does not exist yet",
		"Ledger: opened drift for docs/LAYOUT.md"} {
		if !strings.Contains(res.Text, w) {
			t.Errorf("result does not mention %q:\n%s", w, res.Text)
		}
	}
	// Registry side.
	reg, err := design.LoadConstraints(s.Repo)
	if err != nil {
		t.Fatal(err)
	}
	c := reg["rf.antenna_keepout_mm"]
	if c.Min == nil || *c.Min != 5 || c.Max != nil || c.Source != "ESP32-S3-MINI datasheet §antenna" ||
		strings.Join(c.Deferred, ",") != "R99,docs/ENCLOSURE.md" || len(c.Affects) != 6 {
		t.Errorf("entry = %+v", c)
	}
	if _, ok := reg["power.sleep_current_uA"]; !ok {
		t.Error("existing entries lost")
	}
	// Doc side.
	layout := readRepo(t, s, "docs/LAYOUT.md")
	line := "- `rf.antenna_keepout_mm`: keep copper at least 5 mm from the antenna (ASSUMED) (source: ESP32-S3-MINI datasheet §antenna)"
	if strings.Count(layout, line) != 1 || !strings.Contains(layout, "## Constraints") {
		t.Errorf("LAYOUT.md lacks the line:\n%s", layout)
	}
	// Ledger: due revisits open, missing artifacts deferred.
	var due, deferred []string
	for _, o := range s.Ledger.All() {
		if o.Kind != tool.OblRevisit {
			continue
		}
		if o.Deferred {
			deferred = append(deferred, o.Subject)
		} else {
			due = append(due, o.Subject)
		}
	}
	if strings.Join(due, "|") != "rf.antenna_keepout_mm -> U1|rf.antenna_keepout_mm -> R6|rf.antenna_keepout_mm -> zone:top|rf.antenna_keepout_mm -> GPIO-pullups" {
		t.Errorf("due = %v", due)
	}
	if strings.Join(deferred, "|") != "rf.antenna_keepout_mm -> R99|rf.antenna_keepout_mm -> docs/ENCLOSURE.md" {
		t.Errorf("deferred = %v", deferred)
	}
	if strings.Join(s.Touched, ",") != ".copperhead/constraints.json,docs/LAYOUT.md" {
		t.Errorf("touched = %v", s.Touched)
	}

	// Recording again replaces the line and the entry, not duplicates them.
	mustOK(t, call(t, s, "record_constraint", map[string]any{
		"key": "rf.antenna_keepout_mm", "min": 6, "source": "docs/LAYOUT.md", "affects": []string{"U1"},
		"doc": "docs/LAYOUT.md", "doc_text": "at least 6 mm",
	}))
	layout = readRepo(t, s, "docs/LAYOUT.md")
	if strings.Contains(layout, "5 mm") || !strings.Contains(layout, "- `rf.antenna_keepout_mm`: at least 6 mm (source: docs/LAYOUT.md)") {
		t.Errorf("line not replaced:\n%s", layout)
	}
	mustFail(t, call(t, s, "record_constraint", map[string]any{"key": "bad key", "source": "", "affects": []string{}, "doc": "hardware/x.kicad_sch", "doc_text": "x"}),
		"key \"bad key\"", "source is empty", "Markdown design doc")
}

func TestRecordConstraintNoBoard(t *testing.T) {
	s := emptySession(t)
	s.Validated = true
	res := mustOK(t, call(t, s, "record_constraint", map[string]any{
		"key": "power.sleep_current_uA", "max": 25, "source": "brief", "affects": []string{"U1", "zone:top"},
		"doc": "docs/SPEC.md", "doc_text": "sleep current at most 25 uA",
	}))
	if !strings.Contains(res.Text, "U1 (no schematic (.kicad_sch) yet); zone:top (no board (.kicad_pcb) yet)") {
		t.Errorf("result: %s", res.Text)
	}
	if len(s.Ledger.Pending()) != 1 || s.Ledger.Pending()[0].Kind != tool.OblDrift {
		t.Errorf("pending = %v (only the doc's drift check is due)", s.Ledger.Pending())
	}
	if got := readRepo(t, s, "docs/SPEC.md"); got != "# SPEC\n\n## Constraints\n\n- `power.sleep_current_uA`: sleep current at most 25 uA (source: brief)\n" {
		t.Errorf("new doc = %q", got)
	}
}

func TestUpsertConstraintLine(t *testing.T) {
	line := "- `a.b`: new (source: s)"
	tests := []struct{ name, in, want string }{
		{"no section", "# Spec\n\ntext\n", "# Spec\n\ntext\n\n## Constraints\n\n" + line + "\n"},
		{"empty section before another", "# Spec\n\n## Constraints\n## Budgets\n", "# Spec\n\n## Constraints\n\n" + line + "\n\n## Budgets\n"},
		{"after placeholder", "## Constraints\n\n- TODO(human): fill in\n\n## Budgets\n\n- x: 1\n",
			"## Constraints\n\n- TODO(human): fill in\n" + line + "\n\n## Budgets\n\n- x: 1\n"},
		{"replace backticked", "## Constraints\n\n- `a.b`: old (source: s)\n- `c.d`: keep\n", "## Constraints\n\n" + line + "\n- `c.d`: keep\n"},
		{"replace plain", "## Constraints\n- a.b: old\n", "## Constraints\n" + line + "\n"},
		{"same key in another section untouched", "## Budgets\n- `a.b`: 1\n\n## Constraints\n\n- `x.y`: z\n",
			"## Budgets\n- `a.b`: 1\n\n## Constraints\n\n- `x.y`: z\n" + line + "\n"},
		{"no trailing newline", "## Constraints\n\n- `x.y`: z", "## Constraints\n\n- `x.y`: z\n" + line + "\n"},
	}
	for _, tc := range tests {
		if got := string(upsertConstraintLine([]byte(tc.in), "docs/SPEC.md", "a.b", line)); got != tc.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestResolveAffectedBatch(t *testing.T) {
	s := toolSession(t, false)
	s.Validated = true
	mustOK(t, call(t, s, "record_constraint", map[string]any{
		"key": "power.sleep_current_uA", "max": 25, "source": "docs/SPEC.md#budgets", "affects": []string{"U1", "R6", "R7", "R42"},
		"doc": "docs/SPEC.md", "doc_text": "at most 25 uA asleep",
	}))
	res := call(t, s, "resolve_affected", map[string]any{"resolutions": []map[string]any{
		{"constraint": "power.sleep_current_uA", "item": "U1", "status": "no-change", "reason": "deep sleep 8 uA per datasheet"},
		{"constraint": "power.sleep_current_uA", "item": "R6", "status": "changed", "reason": "raised to 1M: 3.3 uA"},
		{"constraint": "power.sleep_current_uA", "item": "R9", "status": "no-change", "reason": "x"},
		{"constraint": "power.sleep_current_uA", "item": "R7", "status": "maybe", "reason": "x"},
		{"constraint": "power.sleep_current_uA", "item": "R7", "status": "no-change", "reason": ""},
		{"constraint": "power.sleep_current_uA", "item": "R42", "status": "no-change", "reason": "x"},
	}})
	if res.IsError {
		t.Fatalf("batch with successes is an error: %s", res.Text)
	}
	for _, w := range []string{
		"ok [0] power.sleep_current_uA -> U1: no-change (deep sleep 8 uA per datasheet)",
		"ok [1] power.sleep_current_uA -> R6: changed",
		"error [2] power.sleep_current_uA -> R9: no open revisit obligation",
		"error [3] power.sleep_current_uA -> R7: status must be changed or no-change",
		"error [4] power.sleep_current_uA -> R7: reason is empty",
		"error [5] power.sleep_current_uA -> R42: deferred: R42 is not in the schematic yet",
		"resolved 2 of 6. Still open:\n- power.sleep_current_uA -> R7",
	} {
		if !strings.Contains(res.Text, w) {
			t.Errorf("result does not contain %q:\n%s", w, res.Text)
		}
	}
	res = mustOK(t, call(t, s, "resolve_affected", map[string]any{"resolutions": []map[string]any{
		{"constraint": "power.sleep_current_uA", "item": "R7", "status": "no-change", "reason": "absent by design"},
	}}))
	if !strings.Contains(res.Text, "No revisit obligations are open") {
		t.Errorf("result: %s", res.Text)
	}
	mustFail(t, call(t, s, "resolve_affected", map[string]any{"resolutions": []map[string]any{
		{"constraint": "power.sleep_current_uA", "item": "R7", "status": "no-change", "reason": "again"},
	}}), "resolved 0 of 1")
}

// TestDeferredRevisitsReopen: an item deferred in one run comes due in the
// first run where its artifact exists, and resolving it clears it from the
// registry (spec §2.6).
func TestDeferredRevisitsReopen(t *testing.T) {
	s := toolSession(t, false)
	writeRepo(t, s, config.ConstraintsPath, `{"power.sleep_current_uA": {"max": 25, "source": "x", "affects": ["R7", "R42", "zone:top"], "deferred": ["R7", "R42"]}}`)
	n, err := OpenDeferredRevisits(s)
	if err != nil || n != 1 {
		t.Fatalf("OpenDeferredRevisits = %d, %v; want 1 (R7 exists now, R42 does not)", n, err)
	}
	if p := s.Ledger.Pending(); len(p) != 1 || p[0].Subject != "power.sleep_current_uA -> R7" {
		t.Fatalf("pending = %v", p)
	}
	if o, ok := s.Ledger.Find(tool.OblRevisit, "power.sleep_current_uA -> R42"); !ok || !o.Deferred {
		t.Errorf("R42 should be listed as deferred: %+v", o)
	}
	s.Validated = true
	res := mustOK(t, call(t, s, "resolve_affected", map[string]any{"resolutions": []map[string]any{
		{"constraint": "power.sleep_current_uA", "item": "R7", "status": "no-change", "reason": "10k pullup idles open"},
	}}))
	if strings.Join(res.Changed, ",") != config.ConstraintsPath {
		t.Errorf("changed = %v", res.Changed)
	}
	reg, err := design.LoadConstraints(s.Repo)
	if err != nil {
		t.Fatal(err)
	}
	if d := reg["power.sleep_current_uA"].Deferred; strings.Join(d, ",") != "R42" {
		t.Errorf("deferred after resolution = %v", d)
	}
}
