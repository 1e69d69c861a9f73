package schedit

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"copperhead/internal/sexpr"
)

// AllInstances is the SetField instance argument that accepts changing a
// symbol shared by every instance of a reused sheet.
const AllInstances = "all"

// flagFields are the symbol attributes SetField sets as yes/no flags; they
// are expressions of their own, (dnp yes), not properties.
var flagFields = map[string]bool{"dnp": true, "in_bom": true, "on_board": true, "exclude_from_sim": true}

// SetField sets one field of the part ref on every unit of its symbol: a
// property (Value, Footprint, MPN, Manufacturer or any user field, added
// hidden beside the Reference when missing) or one of the flags dnp, in_bom,
// on_board, exclude_from_sim (value yes or no).
//
// Per instance: KiCad 7+ keeps one Value, Footprint and property set per
// placed symbol, even when its sheet is used several times; only the
// reference and unit differ per instance. A symbol in a reused sheet is
// therefore one symbol for all its instances (R6 in one, R106 in the other),
// and changing it for one instance alone is impossible without copying the
// sheet. SetField refuses that honestly unless instance is AllInstances,
// which changes every instance and says so. instance may also name the
// instance path ("/Power/") when the sheet is used once.
//
// An empty value clears a property that is there (a Datasheet, an MPN) and
// changes nothing when the property is missing: an empty field is no
// field. A part's Value is never empty, and a Footprint is cleared only on
// a part that is not on the board (on_board no), since the board's
// footprint comes from it.
func SetField(d *Design, ref, field, value, instance string) (*Plan, error) {
	if err := CheckSetField(ref, field, value); err != nil {
		return nil, err
	}
	field = strings.TrimSpace(field)
	if strings.EqualFold(field, "Reference") {
		return nil, Refusef("set-field does not change references: re-annotate in KiCad")
	}
	flag := strings.ToLower(field)
	if flagFields[flag] {
		value = flagValue(value)
	}
	syms, refs, err := d.partSymbols(ref)
	if err != nil {
		return nil, err
	}
	if value == "" && field == "Footprint" && len(syms) > 0 && syms[0].node.Value1("on_board") != "no" {
		return nil, Refusef("set-field %s Footprint \"\": %s goes on the board (on_board yes), which needs its footprint; take it off the board first (set-field %s on_board no) or remove it (remove-part %s)", ref, ref, ref, ref)
	}
	if len(refs) > 1 && instance != AllInstances {
		return nil, Refusef("%s sits in a sheet used %d times (%s): KiCad stores one %s per symbol for every instance, so the change would apply to all of them; pass --instance %s to change them all",
			ref, len(refs), strings.Join(refs, ", "), field, AllInstances)
	}
	if instance != "" && instance != AllInstances && !d.partAt(ref, instance) {
		return nil, Refusef("%s is not placed at instance %s", ref, instance)
	}
	shown := value
	if shown == "" {
		shown = `""`
	}
	plan := &Plan{Op: fmt.Sprintf("set-field %s %s %s", ref, field, shown), Touched: []string{ref}}
	for _, s := range syms {
		sh, n := s.sheet, s.node
		// One line a unit, each saying which, when the part has several.
		who := ref
		if len(syms) > 1 {
			who = fmt.Sprintf("%s unit %d", ref, readPlaced(n).unit)
		}
		if flagFields[flag] {
			setFlag(plan, sh, n, who, flag, value)
			continue
		}
		if p := propertyNode(n, field); p != nil {
			if p.Arg(1) != value && len(p.Children) > 2 {
				c := &p.Children[2]
				plan.Add(sh.Path, sexpr.Edit{Start: c.Start, End: c.End, Text: sexpr.Quote(value)})
				plan.Summary = append(plan.Summary, fmt.Sprintf("%s: %s %s %q -> %q", sh.Rel, who, field, p.Arg(1), value))
			}
		} else if value != "" {
			text, at, err := newProperty(sh, n, field, value)
			if err != nil {
				return nil, err
			}
			plan.Add(sh.Path, sexpr.Edit{Start: at, End: at, Text: text})
			plan.Summary = append(plan.Summary, fmt.Sprintf("%s: %s %s added: %q", sh.Rel, who, field, value))
		}
		setLegacyField(d, plan, s.insts, field, value)
	}
	plan.Expect.Fields = expectFields(refs, field, value)
	if len(refs) > 1 {
		plan.Touched = refs
	}
	return plan, nil
}

// ErrBadArgs is wrapped by the refusal of set-field arguments that no
// design could take (an empty reference or field name, an empty Value, a
// flag that is not yes or no): a usage error, where a plain ErrRefused is
// about this design. Such a refusal matches ErrRefused too.
var ErrBadArgs = errors.New("bad arguments")

// argError is a refusal of the arguments themselves.
type argError struct{ msg string }

func (e *argError) Error() string { return ErrRefused.Error() + ": " + e.msg }
func (e *argError) Is(target error) bool {
	return target == ErrRefused || target == ErrBadArgs
}

// CheckSetField checks set-field's arguments on their own, before any
// design is read: a reference and a field name must be given, a Value
// cannot be empty, and a flag takes yes or no (true/false, 1/0).
func CheckSetField(ref, field, value string) error {
	field = strings.TrimSpace(field)
	switch {
	case strings.TrimSpace(ref) == "":
		return &argError{"set-field needs a reference: REF is empty"}
	case field == "":
		return &argError{"set-field needs a field name: FIELD is empty (a property such as Value, Footprint or MPN, or a flag: dnp, in_bom, on_board, exclude_from_sim)"}
	case field == "Value" && strings.TrimSpace(value) == "":
		return &argError{fmt.Sprintf("set-field %s Value %q: a part's Value cannot be empty (the BOM, the board and the docs name the part by it)", ref, value)}
	case flagFields[strings.ToLower(field)] && flagValue(value) == "":
		return &argError{fmt.Sprintf("%s is a yes/no flag, not %q", strings.ToLower(field), value)}
	}
	return nil
}

// flagValue is a flag's value as KiCad writes it, "" when v is not one.
func flagValue(v string) string {
	switch strings.ToLower(v) {
	case "yes", "true", "1":
		return "yes"
	case "no", "false", "0":
		return "no"
	}
	return ""
}

// setLegacyField updates the KiCad 6 root's symbol_instances entries of a
// symbol: there the entry's (value ..) and (footprint ..), not the
// symbol's property, are what KiCad reads (its netlist, BOM and board
// update), so the property alone would change nothing KiCad shows.
func setLegacyField(d *Design, plan *Plan, insts []symInstance, field, value string) {
	var key string
	switch field {
	case "Value":
		key = "value"
	case "Footprint":
		key = "footprint"
	default:
		return
	}
	root := d.Sheets[d.RootPath]
	for _, in := range insts {
		if in.legacy == nil {
			continue
		}
		c := in.legacy.Child(key)
		switch {
		case c == nil:
			// KiCad falls back to the property, which is set.
		case len(c.Children) < 2:
			plan.Add(root.Path, sexpr.Edit{Start: c.Start, End: c.End, Text: "(" + key + " " + sexpr.Quote(value) + ")"})
		case c.Arg(0) != value:
			v := &c.Children[1]
			plan.Add(root.Path, sexpr.Edit{Start: v.Start, End: v.End, Text: sexpr.Quote(value)})
		default:
			continue
		}
		if c != nil {
			plan.Summary = append(plan.Summary, fmt.Sprintf("%s: symbol_instances %s %s %q -> %q (the value KiCad 6 files carry per instance)", root.Rel, in.ref, key, c.Arg(0), value))
		}
	}
}

// expectFields is what KiCad's netlist must show for each reference after
// setting field to value: the flags under their netlist names (in_bom no
// is exclude_from_bom yes).
func expectFields(refs []string, field, value string) []FieldValue {
	name := field
	switch strings.ToLower(field) {
	case "dnp":
		name = "dnp"
	case "in_bom":
		name, value = "exclude_from_bom", invertYesNo(value)
	case "on_board":
		name, value = "exclude_from_board", invertYesNo(value)
	case "exclude_from_sim":
		return nil // the netlist does not carry it
	}
	var out []FieldValue
	for _, r := range refs {
		out = append(out, FieldValue{Ref: r, Field: name, Value: value})
	}
	return out
}

func invertYesNo(v string) string {
	if v == "yes" {
		return "no"
	}
	return "yes"
}

// placedSymbol is one symbol expression (one unit) of a part, with its
// references per sheet instance.
type placedSymbol struct {
	sheet *Sheet
	node  *sexpr.Node
	insts []symInstance
}

// partSymbols finds every unit of ref and the references that share those
// symbols through reused sheets (sorted; ref alone when the sheet is used
// once). References come from the one instance model: another project's
// leftover entries do not count.
func (d *Design) partSymbols(ref string) ([]placedSymbol, []string, error) {
	found := false
	for _, p := range d.Model.Parts {
		if p.Refdes == ref {
			found = true
			break
		}
	}
	if !found {
		return nil, nil, Refusef("no part %s in the schematic", ref)
	}
	// Every unit, on whichever sheet holds it: KiCad keeps a field per
	// unit, and units that disagree are one part with two values (its
	// BOM export lists both).
	sheets, err := partSheets(d, ref)
	if err != nil {
		return nil, nil, err
	}
	var out []placedSymbol
	shared := map[string]bool{}
	for _, su := range sheets {
		for _, ps := range su.units {
			if ps.node.Child("lib_id") == nil {
				continue
			}
			out = append(out, placedSymbol{su.sh, ps.node, ps.insts})
			for _, r := range ps.refs {
				shared[r] = true
			}
		}
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("part %s: no symbol carries the reference", ref)
	}
	var refs []string
	for r := range shared {
		refs = append(refs, r)
	}
	sort.Strings(refs)
	return out, refs, nil
}

// partAt reports whether ref is placed on the sheet instance path.
func (d *Design) partAt(ref, path string) bool {
	for _, p := range d.Model.Parts {
		if p.Refdes == ref && p.SheetPath == path {
			return true
		}
	}
	return false
}

// setFlag writes (flag value) on a symbol, replacing the existing flag or
// inserting it after the last of the symbol's flags; who names the symbol
// in the summary.
func setFlag(plan *Plan, sh *Sheet, n *sexpr.Node, who, flag, value string) {
	if c := n.Child(flag); c != nil {
		cur := "yes" // a bare (dnp) means yes
		if len(c.Children) > 1 {
			cur = c.Arg(0)
		}
		if cur == value {
			return
		}
		plan.Add(sh.Path, sexpr.Edit{Start: c.Start, End: c.End, Text: "(" + flag + " " + value + ")"})
		plan.Summary = append(plan.Summary, fmt.Sprintf("%s: %s %s %s -> %s", sh.Rel, who, flag, cur, value))
		return
	}
	dflt := "yes"
	if flag == "dnp" || flag == "exclude_from_sim" {
		dflt = "no"
	}
	if value == dflt {
		return
	}
	var anchor *sexpr.Node
	for _, name := range []string{"exclude_from_sim", "in_bom", "on_board", "dnp", "unit", "at"} {
		if c := n.Child(name); c != nil && (anchor == nil || c.End > anchor.End) {
			anchor = c
		}
	}
	if anchor == nil {
		anchor = n.Child("lib_id")
	}
	plan.Add(sh.Path, sexpr.Edit{Start: anchor.End, End: anchor.End, Text: lineIndent(sh.Src, anchor.Start) + "(" + flag + " " + value + ")"})
	plan.Summary = append(plan.Summary, fmt.Sprintf("%s: %s %s set to %s", sh.Rel, who, flag, value))
}

// newProperty renders a new hidden property for symbol n, copied from the
// Reference property's position and text effects so KiCad lays it out like
// its own, and returns it with the offset to insert it at (after the last
// property).
func newProperty(sh *Sheet, n *sexpr.Node, name, value string) (string, int, error) {
	tmpl := propertyNode(n, "Reference")
	var last *sexpr.Node
	for p := range n.All("property") {
		last = p
	}
	if tmpl == nil || last == nil || len(tmpl.Children) < 3 {
		return "", 0, fmt.Errorf("%s: symbol %s has no Reference property to copy a layout from", sh.Rel, propertyValue(n, "Reference"))
	}
	src := sh.Src
	var b strings.Builder
	b.Write(src[tmpl.Start:tmpl.Children[1].Start])
	b.WriteString(sexpr.Quote(name) + " " + sexpr.Quote(value))
	eff := tmpl.Child("effects")
	rest := src[tmpl.Children[2].End:tmpl.End]
	if eff != nil && eff.Child("hide") == nil && !eff.HasAtom("hide") {
		// (hide yes) goes after the effects' last expression, indented like it.
		lastEff := &eff.Children[len(eff.Children)-1]
		off := lastEff.End - tmpl.Children[2].End
		b.Write(rest[:off])
		b.WriteString(lineIndent(src, lastEff.Start) + "(hide yes)")
		b.Write(rest[off:])
	} else {
		b.Write(rest)
	}
	return lineIndent(src, last.Start) + b.String(), last.End, nil
}

// lineIndent returns "\n" plus the whitespace that precedes offset on its line.
func lineIndent(src []byte, off int) string {
	i := off
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	return "\n" + string(src[i:off])
}
