package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"copperhead/internal/consistency"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

type finishArgs struct {
	Outcome string `json:"outcome" enum:"done,refuse" desc:"done: implemented and verified; refuse: the request would break a budget or constraint, or cannot be done"`
	Summary string `json:"summary" desc:"for the user: what changed and how it was verified, or why the request was refused (cite the budget or constraint)"`
}

var finishTool = newTool("finish", finish)

func finish(ctx context.Context, s *tool.Session, a finishArgs) (tool.Result, error) {
	summary := strings.TrimSpace(a.Summary)
	if summary == "" {
		return tool.Errorf("finish: summary is empty: say what was done and how it was verified, or why the request is refused"), nil
	}
	switch tool.Outcome(a.Outcome) {
	case tool.OutcomeRefuse:
		s.Finished = &tool.Finish{Outcome: tool.OutcomeRefuse, Summary: summary}
		return tool.Result{Text: "finish accepted: refused. Nothing this run changed is committed."}, nil
	case tool.OutcomeDone:
	default:
		return tool.Errorf("finish: outcome must be done or refuse, got %q", a.Outcome), nil
	}
	if reasons := notDone(ctx, s); len(reasons) > 0 {
		return tool.Errorf("finish(done) refused: the run is not verified yet:\n- %s\nDo these, then call finish again (or finish with outcome refuse if it cannot be done).", strings.Join(reasons, "\n- ")), nil
	}
	s.Finished = &tool.Finish{Outcome: tool.OutcomeDone, Summary: summary}
	return tool.Result{Text: "finish accepted: done."}, nil
}

// notDone lists why the run may not finish as done (invariant 2: nothing is
// done until the tools agree), or nothing.
func notDone(ctx context.Context, s *tool.Session) []string {
	var out []string
	if len(s.Touched) > 0 && !s.Validated {
		if s.ChangeID == "" {
			out = append(out, fmt.Sprintf("files changed (%s) but no change was proposed: write the proposal with propose_change and validate it", strings.Join(s.Touched, ", ")))
		} else {
			out = append(out, fmt.Sprintf("change %s has not validated: call validate_change and fix what it reports", s.ChangeID))
		}
	}
	out = append(out, staleCheck("ERC", "run_erc", "schematic", s.LastERC, s.SchematicEditSeq)...)
	out = append(out, staleCheck("DRC", "run_drc", "board", s.LastDRC, s.BoardEditSeq)...)
	for _, o := range s.EnsureLedger().Pending() {
		out = append(out, "open obligation: "+o.String())
	}
	return append(out, unmetRequirements(ctx, s)...)
}

// unmetRequirements is the requirement analysis `copperhead check` and
// `sync` run (consistency.CheckRequirements: forbidden pins, the sleep
// leakage against sleep_current_uA, config.json budgets against SPEC.md)
// over the design as KiCad reads it now, so the loop cannot commit what
// check would fail. It runs once the run has changed a file (a run that
// changed nothing commits nothing); a check that cannot run blocks too.
func unmetRequirements(ctx context.Context, s *tool.Session) []string {
	if len(s.Touched) == 0 {
		return nil
	}
	st, err := loadDesignState(ctx, s)
	if err != nil {
		return []string{"the requirement check (forbidden pins, budgets) could not run: " + s.Scrub(err.Error())}
	}
	req := consistency.CheckRequirements(st)
	vs := req.Constraints
	s.LastRequirements = &tool.RequirementsCheck{Findings: len(vs), Detail: requirementsDetail(req)}
	var out []string
	for _, v := range vs {
		out = append(out, s.Scrub(fmt.Sprintf("requirement %s (%s): %s", v.Key, v.Kind, v.Message)))
	}
	if countRequirementViolations(vs) > 0 {
		out = append(out, "the design breaks a requirement, which `copperhead check` fails and sync reports as a violation: "+
			"change the design so it holds (no doc edit resolves it), or finish with outcome refuse citing it")
	}
	return out
}

// staleCheck says why the last check of one kind does not cover the last
// edit of its file (editSeq; 0 when the run made none).
func staleCheck(name, closer, what string, v *tool.Verification, editSeq int) []string {
	switch {
	case editSeq == 0:
		return nil
	case v == nil:
		return []string{fmt.Sprintf("the %s was edited and %s has not run: call %s", what, name, closer)}
	case v.AfterEdit < editSeq:
		return []string{fmt.Sprintf("the last %s ran before the last %s edit: call %s again", name, what, closer)}
	case !v.Clean:
		return []string{fmt.Sprintf("the last %s is not clean: fix its errors and call %s again", name, closer)}
	}
	return nil
}

// requirementsDetail is the analysis in a few words for the verification
// line: "sleep leakage 0 µA, budget 25 µA".
func requirementsDetail(r consistency.Requirements) string {
	l := r.SleepLeakage
	d := fmt.Sprintf("sleep leakage %s µA", strconv.FormatFloat(l.IdleUA, 'f', -1, 64))
	if l.Budget != nil {
		d += fmt.Sprintf(", budget %s µA", strconv.FormatFloat(*l.Budget, 'f', -1, 64))
	}
	if n := len(r.Constraints); n > 0 {
		d = textfmt.CountForms(n, "finding", "findings") + "; " + d
	}
	return d
}
