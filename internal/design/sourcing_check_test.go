package design

import (
	"strings"
	"testing"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/sourcing"
)

func TestCheckSourcing(t *testing.T) {
	now := time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)
	fresh := sourcing.Snapshot{MPN: "TPS63020DSJR", Provider: "nexar", Retrieved: now.Add(-72 * time.Hour), Lifecycle: "Active", Stock: 15000, Distributors: 2}
	with := func(f func(*sourcing.Snapshot)) sourcing.Snapshot { s := fresh; f(&s); return s }
	regOf := func(snaps map[string]sourcing.Snapshot) Constraints {
		reg := Constraints{"pins.strapping": {Forbidden: []string{"GPIO0"}, Source: "datasheet"}}
		for refdes, s := range snaps {
			c, err := sourcingConstraint(refdes, s)
			if err != nil {
				t.Fatal(err)
			}
			reg[SourcingKey(refdes)] = c
		}
		return reg
	}
	enabled := config.DefaultConfig()
	enabled.Research.Enabled = true
	weekly := enabled
	weekly.Research.StalenessDays = 2
	files := Files{"docs/BOM.md": []byte(bomDoc)} // C1 has no MPN; U1 TPS63020DSJR; U2 ESP32-S3-WROOM-1
	esp := sourcing.Snapshot{MPN: "ESP32-S3-WROOM-1", Provider: "nexar", Retrieved: now, Stock: 300, Distributors: 3}

	type want struct{ refdes, kind, severity, text string }
	tests := []struct {
		name    string
		cfg     config.Config
		reg     Constraints
		strict  bool
		skipped string
		want    []want
	}{
		{name: "research off, no snapshots: skipped", cfg: config.DefaultConfig(), reg: regOf(nil), skipped: "research is not enabled"},
		{name: "research off, some snapshots: missing ones not reported", cfg: config.DefaultConfig(), reg: regOf(map[string]sourcing.Snapshot{"U1": fresh})},
		{name: "research on: every MPN needs a snapshot", cfg: enabled, reg: regOf(map[string]sourcing.Snapshot{"U1": fresh}),
			want: []want{{"U2", SourcingMissing, SeverityFail, `U2 ESP32-S3-WROOM-1: no sourcing snapshot (.copperhead/constraints.json has no "sourcing.U2"`}}},
		{name: "strict with research off needs them too", cfg: config.DefaultConfig(), reg: regOf(nil), strict: true,
			want: []want{{"U1", SourcingMissing, SeverityFail, "U1 TPS63020DSJR: no sourcing snapshot"}, {"U2", SourcingMissing, SeverityFail, "U2 ESP32"}}},
		{name: "all fresh and stocked", cfg: enabled, reg: regOf(map[string]sourcing.Snapshot{"U1": fresh, "U2": esp})},
		{name: "EOL always fails", cfg: config.DefaultConfig(), reg: regOf(map[string]sourcing.Snapshot{"U1": with(func(s *sourcing.Snapshot) { s.Lifecycle = "EOL" })}),
			want: []want{{"U1", string(sourcing.LifecycleEnded), SeverityFail, `U1 TPS63020DSJR: lifecycle "EOL": end of life (nexar, retrieved 2026-03-28)`}}},
		{name: "NRND warns", cfg: config.DefaultConfig(), reg: regOf(map[string]sourcing.Snapshot{"U1": with(func(s *sourcing.Snapshot) { s.Lifecycle = "NRND" })}),
			want: []want{{"U1", string(sourcing.LifecycleAtRisk), SeverityWarn, "not recommended for new designs"}}},
		{name: "zero stock warns", cfg: enabled, reg: regOf(map[string]sourcing.Snapshot{"U1": with(func(s *sourcing.Snapshot) { s.Stock, s.Distributors = 0, 0 }), "U2": esp}),
			want: []want{{"U1", string(sourcing.ZeroStock), SeverityWarn, "U1 TPS63020DSJR: zero stock at retrieval"}}},
		{name: "stale warns at research.stalenessDays", cfg: weekly, reg: regOf(map[string]sourcing.Snapshot{"U1": fresh, "U2": esp}),
			want: []want{{"U1", string(sourcing.Stale), SeverityWarn, "snapshot is 3 days old, limit 2"}}},
		{name: "strict fails stale and zero stock", cfg: weekly, strict: true,
			reg:  regOf(map[string]sourcing.Snapshot{"U1": with(func(s *sourcing.Snapshot) { s.Stock = 0 }), "U2": esp}),
			want: []want{{"U1", string(sourcing.ZeroStock), SeverityFail, "zero stock"}, {"U1", string(sourcing.Stale), SeverityFail, "3 days old"}}},
		{name: "single source is not a check finding", cfg: enabled, reg: regOf(map[string]sourcing.Snapshot{"U1": with(func(s *sourcing.Snapshot) { s.Distributors = 1 }), "U2": esp})},
		{name: "snapshot of another MPN", cfg: config.DefaultConfig(), reg: regOf(map[string]sourcing.Snapshot{"U1": with(func(s *sourcing.Snapshot) { s.MPN = "TPS63021DSJR" })}),
			want: []want{{"U1", SourcingMPNMismatch, SeverityWarn, "U1: docs/BOM.md says MPN TPS63020DSJR but sourcing.U1 is a snapshot of TPS63021DSJR"}}},
		{name: "snapshot of another MPN fails when required", cfg: enabled, reg: regOf(map[string]sourcing.Snapshot{"U1": with(func(s *sourcing.Snapshot) { s.MPN = "X" }), "U2": esp}),
			want: []want{{"U1", SourcingMPNMismatch, SeverityFail, "snapshot of X"}}},
		{name: "MPN compared without case or flags", cfg: enabled, reg: regOf(map[string]sourcing.Snapshot{"U1": with(func(s *sourcing.Snapshot) { s.MPN = "tps63020dsjr" }), "U2": esp})},
		{name: "orphan snapshot warns", cfg: config.DefaultConfig(), reg: regOf(map[string]sourcing.Snapshot{"U9": fresh}),
			want: []want{{"U9", SourcingOrphan, SeverityWarn, "sourcing.U9: TPS63020DSJR has no row in docs/BOM.md"}}},
		{name: "malformed entry fails", cfg: config.DefaultConfig(),
			reg:  Constraints{"sourcing.U1": {Source: "nexar", Affects: []string{"U1"}}},
			want: []want{{"U1", SourcingMalformed, SeverityFail, `.copperhead/constraints.json sourcing.U1: field "mpn" is missing`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckSourcing(files, tt.cfg, tt.reg, now, tt.strict)
			if got.Skipped != "" || tt.skipped != "" {
				if !strings.Contains(got.Skipped, tt.skipped) || tt.skipped == "" || len(got.Findings) != 0 {
					t.Fatalf("skipped = %q, findings %+v; want skipped %q", got.Skipped, got.Findings, tt.skipped)
				}
				return
			}
			if len(got.Findings) != len(tt.want) {
				t.Fatalf("findings = %+v, want %d", got.Findings, len(tt.want))
			}
			failed := false
			for i, w := range tt.want {
				f := got.Findings[i]
				if f.Refdes != w.refdes || f.Kind != w.kind || f.Severity != w.severity || !strings.Contains(f.Message, w.text) {
					t.Errorf("finding %d = %+v\nwant %+v", i, f, w)
				}
				failed = failed || w.severity == SeverityFail
			}
			if got.Failed() != failed {
				t.Errorf("Failed() = %v, want %v", got.Failed(), failed)
			}
		})
	}
}

func TestCheckSourcingWithoutBOM(t *testing.T) {
	cfg := config.DefaultConfig()
	cfg.Research.Enabled = true
	c, err := sourcingConstraint("U1", tpsSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	reg := Constraints{SourcingKey("U1"): c}
	got := CheckSourcing(Files{}, cfg, reg, retrievedAt, false)
	if len(got.Findings) != 0 || got.Skipped != "" {
		t.Errorf("no BOM.md: %+v (drift reports the missing doc; no orphans without a BOM to compare)", got)
	}
}
