package tools

import (
	"strings"
	"testing"

	"copperhead/internal/kicadcli"
	"copperhead/internal/testkit"
	"copperhead/internal/tool"
)

func TestFinish(t *testing.T) {
	clean := func(seq int) *tool.Verification {
		return &tool.Verification{Clean: true, AfterEdit: seq, Report: &kicadcli.Report{}}
	}
	tests := []struct {
		name    string
		setup   func(s *tool.Session)
		outcome string
		ok      bool
		want    []string
	}{
		{"refuse is accepted at once", func(s *tool.Session) {
			s.Touched = []string{"docs/SPEC.md"}
			s.Ledger.Open(tool.OblERC, "x.kicad_sch", "edited")
		}, "refuse", true, nil},
		{"done with nothing touched", func(s *tool.Session) {}, "done", true, nil},
		{"touched without a proposal", func(s *tool.Session) { s.Touched = []string{"docs/SPEC.md"} }, "done", false,
			[]string{"no change was proposed"}},
		{"proposal never validated", func(s *tool.Session) {
			s.ChangeID, s.Touched = "add-x", []string{"openspec/changes/add-x/proposal.md"}
		}, "done", false, []string{"change add-x has not validated"}},
		{"schematic edited, no ERC", func(s *tool.Session) {
			s.ChangeID, s.Validated, s.Touched = "add-x", true, []string{"a.kicad_sch"}
			s.KiCadEditSeq, s.SchematicEditSeq = 1, 1
		}, "done", false, []string{"ERC has not run"}},
		{"ERC before the last edit", func(s *tool.Session) {
			s.ChangeID, s.Validated = "add-x", true
			s.KiCadEditSeq, s.SchematicEditSeq, s.LastERC = 2, 2, clean(1)
		}, "done", false, []string{"last ERC ran before the last schematic edit"}},
		{"ERC not clean", func(s *tool.Session) {
			s.ChangeID, s.Validated = "add-x", true
			s.KiCadEditSeq, s.SchematicEditSeq = 1, 1
			s.LastERC = &tool.Verification{Clean: false, AfterEdit: 1}
		}, "done", false, []string{"last ERC is not clean"}},
		{"board edited, DRC missing", func(s *tool.Session) {
			s.ChangeID, s.Validated = "add-x", true
			s.KiCadEditSeq, s.SchematicEditSeq, s.BoardEditSeq, s.LastERC = 2, 1, 2, clean(2)
		}, "done", false, []string{"board was edited and DRC has not run"}},
		{"open obligations listed", func(s *tool.Session) {
			s.ChangeID, s.Validated = "add-x", true
			s.Ledger.Open(tool.OblDrift, "docs/BOM.md", "design doc edited")
			s.Ledger.Open(tool.OblRevisit, revisitSubject("power.sleep_current_uA", "R7"), "constraint recorded")
		}, "done", false, []string{"drift docs/BOM.md", "check_drift closes it", "power.sleep_current_uA -> R7", "resolve_affected"}},
		{"verified", func(s *tool.Session) {
			s.ChangeID, s.Validated, s.Touched = "add-x", true, []string{"a.kicad_sch", "b.kicad_pcb"}
			s.KiCadEditSeq, s.SchematicEditSeq, s.BoardEditSeq = 3, 3, 2
			s.LastERC, s.LastDRC = clean(3), clean(3)
		}, "done", true, nil},
		{"deferred obligations do not block", func(s *tool.Session) {
			s.Ledger.OpenDeferred(tool.OblRevisit, revisitSubject("rf.keepout", "zone:top"), "deferred: no board yet")
		}, "done", true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := emptySession(t)
			tc.setup(s)
			res := call(t, s, "finish", map[string]any{"outcome": tc.outcome, "summary": "did it"})
			if tc.ok {
				mustOK(t, res)
				if s.Finished == nil || string(s.Finished.Outcome) != tc.outcome || s.Finished.Summary != "did it" {
					t.Fatalf("Finished = %+v", s.Finished)
				}
				return
			}
			mustFail(t, res, append([]string{"finish(done) refused"}, tc.want...)...)
			if s.Finished != nil {
				t.Fatal("refused finish set Finished")
			}
		})
	}
	s := emptySession(t)
	mustFail(t, call(t, s, "finish", map[string]any{"outcome": "done", "summary": " "}), "summary is empty")
	mustFail(t, call(t, s, "finish", map[string]any{"outcome": "maybe", "summary": "x"}), "done or refuse")
	if strings.Contains(finishTool.Spec().Description, "\t") {
		t.Error("tab in description")
	}
}

func TestRecordDecision(t *testing.T) {
	s := emptySession(t)
	res := mustOK(t, call(t, s, "record_decision", map[string]any{"decision": "KEY_DAH moves to GPIO4", "rationale": "RTC-capable,\nnot strapping", "affects": []string{"U1", " ", "docs/PINOUT.md"}}))
	if !strings.Contains(res.Text, "decision 1") {
		t.Errorf("result: %s", res.Text)
	}
	want := tool.Decision{Decision: "KEY_DAH moves to GPIO4", Rationale: "RTC-capable, not strapping", Affects: []string{"U1", "docs/PINOUT.md"}}
	if len(s.Decisions) != 1 || s.Decisions[0].Decision != want.Decision || s.Decisions[0].Rationale != want.Rationale || strings.Join(s.Decisions[0].Affects, ",") != "U1,docs/PINOUT.md" {
		t.Errorf("decisions = %+v", s.Decisions)
	}
	mustFail(t, call(t, s, "record_decision", map[string]any{"decision": "x", "rationale": ""}), "both required")
}

// TestFinishRequirementGate: a 10k pull-down on KEY_DAH, which R7 holds at
// 3V3 while asleep, draws 165 µA against sleep_current_uA 25. check_drift
// reports it as check and sync do, finish(done) is refused naming it, and
// once the part is gone again finish(done) is accepted.
func TestFinishRequirementGate(t *testing.T) {
	s := toolSession(t, true)
	s.ChangeID, s.Validated = "add-pull-down", true
	s.Touched = []string{"openspec/changes/add-pull-down/proposal.md"}
	mustOK(t, call(t, s, "add_part", map[string]any{"lib_id": "Device:R", "ref": "R99", "value": "10k",
		"footprint": "Resistor_SMD:R_0603_1608Metric", "near": "R7"}))
	mustOK(t, call(t, s, "connect_pin", map[string]any{"ref": "R99", "pin": "1", "net": "KEY_DAH"}))
	mustOK(t, call(t, s, "connect_pin", map[string]any{"ref": "R99", "pin": "2", "net": "GND"}))
	mustOK(t, call(t, s, "run_erc", map[string]any{}))

	res := mustOK(t, call(t, s, "check_drift", map[string]any{}))
	testkit.ContainsAll(t, "check_drift", res.Text, "drift: NOT clean", "constraint sleep_current_uA (budget_exceeded)",
		"R7 10k from 3V3 to KEY_DAH with R99 10k to ground: 165 µA", "1 requirement violation: the design breaks a requirement")
	if strings.Contains(res.Text, "no constraint or budget is violated") {
		t.Errorf("check_drift passed the leak:\n%s", res.Text)
	}
	mustFail(t, call(t, s, "finish", map[string]any{"outcome": "done", "summary": "added a pull-down"}),
		"finish(done) refused", "requirement sleep_current_uA (budget_exceeded)", "at least 165 µA", "finish with outcome refuse")
	if s.Finished != nil {
		t.Fatal("finish(done) accepted over a budget violation")
	}

	// Repaired: the part goes, ERC and drift are clean again, done is accepted.
	mustOK(t, call(t, s, "remove_part", map[string]any{"ref": "R99"}))
	mustOK(t, call(t, s, "run_erc", map[string]any{}))
	res = mustOK(t, call(t, s, "check_drift", map[string]any{}))
	if !strings.Contains(res.Text, "drift: clean") {
		t.Fatalf("check_drift after removing R99:\n%s", res.Text)
	}
	mustOK(t, call(t, s, "finish", map[string]any{"outcome": "done", "summary": "tried a pull-down and took it out"}))
}
