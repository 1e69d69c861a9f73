package evaluate

import (
	"testing"

	"copperhead/internal/carter/artifact"
	"copperhead/internal/carter/verify"
)

func TestContinue(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		prev, cur Round
		more      bool
		reason    string
	}{
		{"first round with sources", 1, Round{}, Round{Coverage: 0.3, NewSources: 2, Grounded: 1}, true, ""},
		{"first round found nothing", 1, Round{}, Round{}, false, StopNoSources},
		{"gain earns a round", 2, Round{Coverage: 0.5}, Round{Coverage: 0.6, NewSources: 1, Grounded: 3}, true, ""},
		{"small gain, covered", 2, Round{Coverage: 0.8}, Round{Coverage: 0.82, NewSources: 1, Grounded: 3}, false, StopCoverageMet},
		{"small gain, not covered", 3, Round{Coverage: 0.5}, Round{Coverage: 0.52, NewSources: 2, Grounded: 3}, false, StopDiminishingReturns},
		{"new contradiction earns a round", 2, Round{Coverage: 0.9}, Round{Coverage: 0.9, Contradictions: 1, NewSources: 1, Grounded: 3}, true, ""},
		{"new gap earns a round", 2, Round{Coverage: 0.9, Gaps: []string{"a"}}, Round{Coverage: 0.9, Gaps: []string{"b"}, NewSources: 1, Grounded: 2}, true, ""},
		{"no new sources", 2, Round{Coverage: 0.4}, Round{Coverage: 0.4, Grounded: 2}, false, StopDiminishingReturns},
		{"nothing grounded", 2, Round{}, Round{NewSources: 0}, false, StopNoEvidence},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			more, reason := Continue(tt.n, tt.prev, tt.cur)
			if more != tt.more || reason != tt.reason {
				t.Errorf("Continue = %v %q, want %v %q", more, reason, tt.more, tt.reason)
			}
		})
	}
}

func TestHardStop(t *testing.T) {
	base := Budget{MaxToolCalls: 5, MaxMinutes: 1, MaxSources: 3}
	tests := []struct {
		b    Budget
		want string
	}{
		{base, ""},
		{Budget{ToolCalls: 5, MaxToolCalls: 5, MaxMinutes: 1, MaxSources: 3}, StopMaxToolCalls},
		{Budget{ElapsedMinutes: 1, MaxToolCalls: 5, MaxMinutes: 1, MaxSources: 3}, StopMaxMinutes},
		{Budget{Sources: 3, MaxToolCalls: 5, MaxMinutes: 1, MaxSources: 3}, StopMaxSources},
	}
	for _, tt := range tests {
		if got := HardStop(tt.b); got != tt.want {
			t.Errorf("HardStop(%+v) = %q, want %q", tt.b, got, tt.want)
		}
	}
	for reason, partial := range map[string]bool{StopMaxToolCalls: true, StopMaxMinutes: true, StopMaxSources: true, StopCoverageMet: false, StopNoEvidence: false} {
		if Partial(reason) != partial {
			t.Errorf("Partial(%s) != %v", reason, partial)
		}
	}
}

func TestEvaluate(t *testing.T) {
	v := verify.Result{
		DraftedTotal: 4,
		Grounded:     []artifact.Claim{{ID: "C1", Text: "Courtyards overlap.", EvidenceIDs: []string{"E1"}}},
		Speculation:  []artifact.Claim{{ID: "C2"}, {ID: "C3"}},
		Decisions:    []verify.Decision{{ClaimID: "C2", Action: verify.ActionMoved}},
		Evidence:     []artifact.Evidence{{ID: "E1", Quote: "The DRC reports courtyard overlaps between footprints."}},
		References:   []artifact.Source{{ID: "S1", Domain: "kicad.org"}, {ID: "S2", Domain: "kicad.org"}},
	}
	ev := Evaluate("How does the DRC handle courtyard overlaps, and how are vias tented?", v, Cost{ToolCalls: 3}, StopCoverageMet)
	// Two sub-questions; the claim answers the first only.
	if ev.Coverage != 0.5 || len(ev.Gaps) != 1 || ev.Gaps[0].Aspect != "how are vias tented" || len(ev.Covered) != 1 {
		t.Errorf("coverage %v covered %v gaps %+v", ev.Coverage, ev.Covered, ev.Gaps)
	}
	// 4 drafted, C3 labelled speculation by the synthesizer: 1 of 3.
	if ev.Grounding != 0.333 {
		t.Errorf("grounding %v", ev.Grounding)
	}
	if ev.Diversity != 0.5 || ev.DistinctDomains != 1 || ev.StopReason != StopCoverageMet || ev.Cost.ToolCalls != 3 {
		t.Errorf("scores %+v", ev.Scores)
	}
	if empty := Evaluate("What is KiCad?", verify.Result{}, Cost{}, ""); empty.Grounding != 0 || empty.Coverage != 0 {
		t.Errorf("empty draft scores %+v", empty.Scores)
	}
}

// TestCoverageMeansTheAnswer: claims that share a word or two with the
// question (bash, -c) do not cover "what does set -e do"; the old
// per-word coverage called this 1.00.
func TestCoverageMeansTheAnswer(t *testing.T) {
	v := verify.Result{DraftedTotal: 2,
		Grounded: []artifact.Claim{
			{ID: "C1", Text: "If the -c option is present, bash reads commands from the first argument.", EvidenceIDs: []string{"E1"}},
			{ID: "C2", Text: "curl -e sends the Referer page information to the HTTP server.", EvidenceIDs: []string{"E2"}},
		},
		Evidence: []artifact.Evidence{{ID: "E1", Quote: "-c  If the -c option is present, then commands are read from the first non-option argument."}, {ID: "E2", Quote: "-e, --referer <URL>"}},
	}
	ev := Evaluate("What does bash set -e do?", v, Cost{}, StopCoverageMet)
	if ev.Coverage != 0 || len(ev.Gaps) != 1 {
		t.Errorf("coverage %v gaps %v", ev.Coverage, ev.Gaps)
	}
	if got := FinalStop(StopCoverageMet, 2, ev); got != StopNoEvidence {
		t.Errorf("FinalStop = %s", got)
	}
}

func TestFinalStop(t *testing.T) {
	full, half := Evaluation{Scores: Scores{Coverage: 1}}, Evaluation{Scores: Scores{Coverage: 0.5}}
	for _, tt := range []struct {
		loop     string
		grounded int
		ev       Evaluation
		want     string
	}{
		{StopCoverageMet, 0, full, StopNoEvidence}, // a model answering {"claims": []}
		{StopCoverageMet, 3, half, StopDiminishingReturns},
		{StopDiminishingReturns, 3, full, StopCoverageMet},
		{StopMaxMinutes, 0, half, StopMaxMinutes},
		{StopNoSources, 0, Evaluation{}, StopNoSources},
		{StopCancelled, 2, full, StopCancelled},
	} {
		if got := FinalStop(tt.loop, tt.grounded, tt.ev); got != tt.want {
			t.Errorf("FinalStop(%s, %d, %v) = %s, want %s", tt.loop, tt.grounded, tt.ev.Coverage, got, tt.want)
		}
	}
}
