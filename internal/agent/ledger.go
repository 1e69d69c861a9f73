package agent

// ObligationKind names what a run still owes before it may finish (design D13).
type ObligationKind string

const (
	OblERC       ObligationKind = "erc"        // a .kicad_sch changed: ERC must pass after the last edit
	OblDRC       ObligationKind = "drc"        // a .kicad_pcb changed: DRC must pass after the last edit
	OblDrift     ObligationKind = "drift"      // a KiCad file or doc changed: check_drift must be clean
	OblDualWrite ObligationKind = "dual-write" // a constraint stated in a doc must be in constraints.json, and back
	OblRevisit   ObligationKind = "revisit"    // an affects item of a changed constraint must be resolved
)

// Obligation is one ledger entry.
type Obligation struct {
	Kind       ObligationKind `json:"kind"`
	Subject    string         `json:"subject"` // file, constraint key, or affects item
	Reason     string         `json:"reason"`
	Deferred   bool           `json:"deferred,omitempty"` // its artifact does not exist yet: no obligation until it does
	Resolved   bool           `json:"resolved"`
	Resolution string         `json:"resolution,omitempty"`
}

// Ledger is the run's obligations ledger. Hooks in the dispatcher (code, not
// the model) open obligations; verification tools and resolve_affected close
// them; finish(done) is refused while any is open.
type Ledger struct {
	items []Obligation
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{} }

// Open records an obligation unless an identical open one exists.
func (l *Ledger) Open(kind ObligationKind, subject, reason string) {
	for i := range l.items {
		it := &l.items[i]
		if it.Kind == kind && it.Subject == subject && !it.Resolved {
			return
		}
	}
	l.items = append(l.items, Obligation{Kind: kind, Subject: subject, Reason: reason})
}

// Resolve closes every open obligation of kind for subject ("" matches any
// subject) and reports how many it closed.
func (l *Ledger) Resolve(kind ObligationKind, subject, resolution string) int {
	n := 0
	for i := range l.items {
		it := &l.items[i]
		if it.Kind == kind && !it.Resolved && (subject == "" || it.Subject == subject) {
			it.Resolved, it.Resolution = true, resolution
			n++
		}
	}
	return n
}

// Pending returns the open, non-deferred obligations in the order opened.
func (l *Ledger) Pending() []Obligation {
	var out []Obligation
	for _, it := range l.items {
		if !it.Resolved && !it.Deferred {
			out = append(out, it)
		}
	}
	return out
}

// All returns every obligation, for the run summary.
func (l *Ledger) All() []Obligation { return append([]Obligation(nil), l.items...) }
