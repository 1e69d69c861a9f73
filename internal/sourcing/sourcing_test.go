package sourcing

import (
	"encoding/json"
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

	type want struct {
		kind Kind
		text string // a substring of the message
	}
	tests := []struct {
		name  string
		snap  Snapshot
		rules Rules
		want  []want // one per expected finding, in order
	}{
		{"sourceable", good, DefaultRules, nil},
		{"obsolete", with(func(s *Snapshot) { s.Lifecycle = "Obsolete" }), DefaultRules, []want{{LifecycleEnded, `lifecycle "Obsolete": obsolete`}}},
		{"eol", with(func(s *Snapshot) { s.Lifecycle = "EOL" }), DefaultRules, []want{{LifecycleEnded, "end of life"}}},
		{"end of life wording", with(func(s *Snapshot) { s.Lifecycle = "End of Life" }), DefaultRules, []want{{LifecycleEnded, "end of life"}}},
		{"discontinued", with(func(s *Snapshot) { s.Lifecycle = "Discontinued at Digi-Key" }), DefaultRules, []want{{LifecycleEnded, "obsolete"}}},
		{"nrnd", with(func(s *Snapshot) { s.Lifecycle = "NRND" }), DefaultRules, []want{{LifecycleAtRisk, "not recommended for new designs"}}},
		{"not recommended wording", with(func(s *Snapshot) { s.Lifecycle = "Not Recommended for New Designs" }), DefaultRules, []want{{LifecycleAtRisk, "not recommended for new designs"}}},
		{"last time buy", with(func(s *Snapshot) { s.Lifecycle = "Last Time Buy" }), DefaultRules, []want{{LifecycleAtRisk, "last time buy"}}},
		{"unknown lifecycle is not a finding", with(func(s *Snapshot) { s.Lifecycle = "" }), DefaultRules, nil},
		{"zero stock", with(func(s *Snapshot) { s.Stock = 0 }), DefaultRules, []want{{ZeroStock, "zero stock at retrieval"}}},
		{"zero stock even with rules off", with(func(s *Snapshot) { s.Stock = 0 }), Rules{}, []want{{ZeroStock, "zero stock"}}},
		{"below minimum stock", with(func(s *Snapshot) { s.Stock = 50 }), Rules{MinStock: 100}, []want{{LowStock, "stock 50 below minimum 100"}}},
		{"single source", with(func(s *Snapshot) { s.Distributors = 1 }), DefaultRules, []want{{FewSources, "single source"}}},
		{"no distributor", with(func(s *Snapshot) { s.Distributors = 0 }), DefaultRules, []want{{FewSources, "no distributor holds stock"}}},
		{"fewer than three", with(func(s *Snapshot) { s.Distributors = 2 }), Rules{MinDistributors: 3}, []want{{FewSources, "2 distributors hold stock, minimum 3"}}},
		{"distributor rule off", with(func(s *Snapshot) { s.Distributors = 1 }), Rules{}, nil},
		{"exactly at the age limit", with(func(s *Snapshot) { s.Retrieved = now.Add(-30 * 24 * time.Hour) }), DefaultRules, nil},
		{"stale", with(func(s *Snapshot) { s.Retrieved = now.Add(-45 * 24 * time.Hour) }), DefaultRules, []want{{Stale, "snapshot is 45 days old, limit 30"}}},
		{"stale rule off", with(func(s *Snapshot) { s.Retrieved = now.Add(-450 * 24 * time.Hour) }), Rules{MinDistributors: 2}, nil},
		{"no retrieval time", with(func(s *Snapshot) { s.Retrieved = time.Time{} }), DefaultRules, []want{{Stale, "no retrieval time"}}},
		{"everything wrong, fixed order", Snapshot{MPN: "X1", Lifecycle: "Obsolete", Retrieved: now.Add(-100 * 24 * time.Hour)}, DefaultRules,
			[]want{{LifecycleEnded, "obsolete"}, {ZeroStock, "zero stock"}, {FewSources, "no distributor"}, {Stale, "100 days old"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckSourcing(tt.snap, now, tt.rules)
			if len(got) != len(tt.want) {
				t.Fatalf("findings = %q, want %d matching %v", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if got[i].Kind != w.kind || !strings.Contains(got[i].Message, w.text) || !strings.HasPrefix(got[i].Message, tt.snap.MPN+": ") {
					t.Errorf("finding %d = %s %q, want kind %s, starting with the MPN and containing %q", i, got[i].Kind, got[i].Message, w.kind, w.text)
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
	want := []Finding{
		{LifecycleAtRisk, `LM1117IMP-3.3: lifecycle "NRND": not recommended for new designs (mouser, retrieved 2026-03-20)`},
		{FewSources, `LM1117IMP-3.3: single source: 1 distributor holds stock, minimum 2 (mouser, retrieved 2026-03-20)`},
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n got %q\nwant %q", got, want)
	}
}

func TestKindEnded(t *testing.T) {
	for _, k := range []Kind{LifecycleEnded, LifecycleAtRisk, ZeroStock, LowStock, FewSources, Stale} {
		if got, want := k.Ended(), k == LifecycleEnded; got != want {
			t.Errorf("%s.Ended() = %v, want %v", k, got, want)
		}
	}
}

func TestSummary(t *testing.T) {
	at := time.Date(2026, 3, 1, 23, 30, 0, 0, time.FixedZone("X", -3600))
	tests := []struct {
		name string
		snap Snapshot
		want string
	}{
		{"everything known", Snapshot{MPN: "TPS63020DSJR", Provider: "nexar", Retrieved: at, Lifecycle: "Active", Stock: 15465, Distributors: 2, Price1k: 1.2, Currency: "USD"},
			"TPS63020DSJR: Active, 15465 in stock at 2 distributors, 1.20 USD at 1k (nexar, retrieved 2026-03-02)"},
		{"one distributor, sub-cent price", Snapshot{MPN: "RC0603FR-0710KL", Provider: "mouser", Retrieved: at, Stock: 90000, Distributors: 1, Price1k: 0.00182, Currency: "EUR"},
			"RC0603FR-0710KL: 90000 in stock at 1 distributor, 0.00182 EUR at 1k (mouser, retrieved 2026-03-02)"},
		{"no stock, nothing else known", Snapshot{MPN: "X1"}, "X1: no stock (unknown provider, retrieved never)"},
		{"stock without a distributor count", Snapshot{MPN: "X2", Provider: "nexar", Retrieved: at, Stock: 5, Price1k: 3}, "X2: 5 in stock, 3.00 at 1k (nexar, retrieved 2026-03-02)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Summary(tt.snap); got != tt.want {
				t.Errorf("Summary = %q\n    want %q", got, tt.want)
			}
		})
	}
}

// TestSnapshotWireNames pins the JSON names: they are D7's, and they are what
// constraints.json holds, so renaming a field must not rename a key.
func TestSnapshotWireNames(t *testing.T) {
	s := Snapshot{MPN: "X", Provider: "nexar", Retrieved: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Lifecycle: "Active", Stock: 7, Distributors: 2, Price1k: 0.5, Currency: "USD"}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"mpn":"X","source":"nexar","retrieved":"2026-01-02T03:04:05Z","lifecycle":"Active","stockTotal":7,"distributors":2,"price1k":0.5,"currency":"USD"}`
	if string(data) != want {
		t.Errorf("JSON = %s\nwant %s", data, want)
	}
}
