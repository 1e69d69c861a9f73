package tools

import (
	"maps"
	"slices"

	"copperhead/internal/design"
	"copperhead/internal/tool"
)

// revisitSubject names the revisit obligation of one affects item of one
// constraint. resolve_affected finds obligations by it, so both sides call
// this function.
func revisitSubject(key, item string) string { return key + " -> " + item }

// OpenDeferredRevisits re-opens, at the start of a run, the revisits that
// record_constraint deferred in an earlier run (spec §2.6): every item in a
// constraint's "deferred" list whose artifact now exists becomes a due
// revisit obligation; the others are listed as deferred. The loop calls it
// once, after building the Session and before the first turn. It returns the
// number of revisits that became due.
func OpenDeferredRevisits(s *tool.Session) (int, error) {
	s.EnsureLedger()
	reg, err := design.LoadConstraints(s.Repo)
	if err != nil {
		return 0, err
	}
	art := newArtifacts(s)
	due := 0
	for _, key := range slices.Sorted(maps.Keys(reg)) {
		for _, item := range reg[key].Deferred {
			subj := revisitSubject(key, item)
			if missing := art.missing(item); missing != "" {
				s.Ledger.OpenDeferred(tool.OblRevisit, subj, "deferred: "+missing)
				continue
			}
			if s.Ledger.Open(tool.OblRevisit, subj, "deferred in an earlier run; its artifact exists now") {
				due++
			}
		}
	}
	return due, nil
}
