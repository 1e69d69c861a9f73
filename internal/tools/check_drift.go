package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"copperhead/internal/config"
	"copperhead/internal/consistency"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

type checkDriftArgs struct{}

// driftLine is one mismatch as check_drift shows it (spec §4.2: doc, claim,
// actual).
type driftLine struct {
	Doc     string `json:"doc"`
	Claim   string `json:"claim"`
	Actual  string `json:"actual"`
	Message string `json:"message"`
}

var checkDriftTool = newTool("check_drift", checkDrift)

func checkDrift(ctx context.Context, s *tool.Session, _ checkDriftArgs) (tool.Result, error) {
	st, err := loadDesignState(ctx, s)
	if err != nil {
		return tool.Errorf("check_drift: %s", s.Scrub(err.Error())), nil
	}
	drift := design.Drift(st.Files, st.Config, st.Schematic, st.Netlist)
	// Broken datasheet citations (D8) are drift too, as check counts them.
	drift.Mismatches = append(drift.Mismatches, design.CheckCitations(s.Repo, st.Files, st.Config)...)
	// The requirement analysis check, sync and the finish gate share.
	violations := consistency.CheckRequirements(st).Constraints
	sch := st.Schematic

	var b strings.Builder
	if drift.Clean() && len(violations) == 0 {
		closed := s.EnsureLedger().Resolve(tool.OblDrift, "", "check_drift clean")
		b.WriteString("drift: clean: the docs agree with the design, and no constraint or budget is violated")
		if sch == nil {
			b.WriteString(" (no schematic yet: only budgets were checked)")
		}
		if closed > 0 {
			fmt.Fprintf(&b, "; closed %s", textfmt.CountForms(closed, "drift obligation", "drift obligations"))
		}
		b.WriteString(".\n")
	} else {
		fmt.Fprintf(&b, "drift: NOT clean: %s, %s. Make the docs agree with the design (the schematic is ground truth for as-built facts) and run check_drift again; if a mismatch means the design breaks a requirement or budget, say so instead.\n",
			textfmt.CountForms(len(drift.Mismatches), "mismatch", "mismatches"), textfmt.CountForms(len(violations), "constraint violation", "constraint violations"))
		for _, m := range drift.Mismatches {
			writeJSONLine(&b, driftLine{Doc: m.Doc, Claim: m.Claim, Actual: m.Actual, Message: m.Message})
		}
		for _, v := range violations {
			fmt.Fprintf(&b, "constraint %s (%s): %s\n", v.Key, v.Kind, v.Message)
		}
		if n := countRequirementViolations(violations); n > 0 {
			fmt.Fprintf(&b, "%s: the design breaks a requirement. No doc edit resolves it, and finish(done) is refused while it stands: change the design so it holds, or finish with outcome refuse citing it.\n",
				textfmt.CountForms(n, "requirement violation", "requirement violations"))
		}
	}
	for _, w := range drift.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return tool.Result{Text: b.String()}, nil
}

// loadDesignState reads what check_drift and the finish gate judge, fresh
// from the files as they are after this run's edits (config.json's budgets
// and constraints.json included): the docs, the registry, the schematic and
// KiCad's netlist of it. With no schematic yet, Schematic and Netlist are
// nil.
func loadDesignState(ctx context.Context, s *tool.Session) (consistency.State, error) {
	var st consistency.State
	cfg, _, err := config.LoadConfig(s.Repo)
	if err != nil {
		return st, err
	}
	cfg.Docs = s.Config.Docs
	st.Config = cfg
	if st.Files, err = design.ReadFiles(s.Repo, cfg); err != nil {
		return st, err
	}
	if st.Constraints, err = design.LoadConstraints(s.Repo); err != nil {
		return st, err
	}
	abs, rel := s.DesignFile(false)
	if abs == "" {
		return st, nil
	}
	st.SchematicPath = rel
	if st.Schematic, err = kicad.LoadSchematicWithin(abs, s.Repo); err != nil {
		return st, err
	}
	if s.KiCad == nil {
		return st, errors.New("kicad-cli is not available on this machine, so the design cannot be checked against KiCad's netlist")
	}
	if st.Netlist, err = s.KiCad.Netlist(ctx, abs); err != nil {
		return st, err
	}
	// A sheet kicad-cli could not load is missing from its netlist: the
	// design would be judged as part of itself.
	return st, kicad.CheckNetlistCovers(st.Schematic, st.Netlist)
}

// countRequirementViolations counts the findings that are the design
// breaking a requirement (a forbidden pin, a budget exceeded), as opposed
// to a requirement stated two ways.
func countRequirementViolations(vs []design.ConstraintViolation) int {
	n := 0
	for _, v := range vs {
		if v.Kind == design.ViolationForbiddenPin || v.Kind == design.ViolationBudgetExceeded {
			n++
		}
	}
	return n
}
