package design

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"copperhead/internal/config"
	"copperhead/internal/kicad"
	"copperhead/internal/textfmt"
)

// MismatchKind classifies a drift finding.
type MismatchKind string

const (
	MismatchDocMissing   MismatchKind = "doc_missing"   // BOM.md/PINOUT.md absent while the design has rows for it
	MismatchTableMissing MismatchKind = "table_missing" // the doc has no table with the required columns
	MismatchMissingRow   MismatchKind = "missing_row"   // the design has it, the doc has no row
	MismatchExtraRow     MismatchKind = "extra_row"     // the doc has a row the design does not
	MismatchDuplicateRow MismatchKind = "duplicate_row" // the doc has several rows for one refdes (or pin)
	MismatchField        MismatchKind = "field"         // a cell differs; Field names the column
	MismatchCitation     MismatchKind = "citation"      // a VERIFIED(datasheet) row's evidence fails its check; Cause says why
	MismatchPinHeader    MismatchKind = "pin_header"    // a copperhead-generated pins.h no longer matches PINOUT.md
)

// Mismatch is one disagreement between a design doc and the as-built design.
// Claim is what the doc says, Actual what the schematic or netlist says;
// Message is one line naming the doc, the claim and the actual value.
type Mismatch struct {
	Doc     string       `json:"doc"`
	Kind    MismatchKind `json:"kind"`
	Refdes  string       `json:"refdes,omitempty"`
	Pin     string       `json:"pin,omitempty"`
	Field   string       `json:"field,omitempty"` // value, footprint, mpn, net, citation
	Cause   string       `json:"cause,omitempty"` // citation only: why it fails (datasheets.Cause, CauseNoCitation)
	Claim   string       `json:"claim"`
	Actual  string       `json:"actual"`
	Message string       `json:"message"`
	// BaselineState is "new" or "existing" under check --baseline; "" otherwise.
	BaselineState string `json:"baseline_state,omitempty"`
}

func (m Mismatch) String() string { return m.Message }

// DriftReport is the result of Drift. Warnings never fail check.
type DriftReport struct {
	Mismatches []Mismatch `json:"mismatches"`
	Warnings   []string   `json:"warnings"`
}

// Clean reports whether the docs agree with the design.
func (r DriftReport) Clean() bool { return len(r.Mismatches) == 0 }

// Drift compares the BOM.md and PINOUT.md tables in files with the as-built
// design: BOM rows against the schematic's parts (BOMRows: refdes, value,
// footprint, and MPN when the schematic carries one), PINOUT rows against the
// netlist (PinoutRows: refdes, pin, net).
//
// A missing BOM.md or PINOUT.md is drift (MismatchDocMissing) as soon as the
// design has rows for it. A schematic with no parts yet (early create stages)
// yields no mismatches at all; a populated BOM.md or PINOUT.md beside it is a
// warning. A nil schematic skips the BOM check, a nil netlist the PINOUT
// check.
func Drift(files Files, cfg config.Config, sch *kicad.Schematic, nl *kicad.Netlist) DriftReport {
	report := DriftReport{Mismatches: []Mismatch{}, Warnings: []string{}}
	bomPath, pinoutPath := cfg.DocPath(BOMDoc), cfg.DocPath(PinoutDoc)
	if designIsEmpty(sch, nl) {
		if rows, _ := ParseBOM(files[bomPath]); len(rows) > 0 {
			report.Warnings = append(report.Warnings, fmt.Sprintf(
				"%s lists %s but the schematic has none yet: drift is not checked until it has parts", bomPath, textfmt.Count(len(rows), "part")))
		}
		if rows, _ := ParsePinout(files[pinoutPath]); len(rows) > 0 {
			report.Warnings = append(report.Warnings, fmt.Sprintf(
				"%s lists %s but the schematic has no parts yet: drift is not checked until it has parts", pinoutPath, textfmt.Count(len(rows), "pin")))
		}
		return report
	}
	if sch != nil {
		report.Mismatches = append(report.Mismatches, bomDrift(bomPath, files, sch)...)
	}
	if nl != nil {
		report.Mismatches = append(report.Mismatches, pinoutDrift(pinoutPath, files, nl)...)
	}
	return report
}

func designIsEmpty(sch *kicad.Schematic, nl *kicad.Netlist) bool {
	if sch != nil {
		return len(Parts(sch)) == 0
	}
	if nl == nil {
		return false
	}
	for _, c := range nl.Components {
		if !strings.HasPrefix(c.Refdes, "#") {
			return false
		}
	}
	return len(nl.Nets) == 0
}

func bomDrift(doc string, files Files, sch *kicad.Schematic) []Mismatch {
	parts := Parts(sch)
	actual := BOMRows(sch)
	if len(actual) == 0 {
		return nil
	}
	src, exists := files[doc]
	if !exists {
		return []Mismatch{{Doc: doc, Kind: MismatchDocMissing, Claim: "(no file)", Actual: textfmt.Count(len(actual), "part"),
			Message: fmt.Sprintf("%s: the file is missing but the schematic has %s", doc, textfmt.Count(len(actual), "part"))}}
	}
	rows, err := ParseBOM(src)
	if err != nil {
		return []Mismatch{{Doc: doc, Kind: MismatchTableMissing, Claim: "(" + err.Error() + ")", Actual: textfmt.Count(len(actual), "part"),
			Message: fmt.Sprintf("%s: %v, but the schematic has %s", doc, err, textfmt.Count(len(actual), "part"))}}
	}
	claimed := map[string][]BOMRow{}
	for _, r := range rows {
		claimed[r.Refdes] = append(claimed[r.Refdes], r)
	}
	byRef := map[string]BOMRow{}
	schMPN := map[string]string{}
	for i, r := range actual {
		byRef[r.Refdes] = r
		schMPN[r.Refdes] = parts[i].MPN
	}

	var out []Mismatch
	for _, ref := range unionRefs(actual, rows) {
		got, inDoc := claimed[ref]
		want, inSch := byRef[ref]
		switch {
		case !inDoc:
			out = append(out, Mismatch{Doc: doc, Kind: MismatchMissingRow, Refdes: ref, Claim: "(no row)", Actual: bomSummary(want),
				Message: fmt.Sprintf("%s: %s (%s) is in the schematic but has no row in the doc", doc, ref, bomSummary(want))})
			continue
		case !inSch:
			out = append(out, Mismatch{Doc: doc, Kind: MismatchExtraRow, Refdes: ref, Claim: bomSummary(got[0]), Actual: "(not in the schematic)",
				Message: fmt.Sprintf("%s: %s has a row in the doc (%s) but is not in the schematic", doc, ref, bomSummary(got[0]))})
			continue
		}
		if len(got) > 1 {
			out = append(out, Mismatch{Doc: doc, Kind: MismatchDuplicateRow, Refdes: ref, Claim: fmt.Sprintf("%d rows", len(got)), Actual: "1 part",
				Message: fmt.Sprintf("%s: %s has %d rows in the doc but is one part in the schematic", doc, ref, len(got))})
		}
		row := got[0]
		fields := []struct{ name, claim, actual string }{
			{"value", row.Value, want.Value},
			{"footprint", row.Footprint, want.Footprint},
		}
		if mpn := schMPN[ref]; mpn != "" {
			fields = append(fields, struct{ name, claim, actual string }{"mpn", stripFlags(row.MPN), mpn})
		}
		for _, f := range fields {
			if normalizeSpace(f.claim) == normalizeSpace(f.actual) {
				continue
			}
			out = append(out, Mismatch{Doc: doc, Kind: MismatchField, Refdes: ref, Field: f.name, Claim: f.claim, Actual: f.actual,
				Message: fmt.Sprintf("%s: %s %s is %q in the doc but %q in the schematic", doc, ref, fieldLabel(f.name), f.claim, f.actual)})
		}
	}
	return out
}

func fieldLabel(field string) string {
	if field == "mpn" {
		return "MPN"
	}
	return field
}

func bomSummary(r BOMRow) string {
	return strings.Join(slices.DeleteFunc([]string{cmp.Or(r.Value, "(no value)"), r.Footprint}, func(s string) bool { return s == "" }), ", ")
}

func unionRefs(actual, claimed []BOMRow) []string {
	var refs []string
	seen := map[string]bool{}
	for _, set := range [][]BOMRow{actual, claimed} {
		for _, r := range set {
			if !seen[r.Refdes] {
				seen[r.Refdes] = true
				refs = append(refs, r.Refdes)
			}
		}
	}
	slices.SortFunc(refs, kicad.CompareRefdes)
	return refs
}

// stripFlags removes the verification flags from an MPN cell, so
// "ABC-123 (UNVERIFIED)" and "ABC-123 VERIFIED(datasheet)" both claim the
// MPN "ABC-123".
func stripFlags(mpn string) string {
	s := verifiedRE.ReplaceAllStringFunc(mpn, func(m string) string {
		// Keep the character before the flag that the pattern consumed.
		return m[:len(m)-len(VerifiedDatasheet)]
	})
	s = strings.ReplaceAll(s, MPNUnverified, "")
	s = strings.NewReplacer("()", "", "[]", "").Replace(s)
	return strings.Trim(normalizeSpace(s), " -–—,;:")
}

type pinKey struct{ refdes, pin string }

func pinoutDrift(doc string, files Files, nl *kicad.Netlist) []Mismatch {
	expected := PinoutRows(nl)
	// Every pin the netlist knows, IC or not: a doc row for a connector pin is
	// checked, but not required.
	allPins := map[pinKey]PinoutRow{}
	for _, n := range nl.Nets {
		for _, nd := range n.Nodes {
			k := pinKey{nd.Refdes, nd.Pin}
			if _, dup := allPins[k]; !dup {
				allPins[k] = PinoutRow{Refdes: nd.Refdes, Pin: nd.Pin, Name: nd.PinFunction, Net: PinoutNet(n)}
			}
		}
	}
	src, exists := files[doc]
	if !exists {
		if len(expected) == 0 {
			return nil
		}
		return []Mismatch{{Doc: doc, Kind: MismatchDocMissing, Claim: "(no file)", Actual: textfmt.Count(len(expected), "IC pin"),
			Message: fmt.Sprintf("%s: the file is missing but the netlist has %s", doc, textfmt.Count(len(expected), "IC pin"))}}
	}
	rows, err := ParsePinout(src)
	if err != nil {
		if len(expected) == 0 {
			return nil
		}
		return []Mismatch{{Doc: doc, Kind: MismatchTableMissing, Claim: "(" + err.Error() + ")", Actual: textfmt.Count(len(expected), "IC pin"),
			Message: fmt.Sprintf("%s: %v, but the netlist has %s", doc, err, textfmt.Count(len(expected), "IC pin"))}}
	}
	claimed := map[pinKey][]PinoutRow{}
	for _, r := range rows {
		k := pinKey{r.Refdes, r.Pin}
		claimed[k] = append(claimed[k], r)
	}
	listed := map[pinKey]bool{}
	var keys []pinKey
	for _, r := range append(slices.Clone(expected), rows...) {
		if k := (pinKey{r.Refdes, r.Pin}); !listed[k] {
			listed[k] = true
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b pinKey) int { return comparePins(a.refdes, a.pin, b.refdes, b.pin) })

	var out []Mismatch
	for _, k := range keys {
		got, inDoc := claimed[k]
		want, inNetlist := allPins[k]
		where := fmt.Sprintf("%s pin %s", k.refdes, k.pin)
		switch {
		case !inDoc:
			out = append(out, Mismatch{Doc: doc, Kind: MismatchMissingRow, Refdes: k.refdes, Pin: k.pin, Claim: "(no row)", Actual: want.Net,
				Message: fmt.Sprintf("%s: %s (%s) is on net %q in the netlist but has no row in the doc", doc, where, want.Name, want.Net)})
			continue
		case !inNetlist:
			out = append(out, Mismatch{Doc: doc, Kind: MismatchExtraRow, Refdes: k.refdes, Pin: k.pin, Claim: got[0].Net, Actual: "(not in the netlist)",
				Message: fmt.Sprintf("%s: %s has a row in the doc (net %q) but the netlist has no such pin", doc, where, got[0].Net)})
			continue
		}
		if len(got) > 1 {
			out = append(out, Mismatch{Doc: doc, Kind: MismatchDuplicateRow, Refdes: k.refdes, Pin: k.pin, Claim: fmt.Sprintf("%d rows", len(got)), Actual: "1 pin",
				Message: fmt.Sprintf("%s: %s has %d rows in the doc", doc, where, len(got))})
		}
		if claim := got[0].Net; canonicalNetCell(normalizeSpace(claim)) != canonicalNetCell(normalizeSpace(want.Net)) {
			out = append(out, Mismatch{Doc: doc, Kind: MismatchField, Refdes: k.refdes, Pin: k.pin, Field: "net", Claim: claim, Actual: want.Net,
				Message: fmt.Sprintf("%s: %s net is %q in the doc but %q in the netlist", doc, where, claim, want.Net)})
		}
	}
	return out
}
