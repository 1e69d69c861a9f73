package consistency

import (
	_ "embed"
	"fmt"
	"strings"
)

// resolvePreamble is the fixed part of the sync agent's request: the
// truth-precedence rule and what the run may touch. It is reviewable text,
// not a string literal.
//
//go:embed resolve.md
var resolvePreamble string

// ResolutionRequest is the request of the agent run that resolves the
// report: the preamble (truth precedence, what the run may touch) and the
// resolvable inconsistencies as a numbered list. Violations and flagged
// items are never in it. "" when nothing is resolvable.
func (r *Report) ResolutionRequest() string {
	items := r.Resolvable()
	if len(items) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(resolvePreamble))
	fmt.Fprintf(&b, "\n\nInconsistencies to resolve (%d):\n", len(items))
	for n, i := range items {
		fmt.Fprintf(&b, "\n%d. [%s] %s: %s\n", n+1, i.Kind, i.Doc, i.Subject)
		fmt.Fprintf(&b, "   claim: %s\n", i.Claim)
		fmt.Fprintf(&b, "   actual: %s\n", i.Actual)
		fmt.Fprintf(&b, "   governing: %s\n", i.Governing)
		fmt.Fprintf(&b, "   resolution: %s\n", i.ProposedResolution)
	}
	return b.String()
}
