// Package evaluate is carter's evaluator (spec §5): it scores a verified
// draft (coverage, grounding, diversity, cost) and owns the stop rules
// (spec §4): the hard stops on tool calls, minutes and sources, and the soft
// diminishing-returns stop that allows another retrieval round only when the
// last one raised coverage by at least Delta or found a new contradiction
// or gap.
//
// Coverage is measured per sub-question: a compound question ("What does X
// guarantee, and how can Y change Z?") owes an answer to each part, and a
// part counts as covered when a grounded claim (with its verified quotes)
// addresses it. An uncovered sub-question is a gap, listed in the brief.
//
// evaluate may import verify, artifact, policy, terms and the standard
// library; it must never import a retriever, synth or the orchestrator.
package evaluate

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"copperhead/internal/carter/artifact"
	"copperhead/internal/carter/policy"
	"copperhead/internal/carter/terms"
	"copperhead/internal/carter/verify"
)

// Stop rule parameters (spec §4).
const (
	// CoverageThreshold is the coverage at which a brief is complete
	// enough to stop once another round stops paying off.
	CoverageThreshold = 0.8
	// Delta is the least coverage gain that earns another round.
	Delta = 0.05
)

// Stop reasons. The first four end a run normally; the MAX_* reasons are
// budget stops, whose brief is labelled partial.
const (
	StopCoverageMet        = "COVERAGE_MET"
	StopDiminishingReturns = "DIMINISHING_RETURNS"
	StopNoEvidence         = "NO_EVIDENCE"
	StopNoSources          = "NO_SOURCES"
	StopMaxToolCalls       = "MAX_TOOL_CALLS"
	StopMaxMinutes         = "MAX_MINUTES"
	StopMaxSources         = "MAX_SOURCES"
	StopCancelled          = "CANCELLED"
	StopError              = "ERROR"
)

// Partial reports whether a stop reason leaves the brief partial: the run
// wanted another round and a budget, a cancellation or an error ended it.
func Partial(reason string) bool {
	switch reason {
	case StopMaxToolCalls, StopMaxMinutes, StopMaxSources, StopCancelled, StopError:
		return true
	}
	return false
}

// Aspect is one content word of the question: its stem (what matching uses)
// and the word as the user wrote it (what the brief shows).
type Aspect struct {
	Stem string `json:"stem"`
	Word string `json:"word"`
}

// Aspects returns the question's aspects in order.
func Aspects(question string) []Aspect {
	var out []Aspect
	seen := map[string]bool{}
	for _, t := range terms.Tokenize(question) {
		if !terms.IsContent(t.Stem) || seen[t.Stem] {
			continue
		}
		seen[t.Stem] = true
		out = append(out, Aspect{Stem: t.Stem, Word: question[t.Start:t.End]})
	}
	return out
}

// Stems returns the aspects' stems.
func Stems(as []Aspect) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Stem
	}
	return out
}

// Cost is what a run spent (spec §5 "tool calls + tokens"), as the run's
// facts recorded it.
type Cost = artifact.Cost

// Scores is the evaluator's return value (spec §5).
type Scores struct {
	Coverage        float64 `json:"coverage"`
	Grounding       float64 `json:"grounding"`
	Diversity       float64 `json:"diversity"`
	DistinctDomains int     `json:"distinct_domains"`
	Cost            Cost    `json:"cost"`
	StopReason      string  `json:"stop_reason"`
}

// Evaluation is the scores plus what they were computed from.
type Evaluation struct {
	Scores
	Covered []string       `json:"covered_aspects"`
	Gaps    []artifact.Gap `json:"gaps"`
}

// Evaluate scores a verified draft. Coverage is the share of the
// question's sub-questions (terms.SubQuestions) that a grounded claim
// addresses: its text and its verified quotes name enough of the
// sub-question's content words (terms.Addresses). A sub-question no claim
// addresses is a gap. Grounding is the share of drafted claims (those not
// labelled speculation by the synthesizer itself) that survived
// verification with at least one checked citation; a draft with no claims
// scores 0, not a vacuous 1.
func Evaluate(question string, v verify.Result, cost Cost, stop string) Evaluation {
	return EvaluateWeighted(question, nil, v, cost, stop)
}

// EvaluateWeighted is Evaluate with the collection's word weights (the run
// record's aspect_weights): a sub-question is addressed as
// terms.AddressesWeighted decides. nil weights: Evaluate.
func EvaluateWeighted(question string, weights map[string]float64, v verify.Result, cost Cost, stop string) Evaluation {
	var weight func(string) float64
	if len(weights) > 0 {
		weight = func(s string) float64 { return weights[s] }
	}
	subs := terms.SubQuestions(question)
	quotes := map[string]string{}
	for _, e := range v.Evidence {
		quotes[e.ID] = e.Quote + "\n" + e.Context
	}
	var claimStems []map[string]bool
	for _, c := range v.Grounded {
		text := c.Text
		for _, id := range c.EvidenceIDs {
			text += "\n" + quotes[id]
		}
		claimStems = append(claimStems, terms.Stems(text))
	}
	ev := Evaluation{Scores: Scores{Cost: cost, StopReason: stop}, Covered: []string{}, Gaps: []artifact.Gap{}}
	for _, sub := range subs {
		covered := false
		for _, st := range claimStems {
			if terms.AddressesWeighted(sub, st, weight) {
				covered = true
				break
			}
		}
		if covered {
			ev.Covered = append(ev.Covered, sub.Text)
			continue
		}
		ev.Gaps = append(ev.Gaps, artifact.Gap{Aspect: sub.Text,
			Text: fmt.Sprintf("No verified evidence answers “%s”.", sub.Text)})
	}
	if len(subs) > 0 {
		ev.Coverage = round(float64(len(ev.Covered)) / float64(len(subs)))
	}
	denominator := v.DraftedTotal - selfLabelled(v)
	if denominator > 0 {
		ev.Grounding = round(float64(len(v.Grounded)) / float64(denominator))
	}
	domains := map[string]bool{}
	for _, s := range v.References {
		domains[s.Domain] = true
	}
	ev.DistinctDomains = len(domains)
	if len(v.References) > 0 {
		ev.Diversity = round(float64(len(domains)) / float64(len(v.References)))
	}
	return ev
}

// FinalStop is the stop reason the finished brief supports, given the
// reason the retrieval loop stopped with. Budget stops, cancellation,
// errors and NO_SOURCES stand (they say why the search ended). Otherwise
// the brief decides: no grounded claim, or none that addresses any
// sub-question, is NO_EVIDENCE; coverage at the threshold is COVERAGE_MET;
// anything less is DIMINISHING_RETURNS. A model that answers with no
// claims can therefore never be reported as COVERAGE_MET.
func FinalStop(loop string, grounded int, ev Evaluation) string {
	if Partial(loop) || loop == StopNoSources {
		return loop
	}
	switch {
	case grounded == 0 || ev.Coverage == 0:
		return StopNoEvidence
	case ev.Coverage >= CoverageThreshold:
		return StopCoverageMet
	}
	return StopDiminishingReturns
}

// selfLabelled counts speculation claims the synthesizer labelled itself
// (moved ones carry a Decision and still count against grounding).
func selfLabelled(v verify.Result) int {
	moved := map[string]bool{}
	for _, d := range v.Decisions {
		if d.Action == verify.ActionMoved {
			moved[d.ClaimID] = true
		}
	}
	n := 0
	for _, c := range v.Speculation {
		if !moved[c.ID] {
			n++
		}
	}
	return n
}

func round(x float64) float64 { return math.Round(x*1000) / 1000 }

// Round is what one retrieval round achieved, for the soft stop.
type Round struct {
	Coverage       float64
	Contradictions int
	Gaps           []string
	NewSources     int
	Grounded       int
}

// Continue applies the soft stop after round n (1-based): another round
// runs only when this one raised coverage by at least Delta over prev, or
// found a new contradiction or a new gap. Round 1 is measured against
// nothing, so any coverage it reaches is a gain. When the answer is "stop",
// reason says which normal stop applies.
func Continue(n int, prev, cur Round) (more bool, reason string) {
	gain := cur.Coverage - prev.Coverage
	newCategory := cur.Contradictions > prev.Contradictions || hasNew(prev.Gaps, cur.Gaps)
	switch {
	case n == 1 && cur.NewSources == 0:
		return false, StopNoSources
	case n == 1:
		return true, ""
	case cur.NewSources > 0 && (gain >= Delta || newCategory):
		return true, ""
	case cur.Grounded == 0:
		return false, StopNoEvidence
	case cur.Coverage >= CoverageThreshold:
		return false, StopCoverageMet
	}
	return false, StopDiminishingReturns
}

func hasNew(prev, cur []string) bool {
	old := map[string]bool{}
	for _, g := range prev {
		old[g] = true
	}
	for _, g := range cur {
		if !old[g] {
			return true
		}
	}
	return false
}

// Budget is the hard-stop state before starting more work.
type Budget struct {
	ToolCalls, MaxToolCalls int
	ElapsedMinutes          float64
	MaxMinutes              float64
	Sources, MaxSources     int
}

// HardStop returns the budget stop that applies, or "" (spec §4: tool calls
// >= max, time >= max, sources >= max).
func HardStop(b Budget) string {
	switch {
	case b.ToolCalls >= b.MaxToolCalls:
		return StopMaxToolCalls
	case b.ElapsedMinutes >= b.MaxMinutes:
		return StopMaxMinutes
	case b.Sources >= b.MaxSources:
		return StopMaxSources
	}
	return ""
}

// Domain returns a source URL's registrable domain ("local" for files).
func Domain(url string) string {
	if strings.HasPrefix(url, "file:") {
		return policy.LocalDomain
	}
	return policy.RegistrableDomain(policy.Host(url))
}

// SortedGapWords returns the gap aspects, for queries and logs.
func SortedGapWords(gaps []artifact.Gap) []string {
	out := make([]string, 0, len(gaps))
	for _, g := range gaps {
		out = append(out, g.Aspect)
	}
	sort.Strings(out)
	return out
}
