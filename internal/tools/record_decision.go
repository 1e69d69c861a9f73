package tools

import (
	"context"
	"fmt"

	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

type recordDecisionArgs struct {
	Decision  string   `json:"decision" desc:"what was decided, e.g. KEY_DAH moves to GPIO4"`
	Rationale string   `json:"rationale" desc:"the one-line why, e.g. RTC-capable and not a strapping pin"`
	Affects   []string `json:"affects,omitempty" desc:"refdes, nets and docs the decision touches"`
}

// Not tool.Mutating: a decision only joins tool.Session.Decisions; it reaches
// docs/DECISIONS.md through the commit, which needs a validated change.
var recordDecisionTool = newTool("record_decision", recordDecision)

func recordDecision(ctx context.Context, s *tool.Session, a recordDecisionArgs) (tool.Result, error) {
	d := tool.Decision{Decision: textfmt.OneLine(a.Decision), Rationale: textfmt.OneLine(a.Rationale)}
	if d.Decision == "" || d.Rationale == "" {
		return tool.Errorf("record_decision: decision and rationale are both required, one line each"), nil
	}
	for _, it := range a.Affects {
		if it = textfmt.OneLine(it); it != "" {
			d.Affects = append(d.Affects, it)
		}
	}
	s.Decisions = append(s.Decisions, d)
	return tool.Result{Text: fmt.Sprintf("recorded decision %d: %s — %s. It is appended to docs/DECISIONS.md when the run commits.", len(s.Decisions), d.Decision, d.Rationale)}, nil
}
