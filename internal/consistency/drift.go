package consistency

import (
	"cmp"
	"fmt"

	"copperhead/internal/design"
)

// driftInconsistencies turns design.Drift's mismatches into resolvable
// inconsistencies: the KiCad files are ground truth for as-built facts, so
// the doc is what changes.
func driftInconsistencies(st State) []Inconsistency {
	if st.Schematic == nil && st.Netlist == nil {
		return nil
	}
	sch := cmp.Or(st.SchematicPath, "the schematic")
	var out []Inconsistency
	for _, m := range design.Drift(st.Files, st.Config, st.Schematic, st.Netlist).Mismatches {
		out = append(out, Inconsistency{
			Kind:               KindDocDrift,
			Doc:                m.Doc,
			Subject:            driftSubject(m),
			Claim:              m.Claim,
			Actual:             m.Actual,
			ProposedResolution: driftResolution(m),
			Resolvable:         true,
			Governing:          sch + " (as built)",
		})
	}
	return out
}

// driftWhere names the part (and pin) a mismatch is about: "R6", "U1 pin 5".
func driftWhere(m design.Mismatch) string {
	if m.Pin != "" {
		return fmt.Sprintf("%s pin %s", m.Refdes, m.Pin)
	}
	return m.Refdes
}

func driftSubject(m design.Mismatch) string {
	where := driftWhere(m)
	switch m.Kind {
	case design.MismatchField:
		return where + " " + m.Field
	case design.MismatchMissingRow, design.MismatchExtraRow, design.MismatchDuplicateRow:
		return where + " row"
	}
	return "table"
}

func driftResolution(m design.Mismatch) string {
	where := driftWhere(m)
	switch m.Kind {
	case design.MismatchField:
		return fmt.Sprintf("in %s set the %s %s to %q, as in the schematic", m.Doc, where, m.Field, m.Actual)
	case design.MismatchMissingRow:
		return fmt.Sprintf("add a row for %s to %s: %s", where, m.Doc, m.Actual)
	case design.MismatchExtraRow:
		return fmt.Sprintf("remove the row for %s from %s: the schematic has no such %s", where, m.Doc, map[bool]string{true: "pin", false: "part"}[m.Pin != ""])
	case design.MismatchDuplicateRow:
		return fmt.Sprintf("merge the rows for %s in %s into one", where, m.Doc)
	case design.MismatchDocMissing:
		return fmt.Sprintf("create %s from the schematic (what `copperhead init` generates)", m.Doc)
	case design.MismatchTableMissing:
		return fmt.Sprintf("restore the table in %s with the columns `copperhead init` writes", m.Doc)
	}
	return fmt.Sprintf("make %s agree with the schematic", m.Doc)
}
