package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"copperhead/internal/atomicfile"
	"copperhead/internal/carter/artifact"
	"copperhead/internal/carter/evaluate"
	"copperhead/internal/carter/eventlog"
	"copperhead/internal/carter/extract"
	"copperhead/internal/carter/ids"
	"copperhead/internal/carter/policy"
	"copperhead/internal/carter/render"
	"copperhead/internal/carter/retrieve"
	"copperhead/internal/carter/synth"
	"copperhead/internal/carter/task"
	"copperhead/internal/carter/terms"
	"copperhead/internal/carter/verify"
	"copperhead/internal/redact"
	"copperhead/internal/textfmt"
	"copperhead/internal/ulids"
)

// Options configure one run.
type Options struct {
	Spec      task.Spec // normalized
	Retriever retrieve.Retriever
	Synth     synth.Synthesizer
	Model     string // the model id, "" for the extractive synthesizer
	OutDir    string // runs are written to OutDir/<run-id>/
	Redactor  *redact.Redactor
	Now       func() time.Time // nil: time.Now
	Progress  io.Writer        // one line per step; nil: discarded
	// Began is when the work for this run started (before the corpus was
	// loaded); the run's clock and its time budget start there. Zero: now.
	Began time.Time
}

// Result is a finished run.
type Result struct {
	RunID  string
	RunDir string
	Report render.Report
}

// ErrNoAspects is returned for a question with no content words: there is
// nothing to search for and nothing coverage could measure.
var ErrNoAspects = errors.New("the question has no content words to research")

// Validate checks what a run needs before anything is written.
func Validate(spec task.Spec) error {
	if len(evaluate.Aspects(spec.Question)) == 0 {
		return fmt.Errorf("%w: %w", task.ErrInvalid, ErrNoAspects)
	}
	return nil
}

// candidatesPerSearch is how many hits one search asks for: enough to
// choose diverse sources from, few enough that a results page stays cheap.
const candidatesPerSearch = 20

// readText is a source already read: its text and untrusted spans, kept so
// a follow-up round can re-rank its passages for the sub-questions still
// unanswered.
type readText struct {
	source int // index into rec.Sources
	text   string
	skip   []policy.Span
}

type runner struct {
	opts      Options
	now       func() time.Time
	start     time.Time
	runID     string
	log       *eventlog.Writer
	store     *artifact.Store
	pol       *policy.Policy
	aspects   []evaluate.Aspect
	rec       artifact.Record
	texts     map[string]string // text hash -> text, for sources with evidence
	readTexts []readText        // every source read, for follow-up rounds to re-rank
	seen      map[string]bool   // candidate URLs already decided
	skips     map[string][]policy.Span
	prog      io.Writer
}

// Run executes one research run and writes its outputs. Errors before the
// run folder exists (a bad spec) leave nothing on disk; once it exists, a
// failure still ends in a partial brief with stop reason ERROR.
func Run(ctx context.Context, o Options) (Result, error) {
	if err := Validate(o.Spec); err != nil {
		return Result{}, err
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	start := now().UTC()
	if !o.Began.IsZero() && o.Began.Before(start) {
		start = o.Began.UTC()
	}
	r := &runner{opts: o, now: now, start: start, runID: ulids.New(start), texts: map[string]string{},
		seen: map[string]bool{}, skips: map[string][]policy.Span{}, prog: o.Progress}
	if r.prog == nil {
		r.prog = io.Discard
	}
	runDir := filepath.Join(o.OutDir, r.runID)
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return Result{}, fmt.Errorf("create run folder: %w", err)
	}
	log, err := eventlog.Create(filepath.Join(runDir, eventlog.FileName), o.Redactor, func() time.Time { return now() })
	if err != nil {
		return Result{}, err
	}
	defer log.Close()
	r.log = log
	r.store = artifact.Open(runDir)
	r.pol = policy.New(o.Spec, start, o.Redactor)
	r.aspects = evaluate.Aspects(o.Spec.Question)
	r.rec = artifact.Record{RunID: r.runID, Spec: o.Spec, Retriever: o.Retriever.Name(), Synthesizer: o.Synth.Name(), Model: o.Model,
		Sources: []artifact.Source{}, Evidence: []artifact.Evidence{}}
	r.rec.Facts.StartedAt = start.Format(eventlog.TimeFormat)
	if w, ok := o.Retriever.(retrieve.Weighter); ok {
		r.rec.Weights = map[string]float64{}
		for _, sub := range terms.SubQuestions(o.Spec.Question) {
			for _, st := range sub.Stems {
				r.rec.Weights[st] = math.Round(w.IDF(st)*1e6) / 1e6
			}
		}
	}

	if err := r.event(eventlog.TaskCreated, map[string]any{
		"run_id": r.runID, "task": o.Spec, "retriever": o.Retriever.Name(), "synthesizer": o.Synth.Name(),
		"model": o.Model, "aspects": r.aspects,
	}); err != nil {
		return Result{}, err
	}
	r.progress("run %s: %q (retriever %s, synthesizer %s)", r.runID, o.Spec.Question, o.Retriever.Name(), o.Synth.Name())

	// The context enforces the time budget on work in flight (a slow fetch)
	// by the real clock; the loop's own checks read o.Now, so tests can
	// drive the budget with a fake one.
	budget := time.Duration(o.Spec.Constraints.MaxMinutes*float64(time.Minute)) - now().Sub(start)
	budgetCtx, cancel := context.WithTimeout(ctx, max(budget, 0))
	defer cancel()
	if err := r.gather(budgetCtx, ctx); err != nil {
		return Result{}, err
	}
	// Synthesis spends the same time budget: a slow model is cut off at
	// the deadline and the extractive synthesizer drafts instead.
	notes, err := r.synthesize(budgetCtx)
	if err != nil {
		return Result{}, err
	}
	r.rec.Notes = notes
	end := now().UTC()
	r.rec.Facts.FinishedAt = end.Format(eventlog.TimeFormat)
	r.rec.Facts.ElapsedMS = end.Sub(start).Milliseconds()
	if err := r.store.WriteRecord(r.rec); err != nil {
		return Result{}, err
	}
	out, err := Compose(ctx, r.rec, r.store)
	if err != nil {
		r.fail("compose", err)
		return Result{}, err
	}
	if err := writeOutputs(runDir, out); err != nil {
		r.fail("write outputs", err)
		return Result{}, err
	}
	if err := r.event(eventlog.BriefRendered, map[string]any{
		"brief_sha256": artifact.Hash(out.Brief), "claims_sha256": artifact.Hash(out.Claims), "report_sha256": artifact.Hash(out.Report),
		"claims": out.Parsed.Verify.ClaimsGrounded, "speculation": out.Parsed.Verify.ClaimsSpeculation,
		"references": out.Parsed.Counts.References, "brief_check": out.Parsed.BriefCheck,
	}); err != nil {
		return Result{}, err
	}
	ev := out.Parsed.Evaluation
	if err := r.event(eventlog.Stopped, map[string]any{
		"stop_reason": ev.StopReason, "detail": r.rec.Facts.StopDetail, "partial": out.Parsed.Partial,
		"coverage": ev.Coverage, "grounding": ev.Grounding, "diversity": ev.Diversity, "cost": ev.Cost,
	}); err != nil {
		return Result{}, err
	}
	return Result{RunID: r.runID, RunDir: runDir, Report: out.Parsed}, nil
}

func writeOutputs(runDir string, out Outputs) error {
	for _, f := range []struct {
		name string
		data []byte
	}{{render.BriefFile, out.Brief}, {render.ClaimsFile, out.Claims}, {render.ReportFile, out.Report}} {
		if err := atomicfile.Write(filepath.Join(runDir, f.name), f.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) progress(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	fmt.Fprintf(r.prog, "carter: %s\n", r.opts.Redactor.String(line))
}

func (r *runner) event(t eventlog.Type, payload any) error {
	_, err := r.log.Append(t, payload)
	return err
}

// fail logs an ERROR event; the log write's own error is secondary.
func (r *runner) fail(stage string, err error) {
	_ = r.event(eventlog.Error, map[string]any{"stage": stage, "error": err.Error()})
}

func (r *runner) elapsedMinutes() float64 { return r.now().Sub(r.start).Minutes() }

func (r *runner) budget() evaluate.Budget {
	c := r.opts.Spec.Constraints
	return evaluate.Budget{ToolCalls: r.rec.Facts.ToolCalls, MaxToolCalls: c.MaxToolCalls,
		ElapsedMinutes: r.elapsedMinutes(), MaxMinutes: c.MaxMinutes,
		Sources: len(r.rec.Sources), MaxSources: c.MaxSources}
}

// stop records the loop's stop reason.
func (r *runner) stop(reason, detail string) {
	r.rec.Facts.StopReason = reason
	r.rec.Facts.StopDetail = detail
	r.progress("stop: %s (%s)", reason, detail)
}

// gather runs retrieval rounds until a stop rule fires. budgetCtx carries
// the time budget; ctx is the caller's (cancellation).
func (r *runner) gather(budgetCtx, ctx context.Context) error {
	var prev evaluate.Round
	for n := 1; ; n++ {
		if hs := evaluate.HardStop(r.budget()); hs != "" {
			r.stop(hs, r.budgetDetail(hs))
			return nil
		}
		r.rec.Facts.Rounds = n
		query := r.query(n, prev)
		newSources, truncated, err := r.round(budgetCtx, n, query)
		if err == nil && n > 1 && len(prev.Gaps) > 0 && budgetCtx.Err() == nil {
			err = r.reread(budgetCtx, prev.Gaps)
		}
		switch {
		case ctx.Err() != nil:
			r.stop(evaluate.StopCancelled, "interrupted")
			return nil
		case budgetCtx.Err() != nil:
			r.stop(evaluate.StopMaxMinutes, r.budgetDetail(evaluate.StopMaxMinutes))
			return nil
		case err != nil:
			r.fail("search", err)
			r.stop(evaluate.StopError, err.Error())
			return nil
		}
		cur := r.provisional(newSources)
		more, reason := evaluate.Continue(n, prev, cur)
		if hs := evaluate.HardStop(r.budget()); truncated && hs != "" {
			// A budget cut this round short: that, not the round's
			// meagre yield, is why the run ends.
			more, reason = false, hs
		}
		decision := "continue"
		if !more {
			decision = "stop: " + reason
		} else if hs := evaluate.HardStop(r.budget()); hs != "" {
			decision = "stop: " + hs
		}
		r.rec.Facts.LoopCoverage = cur.Coverage
		if err := r.event(eventlog.OutlineDrafted, map[string]any{
			"round": n, "coverage": cur.Coverage, "grounded_claims": cur.Grounded, "contradictions": cur.Contradictions,
			"gaps": cur.Gaps, "new_sources": cur.NewSources, "decision": decision,
			"sections": map[string]int{"findings": cur.Grounded, "contradictions": cur.Contradictions, "gaps": len(cur.Gaps)},
		}); err != nil {
			return err
		}
		r.progress("round %d: %d new sources, coverage %.2f, %d gaps → %s", n, newSources, cur.Coverage, len(cur.Gaps), decision)
		if !more {
			detail := fmt.Sprintf("round %d: coverage %.2f (was %.2f), %d contradictions, %d gaps", n, cur.Coverage, prev.Coverage, cur.Contradictions, len(cur.Gaps))
			if evaluate.Partial(reason) {
				detail = r.budgetDetail(reason)
			}
			r.stop(reason, detail)
			return nil
		}
		prev = cur
	}
}

func (r *runner) budgetDetail(reason string) string {
	c := r.opts.Spec.Constraints
	switch reason {
	case evaluate.StopMaxToolCalls:
		return fmt.Sprintf("%d of %d tool calls used", r.rec.Facts.ToolCalls, c.MaxToolCalls)
	case evaluate.StopMaxMinutes:
		return fmt.Sprintf("%.1f of %g minutes used", r.elapsedMinutes(), c.MaxMinutes)
	case evaluate.StopMaxSources:
		return fmt.Sprintf("%d of %d sources read", len(r.rec.Sources), c.MaxSources)
	}
	return reason
}

// query is round n's search: the question first, then the question's
// uncovered aspects put in front so the ranker favours what is missing.
func (r *runner) query(n int, prev evaluate.Round) string {
	if n == 1 || len(prev.Gaps) == 0 {
		return r.opts.Spec.Question
	}
	return strings.Join(prev.Gaps, " ") + " " + r.opts.Spec.Question
}

// perRound is how many new sources one round may read: a third of the
// source budget (at least two), so the soft stop gets a say before the
// budget is spent.
func (r *runner) perRound() int {
	return max(2, int(math.Ceil(float64(r.opts.Spec.Constraints.MaxSources)/3)))
}

// round searches once and reads the best new candidates. It returns how
// many sources it added and whether a budget cut it short.
func (r *runner) round(ctx context.Context, n int, query string) (added int, truncated bool, err error) {
	r.rec.Facts.ToolCalls++
	r.rec.Facts.Searches++
	cands, err := r.opts.Retriever.Search(ctx, query, candidatesPerSearch)
	results := make([]map[string]any, 0, len(cands))
	for _, c := range cands {
		results = append(results, map[string]any{"url": c.URL, "title": c.Title, "rank": c.Rank, "score": c.Score})
	}
	payload := map[string]any{"round": n, "query": query, "retriever": r.opts.Retriever.Name(), "results": results}
	if err != nil {
		payload["error"] = err.Error()
	}
	if lerr := r.event(eventlog.Searched, payload); lerr != nil {
		return 0, false, lerr
	}
	if err != nil {
		return 0, false, err
	}
	r.progress("round %d: searched %q: %d results", n, query, len(cands))
	picks := r.selectCandidates(cands)
	for i, c := range picks {
		if evaluate.HardStop(r.budget()) != "" || ctx.Err() != nil {
			// Unread picks stay eligible; the budget decides what happens.
			for _, rest := range picks[i:] {
				delete(r.seen, rest.URL)
				r.rec.Facts.Considered--
			}
			return added, true, nil
		}
		ok, err := r.read(ctx, c)
		if err != nil {
			return added, false, err
		}
		if ok {
			added++
		}
	}
	return added, false, nil
}

// selectCandidates applies the domain policy and picks this round's
// sources: relevance order, but a domain not yet used goes before a second
// page from a domain already cited (diversity).
func (r *runner) selectCandidates(cands []retrieve.Candidate) []retrieve.Candidate {
	used := map[string]bool{}
	for _, s := range r.rec.Sources {
		used[s.Domain] = true
	}
	var ok []retrieve.Candidate
	for _, c := range cands {
		if r.seen[c.URL] {
			continue
		}
		r.seen[c.URL] = true
		r.rec.Facts.Considered++
		if why := r.pol.CheckURL(c.URL); why != "" {
			r.reject(c.URL, c.Title, why)
			continue
		}
		ok = append(ok, c)
	}
	sort.SliceStable(ok, func(i, j int) bool {
		ui, uj := used[evaluate.Domain(ok[i].URL)], used[evaluate.Domain(ok[j].URL)]
		return !ui && uj
	})
	room := min(r.perRound(), r.opts.Spec.Constraints.MaxSources-len(r.rec.Sources))
	if len(ok) > room {
		// Candidates not picked this round stay eligible for the next one.
		for _, c := range ok[max(room, 0):] {
			delete(r.seen, c.URL)
			r.rec.Facts.Considered--
		}
		ok = ok[:max(room, 0)]
	}
	return ok
}

func (r *runner) reject(url, title, why string) {
	r.rec.Facts.Rejected++
	_ = r.event(eventlog.SourceSelected, map[string]any{"selected": false, "url": url, "title": title, "reason": why})
	r.progress("skip %s: %s", url, why)
}

// read fetches one candidate, applies the content policy, records the
// source and extracts its evidence. It reports whether a source was added.
func (r *runner) read(ctx context.Context, c retrieve.Candidate) (bool, error) {
	r.rec.Facts.ToolCalls++
	r.rec.Facts.Fetches++
	doc, err := r.opts.Retriever.Fetch(ctx, c)
	if err != nil {
		r.rec.Facts.FetchErrors++
		_ = r.event(eventlog.Error, map[string]any{"stage": "fetch", "url": c.URL, "error": err.Error()})
		_ = r.event(eventlog.SourceSelected, map[string]any{"selected": false, "url": c.URL, "title": c.Title, "reason": "fetch failed: " + err.Error()})
		r.progress("fetch %s failed: %v", c.URL, err)
		return false, nil
	}
	if doc.URL != c.URL {
		r.seen[doc.URL] = true
		if why := r.pol.CheckURL(doc.URL); why != "" {
			r.reject(doc.URL, doc.Title, "after redirect: "+why)
			return false, nil
		}
	}
	var published *string
	if doc.Published != "" {
		p := doc.Published
		published = &p
	}
	if why := r.pol.CheckPublished(published); why != "" {
		r.reject(doc.URL, doc.Title, why)
		return false, nil
	}
	text, redacted := r.pol.Redact(doc.Text)
	title, _ := r.pol.Redact(textfmt.OneLine(doc.Title))
	src := artifact.Source{
		ID: ids.Derive(r.start, r.runID, "source", doc.URL), Title: title, URL: doc.URL,
		PublishedDate: published, RetrievedAt: r.now().UTC().Format(eventlog.TimeFormat),
		ContentHash: doc.ContentHash, TextHash: artifact.Hash([]byte(text)), TextBytes: len(text),
		Extractor: doc.Extractor, Domain: evaluate.Domain(doc.URL), Flags: []string{}, Retriever: r.opts.Retriever.Name(),
	}
	var notes []string
	if redacted {
		src.Flags = append(src.Flags, artifact.FlagSecretsRedacted)
		notes = append(notes, "credential-shaped text redacted before storage")
	}
	stop := func() bool { return ctx.Err() != nil }
	spans, _ := policy.ScanInjectionUntil(text, stop)
	if len(spans) > 0 {
		src.Flags = append(src.Flags, artifact.FlagPromptInjection)
		r.rec.Facts.Flagged++
		notes = append(notes, fmt.Sprintf("%d passage(s) addressed to AI agents ignored (untrusted content)", len(spans)))
	}
	if len(notes) > 0 {
		n := strings.Join(notes, "; ")
		src.Notes = &n
	}
	var weight func(string) float64
	if w, ok := r.opts.Retriever.(retrieve.Weighter); ok {
		weight = w.IDF
	}
	// The budget context carries the deadline and Ctrl-C: both stop the
	// extraction between passages, keeping what it found so far.
	snips := extract.Snippets(text, extract.Options{Aspects: evaluate.Stems(r.aspects), Subs: r.subStems(), Weight: weight, Skip: spans,
		Stop: stop})
	var evs []artifact.Evidence
	for _, s := range snips {
		evs = append(evs, evidenceOf(r, src.ID, text, s))
	}
	if len(evs) > 0 {
		if _, err := r.store.PutText(text); err != nil {
			return false, err
		}
		src.TextStored = true
		r.texts[src.TextHash] = text
	}
	r.readTexts = append(r.readTexts, readText{source: len(r.rec.Sources), text: text, skip: spans})
	r.rec.Sources = append(r.rec.Sources, src)
	r.rec.Evidence = append(r.rec.Evidence, evs...)
	if err := r.event(eventlog.SourceSelected, map[string]any{
		"selected": true, "source_id": src.ID, "url": src.URL, "title": src.Title, "domain": src.Domain,
		"published_date": src.PublishedDate, "content_hash": src.ContentHash, "text_bytes": src.TextBytes,
		"flags": src.Flags, "untrusted_spans": len(spans),
	}); err != nil {
		return false, err
	}
	list := make([]map[string]any, 0, len(evs))
	for _, e := range evs {
		list = append(list, map[string]any{"evidence_id": e.ID, "char_start": e.Start, "char_end": e.End, "relevance": e.Relevance, "quote": e.Quote})
	}
	if err := r.event(eventlog.SnippetExtracted, map[string]any{"source_id": src.ID, "evidence": list}); err != nil {
		return false, err
	}
	r.progress("read %s (%d bytes of text): %d snippets", src.URL, src.TextBytes, len(evs))
	return true, nil
}

// evidenceOf turns a snippet of a source's text into its evidence record.
func evidenceOf(r *runner, sourceID, text string, s extract.Snippet) artifact.Evidence {
	e := artifact.Evidence{
		ID:       ids.Derive(r.start, r.runID, "evidence", sourceID, fmt.Sprint(s.Start), fmt.Sprint(s.End)),
		SourceID: sourceID, Quote: text[s.Start:s.End], Start: s.Start, End: s.End, Relevance: s.Relevance,
	}
	if s.CtxEnd > s.CtxStart {
		e.Context, e.ContextStart, e.ContextEnd = text[s.CtxStart:s.CtxEnd], s.CtxStart, s.CtxEnd
	}
	return e
}

// rereadExtra is how many more snippets a follow-up round lets each
// unanswered sub-question take from a source already read.
const rereadExtra = 3

// reread re-ranks the passages of every source already read for the
// sub-questions still without a verified answer (gaps), giving them more
// room than the first reading did and skipping spans already evidence. It
// costs no tool call: the texts are in hand.
func (r *runner) reread(ctx context.Context, gaps []string) error {
	subs := terms.SubQuestions(r.opts.Spec.Question)
	extra := map[int]int{}
	open := map[string]bool{}
	for _, g := range gaps {
		open[g] = true
	}
	for k, sub := range subs {
		if open[sub.Text] {
			extra[k] = rereadExtra
		}
	}
	if len(extra) == 0 {
		return nil
	}
	var weight func(string) float64
	if w, ok := r.opts.Retriever.(retrieve.Weighter); ok {
		weight = w.IDF
	}
	stems := r.subStems()
	for _, rt := range r.readTexts {
		if ctx.Err() != nil {
			return nil
		}
		src := &r.rec.Sources[rt.source]
		var taken [][2]int
		for _, e := range r.rec.Evidence {
			if e.SourceID == src.ID {
				taken = append(taken, [2]int{e.Start, e.End})
			}
		}
		// Only the open sub-questions compete: a closed one keeps what it has.
		only := make([][]string, len(stems))
		for k := range stems {
			if extra[k] > 0 {
				only[k] = stems[k]
			}
		}
		snips := extract.Snippets(rt.text, extract.Options{Subs: only, Weight: weight, Skip: rt.skip, PerSource: 1, Extra: extra,
			Exclude: taken, Stop: func() bool { return ctx.Err() != nil }})
		if len(snips) == 0 {
			continue
		}
		var evs []artifact.Evidence
		list := make([]map[string]any, 0, len(snips))
		for _, sn := range snips {
			e := evidenceOf(r, src.ID, rt.text, sn)
			evs = append(evs, e)
			list = append(list, map[string]any{"evidence_id": e.ID, "char_start": e.Start, "char_end": e.End, "relevance": e.Relevance, "quote": e.Quote})
		}
		if !src.TextStored {
			if _, err := r.store.PutText(rt.text); err != nil {
				return err
			}
			src.TextStored = true
			r.texts[src.TextHash] = rt.text
		}
		r.rec.Evidence = append(r.rec.Evidence, evs...)
		if err := r.event(eventlog.SnippetExtracted, map[string]any{"source_id": src.ID, "reread": true, "evidence": list}); err != nil {
			return err
		}
		r.progress("re-read %s for %d open sub-question(s): %d more snippets", src.URL, len(extra), len(evs))
	}
	return nil
}

// subStems returns the content stems of each sub-question.
func (r *runner) subStems() [][]string {
	subs := terms.SubQuestions(r.opts.Spec.Question)
	out := make([][]string, len(subs))
	for i, s := range subs {
		out[i] = s.Stems
	}
	return out
}

// provisional drafts extractively from the evidence so far and evaluates
// it, for the soft stop.
func (r *runner) provisional(newSources int) evaluate.Round {
	v := r.verifyDraft(r.extractiveDraft())
	ev := evaluate.EvaluateWeighted(r.opts.Spec.Question, r.rec.Weights, v, evaluate.Cost{}, "")
	contra := 0
	for _, c := range v.Grounded {
		if c.HasTag("contradiction") {
			contra++
		}
	}
	return evaluate.Round{Coverage: ev.Coverage, Contradictions: contra, Gaps: evaluate.SortedGapWords(ev.Gaps),
		NewSources: newSources, Grounded: len(v.Grounded)}
}

func (r *runner) extractiveDraft() []artifact.Claim {
	out, _ := synth.Extractive{}.Synthesize(context.Background(), r.synthInput())
	return out.Claims
}

func (r *runner) synthInput() synth.Input {
	return synth.Input{RunID: r.runID, Start: r.start, Question: r.opts.Spec.Question, Sources: r.rec.Sources, Evidence: r.rec.Evidence, Weights: r.rec.Weights}
}

func (r *runner) verifyDraft(claims []artifact.Claim) verify.Result {
	return verify.Run(verify.Input{Claims: claims, Evidence: r.rec.Evidence, Sources: r.rec.Sources,
		Text: func(h string) (string, error) {
			if t, ok := r.texts[h]; ok {
				return t, nil
			}
			return r.store.Text(h)
		}})
}

// synthesize drafts the final claims with the configured synthesizer and
// records what it cost and said. A model failure falls back to the
// extractive synthesizer, noted in the brief, rather than losing the run.
func (r *runner) synthesize(ctx context.Context) ([]string, error) {
	notes := []string{}
	out, err := r.opts.Synth.Synthesize(ctx, r.synthInput())
	r.rec.Facts.ModelCalls += out.ModelCalls
	r.rec.Facts.TokensIn += out.TokensIn
	r.rec.Facts.TokensOut += out.TokensOut
	if len(out.Turns) > 0 {
		if werr := r.store.WriteModelTurns(out.Turns); werr != nil {
			return nil, werr
		}
	}
	if err == nil && len(out.Claims) == 0 && len(r.rec.Evidence) > 0 {
		// A model that drafts nothing from real evidence has not answered;
		// the extractive synthesizer drafts from the same evidence.
		err = fmt.Errorf("it drafted no claims from %d evidence snippets", len(r.rec.Evidence))
	}
	if err != nil {
		r.fail("synthesize", err)
		r.progress("synthesizer %s failed (%v); using the extractive synthesizer", r.opts.Synth.Name(), err)
		notes = append(notes, fmt.Sprintf("the %s synthesizer failed (%s); claims were drafted extractively", r.opts.Synth.Name(), r.opts.Redactor.String(err.Error())))
		r.rec.Synthesizer = synth.Extractive{}.Name()
		r.rec.Model = ""
		// The failed model turns are not replayed: the record says extractive.
		if werr := r.store.WriteModelTurns(nil); werr != nil {
			return nil, werr
		}
		// The fallback needs no model and no time budget: it must run even
		// when the model was cut off at the deadline.
		out, _ = synth.Extractive{}.Synthesize(context.WithoutCancel(ctx), r.synthInput())
	}
	if err := r.event(eventlog.ClaimsBuilt, map[string]any{
		"synthesizer": r.rec.Synthesizer, "model": r.rec.Model, "claims": len(out.Claims),
		"model_calls": out.ModelCalls, "tokens_in": out.TokensIn, "tokens_out": out.TokensOut,
	}); err != nil {
		return nil, err
	}
	r.progress("drafted %d claims (%s)", len(out.Claims), r.rec.Synthesizer)
	return notes, nil
}
