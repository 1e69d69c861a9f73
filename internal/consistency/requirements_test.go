package consistency

import (
	"slices"
	"strings"
	"testing"

	"copperhead/internal/design"
	"copperhead/internal/kicad"
)

// cloneNetlist is a deep copy: each case edits its own.
func cloneNetlist(nl *kicad.Netlist) *kicad.Netlist {
	out := &kicad.Netlist{Components: slices.Clone(nl.Components)}
	for _, n := range nl.Nets {
		n.Nodes = slices.Clone(n.Nodes)
		out.Nets = append(out.Nets, n)
	}
	return out
}

// TestCheckRequirements is the one requirement analysis over circuits built
// on KiCad's own netlist of the bundled board (R7 10k pulls KEY_DAH up to
// 3V3, J3 closes it to ground; sleep_current_uA is 25 in SPEC.md and
// config.json). Every case is judged the same way by check's constraints
// gate, check_drift, the finish gate and sync, which all call it.
func TestCheckRequirements(t *testing.T) {
	base := loadFixture(t, fixtureCopy(t))
	specPath := base.Config.DocPath(design.SpecDoc)
	tests := []struct {
		name     string
		parts    [][4]string // resistors added first: ref, value, net, net
		edit     func(st *State)
		kinds    []string // Constraints' kinds, in order
		idleUA   float64
		budget   float64  // 0: no budget declared
		contains []string // in the joined Constraints messages
	}{
		{name: "the board as it is", budget: 25},
		{
			name:  "10k pull-down on KEY_DAH, idle high through R7",
			parts: [][4]string{{"R11", "10k", "KEY_DAH", "GND"}},
			kinds: []string{design.ViolationBudgetExceeded}, idleUA: 165, budget: 25,
			contains: []string{"budget sleep_current_uA exceeded: at least 165 µA drawn by resistors while asleep",
				"R7 10k from 3V3 to KEY_DAH with R11 10k to ground: 165 µA", "sleep_current_uA ≤ 25 µA (docs/SPEC.md ## Budgets)"},
		},
		{
			// Grounds the layout engine always knew are grounds to the
			// leakage model too (one classifier, internal/circuit): a
			// pull-down to PGND, a bleeder to EARTH, a divider to SGND.
			name: "pull-downs to PGND, EARTH and SGND",
			parts: [][4]string{{"R11", "10k", "KEY_DAH", "PGND"}, {"R12", "100k", "3V3", "EARTH"},
				{"R13", "47k", "VBAT", "VBAT_SENSE"}, {"R14", "47k", "VBAT_SENSE", "SGND"}},
			kinds: []string{design.ViolationBudgetExceeded}, idleUA: 242.681, budget: 25,
			contains: []string{"R7 10k from 3V3 to KEY_DAH with R11 10k to ground: 165 µA", "R12 100k from 3V3 to EARTH straight to ground: 33 µA",
				"R13 47k from VBAT to VBAT_SENSE with R14 47k to ground: 44.681 µA"},
		},
		{
			name:   "1M pull-down on KEY_DAH stays under the budget",
			parts:  [][4]string{{"R11", "1M", "KEY_DAH", "GND"}},
			idleUA: 3.267, budget: 25,
		},
		{
			name:   "a second pull-up on the idle-high KEY_DAH draws nothing",
			parts:  [][4]string{{"R11", "4k7", "3V3", "KEY_DAH"}},
			idleUA: 0, budget: 25,
		},
		{
			name:  "a pull-up to 1V8 on the net R7 holds at 3V3",
			parts: [][4]string{{"R11", "10k", "1V8", "KEY_DAH"}},
			kinds: []string{design.ViolationBudgetExceeded}, idleUA: 75, budget: 25,
			contains: []string{"R7 10k from 3V3 to KEY_DAH with R11 10k to 1V8: 75 µA"},
		},
		{
			name:  "battery-sense divider",
			parts: [][4]string{{"R11", "47k", "VBAT", "VBAT_SENSE"}, {"R12", "47k", "VBAT_SENSE", "GND"}},
			kinds: []string{design.ViolationBudgetExceeded}, idleUA: 44.681, budget: 25,
			contains: []string{"R11 47k from VBAT to VBAT_SENSE with R12 47k to ground: 44.681 µA"},
		},
		{
			name:  "two pull-downs in parallel on one pull-up",
			parts: [][4]string{{"R11", "20k", "KEY_DAH", "GND"}, {"R12", "20k", "KEY_DAH", "GND"}},
			kinds: []string{design.ViolationBudgetExceeded}, idleUA: 165, budget: 25,
			contains: []string{"with R11 20k ∥ R12 20k to ground"},
		},
		{
			name:  "a do-not-populate pull-down is not fitted",
			parts: [][4]string{{"R11", "10k", "KEY_DAH", "GND"}},
			edit: func(st *State) {
				st.Netlist.Components[len(st.Netlist.Components)-1].Properties = map[string]string{"dnp": ""}
			},
			idleUA: 0, budget: 25,
		},
		{
			name:  "budget absent: the leakage is reported, nothing fails",
			parts: [][4]string{{"R11", "10k", "KEY_DAH", "GND"}},
			edit: func(st *State) {
				st.Config.Budgets = nil
				delete(st.Constraints, "power.sleep_current_uA")
				st.Files[specPath] = []byte(strings.Replace(string(st.Files[specPath]), "- sleep_current_uA: 25", "", 1))
			},
			idleUA: 165,
		},
		{
			name:  "the strictest budget governs: constraints.json below SPEC.md",
			parts: [][4]string{{"R11", "1M", "KEY_DAH", "GND"}},
			edit: func(st *State) {
				st.Constraints["power.sleep_current_uA"] = design.Constraint{Max: ptr(2.5), Source: "openspec/specs/power/spec.md#R1"}
			},
			kinds: []string{design.ViolationBudgetExceeded}, idleUA: 3.267, budget: 2.5,
			contains: []string{"power.sleep_current_uA (source: openspec/specs/power/spec.md#R1)"},
		},
		{
			name:  "config.json and SPEC.md disagree",
			edit:  func(st *State) { st.Config.Budgets = map[string]float64{"sleep_current_uA": 30} },
			kinds: []string{design.ViolationBudgetMismatch}, budget: 25,
			contains: []string{"budget sleep_current_uA: .copperhead/config.json says 30 but docs/SPEC.md ## Budgets says 25"},
		},
		{
			name:  "a forbidden pin in use, with a leak: violations first, then the mirror",
			parts: [][4]string{{"R11", "10k", "KEY_DAH", "GND"}},
			edit: func(st *State) {
				st.Constraints["pins.extra"] = design.Constraint{Forbidden: []string{"GPIO5"}, Source: "test"}
				st.Config.Budgets = map[string]float64{"sleep_current_uA": 30}
			},
			kinds:  []string{design.ViolationForbiddenPin, design.ViolationBudgetExceeded, design.ViolationBudgetMismatch},
			idleUA: 165, budget: 25,
			contains: []string{`U1 pin 5 (IO5) is on net "KEY_DAH", but constraint pins.extra forbids GPIO5`},
		},
		{
			name: "no schematic yet: only the mirror is checked",
			edit: func(st *State) {
				st.Netlist = nil
				st.Config.Budgets = map[string]float64{"sleep_current_uA": 30}
			},
			kinds: []string{design.ViolationBudgetMismatch}, budget: 25,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := base
			st.Netlist = cloneNetlist(base.Netlist)
			st.Files = design.Files{}
			for k, v := range base.Files {
				st.Files[k] = slices.Clone(v)
			}
			st.Constraints = design.Constraints{}
			for k, v := range base.Constraints {
				st.Constraints[k] = v
			}
			for _, r := range tc.parts {
				addResistor(st.Netlist, r[0], r[1], r[2], r[3])
			}
			if tc.edit != nil {
				tc.edit(&st)
			}
			r := CheckRequirements(st)
			var kinds, msgs []string
			for _, v := range r.Constraints {
				kinds = append(kinds, v.Kind)
				msgs = append(msgs, v.Message)
			}
			if !slices.Equal(kinds, tc.kinds) || r.OK() != (len(tc.kinds) == 0) {
				t.Errorf("kinds %v (ok %v), want %v:\n%s", kinds, r.OK(), tc.kinds, strings.Join(msgs, "\n"))
			}
			if r.SleepLeakage.IdleUA != tc.idleUA {
				t.Errorf("idle %v µA, want %v", r.SleepLeakage.IdleUA, tc.idleUA)
			}
			switch b := r.SleepLeakage.Budget; {
			case tc.budget == 0 && b != nil:
				t.Errorf("budget %v, want none", *b)
			case tc.budget != 0 && (b == nil || *b != tc.budget):
				t.Errorf("budget %v, want %v", b, tc.budget)
			}
			all := strings.Join(msgs, "\n")
			for _, s := range tc.contains {
				if !strings.Contains(all, s) {
					t.Errorf("messages lack %q:\n%s", s, all)
				}
			}
			// sync reads the same analysis: its violations are these.
			rep := Analyze(st)
			var syncKinds []string
			for _, v := range rep.Violations() {
				syncKinds = append(syncKinds, string(v.Kind))
			}
			var wantSync []string
			for _, k := range tc.kinds {
				if k == design.ViolationForbiddenPin || k == design.ViolationBudgetExceeded {
					wantSync = append(wantSync, k)
				}
			}
			if !slices.Equal(syncKinds, wantSync) {
				t.Errorf("sync violations %v, want %v", syncKinds, wantSync)
			}
		})
	}
}

func ptr(v float64) *float64 { return &v }
