package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/design"
	"copperhead/internal/kicadcli"
	"copperhead/internal/verify"
)

func newCheckCmd(a *app) *cobra.Command {
	var strict, strictSourcing, noCache bool
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
connection and loads no model code.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := a.runCheck(cmd.Context(), checkOptions{strict: strict, strictSourcing: strictSourcing, noCache: noCache})
			if err != nil {
				return err
			}
			if a.mode() == modeJSON {
				if err := writeJSON(a.io.Out, res); err != nil {
					return err
				}
			} else {
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
	return cmd
}

// checkOptions are check's flags.
type checkOptions struct {
	strict         bool // ERC/DRC warnings fail
	strictSourcing bool // sourcing warnings fail; every MPN needs a snapshot
	noCache        bool // always run kicad-cli
}

func (a *app) runCheck(ctx context.Context, opt checkOptions) (*verify.Result, error) {
	w, tool, err := a.openKiCad(ctx)
	if err != nil {
		return nil, err
	}
	tool.NoCache = opt.noCache
	res, err := verify.Run(ctx, verify.Input{Repo: w.repo, Config: w.cfg, Schematic: w.proj.Schematic, Board: w.proj.Board, Tool: tool,
		Strict: opt.strict, StrictSourcing: opt.strictSourcing})
	if err != nil {
		return nil, failf("%v", w.relErr(err))
	}
	return res, nil
}

// printCheck writes one line per gate, then each problem indented beneath it.
func printCheck(w io.Writer, r *verify.Result) {
	printTool(w, "ERC", r.ERC)
	printTool(w, "DRC", r.DRC)
	if r.Drift.OK {
		fmt.Fprintln(w, "drift ✓")
	} else {
		fmt.Fprintf(w, "drift ✗ %s\n", plural(len(r.Drift.Mismatches), "mismatch"))
	}
	for _, m := range r.Drift.Mismatches {
		fmt.Fprintf(w, "  %s\n", m.Message)
	}
	for _, s := range r.Drift.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", s)
	}
	if r.Constraints.OK {
		fmt.Fprintln(w, "constraints ✓")
	} else {
		fmt.Fprintf(w, "constraints ✗ %s\n", plural(len(r.Constraints.Violations), "violation"))
	}
	for _, v := range r.Constraints.Violations {
		fmt.Fprintf(w, "  %s\n", v.Message)
	}
	switch {
	case r.OpenSpec.Skipped != "":
		fmt.Fprintf(w, "openspec - skipped (%s)\n", r.OpenSpec.Skipped)
	case r.OpenSpec.OK:
		fmt.Fprintln(w, "openspec ✓")
	default:
		fmt.Fprintf(w, "openspec ✗ %s\n", plural(len(r.OpenSpec.Issues), "issue"))
	}
	for _, is := range r.OpenSpec.Issues {
		fmt.Fprintf(w, "  %s %s: %s\n", is.Type, is.Item, oneLine(is.Message))
	}
	printSourcing(w, r.Sourcing)
	if n := r.Environment.ERC + r.Environment.DRC; n > 0 {
		fmt.Fprintf(w, "environment: %s from KiCad libraries missing on this host (not counted; run 'copperhead doctor')\n", plural(n, "violation"))
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
		counts = append(counts, plural(len(failures), "failure"))
	}
	if len(warnings) > 0 {
		counts = append(counts, plural(len(warnings), "warning"))
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

func printTool(w io.Writer, name string, g verify.ToolGate) {
	var parts []string
	if g.Errors > 0 {
		parts = append(parts, plural(g.Errors, "error"))
	}
	if g.Warnings > 0 {
		parts = append(parts, plural(g.Warnings, "warning"))
	}
	if n := len(g.Unconnected); n > 0 {
		parts = append(parts, fmt.Sprintf("%d unconnected", n))
	}
	if n := len(g.Parity); n > 0 {
		parts = append(parts, fmt.Sprintf("%d parity", n))
	}
	mark := "✓"
	if !g.OK {
		mark = "✗"
	}
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
	// hundred parity warnings still leaves its errors readable.
	warned := 0
	for _, group := range [][]kicadcli.Violation{g.Violations, g.Unconnected, g.Parity} {
		for _, v := range group {
			if v.Severity != kicadcli.SeverityError {
				if warned++; warned > maxWarningLines {
					continue
				}
			}
			fmt.Fprintf(w, "  %s\n", violationLine(v))
		}
	}
	if warned > maxWarningLines {
		fmt.Fprintf(w, "  ... and %d more warnings (--json lists all)\n", warned-maxWarningLines)
	}
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
