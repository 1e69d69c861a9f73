// Package render writes a carter run's three derived outputs from its
// record, its verified claims and its evaluation: brief.md (the 1–2 page
// research brief), claims.json (the machine-readable claims table) and
// run_report.json (cost, time, counts, stop reason, audit pointer). Output is
// a pure function of its inputs (sorted, no clocks, no maps iterated
// unsorted), which is what lets replay reproduce it byte for byte.
//
// render may import artifact, verify, evaluate, task and the standard
// library; it must never import a retriever, synth or the orchestrator.
package render

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"copperhead/internal/carter/artifact"
	"copperhead/internal/carter/evaluate"
	"copperhead/internal/carter/task"
	"copperhead/internal/carter/verify"
	"copperhead/internal/textfmt"
)

// Output file names inside a run folder.
const (
	BriefFile  = "brief.md"
	ClaimsFile = "claims.json"
	ReportFile = "run_report.json"
)

// summaryClaims is how many claims the executive summary states.
const summaryClaims = 3

// Input is everything the outputs are made from.
type Input struct {
	Record     artifact.Record
	Verified   verify.Result
	Evaluation evaluate.Evaluation
	EventLog   string   // the log's file name, the audit pointer
	Notes      []string // things the reader must know (a fallback synthesizer)
}

// Outputs are the rendered files.
type Outputs struct {
	Brief  []byte
	Claims []byte
	Report []byte
	Parsed Report
}

// Sections of the brief a claim can sit in.
const (
	SectionSummary        = "summary"
	SectionFinding        = "finding"
	SectionContradiction  = "contradiction"
	SectionSpeculation    = "speculation"
	contradictionsHeading = "## Contradictions / disagreements"
)

type placedClaim struct {
	artifact.Claim
	Section string `json:"section"`
}

// place orders grounded claims (confidence, then draft order) and assigns
// sections: the top non-contradiction claims are the summary.
func place(v verify.Result) []placedClaim {
	grounded := append([]artifact.Claim(nil), v.Grounded...)
	sort.SliceStable(grounded, func(i, j int) bool { return grounded[i].Confidence > grounded[j].Confidence })
	var out []placedClaim
	n := 0
	for _, c := range grounded {
		sec := SectionFinding
		switch {
		case c.HasTag(artifact.TagContradiction):
			sec = SectionContradiction
		case n < summaryClaims:
			sec = SectionSummary
			n++
		}
		out = append(out, placedClaim{c, sec})
	}
	for _, c := range v.Speculation {
		out = append(out, placedClaim{c, SectionSpeculation})
	}
	return out
}

// Render produces the three outputs.
func Render(in Input) (Outputs, error) {
	placed := place(in.Verified)
	refNum := map[string]int{}
	for i, s := range in.Verified.References {
		refNum[s.ID] = i + 1
	}
	evSource := map[string]string{}
	evByID := map[string]artifact.Evidence{}
	for _, e := range in.Verified.Evidence {
		evSource[e.ID] = e.SourceID
		evByID[e.ID] = e
	}
	brief := renderBrief(in, placed, refNum, evSource, evByID)
	problems := verify.CheckBrief(string(brief))
	report := buildReport(in, placed, problems)
	claims, err := marshal(buildClaims(in, placed))
	if err != nil {
		return Outputs{}, fmt.Errorf("render claims.json: %w", err)
	}
	rep, err := marshal(report)
	if err != nil {
		return Outputs{}, fmt.Errorf("render run_report.json: %w", err)
	}
	return Outputs{Brief: brief, Claims: claims, Report: rep, Parsed: report}, nil
}

func marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func cites(c artifact.Claim, refNum map[string]int, evSource map[string]string) string {
	var nums []int
	seen := map[int]bool{}
	for _, id := range c.EvidenceIDs {
		if n := refNum[evSource[id]]; n > 0 && !seen[n] {
			seen[n] = true
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	var b strings.Builder
	for _, n := range nums {
		fmt.Fprintf(&b, "[%d]", n)
	}
	return b.String()
}

func renderBrief(in Input, placed []placedClaim, refNum map[string]int, evSource map[string]string, evByID map[string]artifact.Evidence) []byte {
	rec, ev := in.Record, in.Evaluation
	var b strings.Builder
	b.WriteString("# Research brief\n\n")
	fmt.Fprintf(&b, "**Question:** %s\n\n", esc(rec.Spec.Question))
	if evaluate.Partial(rec.Facts.StopReason) {
		fmt.Fprintf(&b, "> **Partial brief.** %s before the evidence was complete (coverage %.2f). What is missing is listed under Gaps.\n\n",
			stopSentence(rec), ev.Coverage)
	}
	fmt.Fprintf(&b, "Run `%s` · stop reason `%s` · coverage %.2f · grounding %.2f · %d sources read, %d cited (%d %s) · %d tool calls · %s\n\n",
		rec.RunID, rec.Facts.StopReason, ev.Coverage, ev.Grounding, len(rec.Sources), len(in.Verified.References),
		ev.DistinctDomains, textfmt.Noun(ev.DistinctDomains, "domain", "domains"), rec.Facts.ToolCalls, seconds(rec.Facts.ElapsedMS))
	for _, n := range in.Notes {
		fmt.Fprintf(&b, "> Note: %s\n\n", esc(n))
	}

	b.WriteString("## Executive summary\n\n")
	var summary []string
	for _, c := range placed {
		if c.Section == SectionSummary {
			summary = append(summary, esc(sentence(c.Text))+" "+cites(c.Claim, refNum, evSource))
		}
	}
	if len(summary) == 0 {
		b.WriteString("No claim could be grounded in the sources retrieved; see Gaps.\n\n")
	} else {
		b.WriteString(strings.Join(summary, " ") + "\n\n")
	}

	b.WriteString("## Key findings\n\n")
	wrote := false
	for _, c := range placed {
		if c.Section == SectionFinding {
			label := ""
			if c.HasTag(artifact.TagDefinition) {
				label = "*Definition:* "
			}
			fmt.Fprintf(&b, "- %s%s %s\n", label, esc(c.Text), cites(c.Claim, refNum, evSource))
			wrote = true
		}
	}
	if !wrote {
		if len(summary) > 0 {
			b.WriteString("- Every verified finding is stated in the summary above.\n")
		} else {
			b.WriteString("- None.\n")
		}
	}
	b.WriteString("\n" + contradictionsHeading + "\n\n")
	wrote = false
	for _, c := range placed {
		if c.Section == SectionContradiction {
			fmt.Fprintf(&b, "- %s %s\n", esc(c.Text), cites(c.Claim, refNum, evSource))
			wrote = true
		}
	}
	if !wrote {
		b.WriteString("- None found among the sources read.\n")
	}

	b.WriteString("\n## Gaps / open questions\n\n")
	gaps := 0
	for _, g := range ev.Gaps {
		fmt.Fprintf(&b, "- %s\n", esc(g.Text))
		gaps++
	}
	if evaluate.Partial(rec.Facts.StopReason) {
		fmt.Fprintf(&b, "- %s; further sources may change these findings.\n", stopSentence(rec))
		gaps++
	}
	if in.Verified.Removed > 0 {
		fmt.Fprintf(&b, "- %d drafted %s removed because %s citations did not check out (see claims.json).\n",
			in.Verified.Removed, textfmt.Noun(in.Verified.Removed, "claim was", "claims were"), textfmt.Noun(in.Verified.Removed, "its", "their"))
		gaps++
	}
	if rec.Facts.Flagged > 0 {
		fmt.Fprintf(&b, "- %d %s text addressed to AI agents; it was ignored, never quoted or followed.\n",
			rec.Facts.Flagged, textfmt.Noun(rec.Facts.Flagged, "source contained", "sources contained"))
		gaps++
	}
	if gaps == 0 {
		b.WriteString("- None: every aspect of the question is addressed by verified evidence.\n")
	}

	var spec []placedClaim
	for _, c := range placed {
		if c.Section == SectionSpeculation {
			spec = append(spec, c)
		}
	}
	if len(spec) > 0 {
		b.WriteString("\n## Speculation / Hypotheses\n\n")
		b.WriteString("*Unverified: no checked evidence supports these statements.*\n\n")
		reasons := map[string]string{}
		for _, d := range in.Verified.Decisions {
			reasons[d.ClaimID] = d.Reason
		}
		for _, c := range spec {
			why := reasons[c.ID]
			if why == "" {
				why = "labelled speculation by the synthesizer"
			}
			fmt.Fprintf(&b, "- %s (%s)\n", esc(c.Text), esc(why))
		}
	}

	b.WriteString("\n## Claims and evidence\n\n")
	b.WriteString("| claim | evidence (exact quote, byte offsets) | source |\n|---|---|---|\n")
	rows := 0
	for _, c := range placed {
		if c.Section == SectionSpeculation {
			continue
		}
		for _, id := range c.EvidenceIDs {
			e := evByID[id]
			fmt.Fprintf(&b, "| %s | “%s” `%s` [%d:%d] | %s |\n", cell(textfmt.Clip(textfmt.OneLine(c.Text), 90)), cell(textfmt.Clip(textfmt.OneLine(e.Quote), 140)),
				id, e.Start, e.End, cites(artifact.Claim{EvidenceIDs: []string{id}}, refNum, evSource))
			rows++
		}
	}
	if rows == 0 {
		b.WriteString("| (none) | | |\n")
	}

	b.WriteString("\n" + verify.ReferencesHeading + "\n\n")
	if len(in.Verified.References) == 0 {
		b.WriteString("None: no verified claim cites a source.\n")
	}
	for i, s := range in.Verified.References {
		pub := "date unknown"
		if s.PublishedDate != nil {
			pub = "published " + *s.PublishedDate
		}
		fmt.Fprintf(&b, "%d. %s — <%s> · %s · retrieved %s · sha256 %s", i+1, esc(s.Title), s.URL, pub, s.RetrievedAt, s.ContentHash[:min(12, len(s.ContentHash))])
		for _, f := range s.Flags {
			switch f {
			case artifact.FlagPromptInjection:
				b.WriteString(" · ⚠ contained instructions addressed to AI agents (ignored)")
			case artifact.FlagSecretsRedacted:
				b.WriteString(" · secrets redacted")
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nAudit trail: `%s` (every search, source decision, snippet and claim, in order).\n", in.EventLog)
	return []byte(b.String())
}

// stopSentence says why the run stopped, for the partial banner.
func stopSentence(rec artifact.Record) string {
	c := rec.Spec.Constraints
	switch rec.Facts.StopReason {
	case evaluate.StopMaxToolCalls:
		return fmt.Sprintf("The run stopped at its tool-call budget (%d of %d calls)", rec.Facts.ToolCalls, c.MaxToolCalls)
	case evaluate.StopMaxMinutes:
		return fmt.Sprintf("The run stopped at its time budget (%g minutes)", c.MaxMinutes)
	case evaluate.StopMaxSources:
		return fmt.Sprintf("The run stopped at its source budget (%d sources)", c.MaxSources)
	case evaluate.StopCancelled:
		return "The run was cancelled"
	case evaluate.StopError:
		return "The run stopped on an error (" + esc(rec.Facts.StopDetail) + ")"
	}
	return "The run stopped (" + rec.Facts.StopReason + ")"
}

func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".!?…") {
		return s
	}
	return s + "."
}

func seconds(ms int64) string { return fmt.Sprintf("%.1f s", float64(ms)/1000) }

// esc makes untrusted text inert in Markdown: no links, no HTML, no
// emphasis, no citation-looking brackets, one line.
func esc(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return mdEscaper.Replace(s)
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;",
	"*", `\*`, "_", `\_`, "`", "\\`", "#", `\#`)

func cell(s string) string { return strings.ReplaceAll(esc(s), "|", `\|`) }

// ClaimsDoc is claims.json.
type ClaimsDoc struct {
	RunID        string               `json:"run_id"`
	Question     string               `json:"question"`
	Claims       []placedClaim        `json:"claims"`
	Evidence     []artifact.Evidence  `json:"evidence"`
	BadEvidence  []BadEvidence        `json:"invalid_evidence"`
	Sources      []artifact.Source    `json:"sources"`
	References   []string             `json:"references"`
	Gaps         []artifact.Gap       `json:"gaps"`
	Decisions    []verify.Decision    `json:"verification_decisions"`
	Verification VerificationCounters `json:"verification"`
}

// BadEvidence is a snippet the verifier rejected.
type BadEvidence struct {
	EvidenceID string `json:"evidence_id"`
	Reason     string `json:"reason"`
}

// VerificationCounters summarise the verifier's checks.
type VerificationCounters struct {
	QuotesExact           int `json:"quotes_exact"`
	QuotesTotal           int `json:"quotes_total"`
	ClaimsDrafted         int `json:"claims_drafted"`
	ClaimsGrounded        int `json:"claims_grounded"`
	ClaimsSpeculation     int `json:"claims_speculation"`
	ClaimsRemoved         int `json:"claims_removed"`
	ClaimsMoved           int `json:"claims_moved_to_speculation"`
	UnretrievedReferences int `json:"unretrieved_references"`
}

func counters(v verify.Result) VerificationCounters {
	return VerificationCounters{
		QuotesExact: v.QuotesExact, QuotesTotal: v.QuotesTotal, ClaimsDrafted: v.DraftedTotal,
		ClaimsGrounded: len(v.Grounded), ClaimsSpeculation: len(v.Speculation), ClaimsRemoved: v.Removed,
		ClaimsMoved: v.Moved, UnretrievedReferences: v.Unretrieved,
	}
}

func buildClaims(in Input, placed []placedClaim) ClaimsDoc {
	doc := ClaimsDoc{
		RunID: in.Record.RunID, Question: in.Record.Spec.Question, Claims: placed,
		Evidence: in.Verified.Evidence, Sources: in.Record.Sources, References: []string{},
		Gaps: in.Evaluation.Gaps, Decisions: in.Verified.Decisions, BadEvidence: []BadEvidence{},
		Verification: counters(in.Verified),
	}
	if doc.Claims == nil {
		doc.Claims = []placedClaim{}
	}
	if doc.Evidence == nil {
		doc.Evidence = []artifact.Evidence{}
	}
	if doc.Sources == nil {
		doc.Sources = []artifact.Source{}
	}
	if doc.Decisions == nil {
		doc.Decisions = []verify.Decision{}
	}
	for _, s := range in.Verified.References {
		doc.References = append(doc.References, s.ID)
	}
	for _, e := range in.Record.Evidence {
		if why, bad := in.Verified.BadEvidence[e.ID]; bad {
			doc.BadEvidence = append(doc.BadEvidence, BadEvidence{e.ID, why})
		}
	}
	return doc
}

// Report is run_report.json.
type Report struct {
	RunID       string               `json:"run_id"`
	Question    string               `json:"question"`
	Task        task.Spec            `json:"task"`
	StartedAt   string               `json:"started_at"`
	FinishedAt  string               `json:"finished_at"`
	ElapsedMS   int64                `json:"elapsed_ms"`
	Retriever   string               `json:"retriever"`
	Synthesizer string               `json:"synthesizer"`
	Model       string               `json:"model,omitempty"`
	StopReason  string               `json:"stop_reason"`
	StopDetail  string               `json:"stop_detail"`
	Partial     bool                 `json:"partial"`
	Evaluation  evaluate.Scores      `json:"evaluation"`
	Counts      Counts               `json:"counts"`
	Verify      VerificationCounters `json:"verification"`
	Gaps        []string             `json:"gaps"`
	BriefCheck  []string             `json:"brief_check"`
	EventLog    string               `json:"event_log"`
	Notes       []string             `json:"notes"`
}

// Counts are the run's source and claim tallies.
type Counts struct {
	Rounds            int `json:"rounds"`
	SourcesConsidered int `json:"sources_considered"`
	SourcesRejected   int `json:"sources_rejected"`
	SourcesRead       int `json:"sources_read"`
	FetchErrors       int `json:"fetch_errors"`
	SourcesFlagged    int `json:"sources_flagged"`
	References        int `json:"references"`
	Evidence          int `json:"evidence"`
	Contradictions    int `json:"contradictions"`
}

func buildReport(in Input, placed []placedClaim, problems []string) Report {
	rec, f := in.Record, in.Record.Facts
	r := Report{
		RunID: rec.RunID, Question: rec.Spec.Question, Task: rec.Spec,
		StartedAt: f.StartedAt, FinishedAt: f.FinishedAt, ElapsedMS: f.ElapsedMS,
		Retriever: rec.Retriever, Synthesizer: rec.Synthesizer, Model: rec.Model,
		StopReason: f.StopReason, StopDetail: f.StopDetail, Partial: evaluate.Partial(f.StopReason),
		Evaluation: in.Evaluation.Scores,
		Counts: Counts{Rounds: f.Rounds, SourcesConsidered: f.Considered, SourcesRejected: f.Rejected,
			SourcesRead: len(rec.Sources), FetchErrors: f.FetchErrors, SourcesFlagged: f.Flagged,
			References: len(in.Verified.References), Evidence: len(rec.Evidence)},
		Verify:     counters(in.Verified),
		Gaps:       evaluate.SortedGapWords(in.Evaluation.Gaps),
		BriefCheck: problems,
		EventLog:   in.EventLog,
		Notes:      in.Notes,
	}
	for _, c := range placed {
		if c.Section == SectionContradiction {
			r.Counts.Contradictions++
		}
	}
	if r.BriefCheck == nil {
		r.BriefCheck = []string{}
	}
	if r.Notes == nil {
		r.Notes = []string{}
	}
	return r
}
