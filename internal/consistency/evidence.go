package consistency

import (
	"fmt"

	"copperhead/internal/config"
)

// evidenceInconsistencies reports the research evidence: a broken datasheet
// citation is resolvable (correct the citation, or take the row back to
// UNVERIFIED), while a sourcing finding is for a human: an end-of-life part
// or an empty shelf is a buying decision, not a doc edit.
func evidenceInconsistencies(st State) []Inconsistency {
	var out []Inconsistency
	for _, m := range st.Citations {
		out = append(out, Inconsistency{
			Kind:    KindCitation,
			Doc:     m.Doc,
			Subject: m.Refdes + " citation",
			Claim:   m.Claim,
			Actual:  m.Actual,
			ProposedResolution: fmt.Sprintf("in %s make %s's citation name a cached datasheet page that holds the cited text (fetch_datasheet, then read it), or mark the row %s",
				m.Doc, m.Refdes, "UNVERIFIED"),
			Resolvable: true,
			Governing:  config.DatasheetsDir + "/ (cached text and index.json)",
		})
	}
	for _, f := range st.Sourcing.Findings {
		out = append(out, Inconsistency{
			Kind:      KindSourcing,
			Doc:       config.ConstraintsPath,
			Subject:   "sourcing." + f.Refdes,
			Claim:     f.MPN,
			Actual:    f.Message,
			Governing: "the part-data snapshot (" + f.Severity + ")",
		})
	}
	return out
}
