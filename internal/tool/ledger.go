package tool

import (
	"encoding/json"
	"fmt"
)

// ObligationKind names what a run still owes before it may finish (design D13).
type ObligationKind string

const (
	OblERC       ObligationKind = "erc"        // a .kicad_sch changed: ERC must pass after the last edit
	OblDRC       ObligationKind = "drc"        // a .kicad_pcb changed: DRC must pass after the last edit
	OblDrift     ObligationKind = "drift"      // a KiCad file or doc changed: check_drift must be clean
	OblDualWrite ObligationKind = "dual-write" // a constraint stated in a doc must be in constraints.json, and back
	OblRevisit   ObligationKind = "revisit"    // an affects item of a changed constraint must be resolved
)

// closer names the tool that closes each kind, for messages to the model.
var closer = map[ObligationKind]string{
	OblERC:       "run_erc",
	OblDRC:       "run_drc",
	OblDrift:     "check_drift",
	OblDualWrite: "record_constraint",
	OblRevisit:   "resolve_affected",
}

// Obligation is one ledger entry.
type Obligation struct {
	Kind       ObligationKind `json:"kind"`
	Subject    string         `json:"subject"` // file, constraint key, or "<key> -> <affects item>"
	Reason     string         `json:"reason"`
	Deferred   bool           `json:"deferred,omitempty"` // its artifact does not exist yet: no obligation until it does
	Resolved   bool           `json:"resolved"`
	Resolution string         `json:"resolution,omitempty"`
}

// String renders the obligation as one line for the model and the summary:
// "erc hardware/x.kicad_sch: schematic edited (run_erc closes it)".
func (o Obligation) String() string {
	s := fmt.Sprintf("%s %s: %s", o.Kind, o.Subject, o.Reason)
	switch {
	case o.Resolved:
		s += " [resolved: " + o.Resolution + "]"
	case o.Deferred:
		s += " [deferred until its artifact exists]"
	case closer[o.Kind] != "":
		s += " (" + closer[o.Kind] + " closes it)"
	}
	return s
}

// Ledger is the run's obligations ledger. Hooks in the dispatcher (code, not
// the model) open obligations; verification tools and resolve_affected close
// them; finish(done) is refused while any is open.
type Ledger struct {
	items []Obligation
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{} }

// Open records an obligation unless an identical open one exists, and
// reports whether it recorded one. Opening a subject that is open but
// deferred makes it due (its artifact exists now).
func (l *Ledger) Open(kind ObligationKind, subject, reason string) bool {
	for i := range l.items {
		it := &l.items[i]
		if it.Kind == kind && it.Subject == subject && !it.Resolved {
			if it.Deferred {
				it.Deferred, it.Reason = false, reason
				return true
			}
			return false
		}
	}
	l.items = append(l.items, Obligation{Kind: kind, Subject: subject, Reason: reason})
	return true
}

// OpenDeferred records an obligation whose artifact does not exist yet: it is
// listed (the summary shows it) but not Pending, so it never blocks finish.
// An identical open obligation, deferred or due, is left as it is.
func (l *Ledger) OpenDeferred(kind ObligationKind, subject, reason string) bool {
	if _, ok := l.Find(kind, subject); ok {
		return false
	}
	l.items = append(l.items, Obligation{Kind: kind, Subject: subject, Reason: reason, Deferred: true})
	return true
}

// Find returns the open (unresolved) obligation of kind for subject.
func (l *Ledger) Find(kind ObligationKind, subject string) (Obligation, bool) {
	for _, it := range l.items {
		if it.Kind == kind && it.Subject == subject && !it.Resolved {
			return it, true
		}
	}
	return Obligation{}, false
}

// Resolve closes every open, non-deferred obligation of kind for subject (""
// matches any subject) and reports how many it closed. Deferred ones stay:
// their revisit has not happened yet.
func (l *Ledger) Resolve(kind ObligationKind, subject, resolution string) int {
	n := 0
	for i := range l.items {
		it := &l.items[i]
		if it.Kind == kind && !it.Resolved && !it.Deferred && (subject == "" || it.Subject == subject) {
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

// MarshalJSON writes every obligation in the order opened (never null), so
// the run summary and transcript can embed the ledger as it stands.
func (l *Ledger) MarshalJSON() ([]byte, error) {
	items := l.All()
	if items == nil {
		items = []Obligation{}
	}
	return json.Marshal(items)
}

// EnsureLedger returns the session's ledger, creating it on first use.
func (s *Session) EnsureLedger() *Ledger {
	if s.Ledger == nil {
		s.Ledger = NewLedger()
	}
	return s.Ledger
}
