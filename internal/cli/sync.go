package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/consistency"
	"copperhead/internal/llm"
	"copperhead/internal/textfmt"
)

// exitViolation is sync's exit code for a requirement violation. It shares
// the number with ExitUsage on purpose: both mean "a human must act before
// re-running", and neither is a check that a re-run could pass.
const exitViolation = ExitUsage

// SyncResult is `sync --json`: the audit (inconsistencies, sleep_leakage,
// skipped) plus what sync did with it.
type SyncResult struct {
	OK         bool `json:"ok"` // nothing is inconsistent (any more)
	DryRun     bool `json:"dry_run"`
	Resolvable int  `json:"resolvable"`
	Violations int  `json:"violations"`
	Flagged    int  `json:"flagged"` // neither resolvable nor a violation: a human looks
	*consistency.Report
}

func newSyncCmd(a *app) *cobra.Command {
	var dryRun, allowDirty bool
	var model string
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Find every inconsistency in the design state and resolve what is safe (--dry-run: report only)",
		Long: `sync audits the whole design state without a model, then resolves what the
truth-precedence rule allows in one gated agent run:

  drift        docs/BOM.md and docs/PINOUT.md against the schematic and netlist
  registry     .copperhead/constraints.json against the docs, both ways
  budgets      config.json budgets against SPEC.md ## Budgets
  pins.h       firmware/**/pins.h against PINOUT.md (#define PIN_<NET> <gpio>)
  logs         docs/DECISIONS.md and docs/CHANGELOG.md exist
  openspec     openspec validate --all (when the repo has an openspec/ folder)
  violations   forbidden pins in use; resistor leakage over the sleep budget

KiCad files are ground truth for as-built facts, openspec specs and SPEC.md
budgets for requirements. An inconsistency that is a requirement violation is
printed with both sides and the governing requirement and never rewritten.
Resolution is one run of the do loop (same gates, same recording, one commit
with a DECISIONS.md and a CHANGELOG.md entry), after which sync audits again.
The tree must be clean unless --allow-dirty is given.

--dry-run prints every inconsistency (doc, claim, actual, proposed
resolution) and writes nothing. On a consistent repository sync prints "no
inconsistencies" and changes nothing, so a second sync is a no-op.

Exit codes: 0 nothing inconsistent (or everything resolved); 1 inconsistencies
remain (--dry-run found some, no model to resolve them, the run left some,
or they need a human); 2 a requirement violation, or bad usage.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runSync(cmd.Context(), dryRun, model, allowDirty)
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the inconsistencies and proposed resolutions; write nothing")
	cmd.Flags().StringVar(&model, "model", "", "the model that resolves them, e.g. claude, gpt-5, compat:<model-id>")
	cmd.Flags().BoolVar(&allowDirty, "allow-dirty", false, "resolve on a tree with uncommitted changes (restored exactly on failure)")
	return cmd
}

func (a *app) runSync(ctx context.Context, dryRun bool, model string, allowDirty bool) error {
	w, tool, err := a.openKiCad(ctx)
	if err != nil {
		return err
	}
	if !dryRun {
		unlock, err := a.lockRepo(ctx, w.repo)
		if err != nil {
			return err
		}
		defer unlock()
	}
	audit := func() (*consistency.Report, error) {
		rep, err := consistency.Run(ctx, consistency.Input{Repo: w.repo, Config: w.cfg, Schematic: w.proj.Schematic, Tool: tool})
		if err != nil {
			return nil, failf("%v", w.relErr(err))
		}
		return rep, nil
	}
	rep, err := audit()
	if err != nil {
		return err
	}
	res := syncResult(rep, dryRun)
	resolvable := res.Resolvable > 0 && res.Violations == 0 && !dryRun
	if !resolvable {
		if err := a.printSync(res); err != nil {
			return err
		}
		return syncExit(res)
	}

	// Phase 2: one gated agent run whose request is the report.
	settings, err := a.modelSettings(model)
	if err != nil {
		return err
	}
	sel, err := llm.Select(settings)
	if err != nil {
		if perr := a.printSync(res); perr != nil {
			return perr
		}
		if errors.Is(err, llm.ErrInvalidModel) {
			return usagef("%v", err)
		}
		return withHint(failf("sync: %s and no model to resolve them: %v", inconsistencies(res.Resolvable, "resolvable "), err),
			"see them with 'copperhead sync --dry-run'; choose a model with --model")
	}
	if a.mode() != modeJSON {
		printSyncReport(a.io.Out, rep)
		fmt.Fprintf(a.io.Out, "resolving %s with %s\n", inconsistencies(res.Resolvable, ""), describeSelection(sel))
	}
	if err := a.runSyncAgent(ctx, rep.ResolutionRequest(), doOptions{model: model, allowDirty: allowDirty, sync: true,
		command: "sync", subject: "copperhead sync: resolve " + inconsistencies(res.Resolvable, "")}); err != nil {
		return err
	}
	after, err := audit()
	if err != nil {
		return err
	}
	res = syncResult(after, false)
	if a.mode() == modeJSON {
		if err := writeJSON(a.io.Out, res); err != nil {
			return err
		}
	} else if res.OK {
		fmt.Fprintf(a.io.Out, "resolved %s; no inconsistencies\n", inconsistencies(len(rep.Resolvable()), ""))
	} else {
		fmt.Fprintln(a.io.Out, "after the run:")
		printSyncReport(a.io.Out, after)
	}
	return syncExit(res)
}

// runSyncAgent is phase 2 of sync: one agent run through the same path as
// `do` (dirty-tree preflight, spec gate, ERC/DRC, obligations ledger, one
// commit with its DECISIONS.md and CHANGELOG.md entries, a recorded run)
// whose request is the report's ResolutionRequest. The caller re-audits
// afterwards and succeeds only when the audit is clean (AC-7.1): an agent that
// refuses, or resolves only part of the list, leaves sync failing.
//
// The run is a sync run (o.sync): the tools that change KiCad files are
// absent and refused, and edit_file/write_file refuse KiCad files, so the
// schematic and board the audit measured against stay as they are.
//
// With --json, stdout is reserved for sync's own result: the run's
// progress and its do-style result go to stderr.
func (a *app) runSyncAgent(ctx context.Context, request string, o doOptions) error {
	runner := a
	if a.mode() == modeJSON {
		cp := *a
		cp.io.Out = a.io.Err
		runner = &cp
	}
	return runner.runDo(ctx, request, o)
}

func syncResult(rep *consistency.Report, dryRun bool) SyncResult {
	return SyncResult{
		OK:         rep.Clean(),
		DryRun:     dryRun,
		Resolvable: len(rep.Resolvable()),
		Violations: len(rep.Violations()),
		Flagged:    len(rep.Flagged()),
		Report:     rep,
	}
}

// syncExit is the documented exit code for a result that will not be
// resolved further.
func syncExit(res SyncResult) error {
	switch {
	case res.OK:
		return nil
	case res.Violations > 0:
		return &exitError{code: exitViolation, err: fmt.Errorf("sync: %s: not rewritten; change the design or the requirement, then re-run sync",
			textfmt.Count(res.Violations, "requirement violation"))}
	case res.Flagged > 0 && res.Resolvable == 0:
		return failf("sync: %s must be looked at by a human: sync does not resolve them", inconsistencies(res.Flagged, ""))
	}
	return quietf(ExitFailed, "sync: %s left", inconsistencies(res.Resolvable+res.Flagged, ""))
}

func (a *app) printSync(res SyncResult) error {
	if a.mode() == modeJSON {
		return writeJSON(a.io.Out, res)
	}
	if res.OK {
		fmt.Fprintln(a.io.Out, "no inconsistencies")
		return nil
	}
	printSyncReport(a.io.Out, res.Report)
	if res.DryRun {
		fmt.Fprintf(a.io.Out, "dry run: nothing written")
		if res.Resolvable > 0 && res.Violations == 0 {
			fmt.Fprintf(a.io.Out, "; 'copperhead sync' would resolve %s in one agent run", inconsistencies(res.Resolvable, ""))
		}
		fmt.Fprintln(a.io.Out)
	}
	return nil
}

// printSyncReport writes violations first, each with both sides and the
// governing requirement, then every other inconsistency numbered with its
// doc, claim, actual and proposed resolution.
func printSyncReport(w io.Writer, rep *consistency.Report) {
	v, r, f := len(rep.Violations()), len(rep.Resolvable()), len(rep.Flagged())
	var parts []string
	if v > 0 {
		parts = append(parts, textfmt.Count(v, "requirement violation"))
	}
	if r > 0 {
		parts = append(parts, fmt.Sprintf("%d resolvable", r))
	}
	if f > 0 {
		parts = append(parts, fmt.Sprintf("%d for a human", f))
	}
	fmt.Fprintf(w, "%s: %s\n", inconsistencies(len(rep.Inconsistencies), ""), strings.Join(parts, ", "))
	n := 0
	for _, i := range rep.Inconsistencies {
		fmt.Fprintln(w)
		if i.Violation {
			fmt.Fprintf(w, "VIOLATION %s: %s\n", i.Kind, i.Subject)
			fmt.Fprintf(w, "  doc:         %s\n", i.Doc)
			fmt.Fprintf(w, "  requirement: %s\n", i.Claim)
			fmt.Fprintf(w, "  as built:    %s\n", i.Actual)
			fmt.Fprintf(w, "  governing:   %s\n", i.Governing)
			fmt.Fprintf(w, "  not resolved by sync: %s\n", i.ProposedResolution)
			continue
		}
		n++
		fmt.Fprintf(w, "%d. %s: %s\n", n, i.Kind, i.Subject)
		fmt.Fprintf(w, "  doc:       %s\n", i.Doc)
		fmt.Fprintf(w, "  claim:     %s\n", i.Claim)
		fmt.Fprintf(w, "  actual:    %s\n", i.Actual)
		fmt.Fprintf(w, "  governing: %s\n", i.Governing)
		if i.Resolvable {
			fmt.Fprintf(w, "  proposed resolution: %s\n", i.ProposedResolution)
		} else {
			fmt.Fprintf(w, "  for a human: %s\n", i.ProposedResolution)
		}
	}
	fmt.Fprintln(w)
}

// inconsistencies is "1 inconsistency" or "3 resolvable inconsistencies".
func inconsistencies(n int, adjective string) string {
	if n == 1 {
		return "1 " + adjective + "inconsistency"
	}
	return fmt.Sprintf("%d %sinconsistencies", n, adjective)
}
