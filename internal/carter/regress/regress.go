// Package regress runs carter's shipped regression cases
// (tests/regression_cases.json): canned questions over a real offline
// corpus, each with a minimum grounding and coverage and the facts the
// brief must contain. A case passes only when its run meets those bars,
// every quote is exact at its offsets, no reference is unretrieved, the
// brief's citations check, and a replay reproduces the outputs byte for
// byte.
//
// regress may import the orchestrator and the carter packages it needs; it
// must never import the command layer or open a socket itself (the
// retriever it is handed does, or does not).
package regress

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"copperhead/internal/carter/orchestrator"
	"copperhead/internal/carter/render"
	"copperhead/internal/carter/retrieve"
	"copperhead/internal/carter/synth"
	"copperhead/internal/carter/task"
)

// Case is one canned question.
type Case struct {
	Name          string   `json:"name"`
	Question      string   `json:"question"`
	MinGrounding  float64  `json:"min_grounding"`
	MinCoverage   float64  `json:"min_coverage"`
	RequiredFacts []string `json:"required_facts"`
	// ExpectStop, when set, lists the acceptable stop reasons (an
	// unanswerable question must stop early, not spend its budget).
	ExpectStop   []string `json:"expect_stop,omitempty"`
	MaxSources   int      `json:"max_sources,omitempty"`
	MaxToolCalls int      `json:"max_tool_calls,omitempty"`
}

// Suite is a cases file.
type Suite struct {
	// Corpus is the folder the cases are asked over; relative paths are
	// relative to the cases file, and $VARS are expanded.
	Corpus string `json:"corpus"`
	Cases  []Case `json:"cases"`
}

// Load reads and checks a cases file.
func Load(path string) (Suite, error) {
	var s Suite
	data, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("regression cases: %w", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("regression cases %s: %w", path, err)
	}
	if len(s.Cases) == 0 {
		return s, fmt.Errorf("regression cases %s: no cases", path)
	}
	names := map[string]bool{}
	for i, c := range s.Cases {
		switch {
		case c.Name == "" || names[c.Name]:
			return s, fmt.Errorf("regression cases %s: case %d: missing or duplicate name %q", path, i+1, c.Name)
		case strings.TrimSpace(c.Question) == "":
			return s, fmt.Errorf("regression cases %s: case %s: empty question", path, c.Name)
		case c.MinGrounding < 0 || c.MinGrounding > 1 || c.MinCoverage < 0 || c.MinCoverage > 1:
			return s, fmt.Errorf("regression cases %s: case %s: minimums must be between 0 and 1", path, c.Name)
		}
		names[c.Name] = true
	}
	if s.Corpus != "" {
		s.Corpus = os.ExpandEnv(s.Corpus)
		if !filepath.IsAbs(s.Corpus) {
			s.Corpus = filepath.Join(filepath.Dir(path), s.Corpus)
		}
	}
	return s, nil
}

// Outcome is one case's result.
type Outcome struct {
	Case          string   `json:"case"`
	RunID         string   `json:"run_id"`
	StopReason    string   `json:"stop_reason"`
	Coverage      float64  `json:"coverage"`
	Grounding     float64  `json:"grounding"`
	QuotesExact   int      `json:"quotes_exact"`
	QuotesTotal   int      `json:"quotes_total"`
	Unretrieved   int      `json:"unretrieved_references"`
	FactsFound    int      `json:"facts_found"`
	FactsTotal    int      `json:"facts_total"`
	ToolCalls     int      `json:"tool_calls"`
	ElapsedMS     int64    `json:"elapsed_ms"`
	ReplayOK      bool     `json:"replay_identical"`
	Pass          bool     `json:"pass"`
	Problems      []string `json:"problems"`
	MissingFacts  []string `json:"missing_facts"`
	WithinBudgets bool     `json:"within_budgets"`
}

// Config is what Run needs besides the cases.
type Config struct {
	Retriever retrieve.Retriever
	Synth     func() synth.Synthesizer // a fresh synthesizer per case
	Model     string
	OutDir    string
	Options   func(*orchestrator.Options) // test hook: clock, progress
}

// Run runs every case and checks it.
func Run(ctx context.Context, s Suite, cfg Config) ([]Outcome, error) {
	var outs []Outcome
	for _, c := range s.Cases {
		if err := ctx.Err(); err != nil {
			return outs, err
		}
		o, err := runCase(ctx, c, cfg)
		if err != nil {
			return outs, fmt.Errorf("case %s: %w", c.Name, err)
		}
		outs = append(outs, o)
	}
	return outs, nil
}

func runCase(ctx context.Context, c Case, cfg Config) (Outcome, error) {
	out := Outcome{Case: c.Name, Problems: []string{}, MissingFacts: []string{}, FactsTotal: len(c.RequiredFacts)}
	spec, err := task.Normalize(task.Spec{Question: c.Question, Constraints: task.Constraints{MaxSources: c.MaxSources, MaxToolCalls: c.MaxToolCalls}})
	if err != nil {
		return out, err
	}
	o := orchestrator.Options{Spec: spec, Retriever: cfg.Retriever, Synth: cfg.Synth(), Model: cfg.Model, OutDir: cfg.OutDir}
	if cfg.Options != nil {
		cfg.Options(&o)
	}
	res, err := orchestrator.Run(ctx, o)
	if err != nil {
		return out, err
	}
	rep := res.Report
	out.RunID, out.StopReason = res.RunID, rep.StopReason
	out.Coverage, out.Grounding = rep.Evaluation.Coverage, rep.Evaluation.Grounding
	out.QuotesExact, out.QuotesTotal = rep.Verify.QuotesExact, rep.Verify.QuotesTotal
	out.Unretrieved = rep.Verify.UnretrievedReferences
	out.ToolCalls, out.ElapsedMS = rep.Evaluation.Cost.ToolCalls, rep.ElapsedMS
	problem := func(format string, args ...any) { out.Problems = append(out.Problems, fmt.Sprintf(format, args...)) }
	if out.Grounding < c.MinGrounding {
		problem("grounding %.3f < %.3f", out.Grounding, c.MinGrounding)
	}
	if out.Coverage < c.MinCoverage {
		problem("coverage %.3f < %.3f", out.Coverage, c.MinCoverage)
	}
	if out.QuotesExact != out.QuotesTotal {
		problem("%d of %d quotes are not exact at their offsets", out.QuotesTotal-out.QuotesExact, out.QuotesTotal)
	}
	if out.Unretrieved != 0 {
		problem("%d references were not retrieved", out.Unretrieved)
	}
	for _, p := range rep.BriefCheck {
		problem("brief: %s", p)
	}
	if rep.StopReason == "" {
		problem("no stop reason")
	}
	if len(c.ExpectStop) > 0 && !contains(c.ExpectStop, rep.StopReason) {
		problem("stopped with %s, want one of %s", rep.StopReason, strings.Join(c.ExpectStop, ", "))
	}
	lim := spec.Constraints
	out.WithinBudgets = rep.Evaluation.Cost.ToolCalls <= lim.MaxToolCalls && rep.Counts.SourcesRead <= lim.MaxSources &&
		float64(rep.ElapsedMS) <= lim.MaxMinutes*60000
	if !out.WithinBudgets {
		problem("budget exceeded: %d tool calls, %d sources, %d ms", rep.Evaluation.Cost.ToolCalls, rep.Counts.SourcesRead, rep.ElapsedMS)
	}
	text, err := groundedText(filepath.Join(res.RunDir, render.ClaimsFile))
	if err != nil {
		return out, err
	}
	for _, f := range c.RequiredFacts {
		if strings.Contains(text, strings.ToLower(f)) {
			out.FactsFound++
		} else {
			out.MissingFacts = append(out.MissingFacts, f)
		}
	}
	if len(out.MissingFacts) > 0 {
		problem("missing facts: %s", strings.Join(quoteAll(out.MissingFacts), ", "))
	}
	rr, err := orchestrator.Replay(ctx, res.RunDir)
	if err != nil {
		return out, err
	}
	out.ReplayOK = rr.Identical
	if !rr.Identical {
		problem("replay differs from the run")
	}
	out.Pass = len(out.Problems) == 0
	return out, nil
}

// groundedText is the lower-cased text of every verified (non-speculation)
// claim and the quotes it cites: where a required fact must appear.
func groundedText(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var doc struct {
		Claims []struct {
			Text        string   `json:"text"`
			EvidenceIDs []string `json:"evidence_ids"`
			Section     string   `json:"section"`
		} `json:"claims"`
		Evidence []struct {
			ID    string `json:"evidence_id"`
			Quote string `json:"quote"`
		} `json:"evidence"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	quotes := map[string]string{}
	for _, e := range doc.Evidence {
		quotes[e.ID] = e.Quote
	}
	var b strings.Builder
	for _, c := range doc.Claims {
		if c.Section == render.SectionSpeculation {
			continue
		}
		b.WriteString(c.Text + "\n")
		for _, id := range c.EvidenceIDs {
			b.WriteString(quotes[id] + "\n")
		}
	}
	return strings.ToLower(strings.Join(strings.Fields(b.String()), " ")), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// Table renders outcomes as a fixed-width table, one row per case and a
// totals line.
func Table(outs []Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-28s %-20s %8s %9s %9s %6s %5s %6s  %s\n", "case", "stop", "coverage", "grounding", "quotes", "facts", "calls", "replay", "result")
	pass := 0
	for _, o := range outs {
		res := "PASS"
		if o.Pass {
			pass++
		} else {
			res = "FAIL: " + strings.Join(o.Problems, "; ")
		}
		replay := "same"
		if !o.ReplayOK {
			replay = "DIFF"
		}
		fmt.Fprintf(&b, "%-28s %-20s %8.2f %9.2f %9s %6s %5d %6s  %s\n", clip(o.Case, 28), o.StopReason, o.Coverage, o.Grounding,
			fmt.Sprintf("%d/%d", o.QuotesExact, o.QuotesTotal), fmt.Sprintf("%d/%d", o.FactsFound, o.FactsTotal), o.ToolCalls, replay, res)
	}
	fmt.Fprintf(&b, "%d passed, %d failed\n", pass, len(outs)-pass)
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// ErrFailed is returned by callers when any case failed.
var ErrFailed = errors.New("regression cases failed")
