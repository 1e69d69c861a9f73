package design

import (
	"errors"
	"fmt"
	"regexp"

	"copperhead/internal/config"
	"copperhead/internal/datasheets"
)

// VerifiedDatasheet is the BOM flag that upgrades a part from MPNUnverified
// (design D8): its selection-driving parameters are confirmed against cached
// datasheets, each with a citation the drift check verifies. It means
// "evidence attached and checkable", not engineer sign-off.
const VerifiedDatasheet = "VERIFIED(datasheet)"

// CauseNoCitation is the cause of a VERIFIED(datasheet) row that cites
// nothing; the other causes are datasheets.Cause values.
const CauseNoCitation = "no_citation"

// verifiedRE finds the flag in a cell, but not inside "UNVERIFIED(datasheet)".
var verifiedRE = regexp.MustCompile(`(?i)(?:^|[^A-Za-z])VERIFIED\(datasheet\)`)

// IsVerifiedDatasheet reports whether a BOM row carries the
// VERIFIED(datasheet) flag, in its MPN or its Rationale cell.
func IsVerifiedDatasheet(r BOMRow) bool {
	return verifiedRE.MatchString(r.MPN) || verifiedRE.MatchString(r.Rationale)
}

// CheckCitations verifies the evidence of every BOM.md row flagged
// VERIFIED(datasheet) (D8). Such a row must cite, for each parameter that
// drove the selection, the cached datasheet and where in it the parameter is
// stated, in its Rationale (or MPN) cell:
//
//	Iq 25 µA: .copperhead/datasheets/TPS63020DSJR-1a2b3c4d.pdf §2 Electrical Characteristics (p.2)
//
// Each citation must hold: the PDF exists under repoRoot, its SHA-256 is the
// one index.json recorded, and the section text occurs on that page of the
// extracted text. A flagged row with no citation, a malformed citation, and
// a citation failing any of those checks is a MismatchCitation naming the
// doc, the citation and the cause. Rows without the flag are not checked:
// absence of evidence leaves a part UNVERIFIED, it never fails a check.
func CheckCitations(repoRoot string, files Files, cfg config.Config) []Mismatch {
	doc := cfg.DocPath(BOMDoc)
	rows, err := ParseBOM(files[doc])
	if err != nil {
		return nil // drift reports the missing doc or table
	}
	var out []Mismatch
	var checker *datasheets.Checker
	for _, r := range rows {
		if !IsVerifiedDatasheet(r) {
			continue
		}
		add := func(claim, cause, why string) {
			out = append(out, Mismatch{Doc: doc, Kind: MismatchCitation, Refdes: r.Refdes, Field: "citation", Claim: claim, Actual: why, Cause: cause,
				Message: fmt.Sprintf("%s: %s is %s but %s", doc, r.Refdes, VerifiedDatasheet, why)})
		}
		cites, malformed := datasheets.ParsePageCitations(r.MPN + "\n" + r.Rationale)
		for _, m := range malformed {
			add(m, string(datasheets.CauseMalformed), fmt.Sprintf("citation %q is malformed: write %s/<file>.pdf §<section> (p.<page>)", m, datasheets.DirName))
		}
		if len(cites) == 0 && len(malformed) == 0 {
			add("(no citation)", CauseNoCitation, fmt.Sprintf("its row cites no datasheet: cite each selection-driving parameter as %s/<file>.pdf §<section> (p.<page>)", datasheets.DirName))
		}
		for _, c := range cites {
			if checker == nil {
				checker = datasheets.NewChecker(repoRoot)
			}
			err := checker.Check(c)
			var ce *datasheets.CitationError
			switch {
			case err == nil:
			case errors.As(err, &ce):
				add(c.Written, string(ce.Cause), fmt.Sprintf("citation %q fails: %s: %s", c.Written, ce.Cause, ce.Detail))
			default:
				add(c.Written, "error", fmt.Sprintf("citation %q cannot be checked: %v", c.Written, err))
			}
		}
	}
	return out
}
