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
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"copperhead/internal/carter/corpus"
	"copperhead/internal/carter/evaluate"
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
	// LeadFacts must be in the brief's lead: its first verified claim
	// (text and quotes). The answer must come first, not merely somewhere
	// among claims about the wrong option or command.
	LeadFacts []string `json:"lead_facts,omitempty"`
	// ExpectStop, when set, lists the acceptable stop reasons (an
	// unanswerable question must stop early, not spend its budget).
	ExpectStop   []string `json:"expect_stop,omitempty"`
	MaxSources   int      `json:"max_sources,omitempty"`
	MaxToolCalls int      `json:"max_tool_calls,omitempty"`
	// Corpus names one of the suite's Corpora; "" is the suite's Corpus.
	Corpus string `json:"corpus,omitempty"`
	// Kind is the question's kind (definitional, how-to, comparison,
	// numeric, compound, unanswerable), for the table and the suite's
	// balance; "unanswerable" cases must stop NO_EVIDENCE or NO_SOURCES.
	Kind string `json:"kind,omitempty"`
}

// Kinds a case may have.
var Kinds = []string{"definitional", "how-to", "comparison", "numeric", "compound", "unanswerable"}

// CorpusSpec says where a named corpus comes from: a folder on the
// machine, or man pages rendered with man(1) when the suite runs (the
// pages belong to their Debian packages and are never committed).
type CorpusSpec struct {
	Dir      string   `json:"dir,omitempty"`       // $VARS expanded; $GOROOT falls back to `go env GOROOT`
	ManPages []string `json:"man_pages,omitempty"` // rendered to <page>.txt in a temporary folder
	// Needs says what installs it, for the skip message.
	Needs string `json:"needs,omitempty"`
}

// Suite is a cases file.
type Suite struct {
	// Corpus is the folder the cases are asked over; relative paths are
	// relative to the cases file, and $VARS are expanded.
	Corpus  string                `json:"corpus"`
	Corpora map[string]CorpusSpec `json:"corpora,omitempty"`
	Cases   []Case                `json:"cases"`
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
		case c.Corpus != "" && s.Corpora[c.Corpus].Dir == "" && len(s.Corpora[c.Corpus].ManPages) == 0:
			return s, fmt.Errorf("regression cases %s: case %s: corpus %q is not among the suite's corpora", path, c.Name, c.Corpus)
		case c.Kind != "" && !contains(Kinds, c.Kind):
			return s, fmt.Errorf("regression cases %s: case %s: kind %q is not one of %s", path, c.Name, c.Kind, strings.Join(Kinds, ", "))
		}
		names[c.Name] = true
	}
	resolve := func(dir string) string {
		dir = os.Expand(dir, expandVar)
		if dir != "" && !filepath.IsAbs(dir) {
			dir = filepath.Join(filepath.Dir(path), dir)
		}
		return dir
	}
	s.Corpus = resolve(s.Corpus)
	for name, cs := range s.Corpora {
		cs.Dir = resolve(cs.Dir)
		s.Corpora[name] = cs
	}
	return s, nil
}

// expandVar reads an environment variable; GOROOT, when unset, is asked of
// the go command (the Go distribution's docs are a shipped corpus).
func expandVar(name string) string {
	if v := os.Getenv(name); v != "" || name != "GOROOT" {
		return v
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Materialize returns the folder a named corpus is read from: its Dir, or
// a folder under tmp with its man pages rendered as text (MANWIDTH=100,
// no hyphenation or justification, overstrikes removed, tabs expanded).
// skip is non-empty when the corpus is not on this machine, saying what is
// missing and what installs it.
func Materialize(ctx context.Context, name string, cs CorpusSpec, tmp string) (dir, skip string, err error) {
	needs := cs.Needs
	if needs == "" {
		needs = "scripts/setup.sh"
	}
	if cs.Dir != "" {
		if _, err := os.Stat(cs.Dir); err != nil {
			return "", fmt.Sprintf("corpus %s: %s is not on this machine (%s installs it)", name, cs.Dir, needs), nil
		}
		return cs.Dir, "", nil
	}
	if _, err := exec.LookPath("man"); err != nil {
		return "", fmt.Sprintf("corpus %s: man(1) is not installed", name), nil
	}
	dir = filepath.Join(tmp, "corpus-"+name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	var missing []string
	for _, page := range cs.ManPages {
		cmd := exec.CommandContext(ctx, "sh", "-c", `man --no-hyphenation --no-justification "$1" 2>/dev/null | col -bx`, "man", page)
		cmd.Env = append(os.Environ(), "MANWIDTH=100", "MANPAGER=cat", "PAGER=cat", "LC_ALL=C.UTF-8", "MAN_KEEP_FORMATTING=")
		out, err := cmd.Output()
		if err != nil || len(strings.TrimSpace(string(out))) == 0 {
			if ctx.Err() != nil {
				return "", "", ctx.Err()
			}
			missing = append(missing, page)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, page+".txt"), out, 0o644); err != nil {
			return "", "", err
		}
	}
	if len(missing) > 0 {
		return "", fmt.Sprintf("corpus %s: man pages %s are not installed (%s installs them)", name, strings.Join(missing, ", "), needs), nil
	}
	return dir, "", nil
}

// Outcome is one case's result.
type Outcome struct {
	Case          string   `json:"case"`
	Kind          string   `json:"kind,omitempty"`
	Corpus        string   `json:"corpus,omitempty"`
	Skipped       string   `json:"skipped,omitempty"` // why the case did not run (its corpus is not on this machine)
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
	Retriever retrieve.Retriever // the suite's default corpus
	// Retrievers serve the named corpora; Skips says why a named corpus
	// has none (its cases are reported skipped, not failed).
	Retrievers map[string]retrieve.Retriever
	Skips      map[string]string
	// Loads is how long each corpus took to materialize and load ("" for
	// the suite's own), counted in each of its briefs' time as `carter
	// run` counts it: a brief's time is what one run over that corpus costs.
	Loads   map[string]time.Duration
	Synth   func() synth.Synthesizer // a fresh synthesizer per case
	Model   string
	OutDir  string
	Options func(*orchestrator.Options) // test hook: clock, progress
}

// Run runs every case and checks it.
func Run(ctx context.Context, s Suite, cfg Config) ([]Outcome, error) {
	var outs []Outcome
	for _, c := range s.Cases {
		if err := ctx.Err(); err != nil {
			return outs, err
		}
		if why, ok := cfg.Skips[c.Corpus]; ok {
			outs = append(outs, Outcome{Case: c.Name, Kind: c.Kind, Corpus: c.Corpus, Skipped: why, Pass: true, Problems: []string{}, MissingFacts: []string{}, ReplayOK: true})
			continue
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
	out := Outcome{Case: c.Name, Kind: c.Kind, Corpus: c.Corpus, Problems: []string{}, MissingFacts: []string{}, FactsTotal: len(c.RequiredFacts)}
	ret := cfg.Retriever
	if c.Corpus != "" {
		ret = cfg.Retrievers[c.Corpus]
	}
	if ret == nil {
		return out, fmt.Errorf("no retriever for corpus %q", c.Corpus)
	}
	spec, err := task.Normalize(task.Spec{Question: c.Question, Constraints: task.Constraints{MaxSources: c.MaxSources, MaxToolCalls: c.MaxToolCalls}})
	if err != nil {
		return out, err
	}
	o := orchestrator.Options{Spec: spec, Retriever: ret, Synth: cfg.Synth(), Model: cfg.Model, OutDir: cfg.OutDir}
	if cfg.Options != nil {
		cfg.Options(&o)
	}
	if load := cfg.Loads[c.Corpus]; load > 0 {
		now := time.Now
		if o.Now != nil {
			now = o.Now
		}
		o.Began = now().Add(-load)
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
	if c.Kind == "unanswerable" && rep.StopReason != evaluate.StopNoEvidence && rep.StopReason != evaluate.StopNoSources {
		problem("an unanswerable question stopped with %s, want NO_EVIDENCE or NO_SOURCES", rep.StopReason)
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
	text, lead, err := groundedText(filepath.Join(res.RunDir, render.ClaimsFile))
	if err != nil {
		return out, err
	}
	for _, f := range c.LeadFacts {
		if !strings.Contains(lead, strings.ToLower(f)) {
			problem("the first claim lacks %q", f)
		}
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
// claim and the quotes it cites, where a required fact must appear, and
// that of the first such claim (the brief's lead).
func groundedText(path string) (all, lead string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
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
		return "", "", fmt.Errorf("read %s: %w", path, err)
	}
	quotes := map[string]string{}
	for _, e := range doc.Evidence {
		quotes[e.ID] = e.Quote
	}
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	var b strings.Builder
	for _, c := range doc.Claims {
		if c.Section == render.SectionSpeculation {
			continue
		}
		var one strings.Builder
		one.WriteString(c.Text + "\n")
		for _, id := range c.EvidenceIDs {
			one.WriteString(quotes[id] + "\n")
		}
		if b.Len() == 0 {
			lead = norm(one.String())
		}
		b.WriteString(one.String())
	}
	return norm(b.String()), lead, nil
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

// Table renders outcomes as a fixed-width table, one row per case, a
// totals line, and the time per brief (p50/p90) for each corpus.
func Table(outs []Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-28s %-20s %8s %9s %9s %6s %5s %6s  %s\n", "case", "stop", "coverage", "grounding", "quotes", "facts", "calls", "replay", "result")
	pass, skipped := 0, 0
	for _, o := range outs {
		if o.Skipped != "" {
			skipped++
			fmt.Fprintf(&b, "%-28s %-20s %8s %9s %9s %6s %5s %6s  SKIP: %s\n", clip(o.Case, 28), "-", "-", "-", "-", "-", "-", "-", o.Skipped)
			continue
		}
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
	fmt.Fprintf(&b, "%d passed, %d failed", pass, len(outs)-pass-skipped)
	if skipped > 0 {
		fmt.Fprintf(&b, ", %d skipped", skipped)
	}
	b.WriteString("\n")
	for _, t := range Timings(outs) {
		fmt.Fprintf(&b, "time per brief, corpus %s: p50 %d ms, p90 %d ms (%d briefs)\n", t.Corpus, t.P50MS, t.P90MS, t.Briefs)
	}
	return b.String()
}

// Timing is the time per brief over one corpus's cases.
type Timing struct {
	Corpus       string
	Briefs       int
	P50MS, P90MS int64
}

// Timings returns the p50 and p90 of the cases' elapsed time per corpus
// ("default" for the suite's own), in corpus name order.
func Timings(outs []Outcome) []Timing {
	by := map[string][]int64{}
	for _, o := range outs {
		if o.Skipped != "" {
			continue
		}
		name := o.Corpus
		if name == "" {
			name = "default"
		}
		by[name] = append(by[name], o.ElapsedMS)
	}
	var out []Timing
	for name, ms := range by {
		sort.Slice(ms, func(i, j int) bool { return ms[i] < ms[j] })
		out = append(out, Timing{Corpus: name, Briefs: len(ms), P50MS: percentile(ms, 0.5), P90MS: percentile(ms, 0.9)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Corpus < out[j].Corpus })
	return out
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []int64, p float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// ErrFailed is returned by callers when any case failed.
var ErrFailed = errors.New("regression cases failed")

// OpenCorpora materializes (see Materialize) and loads every named corpus
// the suite's cases use, each once. A corpus not on this machine is not an
// error: its name maps to the reason in skips, and its cases are reported
// skipped. loads says how long each took to materialize (render its man
// pages) and load. progress gets one line per corpus (nil: none).
func OpenCorpora(ctx context.Context, s Suite, scratch string, progress func(string)) (rets map[string]retrieve.Retriever, skips map[string]string, loads map[string]time.Duration, err error) {
	rets = map[string]retrieve.Retriever{}
	skips = map[string]string{}
	loads = map[string]time.Duration{}
	if progress == nil {
		progress = func(string) {}
	}
	for _, c := range s.Cases {
		name := c.Corpus
		if name == "" {
			continue
		}
		if _, done := rets[name]; done {
			continue
		}
		if _, done := skips[name]; done {
			continue
		}
		began := time.Now()
		dir, why, err := Materialize(ctx, name, s.Corpora[name], scratch)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("corpus %s: %w", name, err)
		}
		if why != "" {
			skips[name] = why
			progress(fmt.Sprintf("skipping the %s cases: %s", name, why))
			continue
		}
		loaded, err := corpus.Load(ctx, dir)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("corpus %s: %w", name, err)
		}
		rets[name] = loaded
		loads[name] = time.Since(began)
		progress(fmt.Sprintf("corpus %s: %s: %d documents, loaded in %.1f s", name, loaded.Dir, len(loaded.Docs), loads[name].Seconds()))
	}
	return rets, skips, loads, nil
}
