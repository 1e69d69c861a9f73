package consistency

import (
	"fmt"

	"copperhead/internal/circuit"
	"copperhead/internal/design"
)

// Requirements is the requirement analysis's result: every mechanical check
// of the design against a stated requirement, and of a requirement's two
// statements against each other, in one place. `check`'s constraints gate,
// the agent's check_drift tool and finish gate, and `sync` all read it, so
// none of them can pass what another fails.
type Requirements struct {
	// Violations are the as-built design breaking a requirement: a
	// forbidden pin in use (design.CheckForbiddenPins), the resistive
	// sleep leakage over sleep_current_uA (circuit.SleepLeakage). Each has
	// Violation set; sync never rewrites either side.
	Violations []Inconsistency
	// Budgets are config.json budgets disagreeing with SPEC.md ## Budgets
	// (design.CheckBudgets): resolvable, SPEC.md wins.
	Budgets []Inconsistency
	// Constraints is all of the above as `check` lists them, violations
	// first: one line each naming both sides and the governing source.
	Constraints []design.ConstraintViolation
	// SleepLeakage is the leakage model's numbers, over budget or not.
	SleepLeakage circuit.Leakage
}

// OK reports whether no requirement check failed.
func (r Requirements) OK() bool { return len(r.Constraints) == 0 }

// CheckRequirements runs the requirement analysis over st.Config,
// st.Files, st.Constraints and st.Netlist (the other fields are not read).
// The netlist must be KiCad's, exported from the files as they are now:
// what the design is, not what a doc or the run's own bookkeeping says it
// is. A nil netlist (no schematic yet) checks the budget mirror only.
func CheckRequirements(st State) Requirements {
	r := Requirements{Violations: []Inconsistency{}, Budgets: []Inconsistency{}, Constraints: []design.ConstraintViolation{}}
	for _, v := range design.CheckForbiddenPins(st.Constraints, st.Netlist) {
		r.Violations = append(r.Violations, forbiddenPinViolation(st, v))
		r.Constraints = append(r.Constraints, v)
	}
	r.SleepLeakage = sleepLeakage(st)
	if v, ok := leakageViolation(r.SleepLeakage); ok {
		r.Violations = append(r.Violations, v)
		r.Constraints = append(r.Constraints, design.ConstraintViolation{
			Key:     v.Subject,
			Kind:    design.ViolationBudgetExceeded,
			Message: fmt.Sprintf("budget %s exceeded: %s; the requirement is %s (%s)", v.Subject, v.Actual, v.Claim, v.Governing),
			Source:  v.Governing,
		})
	}
	mirror := design.CheckBudgets(st.Config, st.Files)
	r.Budgets = budgetInconsistencies(st, mirror)
	r.Constraints = append(r.Constraints, mirror...)
	return r
}
