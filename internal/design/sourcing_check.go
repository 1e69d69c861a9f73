package design

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/kicad"
	"copperhead/internal/sourcing"
)

// Sourcing finding kinds that are about the BOM rather than one snapshot's
// content; the others are sourcing.Kind values.
const (
	SourcingMissing     = "missing_snapshot"   // a BOM row with an MPN has no sourcing.<refdes> entry
	SourcingMPNMismatch = "mpn_mismatch"       // the entry is a snapshot of another MPN than the row's
	SourcingMalformed   = "malformed_snapshot" // the entry cannot be read as a snapshot
	SourcingOrphan      = "orphan_snapshot"    // the entry's refdes has no BOM row
)

// Severities of a sourcing finding.
const (
	SeverityFail = "fail" // fails check
	SeverityWarn = "warn" // printed, never fails check (unless --strict-sourcing)
)

// SourcingFinding is one sourcing problem check reports.
type SourcingFinding struct {
	Refdes   string `json:"refdes"`
	MPN      string `json:"mpn"`
	Kind     string `json:"kind"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

func (f SourcingFinding) String() string { return f.Message }

// SourcingReport is the result of CheckSourcing.
type SourcingReport struct {
	Findings []SourcingFinding
	Skipped  string // why nothing was checked; "" when something was
}

// Failed reports whether any finding fails check.
func (r SourcingReport) Failed() bool {
	return slices.ContainsFunc(r.Findings, func(f SourcingFinding) bool { return f.Severity == SeverityFail })
}

// CheckSourcing judges the sourcing snapshots of constraints.json against
// the BOM.md rows at time now (D7), offline:
//
//   - a snapshot whose lifecycle has ended (obsolete, EOL) fails: it is
//     flagged for a human, whatever the settings;
//   - zero stock at retrieval, a snapshot older than research.stalenessDays,
//     an at-risk lifecycle (NRND, last time buy), a snapshot of another MPN
//     than the row's, and a snapshot whose part has no BOM row warn;
//   - a BOM row with an MPN but no snapshot fails when research.enabled is
//     true, and is not reported otherwise: a repo that never opted into
//     research is not judged on evidence it was never asked to keep;
//   - a snapshot entry that cannot be read fails.
//
// strict (check --strict-sourcing) requires a snapshot for every MPN even
// with research disabled, and turns every warning into a failure. With
// research disabled, no snapshots and strict off, the check is skipped.
func CheckSourcing(files Files, cfg config.Config, reg Constraints, now time.Time, strict bool) SourcingReport {
	required := cfg.Research.Enabled || strict
	rules := sourcing.Rules{MaxAgeDays: cfg.Research.StalenessDays, MinStock: 1}
	if rules.MaxAgeDays <= 0 {
		rules.MaxAgeDays = config.DefaultStalenessDays
	}
	warn := SeverityWarn
	if strict {
		warn = SeverityFail
	}
	var report SourcingReport
	add := func(refdes, mpn, kind, severity, msg string) {
		report.Findings = append(report.Findings, SourcingFinding{Refdes: refdes, MPN: mpn, Kind: kind, Severity: severity, Message: msg})
	}

	snaps := map[string]sourcing.Snapshot{}
	for _, key := range slices.Sorted(maps.Keys(reg)) {
		refdes, ok := strings.CutPrefix(key, SourcingKeyPrefix)
		if !ok {
			continue
		}
		s, err := SnapshotOf(reg[key])
		if err != nil {
			add(refdes, "", SourcingMalformed, SeverityFail, fmt.Sprintf("%s %s: %v", config.ConstraintsPath, key, err))
			continue
		}
		snaps[refdes] = s
	}
	if len(snaps) == 0 && len(report.Findings) == 0 && !required {
		report.Skipped = "research is not enabled and no part has a sourcing snapshot"
		return report
	}

	bomPath := cfg.DocPath(BOMDoc)
	rows, bomErr := ParseBOM(files[bomPath])
	seen := map[string]bool{}
	slices.SortStableFunc(rows, func(a, b BOMRow) int { return kicad.CompareRefdes(a.Refdes, b.Refdes) })
	for _, row := range rows {
		if seen[row.Refdes] {
			continue // drift reports duplicate rows
		}
		seen[row.Refdes] = true
		mpn := stripFlags(row.MPN)
		if !hasMPN(mpn) {
			continue
		}
		s, ok := snaps[row.Refdes]
		switch {
		case !ok && required:
			add(row.Refdes, mpn, SourcingMissing, SeverityFail, fmt.Sprintf("%s %s: no sourcing snapshot (%s has no %q; search_parts records one)",
				row.Refdes, mpn, config.ConstraintsPath, SourcingKey(row.Refdes)))
		case !ok:
		case !strings.EqualFold(strings.TrimSpace(s.MPN), mpn):
			severity := warn
			if required {
				severity = SeverityFail
			}
			add(row.Refdes, mpn, SourcingMPNMismatch, severity, fmt.Sprintf("%s: %s says MPN %s but %s is a snapshot of %s",
				row.Refdes, bomPath, mpn, SourcingKey(row.Refdes), s.MPN))
		default:
			for _, f := range sourcing.CheckSourcing(s, now, rules) {
				severity := warn
				if f.Kind.Ended() {
					severity = SeverityFail
				}
				add(row.Refdes, s.MPN, string(f.Kind), severity, row.Refdes+" "+f.Message)
			}
		}
	}
	if bomErr == nil {
		for _, refdes := range slices.SortedFunc(maps.Keys(snaps), kicad.CompareRefdes) {
			if !seen[refdes] {
				add(refdes, snaps[refdes].MPN, SourcingOrphan, warn, fmt.Sprintf("%s: %s has no row in %s (the part is gone: delete the entry and its ## %s line)",
					SourcingKey(refdes), snaps[refdes].MPN, bomPath, SourcingHeading))
			}
		}
	}
	return report
}

// hasMPN reports whether an MPN cell (flags stripped) names a part rather
// than saying there is none yet.
func hasMPN(mpn string) bool {
	switch strings.ToLower(strings.TrimSpace(mpn)) {
	case "", "-", "—", "–", "n/a", "na", "none", "tbd", "?":
		return false
	}
	return true
}
