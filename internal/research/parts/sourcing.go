package parts

import (
	"fmt"
	"strings"
	"time"
)

// Snapshot is the sourcing evidence recorded when search_parts informed a
// selection (D7): what one provider said about one MPN at one moment. It is
// judged offline by CheckSourcing; no field is ever refreshed silently.
type Snapshot struct {
	MPN          string    `json:"mpn"`
	Provider     string    `json:"provider"`
	Retrieved    time.Time `json:"retrieved"`
	Lifecycle    string    `json:"lifecycle,omitempty"`
	Stock        int       `json:"stock"`
	Distributors int       `json:"distributors"`
}

// NewSnapshot summarizes p as a provider reported it at retrieved: total
// stock across offers, and the number of distinct distributors holding
// stock (a distributor listing zero cannot supply, so it is not a source).
func NewSnapshot(p Part, provider string, retrieved time.Time) Snapshot {
	s := Snapshot{MPN: p.MPN, Provider: provider, Retrieved: retrieved.UTC(), Lifecycle: p.Lifecycle}
	sources := map[string]bool{}
	for _, o := range p.Offers {
		if o.Stock <= 0 {
			continue
		}
		s.Stock += o.Stock
		sources[strings.ToLower(strings.TrimSpace(o.Distributor))] = true
	}
	s.Distributors = len(sources)
	return s
}

// Rules are the sourcing thresholds. A zero field disables its rule, except
// that zero stock is always a finding: a part nobody holds is not sourceable
// whatever the thresholds say.
type Rules struct {
	MaxAgeDays      int // snapshot older than this is stale (research.stalenessDays)
	MinStock        int // total stock below this is a finding
	MinDistributors int // fewer distributors holding stock is a finding
}

// DefaultRules are the shipped thresholds: 30-day staleness (D7), some
// stock, and at least two sources so a single distributor's shortage does
// not stop a build.
var DefaultRules = Rules{MaxAgeDays: 30, MinStock: 1, MinDistributors: 2}

// lifecycleFindings maps lifecycle wording (lower-case substrings, checked
// in order) to the finding it produces. Providers word these differently:
// Nexar says "Obsolete" or "EOL", Mouser "End of Life" or "Not Recommended
// for New Designs".
var lifecycleFindings = []struct{ match, finding string }{
	{"obsolete", "obsolete"},
	{"end of life", "end of life"},
	{"eol", "end of life"},
	{"discontinued", "obsolete"},
	{"last time buy", "last time buy"},
	{"nrnd", "not recommended for new designs"},
	{"not recommended", "not recommended for new designs"},
}

// CheckSourcing judges one snapshot against rules at time now and returns
// its findings in a fixed order (lifecycle, stock, sources, age), each naming
// the MPN and the evidence. No findings means sourceable by these rules. It
// is pure: the same inputs give the same findings, with no I/O.
func CheckSourcing(s Snapshot, now time.Time, rules Rules) []string {
	var findings []string
	evidence := fmt.Sprintf("%s, retrieved %s", orUnknown(s.Provider), retrievedDate(s.Retrieved))
	lc := strings.ToLower(s.Lifecycle)
	for _, l := range lifecycleFindings {
		if strings.Contains(lc, l.match) {
			findings = append(findings, fmt.Sprintf("%s: lifecycle %q: %s (%s)", s.MPN, s.Lifecycle, l.finding, evidence))
			break
		}
	}
	switch minStock := max(rules.MinStock, 1); {
	case s.Stock <= 0:
		findings = append(findings, fmt.Sprintf("%s: zero stock at retrieval (%s)", s.MPN, evidence))
	case s.Stock < minStock:
		findings = append(findings, fmt.Sprintf("%s: stock %d below minimum %d (%s)", s.MPN, s.Stock, minStock, evidence))
	}
	if rules.MinDistributors > 0 && s.Distributors < rules.MinDistributors {
		switch s.Distributors {
		case 0:
			findings = append(findings, fmt.Sprintf("%s: no distributor holds stock (%s)", s.MPN, evidence))
		case 1:
			findings = append(findings, fmt.Sprintf("%s: single source: 1 distributor holds stock, minimum %d (%s)", s.MPN, rules.MinDistributors, evidence))
		default:
			findings = append(findings, fmt.Sprintf("%s: %d distributors hold stock, minimum %d (%s)", s.MPN, s.Distributors, rules.MinDistributors, evidence))
		}
	}
	if rules.MaxAgeDays > 0 {
		if s.Retrieved.IsZero() {
			findings = append(findings, fmt.Sprintf("%s: snapshot has no retrieval time (%s)", s.MPN, orUnknown(s.Provider)))
		} else if age := now.Sub(s.Retrieved); age > time.Duration(rules.MaxAgeDays)*24*time.Hour {
			findings = append(findings, fmt.Sprintf("%s: snapshot is %d days old, limit %d (%s)", s.MPN, int(age.Hours()/24), rules.MaxAgeDays, evidence))
		}
	}
	return findings
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
