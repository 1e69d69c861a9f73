package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/llm"
	"copperhead/internal/tool"
)

// keyJack is a proposal for the fixture, as a model would send it.
func keyJack() map[string]any {
	return map[string]any{
		"id":           "add-key-jack",
		"why":          "Operators want to plug in an external paddle; the keyer has only its built-in keys. The sleep budget (25 uA) must hold.",
		"what_changes": "- Add J3, a 3.5 mm jack, wired to KEY_DIT and KEY_DAH\n- Update BOM.md and PINOUT.md",
		"tasks":        []string{"Add J3 to the schematic", "Update BOM.md and PINOUT.md", "Run ERC and check drift"},
		"deltas": []map[string]any{
			{"capability": "connectivity", "kind": "ADDED", "requirements": []map[string]any{{
				"name": "External key jack",
				"text": "The keyer SHALL accept an external paddle on a 3.5 mm jack.",
				"scenarios": []map[string]any{{
					"name": "Paddle plugged in", "when": "a paddle is plugged into J3", "then": "dit and dah closures reach the MCU",
				}},
			}}},
			{"capability": "power", "kind": "MODIFIED", "requirements": []map[string]any{{
				"name": "Sleep current",
				"text": "The keyer MUST draw at most 25 uA asleep, with the jack empty or plugged.",
				"scenarios": []map[string]any{{
					"name": "Idle with paddle", "when": "the keyer sleeps with a paddle plugged in", "then": "it draws at most 25 uA",
				}},
			}}},
			{"capability": "power", "kind": "REMOVED", "requirements": []map[string]any{{
				"name": "Key pullups", "text": "the jack's pullups replace them",
			}}},
		},
	}
}

// TestProposeAndValidate writes a change with propose_change and checks that
// the real openspec validates it --strict, which unlocks the edit tools.
func TestProposeAndValidate(t *testing.T) {
	needOpenSpecCLI(t)
	s := toolSession(t, false)
	res := mustOK(t, call(t, s, "propose_change", keyJack()))
	base := "openspec/changes/add-key-jack/"
	for _, f := range []string{"proposal.md", "tasks.md", "specs/connectivity/spec.md", "specs/power/spec.md"} {
		if !strings.Contains(res.Text, base+f) {
			t.Errorf("result does not list %s: %s", f, res.Text)
		}
	}
	if s.ChangeID != "add-key-jack" || s.Validated {
		t.Fatalf("ChangeID %q Validated %v", s.ChangeID, s.Validated)
	}
	power := readRepo(t, s, base+"specs/power/spec.md")
	wantPower := "## MODIFIED Requirements\n\n### Requirement: Sleep current\nThe keyer MUST draw at most 25 uA asleep, with the jack empty or plugged.\n\n" +
		"#### Scenario: Idle with paddle\n- **WHEN** the keyer sleeps with a paddle plugged in\n- **THEN** it draws at most 25 uA\n\n" +
		"## REMOVED Requirements\n\n### Requirement: Key pullups\n**Reason**: the jack's pullups replace them\n"
	if power != wantPower {
		t.Errorf("power spec =\n%s\nwant\n%s", power, wantPower)
	}
	if tasks := readRepo(t, s, base+"tasks.md"); tasks != "## 1. Implementation\n\n- [ ] 1.1 Add J3 to the schematic\n- [ ] 1.2 Update BOM.md and PINOUT.md\n- [ ] 1.3 Run ERC and check drift\n" {
		t.Errorf("tasks.md = %q", tasks)
	}
	if len(s.Touched) != 4 {
		t.Errorf("touched = %v", s.Touched)
	}

	res = mustOK(t, call(t, s, "validate_change", map[string]any{}))
	if !s.Validated || !strings.Contains(res.Text, "Unlocked: edit_file, write_file, record_constraint, resolve_affected") {
		t.Fatalf("validate_change: %s", res.Text)
	}
	if p := readRepo(t, s, base+"proposal.md"); !strings.Contains(p, "> Status: AUTO: validated and approved without human review") {
		t.Errorf("proposal has no AUTO marker:\n%s", p)
	}
	if names := specNames(tool.ToolList(s, All())); !strings.Contains(strings.Join(names, ","), "edit_file") {
		t.Errorf("edit_file not offered after validation: %v", names)
	}

	// Revising the proposal locks the edit tools again and drops stale specs.
	rev := keyJack()
	rev["deltas"] = rev["deltas"].([]map[string]any)[:1]
	res = mustOK(t, call(t, s, "propose_change", rev))
	if s.Validated || !strings.Contains(res.Text, "locked again") {
		t.Errorf("revision did not relock: %s", res.Text)
	}
	if _, err := os.Stat(filepath.Join(s.Repo, base+"specs/power/spec.md")); err == nil {
		t.Error("stale power spec left behind")
	}
	for _, rel := range s.Touched {
		if strings.HasSuffix(rel, "power/spec.md") {
			t.Errorf("touched still lists %s", rel)
		}
	}
	mustOK(t, call(t, s, "validate_change", map[string]any{}))
	if !s.Validated {
		t.Fatal("revision did not validate")
	}
}

func TestValidateChangeFailsVerbatim(t *testing.T) {
	needOpenSpecCLI(t)
	s := toolSession(t, false)
	mustFail(t, call(t, s, "validate_change", map[string]any{}), "propose_change first")
	bad := keyJack()
	bad["deltas"] = []map[string]any{{"capability": "power", "kind": "ADDED", "requirements": []map[string]any{{
		"name": "Sleep", "text": "The keyer sleeps deeply.", // no SHALL/MUST: strict fails
		"scenarios": []map[string]any{{"name": "idle", "when": "idle", "then": "sleeps"}},
	}}}}
	mustOK(t, call(t, s, "propose_change", bad))
	res := call(t, s, "validate_change", map[string]any{})
	mustFail(t, res, "does NOT validate", "SHALL or MUST", "propose_change")
	if s.Validated {
		t.Fatal("validated a failing change")
	}
}

func TestValidateChangeApproval(t *testing.T) {
	needOpenSpecCLI(t)
	s := toolSession(t, false)
	answer := false
	s.Approve = func(id string) bool { return answer }
	mustOK(t, call(t, s, "propose_change", keyJack()))
	res := mustOK(t, call(t, s, "validate_change", map[string]any{}))
	if s.Validated || !strings.Contains(res.Text, "declined") {
		t.Fatalf("declined approval unlocked: %s", res.Text)
	}
	answer = true
	mustOK(t, call(t, s, "validate_change", map[string]any{}))
	if !s.Validated {
		t.Fatal("approved change not unlocked")
	}
	if p := readRepo(t, s, "openspec/changes/add-key-jack/proposal.md"); !strings.Contains(p, "approved by a human") {
		t.Errorf("proposal marker:\n%s", p)
	}
}

func TestProposeChangeRefusals(t *testing.T) {
	s := toolSession(t, false)
	writeRepo(t, s, "openspec/changes/add-led/proposal.md", "## Why\nx\n")
	mod := func(f func(m map[string]any)) map[string]any { m := keyJack(); f(m); return m }
	tests := []struct {
		args map[string]any
		want []string
	}{
		{mod(func(m map[string]any) { m["id"] = "Add Key" }), []string{"kebab-case"}},
		{mod(func(m map[string]any) { m["id"] = "../../x" }), []string{"kebab-case"}},
		{mod(func(m map[string]any) { m["id"] = "ab" }), []string{"3 to 64"}},
		{mod(func(m map[string]any) { m["id"] = "add-led" }), []string{"already exists"}},
		{mod(func(m map[string]any) { m["why"] = " "; m["tasks"] = []string{} }), []string{"why is empty", "tasks is empty"}},
		{mod(func(m map[string]any) { m["deltas"] = []map[string]any{} }), []string{"deltas is empty"}},
		{mod(func(m map[string]any) {
			m["deltas"] = []map[string]any{{"capability": "Power Supply", "kind": "ADDED", "requirements": []map[string]any{{"name": "x", "text": "y"}}}}
		}), []string{"capability \"Power Supply\""}},
		{mod(func(m map[string]any) {
			m["deltas"] = []map[string]any{{"capability": "power", "kind": "CHANGED", "requirements": []map[string]any{{"name": "x", "text": "y"}}}}
		}), []string{"kind \"CHANGED\""}},
		{mod(func(m map[string]any) {
			m["deltas"] = []map[string]any{{"capability": "power", "kind": "ADDED", "requirements": []map[string]any{{"name": "Sleep", "text": "It SHALL sleep."}}}}
		}), []string{"needs at least one scenario"}},
	}
	for _, tc := range tests {
		mustFail(t, call(t, s, "propose_change", tc.args), tc.want...)
	}
	if s.ChangeID != "" || len(s.Touched) != 0 {
		t.Fatalf("a refused proposal changed state: %q %v", s.ChangeID, s.Touched)
	}
	// One change per run.
	mustOK(t, call(t, s, "propose_change", keyJack()))
	mustFail(t, call(t, s, "propose_change", mod(func(m map[string]any) { m["id"] = "other-change" })), "already proposed change add-key-jack")
}

func TestValidateChangeWithoutOpenSpecIsFatal(t *testing.T) {
	s := toolSession(t, false)
	mustOK(t, call(t, s, "propose_change", keyJack()))
	t.Setenv("COPPERHEAD_OPENSPEC", "")
	t.Setenv("PATH", t.TempDir())
	res := tool.Dispatch(t.Context(), s, All(), llm.ToolCall{Name: "validate_change", Args: []byte(`{}`)})
	if res.Fatal == nil || !strings.Contains(res.Text, "openspec CLI not found") {
		t.Fatalf("result = %+v", res)
	}
}
