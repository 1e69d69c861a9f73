package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"copperhead/internal/kicadcli"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

// maxViolationLines caps the violations one check shows. Every error is
// always shown up to the cap, before any warning.
const maxViolationLines = 60

type runERCArgs struct{}

var runERCTool = newTool("run_erc", runERC)

func runERC(ctx context.Context, s *tool.Session, _ runERCArgs) (tool.Result, error) {
	return runCheck(ctx, s, false), nil
}

// runCheck runs ERC (board false) or DRC and records it as the session's
// last verification of that kind: clean closes the matching ledger
// obligations; a failure after a KiCad edit counts one repair cycle (once
// per edit, however often the model re-runs the check without fixing).
func runCheck(ctx context.Context, s *tool.Session, board bool) tool.Result {
	name, toolName, kind, what := "ERC", "run_erc", tool.OblERC, "schematic (.kicad_sch)"
	if board {
		name, toolName, kind, what = "DRC", "run_drc", tool.OblDRC, "board (.kicad_pcb)"
	}
	abs, rel := s.DesignFile(board)
	if abs == "" {
		return tool.Result{Text: fmt.Sprintf("%s: not applicable yet: the repository has no %s to check; nothing to do until one exists", toolName, what)}
	}
	if s.KiCad == nil {
		return tool.Errorf("%s: kicad-cli is not available on this machine, so %s cannot run", toolName, name)
	}
	var rep *kicadcli.Report
	var err error
	if board {
		rep, err = s.KiCad.DRC(ctx, abs)
	} else {
		rep, err = s.KiCad.ERC(ctx, abs)
	}
	v := &tool.Verification{AfterEdit: s.KiCadEditSeq, Report: rep}
	if board {
		s.LastDRC = v
	} else {
		s.LastERC = v
	}
	if err != nil {
		// A report kicad-cli did not write almost always means it could not
		// load the file: kicadcli's error quotes what kicad-cli said.
		cycle := s.CountRepair()
		return tool.Errorf("%s: %s on %s did not produce a report: %s%s", toolName, name, rel, s.Scrub(err.Error()), cycle)
	}
	v.Clean = !rep.Failed()

	var b strings.Builder
	c := rep.Counts()
	counts := fmt.Sprintf("%s, %s", textfmt.CountForms(c.Errors, "error", "errors"), textfmt.CountForms(c.Warnings, "warning", "warnings"))
	if v.Clean {
		closed := s.EnsureLedger().Resolve(kind, "", fmt.Sprintf("%s clean after KiCad edit #%d", name, s.KiCadEditSeq))
		fmt.Fprintf(&b, "%s on %s: clean (%s)", name, rel, counts)
		if closed > 0 {
			fmt.Fprintf(&b, "; closed %s", textfmt.CountForms(closed, string(kind)+" obligation", string(kind)+" obligations"))
		}
		b.WriteString(".\n")
	} else {
		fmt.Fprintf(&b, "%s on %s: NOT clean (%s). Fix the cause of each error and run %s again.%s\n",
			name, rel, counts, toolName, s.CountRepair())
	}
	writeViolations(&b, rep)
	if n := len(rep.Environment); n > 0 {
		fmt.Fprintf(&b, "environment: %s from KiCad libraries missing on this machine (%s): not counted, never blocking.\n",
			textfmt.CountForms(n, "violation", "violations"), typeTally(rep.Environment))
	}
	if n := len(rep.Excluded); n > 0 {
		fmt.Fprintf(&b, "excluded: %s the project excludes in its .kicad_pro: not counted.\n", textfmt.CountForms(n, "violation", "violations"))
	}
	for i, note := range rep.Notes {
		if i == 5 {
			break
		}
		fmt.Fprintf(&b, "kicad-cli said: %s\n", note)
	}
	return tool.Result{Text: b.String()}
}

// writeViolations lists the counted violations, errors before warnings,
// each group labelled, capped at maxViolationLines.
func writeViolations(b *strings.Builder, rep *kicadcli.Report) {
	type labelled struct {
		group string
		v     kicadcli.Violation
	}
	var all []labelled
	for _, g := range []struct {
		name string
		vs   []kicadcli.Violation
	}{{"", rep.Violations}, {"unconnected ", rep.Unconnected}, {"parity ", rep.Parity}} {
		for _, v := range g.vs {
			all = append(all, labelled{g.name, v})
		}
	}
	slices.SortStableFunc(all, func(x, y labelled) int {
		return boolRank(y.v.Severity == kicadcli.SeverityError) - boolRank(x.v.Severity == kicadcli.SeverityError)
	})
	for i, l := range all {
		if i == maxViolationLines {
			fmt.Fprintf(b, "… and %d more not shown; fix these and run the check again.\n", len(all)-maxViolationLines)
			break
		}
		b.WriteString(l.group + violationLine(l.v) + "\n")
	}
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// violationLine renders one violation with everything KiCad said about it:
// "error pin_not_connected: Pin not connected; sheet /; at (10.16, 20.32) mm;
// items: Symbol U1 Pin 3 [GPIO3] @ (10.16, 20.32)". It is one line whatever
// KiCad's text holds (kicadcli.OneLine): a multi-line PCB text shows as
// 'DIO\n\nCLK'.
func violationLine(v kicadcli.Violation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s", v.Severity, v.Type, kicadcli.OneLine(v.Description))
	if v.Sheet != "" {
		fmt.Fprintf(&b, "; sheet %s", kicadcli.OneLine(v.Sheet))
	}
	fmt.Fprintf(&b, "; at (%.2f, %.2f) mm", v.Pos.X, v.Pos.Y)
	if len(v.Items) > 0 {
		var items []string
		for _, it := range v.Items {
			items = append(items, fmt.Sprintf("%s @ (%.2f, %.2f)", kicadcli.OneLine(it.Description), it.Pos.X, it.Pos.Y))
		}
		b.WriteString("; items: " + strings.Join(items, "; "))
	}
	return b.String()
}

// typeTally summarizes violations by type: "footprint_link_issues ×3".
func typeTally(vs []kicadcli.Violation) string {
	counts := map[string]int{}
	var order []string
	for _, v := range vs {
		if counts[v.Type] == 0 {
			order = append(order, v.Type)
		}
		counts[v.Type]++
	}
	slices.Sort(order)
	var parts []string
	for _, t := range order {
		parts = append(parts, fmt.Sprintf("%s ×%d", t, counts[t]))
	}
	return strings.Join(parts, ", ")
}
