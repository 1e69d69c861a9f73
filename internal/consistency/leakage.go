package consistency

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"copperhead/internal/circuit"
	"copperhead/internal/config"
	"copperhead/internal/design"
)

// SleepBudgetKey is the budget the leakage model is checked against.
const SleepBudgetKey = "sleep_current_uA"

// sleepLeakage is circuit.SleepLeakage of st's netlist, judged against the
// strictest sleep_current_uA st declares (see sleepBudget).
func sleepLeakage(st State) circuit.Leakage {
	l := circuit.SleepLeakage(st.Netlist)
	l.Budget, l.BudgetSource = sleepBudget(st)
	return l
}

// leakageViolation is the budget_exceeded inconsistency, when the idle
// total exceeds the budget.
func leakageViolation(l circuit.Leakage) (Inconsistency, bool) {
	if l.Budget == nil || l.IdleUA <= *l.Budget {
		return Inconsistency{}, false
	}
	var paths []string
	for _, p := range l.PullUps {
		if p.IdleUA > 0 {
			var sinks []string
			if len(p.PullDown) > 0 {
				sinks = append(sinks, strings.Join(p.PullDown, " ∥ ")+" to ground")
			}
			for _, q := range l.PullUps {
				if q.Net == p.Net && q.Refdes != p.Refdes && q.Volts < p.Volts {
					sinks = append(sinks, fmt.Sprintf("%s %s to %s", q.Refdes, q.Value, q.Rail))
				}
			}
			via := "straight to ground"
			if len(sinks) > 0 {
				via = "with " + strings.Join(sinks, " and ")
			}
			paths = append(paths, fmt.Sprintf("%s %s from %s to %s %s: %s µA",
				p.Refdes, p.Value, p.Rail, p.Net, via, formatNumber(p.IdleUA)))
		}
	}
	doc, _, _ := strings.Cut(l.BudgetSource, " ")
	return Inconsistency{
		Kind:    KindBudgetExceeded,
		Doc:     doc,
		Subject: SleepBudgetKey,
		Claim:   fmt.Sprintf("%s ≤ %s µA", SleepBudgetKey, formatNumber(*l.Budget)),
		Actual: fmt.Sprintf("at least %s µA drawn by resistors while asleep (keys open): %s",
			formatNumber(l.IdleUA), strings.Join(paths, "; ")),
		ProposedResolution: "a human decides: remove or raise the resistors on the leakage path in the schematic (then sync the docs), " +
			"or change the budget where it is declared (" + l.BudgetSource + "); sync rewrites neither side",
		Violation: true,
		Governing: l.BudgetSource,
	}, true
}

// sleepBudget is the strictest sleep_current_uA declared anywhere, and where.
// SPEC.md wins a tie: it is ground truth for requirements.
func sleepBudget(st State) (*float64, string) {
	specPath := st.Config.DocPath(design.SpecDoc)
	type decl struct {
		v   float64
		src string
	}
	var ds []decl
	if v, ok := design.ParseBudgets(st.Files[specPath]).Values[SleepBudgetKey]; ok {
		ds = append(ds, decl{v, specPath + " ## " + design.BudgetsHeading})
	}
	if v, ok := st.Config.Budgets[SleepBudgetKey]; ok {
		ds = append(ds, decl{v, config.ConfigPath + " budgets"})
	}
	for _, key := range slices.Sorted(maps.Keys(st.Constraints)) {
		c := st.Constraints[key]
		if (key == SleepBudgetKey || strings.HasSuffix(key, "."+SleepBudgetKey)) && c.Max != nil {
			ds = append(ds, decl{*c.Max, config.ConstraintsPath + " " + key + " (source: " + cmp.Or(c.Source, "none given") + ")"})
		}
	}
	if len(ds) == 0 {
		return nil, ""
	}
	best := ds[0]
	for _, d := range ds[1:] {
		if d.v < best.v {
			best = d
		}
	}
	return &best.v, best.src
}
