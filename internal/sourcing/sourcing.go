// Package sourcing owns the offline sourcing rules of design D7: the Snapshot
// a part-data provider's answer is reduced to when it informs a selection, and
// CheckSourcing, which judges a snapshot (lifecycle, stock, sources, age)
// without touching the network.
//
// It is the network-free half of part research: `check` applies these rules
// to the snapshots recorded in .copperhead/constraints.json, so this package
// must never import internal/research, net/http or anything that opens a
// socket, and it imports only the standard library. Building a Snapshot from a
// provider's answer is research's job (research/parts.NewSnapshot).
package sourcing

import (
	"fmt"
	"strings"
	"time"
)

// Snapshot is the sourcing evidence recorded when search_parts informed a
// selection (D7): what one provider said about one MPN at one moment. It is
// judged offline by CheckSourcing; no field is ever refreshed silently.
//
// The JSON names are D7's wire names, the fields of a "sourcing.<refdes>"
// entry in constraints.json (which adds "affects").
type Snapshot struct {
	MPN          string    `json:"mpn"`
	Provider     string    `json:"source"` // the part-data provider, e.g. "nexar"
	Retrieved    time.Time `json:"retrieved"`
	Lifecycle    string    `json:"lifecycle,omitempty"` // the provider's own wording
	Stock        int       `json:"stockTotal"`          // total stock across distributors holding some
	Distributors int       `json:"distributors"`        // distinct distributors holding stock
	// Price1k is the lowest unit price at a quantity of 1000 among the
	// distributors holding stock, in Currency; zero when no one quotes it.
	Price1k  float64 `json:"price1k,omitempty"`
	Currency string  `json:"currency,omitempty"`
}

// Rules are the sourcing thresholds. A zero field disables its rule, except
// that zero stock is always a finding: a part nobody holds is not sourceable
// whatever the thresholds say.
type Rules struct {
	MaxAgeDays      int // snapshot older than this is stale (research.stalenessDays)
	MinStock        int // total stock below this is a finding
	MinDistributors int // fewer distributors holding stock is a finding
}

// DefaultMaxAgeDays is D7's staleness limit, research.stalenessDays's
// default: part availability a month old is still a fair guide, older is not.
const DefaultMaxAgeDays = 30

// DefaultRules are the shipped thresholds: 30-day staleness (D7), some
// stock, and at least two sources so a single distributor's shortage does
// not stop a build.
var DefaultRules = Rules{MaxAgeDays: DefaultMaxAgeDays, MinStock: 1, MinDistributors: 2}

// Kind classifies a finding; the values are part of `check --json`.
type Kind string

// Finding kinds, in the order CheckSourcing reports them.
const (
	// LifecycleEnded: obsolete, end of life, discontinued. Always a failure
	// for a human to resolve: no threshold makes an ended part sourceable.
	LifecycleEnded Kind = "lifecycle_ended"
	// LifecycleAtRisk: not recommended for new designs, last time buy.
	LifecycleAtRisk Kind = "lifecycle_at_risk"
	// ZeroStock: nobody held any stock at retrieval.
	ZeroStock Kind = "zero_stock"
	// LowStock: some stock, below Rules.MinStock.
	LowStock Kind = "low_stock"
	// FewSources: fewer distributors hold stock than Rules.MinDistributors.
	FewSources Kind = "few_sources"
	// Stale: older than Rules.MaxAgeDays, or with no retrieval time at all.
	Stale Kind = "stale"
)

// Ended reports whether the finding is one no setting may wave through: an
// ended lifecycle is flagged for a human, never silently accepted (D7).
func (k Kind) Ended() bool { return k == LifecycleEnded }

// Finding is one reason a snapshot is not (or no longer) good evidence of
// sourceability. Message starts with the MPN and names the evidence.
type Finding struct {
	Kind    Kind   `json:"kind"`
	Message string `json:"message"`
}

func (f Finding) String() string { return f.Message }

// lifecycleFindings maps lifecycle wording (lower-case substrings, checked
// in order) to the finding it produces. Providers word these differently:
// Nexar says "Obsolete" or "EOL", Mouser "End of Life" or "Not Recommended
// for New Designs".
var lifecycleFindings = []struct {
	match, finding string
	kind           Kind
}{
	{"obsolete", "obsolete", LifecycleEnded},
	{"end of life", "end of life", LifecycleEnded},
	{"eol", "end of life", LifecycleEnded},
	{"discontinued", "obsolete", LifecycleEnded},
	{"last time buy", "last time buy", LifecycleAtRisk},
	{"nrnd", "not recommended for new designs", LifecycleAtRisk},
	{"not recommended", "not recommended for new designs", LifecycleAtRisk},
}

// CheckSourcing judges one snapshot against rules at time now and returns
// its findings in a fixed order (lifecycle, stock, sources, age), each naming
// the MPN and the evidence. No findings means sourceable by these rules. It
// is pure: the same inputs give the same findings, with no I/O.
func CheckSourcing(s Snapshot, now time.Time, rules Rules) []Finding {
	var findings []Finding
	add := func(k Kind, format string, args ...any) {
		findings = append(findings, Finding{Kind: k, Message: s.MPN + ": " + fmt.Sprintf(format, args...)})
	}
	evidence := fmt.Sprintf("%s, retrieved %s", orUnknown(s.Provider), retrievedDate(s.Retrieved))
	lc := strings.ToLower(s.Lifecycle)
	for _, l := range lifecycleFindings {
		if strings.Contains(lc, l.match) {
			add(l.kind, "lifecycle %q: %s (%s)", s.Lifecycle, l.finding, evidence)
			break
		}
	}
	switch minStock := max(rules.MinStock, 1); {
	case s.Stock <= 0:
		add(ZeroStock, "zero stock at retrieval (%s)", evidence)
	case s.Stock < minStock:
		add(LowStock, "stock %d below minimum %d (%s)", s.Stock, minStock, evidence)
	}
	if rules.MinDistributors > 0 && s.Distributors < rules.MinDistributors {
		switch s.Distributors {
		case 0:
			add(FewSources, "no distributor holds stock (%s)", evidence)
		case 1:
			add(FewSources, "single source: 1 distributor holds stock, minimum %d (%s)", rules.MinDistributors, evidence)
		default:
			add(FewSources, "%d distributors hold stock, minimum %d (%s)", s.Distributors, rules.MinDistributors, evidence)
		}
	}
	if rules.MaxAgeDays > 0 {
		if s.Retrieved.IsZero() {
			add(Stale, "snapshot has no retrieval time (%s)", orUnknown(s.Provider))
		} else if age := now.Sub(s.Retrieved); age > time.Duration(rules.MaxAgeDays)*24*time.Hour {
			add(Stale, "snapshot is %d days old, limit %d (%s)", int(age.Hours()/24), rules.MaxAgeDays, evidence)
		}
	}
	return findings
}

// Summary is the one human-readable line BOM.md carries for a snapshot:
// "TPS63020DSJR: Active, 15465 in stock at 2 distributors, 1.23 USD at 1k
// (nexar, retrieved 2026-03-01)". Unknown facts are left out, never guessed.
func Summary(s Snapshot) string {
	facts := []string{}
	if s.Lifecycle != "" {
		facts = append(facts, s.Lifecycle)
	}
	switch {
	case s.Stock <= 0:
		facts = append(facts, "no stock")
	case s.Distributors == 1:
		facts = append(facts, fmt.Sprintf("%d in stock at 1 distributor", s.Stock))
	case s.Distributors > 1:
		facts = append(facts, fmt.Sprintf("%d in stock at %d distributors", s.Stock, s.Distributors))
	default:
		facts = append(facts, fmt.Sprintf("%d in stock", s.Stock))
	}
	if s.Price1k > 0 {
		facts = append(facts, strings.Join(strings.Fields(formatPrice(s.Price1k)+" "+s.Currency), " ")+" at 1k")
	}
	return fmt.Sprintf("%s: %s (%s, retrieved %s)", s.MPN, strings.Join(facts, ", "), orUnknown(s.Provider), retrievedDate(s.Retrieved))
}

// formatPrice writes a unit price with as many decimals as it needs, at
// least two and at most six (passives cost fractions of a cent at 1k).
func formatPrice(p float64) string {
	s := fmt.Sprintf("%.6f", p)
	s = strings.TrimRight(s, "0")
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 < 2 {
		s += strings.Repeat("0", 2-(len(s)-i-1))
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown provider"
	}
	return s
}

func retrievedDate(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format(time.DateOnly)
}
