package schedit

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"copperhead/internal/kicad"
)

// Expect is what an operation means to KiCad: the netlist of the written
// files must differ from the netlist before the edit by exactly this, and
// by nothing else. Every operation fills it in with its plan; Verify
// compares. It is the net under every edit bug: an operation that splices
// the wrong bytes can fail, but it can no longer report success.
//
// Names are KiCad's own net names as the netlist spells them ("/PTT",
// "/amp/OUT", "VCC"); pins are reference + pin number.
type Expect struct {
	// Renames: the net named Old before is named New after, with the same
	// pins. When New already existed (a merge) the two nets are one.
	Renames []NetRename
	// Pins whose connection the operation changes.
	Pins []PinNet
	// Fields a component must carry afterwards ("Value", "Footprint", any
	// field, or one of the flags "dnp", "exclude_from_bom",
	// "exclude_from_board" with Value "yes" or "no"). "" means empty or absent.
	Fields []FieldValue
	// Added references must appear; their pins may connect anywhere their
	// symbol connects them (hidden power pins do) unless listed in Pins.
	Added []string
	// Removed references must disappear, with every pin.
	Removed []string
}

// NetRename is one net changing its name.
type NetRename struct{ Old, New string }

// PinNet says where one pin ends up. Exactly one of Net and Like is set, or
// neither: the pin is then connected to nothing (a net of its own).
type PinNet struct {
	Ref, Pin string
	Net      string // the pin is on the net of this name afterwards
	Like     string // "REF.PIN": the pin joins the net that pin was on before the edit
}

// FieldValue is one component field's value after the edit.
type FieldValue struct{ Ref, Field, Value string }

// Empty reports whether the expectation states nothing: only a plan that
// changes no connectivity and no field (a layout-only change) may have one.
func (e Expect) Empty() bool {
	return len(e.Renames) == 0 && len(e.Pins) == 0 && len(e.Fields) == 0 && len(e.Added) == 0 && len(e.Removed) == 0
}

// netlistFlags maps the flag names a set-field takes to the netlist
// property KiCad writes when the flag is set.
var netlistFlags = map[string]string{
	"dnp":                "dnp",
	"exclude_from_bom":   "exclude_from_bom",
	"exclude_from_board": "exclude_from_board",
}

type pinKey struct{ ref, pin string }

func (k pinKey) String() string { return k.ref + "." + k.pin }

// Verify compares KiCad's netlist after the edit with the one before and
// the expectation. It returns nil when the netlists differ by exactly what
// e states, else an error naming the first few disagreements as KiCad sees
// them.
func Verify(e Expect, before, after *kicad.Netlist) error {
	var bad []string
	report := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }

	removed := setOf(e.Removed)
	added := setOf(e.Added)
	renames := map[string]string{}
	for _, r := range e.Renames {
		renames[r.Old] = r.New
	}

	// The group each pin belongs to: a named net by its (renamed) name,
	// an auto-named net by its position in the netlist before.
	start := map[pinKey]string{}
	for i, n := range before.Nets {
		key := "#" + fmt.Sprint(i)
		if nw, ok := renames[n.Name]; ok {
			key = "=" + nw
		} else if !autoNetName(n.Name) {
			// A name KiCad made up from a pin follows the pins: such a net
			// is compared by its pins alone.
			key = "=" + n.Name
		}
		for _, nd := range n.Nodes {
			start[pinKey{nd.Refdes, nd.Pin}] = key
		}
	}
	want := maps.Clone(start)
	for k := range want {
		if removed[k.ref] {
			delete(want, k)
		}
	}
	listed := map[pinKey]bool{}
	for _, p := range e.Pins {
		k := pinKey{p.Ref, p.Pin}
		listed[k] = true
		switch {
		case p.Net != "":
			want[k] = "=" + p.Net
		case p.Like != "":
			ref, pin, _ := strings.Cut(p.Like, ".")
			g, ok := start[pinKey{ref, pin}]
			if !ok {
				report("the edit expects %s on the net of %s, which KiCad's netlist before the edit does not have", k, p.Like)
				continue
			}
			want[k] = g
		default:
			want[k] = "!" + k.String()
		}
	}

	got := map[pinKey]int{}
	for j, n := range after.Nets {
		for _, nd := range n.Nodes {
			k := pinKey{nd.Refdes, nd.Pin}
			if added[k.ref] && !listed[k] {
				continue
			}
			got[k] = j
		}
	}
	for _, k := range sortedPins(want) {
		if _, ok := got[k]; !ok {
			report("pin %s is missing from KiCad's netlist after the edit", k)
		}
	}
	for _, k := range sortedPins(got) {
		if _, ok := want[k]; !ok {
			report("pin %s appeared in KiCad's netlist (on %s), which the edit did not intend", k, after.Nets[got[k]].Name)
		}
	}

	// Each group must be exactly one net afterwards, and each net one group.
	netOf := map[string]int{}
	groupOf := map[int]string{}
	for _, k := range sortedPins(want) {
		j, ok := got[k]
		if !ok {
			continue
		}
		g := want[k]
		if prev, seen := netOf[g]; seen && prev != j {
			report("KiCad splits what should be one net: %s is on %s, not on %s with the rest of %s", k, after.Nets[j].Name, after.Nets[prev].Name, groupName(g, before))
			continue
		}
		netOf[g] = j
		if prev, seen := groupOf[j]; seen && prev != g {
			report("KiCad joins what should be two nets: %s (%s) and %s are both on %s", k, groupName(g, before), groupName(prev, before), after.Nets[j].Name)
			continue
		}
		groupOf[j] = g
	}
	for _, g := range sortedKeys(netOf) {
		if name, ok := strings.CutPrefix(g, "="); ok {
			if got := after.Nets[netOf[g]].Name; got != name {
				report("KiCad names the net %s, not %s", got, name)
			}
		}
	}

	// Components: the stated ones appear, disappear or carry the stated
	// fields; every other one is exactly as it was.
	beforeComps := componentsByRef(before)
	afterComps := componentsByRef(after)
	fieldsOf := map[string][]FieldValue{}
	for _, f := range e.Fields {
		fieldsOf[f.Ref] = append(fieldsOf[f.Ref], f)
	}
	for _, ref := range sortedKeys(afterComps) {
		if _, ok := beforeComps[ref]; !ok && !added[ref] {
			report("KiCad's netlist gained a part %s the edit did not add", ref)
		}
	}
	for _, ref := range sortedKeys(added) {
		if _, ok := afterComps[ref]; !ok {
			report("KiCad's netlist has no part %s after adding it", ref)
		}
	}
	for _, ref := range sortedKeys(beforeComps) {
		b := beforeComps[ref]
		a, ok := afterComps[ref]
		switch {
		case removed[ref]:
			if ok {
				report("KiCad's netlist still has %s after removing it", ref)
			}
			continue
		case !ok:
			report("KiCad's netlist lost part %s, which the edit did not remove", ref)
			continue
		}
		changed := map[string]bool{}
		for _, f := range fieldsOf[ref] {
			changed[f.Field] = true
			if v := componentField(a, f.Field); v != f.Value {
				report("KiCad reads %s %s as %q, not %q", ref, f.Field, v, f.Value)
			}
		}
		for _, diff := range componentDiff(b, a, changed) {
			report("%s %s changed, which the edit did not intend", ref, diff)
		}
	}
	for _, ref := range sortedKeys(fieldsOf) {
		if _, ok := beforeComps[ref]; !ok && !added[ref] {
			report("KiCad's netlist has no part %s", ref)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	const show = 5
	msg := strings.Join(bad[:min(show, len(bad))], "; ")
	if len(bad) > show {
		msg += fmt.Sprintf("; and %d more", len(bad)-show)
	}
	return fmt.Errorf("KiCad's netlist of the edited schematic disagrees with the edit: %s", msg)
}

// componentField reads a field as Expect names it from a netlist component.
func componentField(c kicad.NetComponent, field string) string {
	switch field {
	case "Value":
		return c.Value
	case "Footprint":
		return c.Footprint
	}
	if prop, ok := netlistFlags[field]; ok {
		if _, set := c.Properties[prop]; set {
			return "yes"
		}
		return "no"
	}
	return c.Fields[field]
}

// componentDiff names what differs between two netlist entries of one
// component, leaving out the fields the edit states.
func componentDiff(b, a kicad.NetComponent, skip map[string]bool) []string {
	var out []string
	if !skip["Value"] && b.Value != a.Value {
		out = append(out, fmt.Sprintf("Value (%q -> %q)", b.Value, a.Value))
	}
	if !skip["Footprint"] && b.Footprint != a.Footprint {
		out = append(out, fmt.Sprintf("Footprint (%q -> %q)", b.Footprint, a.Footprint))
	}
	if b.LibID != a.LibID {
		out = append(out, fmt.Sprintf("symbol (%s -> %s)", b.LibID, a.LibID))
	}
	names := map[string]bool{}
	for k := range b.Fields {
		names[k] = true
	}
	for k := range a.Fields {
		names[k] = true
	}
	for _, k := range sortedKeys(names) {
		if skip[k] || k == "Footprint" && skip["Footprint"] {
			continue
		}
		if b.Fields[k] != a.Fields[k] {
			out = append(out, fmt.Sprintf("field %s (%q -> %q)", k, b.Fields[k], a.Fields[k]))
		}
	}
	for flag, prop := range netlistFlags {
		if skip[flag] {
			continue
		}
		_, wasSet := b.Properties[prop]
		_, isSet := a.Properties[prop]
		if wasSet != isSet {
			out = append(out, fmt.Sprintf("flag %s", flag))
		}
	}
	sort.Strings(out)
	return out
}

// componentsByRef indexes a netlist's components; a reference listed twice
// (a duplicate annotation) keeps its first entry.
func componentsByRef(nl *kicad.Netlist) map[string]kicad.NetComponent {
	out := make(map[string]kicad.NetComponent, len(nl.Components))
	for _, c := range nl.Components {
		if _, dup := out[c.Refdes]; !dup {
			out[c.Refdes] = c
		}
	}
	return out
}

// groupName renders a Verify group key for a message.
func groupName(g string, before *kicad.Netlist) string {
	switch g[0] {
	case '=':
		return g[1:]
	case '!':
		return "no net (" + g[1:] + " alone)"
	}
	var i int
	fmt.Sscan(g[1:], &i)
	if i >= 0 && i < len(before.Nets) {
		return before.Nets[i].Name
	}
	return g
}

func setOf(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func sortedPins[V any](m map[pinKey]V) []pinKey {
	out := slices.Collect(maps.Keys(m))
	slices.SortFunc(out, func(a, b pinKey) int {
		if c := kicad.CompareRefdes(a.ref, b.ref); c != 0 {
			return c
		}
		return kicad.CompareRefdes(a.pin, b.pin)
	})
	return out
}
