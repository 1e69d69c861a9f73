package parts

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCheckSourcing(t *testing.T) {
	now := time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)
	fresh := now.Add(-48 * time.Hour)
	good := Snapshot{MPN: "TPS63020DSJR", Provider: "nexar", Retrieved: fresh, Lifecycle: "Production", Stock: 15000, Distributors: 3}
	with := func(f func(*Snapshot)) Snapshot { s := good; f(&s); return s }

	tests := []struct {
		name  string
		snap  Snapshot
		rules Rules
		want  []string // substrings, one per expected finding, in order
	}{
		{"sourceable", good, DefaultRules, nil},
		{"obsolete", with(func(s *Snapshot) { s.Lifecycle = "Obsolete" }), DefaultRules, []string{`lifecycle "Obsolete": obsolete`}},
		{"eol", with(func(s *Snapshot) { s.Lifecycle = "EOL" }), DefaultRules, []string{"end of life"}},
		{"end of life wording", with(func(s *Snapshot) { s.Lifecycle = "End of Life" }), DefaultRules, []string{"end of life"}},
		{"nrnd", with(func(s *Snapshot) { s.Lifecycle = "NRND" }), DefaultRules, []string{"not recommended for new designs"}},
		{"not recommended wording", with(func(s *Snapshot) { s.Lifecycle = "Not Recommended for New Designs" }), DefaultRules, []string{"not recommended for new designs"}},
		{"unknown lifecycle is not a finding", with(func(s *Snapshot) { s.Lifecycle = "" }), DefaultRules, nil},
		{"zero stock", with(func(s *Snapshot) { s.Stock = 0 }), DefaultRules, []string{"zero stock at retrieval"}},
		{"zero stock even with rules off", with(func(s *Snapshot) { s.Stock = 0 }), Rules{}, []string{"zero stock"}},
		{"below minimum stock", with(func(s *Snapshot) { s.Stock = 50 }), Rules{MinStock: 100}, []string{"stock 50 below minimum 100"}},
		{"single source", with(func(s *Snapshot) { s.Distributors = 1 }), DefaultRules, []string{"single source"}},
		{"no distributor", with(func(s *Snapshot) { s.Distributors = 0 }), DefaultRules, []string{"no distributor holds stock"}},
		{"fewer than three", with(func(s *Snapshot) { s.Distributors = 2 }), Rules{MinDistributors: 3}, []string{"2 distributors hold stock, minimum 3"}},
		{"distributor rule off", with(func(s *Snapshot) { s.Distributors = 1 }), Rules{}, nil},
		{"exactly at the age limit", with(func(s *Snapshot) { s.Retrieved = now.Add(-30 * 24 * time.Hour) }), DefaultRules, nil},
		{"stale", with(func(s *Snapshot) { s.Retrieved = now.Add(-45 * 24 * time.Hour) }), DefaultRules, []string{"snapshot is 45 days old, limit 30"}},
		{"stale rule off", with(func(s *Snapshot) { s.Retrieved = now.Add(-450 * 24 * time.Hour) }), Rules{MinDistributors: 2}, nil},
		{"no retrieval time", with(func(s *Snapshot) { s.Retrieved = time.Time{} }), DefaultRules, []string{"no retrieval time"}},
		{"everything wrong, fixed order", Snapshot{MPN: "X1", Lifecycle: "Obsolete", Retrieved: now.Add(-100 * 24 * time.Hour)}, DefaultRules,
			[]string{"obsolete", "zero stock", "no distributor", "100 days old"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckSourcing(tt.snap, now, tt.rules)
			if len(got) != len(tt.want) {
				t.Fatalf("findings = %q, want %d matching %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) || !strings.HasPrefix(got[i], tt.snap.MPN+": ") {
					t.Errorf("finding %d = %q, want it to start with the MPN and contain %q", i, got[i], w)
				}
			}
			if again := CheckSourcing(tt.snap, now, tt.rules); !slices.Equal(got, again) {
				t.Error("CheckSourcing is not deterministic")
			}
		})
	}
}

func TestCheckSourcingNamesEvidence(t *testing.T) {
	now := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	s := Snapshot{MPN: "LM1117IMP-3.3", Provider: "mouser", Retrieved: time.Date(2026, 3, 20, 9, 0, 0, 0, time.UTC), Lifecycle: "NRND", Stock: 800, Distributors: 1}
	got := CheckSourcing(s, now, DefaultRules)
	want := []string{
		`LM1117IMP-3.3: lifecycle "NRND": not recommended for new designs (mouser, retrieved 2026-03-20)`,
		`LM1117IMP-3.3: single source: 1 distributor holds stock, minimum 2 (mouser, retrieved 2026-03-20)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n got %q\nwant %q", got, want)
	}
}

func TestNewSnapshot(t *testing.T) {
	p := Part{MPN: "TPS63020DSJR", Lifecycle: "Production", Offers: []Offer{
		{Distributor: "Digi-Key", Stock: 12450},
		{Distributor: "Digi-Key", Stock: 3000},
		{Distributor: "Mouser", Stock: 0},
		{Distributor: " digi-key ", Stock: 5},
		{Distributor: "Arrow", Stock: 10},
	}}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	s := NewSnapshot(p, "nexar", at)
	want := Snapshot{MPN: "TPS63020DSJR", Provider: "nexar", Retrieved: at.UTC(), Lifecycle: "Production", Stock: 15465, Distributors: 2}
	if s != want {
		t.Errorf("snapshot = %+v, want %+v", s, want)
	}
}
