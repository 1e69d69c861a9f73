package design

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"

	"copperhead/internal/circuit"
	"copperhead/internal/config"
	"copperhead/internal/kicad"
)

// Constraint is one entry of .copperhead/constraints.json (spec §2.6).
type Constraint struct {
	Max       *float64 // numeric upper limit, in the unit the key names
	Min       *float64 // numeric lower limit
	Forbidden []string // pin names that must not be used (GPIOn ≡ IOn)
	Source    string   // where the constraint comes from: spec requirement, doc, datasheet section
	Affects   []string // what to revisit when the constraint changes: refdes, nets, zones, "R7-absent"
	Deferred  []string // Affects items whose artifact does not exist yet: no revisit obligation until it does
	Extra     map[string]json.RawMessage
}

// Constraints is the registry: constraint key (e.g. "pins.strapping") to entry.
type Constraints map[string]Constraint

// LoadConstraints reads <repoRoot>/.copperhead/constraints.json; a missing file
// is an empty registry.
func LoadConstraints(repoRoot string) (Constraints, error) {
	data, err := config.ReadRepoFile(repoRoot, config.ConstraintsPath)
	if errors.Is(err, fs.ErrNotExist) {
		return Constraints{}, nil
	}
	if err != nil {
		return nil, config.ReadError(config.ConstraintsPath, err)
	}
	return ParseConstraints(data, config.ConstraintsPath)
}

// ParseConstraints decodes constraints.json bytes; name is the file name
// errors quote. Unknown fields of an entry are kept in Extra. "deferred" may
// be a list of affects items or a boolean (true: all of affects).
func ParseConstraints(data []byte, name string) (Constraints, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, config.JSONError(name, data, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("%s: top level must be a JSON object", name)
	}
	out := Constraints{}
	for key, v := range raw {
		c, err := parseConstraint(v)
		if err != nil {
			return nil, fmt.Errorf("%s: constraint %q: %v", name, key, err)
		}
		out[key] = c
	}
	return out, nil
}

func parseConstraint(v json.RawMessage) (Constraint, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(v, &fields); err != nil || fields == nil {
		return Constraint{}, errors.New("must be a JSON object")
	}
	var c Constraint
	decode := []struct {
		key string
		dst any
	}{
		{"max", &c.Max}, {"min", &c.Min}, {"forbidden", &c.Forbidden},
		{"source", &c.Source}, {"affects", &c.Affects},
	}
	for _, d := range decode {
		if raw, ok := fields[d.key]; ok {
			delete(fields, d.key)
			if err := json.Unmarshal(raw, d.dst); err != nil {
				return Constraint{}, fmt.Errorf("field %q: %s", d.key, config.TypeErrorText(err))
			}
		}
	}
	if raw, ok := fields["deferred"]; ok {
		delete(fields, "deferred")
		var all bool
		switch {
		case json.Unmarshal(raw, &all) == nil:
			if all {
				c.Deferred = slices.Clone(c.Affects)
			}
		case json.Unmarshal(raw, &c.Deferred) == nil:
		default:
			return Constraint{}, errors.New(`field "deferred": expected a list of affects items or a boolean`)
		}
	}
	if len(fields) > 0 {
		c.Extra = fields
	}
	return c, nil
}

func (c Constraint) fields() map[string]any {
	out := map[string]any{}
	for k, v := range c.Extra {
		out[k] = v
	}
	if c.Max != nil {
		out["max"] = *c.Max
	}
	if c.Min != nil {
		out["min"] = *c.Min
	}
	if len(c.Forbidden) > 0 {
		out["forbidden"] = c.Forbidden
	}
	out["source"] = c.Source
	if len(c.Affects) > 0 {
		out["affects"] = c.Affects
	}
	if len(c.Deferred) > 0 {
		out["deferred"] = c.Deferred
	}
	return out
}

// MarshalJSON writes the entry with its known fields and Extra, keys sorted.
func (c Constraint) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c.fields()); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads one entry as ParseConstraints does.
func (c *Constraint) UnmarshalJSON(data []byte) error {
	parsed, err := parseConstraint(data)
	if err != nil {
		return err
	}
	*c = parsed
	return nil
}

// Marshal renders constraints.json deterministically: keys sorted, two-space
// indent, trailing newline. List order is kept as written (it is meaningful
// to the human who wrote it).
func (cs Constraints) Marshal() []byte {
	if cs == nil {
		cs = Constraints{}
	}
	return config.MarshalSorted(map[string]Constraint(cs))
}

// ConstraintViolation is one mechanical constraint failure found by check.
type ConstraintViolation struct {
	Key     string `json:"key"`     // constraint key or budget key
	Kind    string `json:"kind"`    // one of the Violation* kinds
	Message string `json:"message"` // names both sides and the governing source
	Source  string `json:"source"`  // the constraint's source, or the file declaring the budget
	// BaselineState is "new" or "existing" under check --baseline; "" otherwise.
	BaselineState string `json:"baseline_state,omitempty"`
}

func (v ConstraintViolation) String() string { return v.Message }

// Violation kinds.
const (
	ViolationForbiddenPin    = "forbidden_pin"
	ViolationBudgetMismatch  = "budget_mismatch"
	ViolationBudgetMissing   = "budget_missing"
	ViolationBudgetMalformed = "budget_malformed"
	// ViolationBudgetExceeded is the as-built design over a budget (the
	// sleep-current leakage model of internal/consistency, which owns the
	// one analysis every gate shares: consistency.CheckRequirements).
	ViolationBudgetExceeded = "budget_exceeded"
)

// CheckForbiddenPins reports every pin of a pinout part (see pinoutPart) that
// a constraint forbids by name and that is used: it sits on a net that is not
// a no-connect (circuit.IsNoConnect). Names match through canonicalPinNames, so
// "GPIO0" forbids a module pin named "IO0". Ordered by constraint key, then
// refdes and pin.
func CheckForbiddenPins(reg Constraints, nl *kicad.Netlist) []ConstraintViolation {
	if nl == nil {
		return nil
	}
	comps := componentsByRef(nl)
	type used struct{ refdes, pin, name, net string }
	var pins []used
	seen := map[[2]string]bool{}
	for _, n := range nl.Nets {
		if circuit.IsNoConnect(n) {
			continue
		}
		for _, nd := range n.Nodes {
			key := [2]string{nd.Refdes, nd.Pin}
			if seen[key] || !pinoutPart(nd.Refdes, comps[nd.Refdes]) {
				continue
			}
			seen[key] = true
			pins = append(pins, used{nd.Refdes, nd.Pin, nd.PinFunction, n.Name})
		}
	}
	slices.SortFunc(pins, func(a, b used) int { return comparePins(a.refdes, a.pin, b.refdes, b.pin) })

	var out []ConstraintViolation
	for _, key := range slices.Sorted(maps.Keys(reg)) {
		c := reg[key]
		forbidden := map[string]string{} // canonical name -> as the registry wrote it
		for _, f := range c.Forbidden {
			for _, canon := range canonicalPinNames(f, nil) {
				if _, dup := forbidden[canon]; !dup {
					forbidden[canon] = f
				}
			}
		}
		if len(forbidden) == 0 {
			continue
		}
		for _, p := range pins {
			comp := comps[p.refdes]
			for _, canon := range canonicalPinNames(p.name, mcuFamilyOf(comp.LibID, comp.Value)) {
				f, hit := forbidden[canon]
				if !hit {
					continue
				}
				out = append(out, ConstraintViolation{
					Key:  key,
					Kind: ViolationForbiddenPin,
					Message: fmt.Sprintf("%s pin %s (%s) is on net %q, but constraint %s forbids %s (source: %s)",
						p.refdes, p.pin, p.name, p.net, key, f, cmp.Or(c.Source, "none given")),
					Source: c.Source,
				})
				break
			}
		}
	}
	return out
}

// CheckBudgets compares config.json budgets with the ## Budgets section of
// SPEC.md, both ways: a budget on one side only, a different number, and a
// budget line that does not follow the format are violations. Nothing is
// reported when neither side declares a budget.
func CheckBudgets(cfg config.Config, files Files) []ConstraintViolation {
	specPath := cfg.DocPath(SpecDoc)
	spec, specExists := files[specPath]
	declared := ParseBudgets(spec)
	var out []ConstraintViolation
	for _, line := range declared.Malformed {
		out = append(out, ConstraintViolation{
			Key:  "budgets",
			Kind: ViolationBudgetMalformed,
			Message: fmt.Sprintf("%s ## %s: %q is not a budget line; write \"- <key>: <number>\"",
				specPath, BudgetsHeading, line),
			Source: specPath,
		})
	}
	for _, key := range slices.Sorted(maps.Keys(cfg.Budgets)) {
		want := cfg.Budgets[key]
		said := fmt.Sprintf("budget %s: %s says %s", key, config.ConfigPath, formatNumber(want))
		got, ok := declared.Values[key]
		var msg string
		switch {
		case !specExists:
			msg = fmt.Sprintf("%s but %s does not exist", said, specPath)
		case !declared.Section:
			msg = fmt.Sprintf("%s but %s has no ## %s section", said, specPath, BudgetsHeading)
		case !ok:
			msg = fmt.Sprintf("%s but %s ## %s has no line for it", said, specPath, BudgetsHeading)
		case got != want:
			out = append(out, ConstraintViolation{Key: key, Kind: ViolationBudgetMismatch, Source: config.ConfigPath,
				Message: fmt.Sprintf("%s but %s ## %s says %s", said, specPath, BudgetsHeading, formatNumber(got))})
			continue
		default:
			continue
		}
		out = append(out, ConstraintViolation{Key: key, Kind: ViolationBudgetMissing, Message: msg, Source: config.ConfigPath})
	}
	for _, key := range slices.Sorted(maps.Keys(declared.Values)) {
		if _, ok := cfg.Budgets[key]; ok {
			continue
		}
		out = append(out, ConstraintViolation{
			Key:  key,
			Kind: ViolationBudgetMissing,
			Message: fmt.Sprintf("budget %s: %s ## %s says %s but %s budgets has no such key",
				key, specPath, BudgetsHeading, formatNumber(declared.Values[key]), config.ConfigPath),
			Source: specPath,
		})
	}
	return out
}
