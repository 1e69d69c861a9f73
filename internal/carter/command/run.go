package command

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"copperhead/internal/carter/corpus"
	"copperhead/internal/carter/orchestrator"
	"copperhead/internal/carter/render"
	"copperhead/internal/carter/retrieve"
	"copperhead/internal/carter/synth"
	"copperhead/internal/carter/task"
	"copperhead/internal/carter/web"
	"copperhead/internal/llm"
	"copperhead/internal/research/egress"
)

type runFlags struct {
	question     string
	maxSources   int
	maxMinutes   float64
	maxToolCalls int
	recencyDays  int
	allow, deny  []string
	corpus       string
	web          bool
	model        string
	out          string
	json         bool
}

func (a *app) runCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run --question \"...\"",
		Short: "Research a question and write brief.md, claims.json, run_report.json and event_log.jsonl",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.run(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.question, "question", "", "the research question (required)")
	fl.IntVar(&f.maxSources, "max-sources", 0, fmt.Sprintf("most sources to read (default %d)", task.DefaultMaxSources))
	fl.Float64Var(&f.maxMinutes, "max-minutes", 0, fmt.Sprintf("time budget in minutes (default %d)", task.DefaultMaxMinutes))
	fl.IntVar(&f.maxToolCalls, "max-tool-calls", 0, fmt.Sprintf("most searches plus fetches (default %d)", task.DefaultMaxToolCalls))
	fl.IntVar(&f.recencyDays, "recency-days", 0, fmt.Sprintf("ignore sources published longer ago than this (default %d)", task.DefaultRecencyDays))
	fl.StringSliceVar(&f.allow, "allow-domain", nil, "only use sources under these domains (repeatable)")
	fl.StringSliceVar(&f.deny, "deny-domain", nil, "never use sources under these domains (repeatable)")
	fl.StringVar(&f.corpus, "corpus", "", "folder of .md, .txt, .html and .pdf files to research (default $"+EnvCorpus+", else "+DefaultCorpus+")")
	fl.BoolVar(&f.web, "web", false, "search the web instead of a local corpus (needs BRAVE_API_KEY, TAVILY_API_KEY or OPENROUTER_API_KEY)")
	fl.StringVar(&f.model, "model", "", "model for the LLM synthesizer (claude, gpt-5, compat:<id>); \"extractive\" for none (default: selected as for copperhead, else extractive)")
	fl.StringVar(&f.out, "out", DefaultOut, "folder runs are written to (<out>/<run-id>/)")
	fl.BoolVar(&f.json, "json", false, "print the run report as JSON on stdout")
	return cmd
}

func (a *app) run(cmd *cobra.Command, f runFlags) error {
	// Everything that can be refused is checked before the run folder exists,
	// so bad input never leaves a half-written run behind.
	spec, err := task.Normalize(task.Spec{Question: f.question, Constraints: task.Constraints{
		MaxToolCalls: f.maxToolCalls, MaxMinutes: f.maxMinutes, MaxSources: f.maxSources,
		RecencyDays: f.recencyDays, AllowDomains: f.allow, DenyDomains: f.deny,
	}})
	if err != nil {
		return usageError{err}
	}
	if err := orchestrator.Validate(spec); err != nil {
		return usageError{err}
	}
	s, model, err := a.synthesizer(f.model)
	if err != nil {
		return err
	}
	// Loading the corpus is part of the run: its time counts in the
	// reported elapsed time and against --max-minutes.
	now := a.deps.Now
	if now == nil {
		now = time.Now
	}
	began := now()
	ret, err := a.retriever(cmd, f, spec)
	if err != nil {
		return err
	}
	res, err := orchestrator.Run(cmd.Context(), orchestrator.Options{
		Spec: spec, Retriever: ret, Synth: s, Model: model, OutDir: f.out,
		Redactor: a.redactor, Now: a.deps.Now, Progress: a.io.Err, Began: began,
	})
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return a.printRun(res, f.json)
}

func (a *app) printRun(res orchestrator.Result, asJSON bool) error {
	rep := res.Report
	if asJSON {
		return a.printJSON(struct {
			RunDir string        `json:"run_dir"`
			Report render.Report `json:"report"`
		}{res.RunDir, rep})
	}
	ev := rep.Evaluation
	for _, name := range []string{render.BriefFile, render.ClaimsFile, render.ReportFile, rep.EventLog} {
		fmt.Fprintln(a.io.Out, filepath.Join(res.RunDir, name))
	}
	fmt.Fprintf(a.io.Out, "coverage %.2f · grounding %.2f · diversity %.2f · %d claims · %d references · %d tool calls · %.1f s\n",
		ev.Coverage, ev.Grounding, ev.Diversity, rep.Verify.ClaimsGrounded, rep.Counts.References, ev.Cost.ToolCalls, float64(rep.ElapsedMS)/1000)
	partial := ""
	if rep.Partial {
		partial = " (partial brief)"
	}
	fmt.Fprintf(a.io.Out, "stop reason: %s%s\n", rep.StopReason, partial)
	return nil
}

// synthesizer picks the LLM synthesizer when a model is selected (as
// copperhead selects one: --model, COPPERHEAD_MODEL, the one API key set)
// and the extractive one otherwise.
func (a *app) synthesizer(flag string) (synth.Synthesizer, string, error) {
	if flag == "extractive" {
		return synth.Extractive{}, "", nil
	}
	settings := llm.Settings{Flag: flag, Getenv: a.deps.getenv}
	sel, err := llm.Select(settings)
	if errors.Is(err, llm.ErrNoModel) {
		return synth.Extractive{}, "", nil
	}
	if err != nil {
		return nil, "", usageError{err}
	}
	if sel.Backend == llm.BackendReplay {
		return nil, "", usagef("--model %s: carter replays runs with `carter replay --run-id ID`", flag)
	}
	p, err := llm.Open(sel, settings, llm.OpenOptions{})
	if err != nil {
		var le *llm.Error
		if errors.As(err, &le) && le.Hint != "" {
			return nil, "", usagef("model %s: %v (%s)", sel.Spec, err, le.Hint)
		}
		return nil, "", usagef("model %s: %v", sel.Spec, err)
	}
	return synth.LLM{Provider: p}, p.Model(), nil
}

func (a *app) retriever(cmd *cobra.Command, f runFlags, spec task.Spec) (retrieve.Retriever, error) {
	if f.web {
		if f.corpus != "" {
			return nil, usagef("--web and --corpus: choose one retriever")
		}
		log := func(r egress.Record) {
			line := fmt.Sprintf("carter: net %s %s", r.Method, r.URL)
			switch {
			case r.Refused != "":
				line += " refused: " + r.Refused
			case r.Error != "":
				line += " failed: " + r.Error
			default:
				line += fmt.Sprintf(" %d (%d bytes, %s)", r.Status, r.Bytes, r.Duration.Round(1e6))
			}
			fmt.Fprintln(a.io.Err, a.redactor.String(line))
		}
		if a.deps.Web != nil {
			return a.deps.Web(spec, log)
		}
		r, err := web.FromEnv(a.deps.getenv, spec.Constraints.AllowDomains, log)
		if err != nil {
			return nil, usageError{err}
		}
		return r, nil
	}
	dir := f.corpus
	if dir == "" {
		dir = a.deps.getenv(EnvCorpus)
	}
	if dir == "" {
		if _, err := os.Stat(DefaultCorpus); err != nil {
			return nil, usagef("no corpus: pass --corpus DIR (or set %s), or --web", EnvCorpus)
		}
		dir = DefaultCorpus
	}
	// Loading counts against --max-minutes: a corpus that cannot even be
	// indexed within the budget ends the command with that said.
	ctx, cancel := context.WithTimeout(cmd.Context(), time.Duration(spec.Constraints.MaxMinutes*float64(time.Minute)))
	defer cancel()
	c, err := corpus.Load(ctx, dir)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && cmd.Context().Err() == nil {
			return nil, fmt.Errorf("corpus %s: loading took longer than the %g-minute budget (--max-minutes)", dir, spec.Constraints.MaxMinutes)
		}
		if cmd.Context().Err() != nil {
			return nil, fmt.Errorf("corpus %s: interrupted while loading", dir)
		}
		return nil, usageError{err}
	}
	fmt.Fprintf(a.io.Err, "carter: corpus %s: %d documents", c.Dir, len(c.Docs))
	if len(c.Skipped) > 0 {
		fmt.Fprintf(a.io.Err, " (%d skipped)", len(c.Skipped))
	}
	fmt.Fprintln(a.io.Err)
	for _, why := range c.Skipped {
		fmt.Fprintf(a.io.Err, "carter: skipped %s\n", why)
	}
	return c, nil
}
