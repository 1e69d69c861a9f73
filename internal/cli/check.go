package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/kicadcli"
	"copperhead/internal/textfmt"
	"copperhead/internal/verify"
)

func newCheckCmd(a *app) *cobra.Command {
	var strict, strictSourcing, noCache bool
	var baseline, format string
	cmd := &cobra.Command{
		Use:     "check",
		Aliases: []string{"verify"},
		Short:   "Run ERC, DRC, doc drift, constraint and OpenSpec checks (no LLM, for CI)",
		Long: `check runs every gate and exits 0 only when all pass:

  ERC          kicad-cli sch erc on the root schematic
  DRC          kicad-cli pcb drc --schematic-parity on the board (when there is one)
  drift        docs/BOM.md and docs/PINOUT.md against the schematic and netlist;
               the datasheet citations of every VERIFIED(datasheet) BOM row
  constraints  forbidden pins in .copperhead/constraints.json; config budgets vs SPEC.md
  openspec     openspec validate --all (when the repo has an openspec/ folder)
  sourcing     the sourcing.<refdes> snapshots in .copperhead/constraints.json:
               an obsolete/EOL part fails; zero stock and snapshots older than
               research.stalenessDays warn (fail with --strict-sourcing); with
               research.enabled, every BOM MPN needs a snapshot

ERC and DRC run at the same time. Violations caused by KiCad libraries missing
on this host are counted separately and never fail a check. Results of an
unchanged project are reused from the cache. check makes no network
connection and loads no model code.

--baseline REV (or "baseline" in .copperhead/config.json) runs the same
checks on a clean checkout of REV outside the repository and fails only on
findings that are new since then: ERC/DRC violations, drift and constraint
findings present at REV are reported as existing. A finding matches by its
rule and the items it names (references, pads, nets), never by position, so
a moved board still matches; positions only pair up identical findings. A net
renamed since REV with the very same pins (as diff reports renames) is the
same net: its ERC/DRC violations match under either name.
REV's result is cached by commit: a second check against the same commit,
with the same kicad-cli and copperhead, checks nothing out (--no-cache does).

--format sarif writes SARIF 2.1.0, --format junit JUnit XML, for CI.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch format {
			case "", "text", "json", "sarif", "junit":
			default:
				return usagef("--format %q: want text, json, sarif or junit", format)
			}
			if format == "json" {
				a.json = true
			}
			if a.json && format != "" && format != "json" {
				return usagef("--format %s and --json are two outputs: pick one", format)
			}
			opt := checkOptions{strict: strict, strictSourcing: strictSourcing, noCache: noCache, baseline: baseline, baselineFromConfig: true}
			res, w, err := a.runCheckIn(cmd.Context(), opt)
			if err != nil {
				return err
			}
			switch {
			case format == "sarif":
				if err := writeSARIF(a.io.Out, w, res); err != nil {
					return failf("%v", err)
				}
			case format == "junit":
				if err := writeJUnit(a.io.Out, res, strict); err != nil {
					return failf("%v", err)
				}
			case a.mode() == modeJSON:
				if err := writeJSON(a.io.Out, res); err != nil {
					return err
				}
			default:
				printCheck(a.io.Out, res)
			}
			if !res.OK {
				return quietf(ExitFailed, "check failed: %s", strings.Join(failedGates(res), ", "))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail ERC/DRC on warnings too, not only on errors")
	cmd.Flags().BoolVar(&strictSourcing, "strict-sourcing", false, "fail on stale and zero-stock sourcing snapshots, and on BOM MPNs without one")
	cmd.Flags().BoolVar(&noCache, "no-cache", false, "always run kicad-cli, ignoring cached results")
	cmd.Flags().StringVar(&baseline, "baseline", "", "fail only on findings new since git revision `REV` (default: \"baseline\" in config.json)")
	cmd.Flags().StringVar(&format, "format", "", "output `format`: text, json (as --json), sarif (SARIF 2.1.0) or junit (JUnit XML)")
	return cmd
}

// checkOptions are check's flags.
type checkOptions struct {
	strict         bool // ERC/DRC warnings fail
	strictSourcing bool // sourcing warnings fail; every MPN needs a snapshot
	noCache        bool // always run kicad-cli
	// baseline is the git revision whose findings do not fail (--baseline);
	// with baselineFromConfig, config.json's "baseline" when it is "".
	baseline           string
	baselineFromConfig bool
}

func (a *app) runCheck(ctx context.Context, opt checkOptions) (*verify.Result, error) {
	res, _, err := a.runCheckIn(ctx, opt)
	return res, err
}

// runCheckIn is runCheck that also returns the workspace it checked.
func (a *app) runCheckIn(ctx context.Context, opt checkOptions) (_ *verify.Result, _ *workspace, err error) {
	w, tool, err := a.openKiCad(ctx)
	if err != nil {
		return nil, nil, err
	}
	rev, label := opt.baseline, "--baseline"
	if rev == "" && opt.baselineFromConfig {
		rev, label = w.cfg.Baseline, `"baseline" in `+config.ConfigPath+":"
	}
	var base *baselineSide
	if rev != "" {
		if base, err = a.openBaseline(ctx, w, label, rev, tool, opt); err != nil {
			return nil, nil, err
		}
		defer func() {
			if rmErr := base.scratch.Remove(ctx); rmErr != nil && err == nil {
				err = failf("%v", rmErr)
			}
		}()
	}
	tool.NoCache = opt.noCache
	in := verify.Input{Repo: w.repo, Config: w.cfg, Schematic: w.proj.Schematic, Board: w.proj.Board, Tool: tool,
		Strict: opt.strict, StrictSourcing: opt.strictSourcing}
	var (
		res, baseRes    *verify.Result
		resErr, baseErr error
		wg              sync.WaitGroup
	)
	// The baseline's checks run beside the working tree's; an unchanged
	// revision's kicad-cli results come from the cache.
	baseCtx, cancelBase := context.WithCancel(ctx)
	defer cancelBase()
	if base != nil {
		wg.Go(func() { baseRes, baseErr = base.check(baseCtx, opt) })
	}
	// A working tree that cannot be checked ends the baseline's run too:
	// its error is the one reported.
	if res, resErr = verify.Run(ctx, in); resErr != nil {
		cancelBase()
	}
	wg.Wait()
	if resErr != nil {
		return nil, nil, failf("%v", w.relErr(resErr))
	}
	if baseErr != nil {
		return nil, nil, failf("baseline %s: %v", rev, strings.ReplaceAll(baseErr.Error(), base.root+string(filepath.Separator), ""))
	}
	if base != nil {
		bar := kicadcli.SeverityError
		if opt.strict {
			bar = kicadcli.SeverityWarning
		}
		cached := baseRes.ERC.Cached && (baseRes.DRC.Cached || baseRes.DRC.Skipped != "")
		info := verify.BaselineInfo{Rev: rev, Commit: base.commit, Cached: cached, BoardUnchanged: base.boardUnchanged()}
		verify.ApplyBaseline(res, baseRes, info, bar)
	}
	return res, w, nil
}

// printCheck writes one line per gate, then each problem indented beneath it.
func printCheck(w io.Writer, r *verify.Result) {
	based := r.Baseline != nil
	if based {
		fmt.Fprintf(w, "baseline %s (%s)\n", r.Baseline.Rev, r.Baseline.Commit[:min(12, len(r.Baseline.Commit))])
		// Renamed nets are why a violation under a new net name is existing.
		for i, rn := range r.Baseline.RenamedNets {
			if i == maxWarningLines {
				fmt.Fprintf(w, "  ... and %d more renamed nets (--json lists all)\n", len(r.Baseline.RenamedNets)-i)
				break
			}
			fmt.Fprintf(w, "  net renamed since: %s -> %s\n", kicadcli.OneLine(rn.Old), kicadcli.OneLine(rn.New))
		}
	}
	printTool(w, "ERC", r.ERC, based)
	printTool(w, "DRC", r.DRC, based)
	var drifts []baselined
	for _, m := range r.Drift.Mismatches {
		drifts = append(drifts, baselined{m.BaselineState, m.Message})
	}
	printFindings(w, "drift", r.Drift.OK, based, drifts, "mismatch")
	for _, s := range r.Drift.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", s)
	}
	var cons []baselined
	for _, v := range r.Constraints.Violations {
		cons = append(cons, baselined{v.BaselineState, v.Message})
	}
	printFindings(w, "constraints", r.Constraints.OK, based, cons, "violation")
	switch {
	case r.OpenSpec.Skipped != "":
		fmt.Fprintf(w, "openspec - skipped (%s)\n", r.OpenSpec.Skipped)
	case r.OpenSpec.OK:
		fmt.Fprintln(w, "openspec ✓")
	default:
		fmt.Fprintf(w, "openspec ✗ %s\n", textfmt.Count(len(r.OpenSpec.Issues), "issue"))
	}
	for _, is := range r.OpenSpec.Issues {
		fmt.Fprintf(w, "  %s %s: %s\n", is.Type, is.Item, textfmt.OneLine(is.Message))
	}
	printSourcing(w, r.Sourcing)
	if n := r.Environment.ERC + r.Environment.DRC; n > 0 {
		fmt.Fprintf(w, "environment: %s from KiCad libraries missing on this host (not counted; run 'copperhead doctor')\n", textfmt.Count(n, "violation"))
	}
}

// printSourcing writes the sourcing gate: failures first, then warnings,
// each finding on its own line.
func printSourcing(w io.Writer, g verify.SourcingGate) {
	if g.Skipped != "" {
		fmt.Fprintf(w, "sourcing - skipped (%s)\n", g.Skipped)
		return
	}
	var failures, warnings []string
	for _, f := range g.Findings {
		if f.Severity == design.SeverityFail {
			failures = append(failures, f.Message)
		} else {
			warnings = append(warnings, f.Message)
		}
	}
	var counts []string
	if len(failures) > 0 {
		counts = append(counts, textfmt.Count(len(failures), "failure"))
	}
	if len(warnings) > 0 {
		counts = append(counts, textfmt.Count(len(warnings), "warning"))
	}
	mark := "✓"
	if !g.OK {
		mark = "✗"
	}
	fmt.Fprintln(w, strings.TrimSpace("sourcing "+mark+" "+strings.Join(counts, ", ")))
	for _, m := range failures {
		fmt.Fprintf(w, "  %s\n", m)
	}
	for _, m := range warnings {
		fmt.Fprintf(w, "  warning: %s\n", m)
	}
}

func printTool(w io.Writer, name string, g verify.ToolGate, baseline bool) {
	var parts []string
	if baseline {
		if n, old := g.BaselineCounts(); n+old > 0 {
			parts = append(parts, fmt.Sprintf("%d new (%d existing)", n, old))
		}
	} else if b := kicadcli.Breakdown(g.Violations, g.Unconnected, g.Parity); b != "" {
		// Errors and warnings count every group: the unconnected items
		// and parity issues are named inside the count that holds them.
		parts = append(parts, b)
	}
	mark := checkMark(g.OK)
	switch {
	case g.Skipped != "":
		fmt.Fprintf(w, "%s - skipped (%s)\n", name, g.Skipped)
		return
	case len(parts) == 0:
		fmt.Fprintf(w, "%s %s\n", name, mark)
	default:
		fmt.Fprintf(w, "%s %s %s\n", name, mark, strings.Join(parts, ", "))
	}
	// Every error is printed; warnings are capped so that a board with a
	// hundred parity warnings still leaves its errors readable. Under a
	// baseline, new findings come first and existing ones are capped too:
	// they are what the board already had.
	warned, existing := 0, 0
	for _, pass := range []string{verify.StateNew, verify.StateExisting} {
		for _, group := range [][]kicadcli.Violation{g.Violations, g.Unconnected, g.Parity} {
			for _, v := range group {
				if v.BaselineState != pass && (baseline || pass != verify.StateNew) {
					continue
				}
				switch {
				case v.BaselineState == verify.StateExisting:
					if existing++; existing > maxWarningLines {
						continue
					}
				case v.Severity != kicadcli.SeverityError:
					if warned++; warned > maxWarningLines {
						continue
					}
				}
				prefix := ""
				if baseline {
					prefix = v.BaselineState + " "
				}
				fmt.Fprintf(w, "  %s%s\n", prefix, violationLine(v))
			}
		}
	}
	if warned > maxWarningLines {
		fmt.Fprintf(w, "  ... and %d more warnings (--json lists all)\n", warned-maxWarningLines)
	}
	if existing > maxWarningLines {
		fmt.Fprintf(w, "  ... and %d more existing (--json lists all)\n", existing-maxWarningLines)
	}
}

func checkMark(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

// baselined is one finding of a gate and its state against a baseline.
type baselined struct{ state, message string }

// printFindings writes a gate's line ("drift ✓", "drift ✗ 2 mismatches",
// "drift ✗ 1 new (1 existing)" under a baseline), then each finding
// indented beneath it.
func printFindings(w io.Writer, gate string, ok, based bool, fs []baselined, noun string) {
	switch {
	case based && len(fs) > 0:
		fmt.Fprintf(w, "%s %s %s\n", gate, checkMark(ok), baselineCount(fs))
	case ok:
		fmt.Fprintf(w, "%s ✓\n", gate)
	default:
		fmt.Fprintf(w, "%s ✗ %s\n", gate, textfmt.Count(len(fs), noun))
	}
	for _, f := range fs {
		fmt.Fprintf(w, "  %s\n", statePrefix(f.state)+f.message)
	}
}

// baselineCount is "1 new (2 existing)" over a gate's findings.
func baselineCount(fs []baselined) string {
	n, old := 0, 0
	for _, f := range fs {
		if f.state == verify.StateExisting {
			old++
		} else {
			n++
		}
	}
	return fmt.Sprintf("%d new (%d existing)", n, old)
}

// statePrefix is "new " or "existing " under a baseline, else "".
func statePrefix(state string) string {
	if state == "" {
		return ""
	}
	return state + " "
}

// maxWarningLines caps the warnings printed per gate in plain output.
const maxWarningLines = 10

// violationLine renders a violation with where it is: sheet and position.
// It is one line whatever KiCad's text holds (kicadcli.OneLine).
func violationLine(v kicadcli.Violation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s", v.Severity, v.Type, kicadcli.OneLine(v.Description))
	if v.Sheet != "" {
		fmt.Fprintf(&b, " on sheet %s", kicadcli.OneLine(v.Sheet))
	}
	fmt.Fprintf(&b, " at (%.2f, %.2f) mm", v.Pos.X, v.Pos.Y)
	var items []string
	for _, it := range v.Items {
		items = append(items, kicadcli.OneLine(it.Description))
	}
	if len(items) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(items, "; "))
	}
	return b.String()
}

// failedGates names the gates that did not pass, in check's order.
func failedGates(res *verify.Result) []string {
	var out []string
	for _, g := range []struct {
		name string
		ok   bool
	}{{"ERC", res.ERC.OK}, {"DRC", res.DRC.OK}, {"drift", res.Drift.OK}, {"constraints", res.Constraints.OK},
		{"openspec", res.OpenSpec.OK}, {"sourcing", res.Sourcing.OK}} {
		if !g.ok {
			out = append(out, g.name)
		}
	}
	return out
}
