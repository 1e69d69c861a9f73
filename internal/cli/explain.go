package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"copperhead/internal/circuit"
	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/explain"
	"copperhead/internal/llm"
	"copperhead/internal/runs"
)

// ExplainResult is `explain --json`: the facts, and the model's phrasing
// when --phrase asked for one and a model answered.
type ExplainResult struct {
	*explain.Explanation
	Phrased *ExplainPhrase `json:"phrased,omitempty"`
}

// ExplainPhrase is the one paragraph a model wrote from the facts.
type ExplainPhrase struct {
	Model string `json:"model"`
	RunID string `json:"run_id"` // the recorded model call: .copperhead/runs/<run-id>/
	Text  string `json:"text"`
}

func newExplainCmd(a *app) *cobra.Command {
	var phrase bool
	var model string
	cmd := &cobra.Command{
		Use:   "explain <refdes|net|pin>",
		Short: "Show what the schematic, netlist, docs and constraints say about a part, net or pin",
		Long: `explain answers "why is this here?" with facts, each from where it is
recorded, and no model:

  a part (U1, R7)       value, footprint, MPN, sheet, its BOM.md rationale,
                        its pins and nets, pull-up currents, constraints whose
                        affects name it, DECISIONS.md entries naming it
  a net (KEY_DAH)       its pins, labels and sheets, PINOUT.md rows, pull-ups
                        on it, constraints and decisions naming it
  a pin (U1.5, U1.IO5,  its name, net and type, PINOUT.md row with its
   GPIO5, IO5)          strapping/RTC notes, constraints such as forbidden pins

With --phrase and a model configured, one model call (recorded in
.copperhead/runs/) also phrases the facts as one short paragraph, printed
after them and marked as the model's words. Without a model the facts alone
are printed.

Nets are KiCad's, one per sheet instance: a local label RBIAS in a sheet
used three times is three nets, /inst1/RBIAS, /inst2/RBIAS and /inst3/RBIAS,
each explained with its own pins, labels and sheet. A short name that
several nets end in is not guessed: the full names are listed instead.

Exit 0 with the facts, 1 when the subject names nothing (the closest names
are listed) or is an ambiguous short net name (the full names are listed),
2 for bad usage or a broken environment.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
				return withHint(usagef("explain takes one part, net or pin"), "e.g. copperhead explain U1, KEY_DAH or U1.5")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runExplain(cmd.Context(), args[0], phrase, model)
		},
	}
	cmd.Flags().BoolVar(&phrase, "phrase", false, "also have the configured model phrase the facts in one paragraph")
	cmd.Flags().StringVar(&model, "model", "", "the model for --phrase, e.g. claude, gpt-5, compat:<model-id>")
	return cmd
}

func (a *app) runExplain(ctx context.Context, subject string, phrase bool, model string) error {
	w, tool, err := a.openKiCad(ctx)
	if err != nil {
		return err
	}
	in := explain.Input{Config: w.cfg}
	if in.Files, err = design.ReadFiles(w.repo, w.cfg); err != nil {
		return failf("%v", w.relErr(err))
	}
	if in.Constraints, err = design.LoadConstraints(w.repo); err != nil {
		return failf("%v", w.relErr(err))
	}
	if in.Schematic, err = w.schematic(); err != nil {
		return err
	}
	if in.Netlist, err = w.netlist(ctx, tool); err != nil {
		return err
	}
	e, err := explain.Explain(in, subject)
	if err != nil {
		var unknown *explain.UnknownError
		if errors.As(err, &unknown) {
			return withHint(failf("explain: %v", err), "'copperhead parts' and 'copperhead nets' list every name")
		}
		var amb *explain.AmbiguousError
		if errors.As(err, &amb) {
			return withHint(failf("explain: %v", err), "e.g. copperhead explain "+amb.Candidates[0])
		}
		return failf("explain: %v", err)
	}
	res := ExplainResult{Explanation: e}
	if phrase {
		p, err := a.phraseExplanation(ctx, w.repo, w.cfg, model, e)
		switch {
		case err != nil:
			// The facts are the answer; the phrasing is optional.
			fmt.Fprintf(a.io.Err, "copperhead: explain --phrase: %s (the facts are printed without it)\n", oneLine(err.Error()))
		default:
			res.Phrased = p
		}
	}
	if a.mode() == modeJSON {
		return writeJSON(a.io.Out, res)
	}
	printExplanation(a.io.Out, in.Config, e)
	if res.Phrased != nil {
		fmt.Fprintf(a.io.Out, "\nin words (%s, from the facts above; run %s):\n%s\n", res.Phrased.Model, res.Phrased.RunID, res.Phrased.Text)
	}
	return nil
}

// phraseExplanation makes the one recorded model call of --phrase.
func (a *app) phraseExplanation(ctx context.Context, repo string, cfg config.Config, model string, e *explain.Explanation) (*ExplainPhrase, error) {
	s, err := a.modelSettings(model)
	if err != nil {
		return nil, err
	}
	sel, err := llm.Select(s)
	if err != nil {
		return nil, err
	}
	facts, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return nil, err
	}
	r, err := a.runOneShot(ctx, repo, cfg, s, sel, "explain", "explain "+e.Subject, runs.Call{
		Message: "Explain " + e.Subject + ". The facts:\n\n" + string(facts),
		System:  explain.PhrasePrompt, MaxTokens: 400})
	if err != nil {
		return nil, err
	}
	if r.Err != nil {
		return nil, r.Err
	}
	return &ExplainPhrase{Model: r.Model, RunID: r.RunID, Text: strings.TrimSpace(r.Redact(r.Reply.Text))}, nil
}

// printExplanation writes the facts: a title line, the subject's own facts
// as aligned rows, then its pins, constraints and decisions.
func printExplanation(w io.Writer, cfg config.Config, e *explain.Explanation) {
	// Aligned columns leave trailing blanks where a last cell is empty:
	// render, then trim each line.
	var buf bytes.Buffer
	defer func() {
		for _, line := range strings.SplitAfter(buf.String(), "\n") {
			nl := strings.HasSuffix(line, "\n")
			line = strings.TrimRight(line, " \n")
			if nl {
				line += "\n"
			}
			io.WriteString(w, line)
		}
	}()
	out := &buf
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	row := func(label, value string) {
		if value != "" {
			fmt.Fprintf(tw, "  %s\t%s\n", label, value)
		}
	}
	bom, pinout, decisions := cfg.DocPath(design.BOMDoc), cfg.DocPath(design.PinoutDoc), cfg.DocPath(design.DecisionsDoc)
	switch e.Kind {
	case explain.KindPart:
		p := e.Part
		fmt.Fprintf(tw, "%s: part %s\n", p.Refdes, dash(p.Value))
		row("footprint", dash(p.Footprint))
		row("symbol", p.LibID)
		row("MPN", firstOf(p.MPN, "(none in the schematic)"))
		row("sheet", fmt.Sprintf("%s (%s)", p.SheetPath, p.SheetFile))
		if f := partFlags(p.Part); f != "" {
			row("flags", f)
		}
		if p.BOMRow != nil {
			row("rationale", fmt.Sprintf("%s (%s)", dash(p.BOMRow.Rationale), bom))
		} else {
			row("rationale", "(no row in "+bom+")")
		}
		for _, pu := range p.PullUps {
			row("pull-up", pullUpLine(pu, true))
		}
		tw.Flush()
		fmt.Fprintf(tw, "pins (%d)\n", len(p.Pins))
		for _, pin := range p.Pins {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", pin.Pin, dash(pin.Name), pin.Net, pin.Notes)
		}
	case explain.KindNet:
		n := e.Net
		fmt.Fprintf(tw, "%s: net\n", n.Name)
		pins := make([]string, len(n.Pins))
		for i, p := range n.Pins {
			pins[i] = p.Refdes + "." + p.Pin
			if p.PinFunction != "" && p.PinFunction != p.Pin {
				pins[i] += " (" + p.PinFunction + ")"
			}
		}
		row("pins", strings.Join(pins, ", "))
		var labels []string
		for _, l := range n.Labels {
			labels = append(labels, fmt.Sprintf("%s (%s, %s)", l.Name, l.Kind, l.SheetPath))
		}
		row("labels", firstOf(strings.Join(labels, ", "), "(none: named by a power symbol or by KiCad)"))
		row("sheets", strings.Join(n.Sheets, ", "))
		for _, r := range n.Pinout {
			row(design.PinoutDoc, pinoutLine(r))
		}
		for _, pu := range n.PullUps {
			row("pull-up", pullUpLine(pu, false))
		}
	case explain.KindPin:
		p := e.Pin
		fmt.Fprintf(tw, "%s.%s: pin %s of %s (%s)\n", p.Refdes, p.Pin, dash(p.Name), p.Refdes, dash(p.Part))
		net := p.Net
		if len(p.SameNet) > 0 {
			net += ", with " + strings.Join(p.SameNet, ", ")
		}
		row("net", net)
		row("type", p.Type)
		row("notes", p.Notes)
		if p.PinoutRow != nil {
			row(design.PinoutDoc, pinoutLine(*p.PinoutRow))
		} else {
			row(design.PinoutDoc, "(no row in "+pinout+")")
		}
	}
	tw.Flush()
	fmt.Fprintln(tw, "constraints")
	if len(e.Constraints) == 0 {
		fmt.Fprintln(tw, "  none in "+config.ConstraintsPath+" name it")
	}
	for _, c := range e.Constraints {
		fmt.Fprintf(tw, "  %s\t%s (%s; source: %s)\n", c.Key, c.Why, dash(c.Limit), firstOf(c.Source, "none given"))
	}
	tw.Flush()
	fmt.Fprintln(out, "decisions")
	if len(e.Decisions) == 0 {
		fmt.Fprintln(out, "  none in "+decisions+" name it")
	}
	for _, d := range e.Decisions {
		fmt.Fprintf(out, "  %s\n", d.Heading)
		for _, l := range d.Lines {
			fmt.Fprintf(out, "    %s\n", l)
		}
	}
}

func pinoutLine(r design.PinoutRow) string {
	s := fmt.Sprintf("%s pin %s %s on %s", r.Refdes, r.Pin, dash(r.Name), r.Net)
	var extra []string
	for _, x := range []string{r.Type, r.Notes} {
		if x != "" {
			extra = append(extra, x)
		}
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// pullUpLine states a pull-up's currents under the leakage model (see
// circuit.SleepLeakage): asleep with keys open, and with a key held.
func pullUpLine(pu circuit.PullUp, withNet bool) string {
	s := fmt.Sprintf("%s %s from %s", pu.Refdes, pu.Value, pu.Rail)
	if withNet {
		s += " on " + pu.Net
	}
	s += fmt.Sprintf(": %s µA asleep", formatUA(pu.IdleUA))
	if len(pu.PullDown) > 0 {
		s += " (through " + strings.Join(pu.PullDown, ", ") + " to ground)"
	}
	if len(pu.Keys) > 0 {
		s += fmt.Sprintf(", %s µA while %s is held", formatUA(pu.HeldUA), strings.Join(pu.Keys, " or "))
	}
	return s
}

func formatUA(v float64) string { return fmt.Sprint(v) }

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
