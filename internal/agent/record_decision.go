package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"copperhead/internal/llm"
)

//go:embed record_decision.md
var recordDecisionDoc string

type recordDecisionArgs struct {
	Decision  string   `json:"decision" desc:"what was decided, e.g. KEY_DAH moves to GPIO4"`
	Rationale string   `json:"rationale" desc:"the one-line why, e.g. RTC-capable and not a strapping pin"`
	Affects   []string `json:"affects,omitempty" desc:"refdes, nets and docs the decision touches"`
}

var recordDecisionSpec = llm.ToolFor[recordDecisionArgs]("record_decision", strings.TrimSpace(recordDecisionDoc))

type recordDecisionTool struct{}

func (recordDecisionTool) Spec() llm.Tool { return recordDecisionSpec }

// Mutating is false: a decision only joins Session.Decisions; it reaches
// docs/DECISIONS.md through the commit, which needs a validated change.
func (recordDecisionTool) Mutating() bool { return false }

func (recordDecisionTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[recordDecisionArgs]("record_decision", raw)
	if bad != nil {
		return *bad, nil
	}
	d := Decision{Decision: oneLine(a.Decision), Rationale: oneLine(a.Rationale)}
	if d.Decision == "" || d.Rationale == "" {
		return Errorf("record_decision: decision and rationale are both required, one line each"), nil
	}
	for _, it := range a.Affects {
		if it = oneLine(it); it != "" {
			d.Affects = append(d.Affects, it)
		}
	}
	s.Decisions = append(s.Decisions, d)
	return Result{Text: fmt.Sprintf("recorded decision %d: %s — %s. It is appended to docs/DECISIONS.md when the run commits.", len(s.Decisions), d.Decision, d.Rationale)}, nil
}
