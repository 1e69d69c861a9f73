package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/openspec"
)

// CheckResult is `check --json`: one object per gate, each with "ok" and its
// list of problems. The keys are a stable, documented contract (README).
type CheckResult struct {
	OK          bool              `json:"ok"`
	ERC         ToolGate          `json:"erc"`
	DRC         ToolGate          `json:"drc"`
	Drift       DriftGate         `json:"drift"`
	Constraints ConstraintsGate   `json:"constraints"`
	OpenSpec    OpenSpecGate      `json:"openspec"`
	Environment EnvironmentCounts `json:"environment"`
}

// ToolGate is ERC or DRC as kicad-cli reported it.
type ToolGate struct {
	OK          bool                 `json:"ok"`
	Skipped     string               `json:"skipped,omitempty"` // why the gate did not run
	Errors      int                  `json:"errors"`
	Warnings    int                  `json:"warnings"`
	Violations  []kicadcli.Violation `json:"violations"`
	Unconnected []kicadcli.Violation `json:"unconnected"` // DRC only: unrouted connections
	Parity      []kicadcli.Violation `json:"parity"`      // DRC only: board vs schematic
	Environment []kicadcli.Violation `json:"environment"` // host library problems; never fail the gate
	Cached      bool                 `json:"cached"`      // reused from an identical earlier run
}

// DriftGate is docs against the as-built design.
type DriftGate struct {
	OK         bool              `json:"ok"`
	Mismatches []design.Mismatch `json:"mismatches"`
	Warnings   []string          `json:"warnings"`
}

// ConstraintsGate is .copperhead/constraints.json and config budgets.
type ConstraintsGate struct {
	OK         bool                         `json:"ok"`
	Violations []design.ConstraintViolation `json:"violations"`
}

// OpenSpecGate is `openspec validate --all`.
type OpenSpecGate struct {
	OK      bool             `json:"ok"`
	Skipped string           `json:"skipped,omitempty"`
	Issues  []openspec.Issue `json:"issues"`
}

// EnvironmentCounts counts the violations caused by the host's missing KiCad
// libraries, which are reported but never fail a check.
type EnvironmentCounts struct {
	ERC int `json:"erc"`
	DRC int `json:"drc"`
}

func newCheckCmd(a *app) *cobra.Command {
	var strict, noCache bool
	cmd := &cobra.Command{
		Use:     "check",
		Aliases: []string{"verify"},
		Short:   "Run ERC, DRC, doc drift, constraint and OpenSpec checks (no LLM, for CI)",
		Long: `check runs every gate and exits 0 only when all pass:

  ERC          kicad-cli sch erc on the root schematic
  DRC          kicad-cli pcb drc --schematic-parity on the board (when there is one)
  drift        docs/BOM.md and docs/PINOUT.md against the schematic and netlist
  constraints  forbidden pins in .copperhead/constraints.json; config budgets vs SPEC.md
  openspec     openspec validate --all (when the repo has an openspec/ folder)

ERC and DRC run at the same time. Violations caused by KiCad libraries missing
on this host are counted separately and never fail a check. Results of an
unchanged project are reused from the cache. check makes no network
connection and loads no model code.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := a.runCheck(cmd.Context(), strict, noCache)
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
				return silentFailure
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail ERC/DRC on warnings too, not only on errors")
	cmd.Flags().BoolVar(&noCache, "no-cache", false, "always run kicad-cli, ignoring cached results")
	return cmd
}

func (a *app) runCheck(ctx context.Context, strict, noCache bool) (*CheckResult, error) {
	w, err := a.open("")
	if err != nil {
		return nil, err
	}
	tool, err := findKiCad(ctx)
	if err != nil {
		return nil, err
	}
	tool.NoCache = noCache
	files, err := design.ReadFiles(w.repo, w.cfg)
	if err != nil {
		return nil, failf("%v", err)
	}
	reg, err := design.LoadConstraints(w.repo)
	if err != nil {
		return nil, failf("%v", err)
	}

	// Every slow step is independent: ERC, DRC, the netlist export and our
	// own parse run at once, so check takes about as long as the slowest.
	var (
		wg             sync.WaitGroup
		erc, drc       *kicadcli.Report
		ercErr, drcErr error
		nl             *kicad.Netlist
		nlErr          error
		sch            *kicad.Schematic
		schErr         error
		spec           *openspec.Result
		specErr        error
		runSpec        = openspec.Present(w.repo)
		bar            = kicadcli.SeverityError
	)
	if strict {
		bar = kicadcli.SeverityWarning
	}
	wg.Go(func() { erc, ercErr = tool.ERC(ctx, w.proj.Schematic) })
	if w.proj.Board != "" {
		wg.Go(func() { drc, drcErr = tool.DRC(ctx, w.proj.Board) })
	}
	wg.Go(func() { nl, nlErr = tool.Netlist(ctx, w.proj.Schematic) })
	wg.Go(func() { sch, schErr = kicad.LoadSchematic(w.proj.Schematic) })
	if runSpec {
		wg.Go(func() { spec, specErr = openspec.ValidateAll(ctx, w.repo) })
	}
	wg.Wait()
	for _, err := range []error{schErr, ercErr, drcErr, nlErr} {
		if err != nil {
			return nil, failf("%v", w.relErr(err))
		}
	}

	res := &CheckResult{}
	res.ERC = toolGate(erc, bar)
	if drc != nil {
		res.DRC = toolGate(drc, bar)
	} else {
		res.DRC = ToolGate{OK: true, Skipped: "no board (.kicad_pcb) in the project", Violations: []kicadcli.Violation{},
			Unconnected: []kicadcli.Violation{}, Parity: []kicadcli.Violation{}, Environment: []kicadcli.Violation{}}
	}
	res.Environment = EnvironmentCounts{ERC: len(res.ERC.Environment), DRC: len(res.DRC.Environment)}

	drift := design.Drift(files, w.cfg, sch, nl)
	res.Drift = DriftGate{OK: drift.Clean(), Mismatches: nonNil(drift.Mismatches), Warnings: nonNil(drift.Warnings)}

	cv := design.CheckConstraints(reg, w.cfg, files, nl)
	res.Constraints = ConstraintsGate{OK: len(cv) == 0, Violations: nonNil(cv)}

	switch {
	case !runSpec:
		res.OpenSpec = OpenSpecGate{OK: true, Skipped: "no openspec/ folder", Issues: []openspec.Issue{}}
	case specErr != nil:
		res.OpenSpec = OpenSpecGate{OK: false, Issues: []openspec.Issue{{Level: "ERROR", Message: specErr.Error()}}}
	default:
		res.OpenSpec = OpenSpecGate{OK: spec.OK(), Issues: nonNil(spec.Issues)}
	}
	res.OK = res.ERC.OK && res.DRC.OK && res.Drift.OK && res.Constraints.OK && res.OpenSpec.OK
	return res, nil
}

func toolGate(r *kicadcli.Report, bar kicadcli.Severity) ToolGate {
	c := r.Counts()
	return ToolGate{
		OK:          !r.FailedAt(bar),
		Errors:      c.Errors,
		Warnings:    c.Warnings,
		Violations:  nonNil(r.Violations),
		Unconnected: nonNil(r.Unconnected),
		Parity:      nonNil(r.Parity),
		Environment: nonNil(r.Environment),
		Cached:      r.Cached,
	}
}

// printCheck writes one line per gate, then each problem indented beneath it.
func printCheck(w io.Writer, r *CheckResult) {
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
	if n := r.Environment.ERC + r.Environment.DRC; n > 0 {
		fmt.Fprintf(w, "environment: %s from KiCad libraries missing on this host (not counted; run 'copperhead doctor')\n", plural(n, "violation"))
	}
}

func printTool(w io.Writer, name string, g ToolGate) {
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
func violationLine(v kicadcli.Violation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s", v.Severity, v.Type, v.Description)
	if v.Sheet != "" {
		fmt.Fprintf(&b, " on sheet %s", v.Sheet)
	}
	fmt.Fprintf(&b, " at (%.2f, %.2f) mm", v.Pos.X, v.Pos.Y)
	var items []string
	for _, it := range v.Items {
		items = append(items, it.Description)
	}
	if len(items) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(items, "; "))
	}
	return b.String()
}
