package pcbedit

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"copperhead/internal/kicad/kigen"
	"copperhead/internal/sexpr"
)

// FieldChange is one symbol field a schematic edit set: the part's
// reference, the field ("Value", "Footprint", a flag — dnp, in_bom or
// exclude_from_bom, on_board or exclude_from_board, exclude_from_sim, with
// Value "yes" or "no" — or any other field name) and its new text. A
// schedit.Expect's Fields map onto it one to one. Path, when set, is the symbol's instance path as the board
// writes it in a footprint's (path "/sheet-uuid/symbol-uuid"); it picks the
// footprint when the board holds several with the same reference.
type FieldChange struct {
	Ref, Field, Value string
	Path              string
}

// FootprintLoader reads a library footprint ("Lib:Name") as a parsed
// .kicad_mod. kigen.FindFootprintLibraries(projectDir) is the loader to use:
// the project's fp-lib-table, then KiCad's installed libraries.
type FootprintLoader interface {
	LoadFootprint(libID string) (*sexpr.Node, error)
}

// ErrUpdateInKiCad wraps every change FollowFields cannot make on the board
// itself; the error names what to do in KiCad instead.
var ErrUpdateInKiCad = errors.New("the board needs KiCad's Update PCB from Schematic")

// updateInKiCad is the exact KiCad action a refused change needs.
const updateInKiCad = "open the board in KiCad and run Tools > Update PCB from Schematic (F8)"

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s; %s", ErrUpdateInKiCad, fmt.Sprintf(format, args...), updateInKiCad)
}

// FollowFields returns src (a .kicad_pcb, named name in errors and lines)
// with the footprints of the changed parts made to agree with their symbols
// again, the way KiCad's "Update PCB from Schematic" does, so DRC's
// schematic parity stays clean; and one summary line per changed footprint
// field. Footprints are matched by reference (and by Path when the
// reference repeats); a part the board has no footprint for yet is left
// alone, with no line, as is a change the footprint already shows.
//
//   - Value: the footprint's Value text ((property "Value" ..) on KiCad 8/9
//     boards, (fp_text value ..) on KiCad 6/7 ones) is spliced in place.
//   - Footprint: the footprint is replaced by the library one at the same
//     position and rotation, keeping its reference, value, UUID, symbol link,
//     lock, fields and do-not-populate/BOM flags; each new pad takes the net
//     of the old pad with the same number (a numbered pad the old footprint
//     lacked is refused: only KiCad's update reads the netlist it needs). Refused (ErrUpdateInKiCad, with the
//     KiCad action to take) when the library footprint is not installed, when
//     an old pad's net has no pad of that number in the new footprint, when
//     the footprint sits on the bottom side, or when the board's format is
//     older than the library footprint's.
//   - dnp, in_bom / exclude_from_bom: the footprint's (attr ..) gains or
//     loses dnp / exclude_from_bom, which schematic parity compares.
//   - on_board no / exclude_from_board yes for a placed part: refused
//     (deleting a footprint is a layout decision); exclude_from_sim: nothing
//     on the board.
//   - Any other field: a footprint property of that name (KiCad 8/9 copy
//     symbol fields onto footprints) is updated; none, nothing to do.
//   - Reference: refused (ErrUpdateInKiCad).
//
// Every other byte of the board stays as it was.
func FollowFields(name string, src []byte, changes []FieldChange, lib FootprintLoader) ([]byte, []string, error) {
	if len(changes) == 0 {
		return src, nil, nil
	}
	root, err := sexpr.Parse(name, src)
	if err != nil {
		return nil, nil, err
	}
	version, _ := strconv.Atoi(root.Value1("version"))
	var fps []*sexpr.Node
	for i := range root.Children {
		if c := &root.Children[i]; c.Kind == sexpr.List && (c.Head() == "footprint" || c.Head() == "module") {
			fps = append(fps, c)
		}
	}
	// Group the changes per footprint, in order: a value and a footprint
	// change of one part make one replacement carrying the new value.
	type target struct {
		fp     *sexpr.Node
		ref    string
		fields map[string]string
		order  []string
	}
	var targets []*target
	byNode := map[*sexpr.Node]*target{}
	for _, ch := range changes {
		for _, f := range []string{"Value", "Footprint"} {
			if strings.EqualFold(ch.Field, f) {
				ch.Field = f
			}
		}
		switch strings.ToLower(ch.Field) {
		case "reference":
			return nil, nil, refuse("%s: changing reference %s on the board", name, ch.Ref)
		case "on_board", "exclude_from_board":
			// Adding or deleting a footprint is a layout decision.
			off := !strings.EqualFold(ch.Value, "yes")
			if strings.EqualFold(ch.Field, "exclude_from_board") {
				off = !off
			}
			if boardRefs(fps)[ch.Ref] && off {
				return nil, nil, refuse("%s: %s is on the board and its symbol no longer is (on_board %s)", name, ch.Ref, ch.Value)
			}
			continue
		case "exclude_from_sim":
			continue
		}
		var match []*sexpr.Node
		for _, fp := range fps {
			if footprintRef(fp) == ch.Ref && (ch.Path == "" || fp.Value1("path") == ch.Path) {
				match = append(match, fp)
			}
		}
		switch {
		case len(match) == 0:
			continue
		case len(match) > 1:
			return nil, nil, refuse("%s: %d footprints are named %s and the change names no symbol path to tell them apart", name, len(match), ch.Ref)
		}
		t := byNode[match[0]]
		if t == nil {
			t = &target{fp: match[0], ref: ch.Ref, fields: map[string]string{}}
			byNode[match[0]] = t
			targets = append(targets, t)
		}
		if _, seen := t.fields[ch.Field]; !seen {
			t.order = append(t.order, ch.Field)
		}
		t.fields[ch.Field] = ch.Value
	}
	var edits []sexpr.Edit
	var lines []string
	for _, t := range targets {
		value := footprintValue(t.fp)
		newValue, setValue := t.fields["Value"]
		if !setValue {
			newValue = value
		}
		if fpid, ok := t.fields["Footprint"]; ok && fpid != t.fp.Arg(0) {
			text, line, err := replaceFootprint(name, src, version, t.fp, t.ref, newValue, fpid, t.fields, lib)
			if err != nil {
				return nil, nil, err
			}
			edits = append(edits, sexpr.Edit{Start: t.fp.Start, End: t.fp.End, Text: text})
			if newValue != value {
				lines = append(lines, fmt.Sprintf("%s: %s Value %q -> %q", name, t.ref, value, newValue))
			}
			lines = append(lines, line)
			if old, want := attrFlags(t.fp, nil), attrFlags(t.fp, t.fields); !maps.Equal(old, want) {
				lines = append(lines, fmt.Sprintf("%s: %s attributes (%s) -> (%s)", name, t.ref,
					strings.Join(attrAtoms(nil, old), " "), strings.Join(attrAtoms(nil, want), " ")))
			}
			continue
		}
		if e, ok := attrEdit(src, t.fp, attrFlags(t.fp, t.fields)); ok {
			edits = append(edits, e)
			lines = append(lines, fmt.Sprintf("%s: %s attributes (%s) -> (%s)", name, t.ref,
				strings.Join(atomsOf(t.fp.Child("attr")), " "), strings.Join(attrAtoms(atomsOf(t.fp.Child("attr")), attrFlags(t.fp, t.fields)), " ")))
		}
		for _, field := range t.order {
			if field == "Footprint" || isFlag(field) {
				continue
			}
			atom, old := fieldText(t.fp, field)
			if atom == nil || old == t.fields[field] {
				continue
			}
			edits = append(edits, sexpr.Edit{Start: atom.Start, End: atom.End, Text: sexpr.Quote(t.fields[field])})
			lines = append(lines, fmt.Sprintf("%s: %s %s %q -> %q", name, t.ref, field, old, t.fields[field]))
		}
	}
	if len(edits) == 0 {
		return src, nil, nil
	}
	next, err := splice(name, src, edits)
	if err != nil {
		return nil, nil, err
	}
	return next, lines, nil
}

func boardRefs(fps []*sexpr.Node) map[string]bool {
	out := map[string]bool{}
	for _, fp := range fps {
		out[footprintRef(fp)] = true
	}
	return out
}

// footprintRef is a board footprint's reference: (property "Reference" ..)
// on KiCad 8/9 boards, (fp_text reference ..) before.
func footprintRef(fp *sexpr.Node) string {
	atom, text := fieldText(fp, "Reference")
	if atom == nil {
		return ""
	}
	return text
}

func footprintValue(fp *sexpr.Node) string {
	_, text := fieldText(fp, "Value")
	return text
}

// fieldText finds the text atom of the footprint's field named field.
func fieldText(fp *sexpr.Node, field string) (*sexpr.Node, string) {
	for i := range fp.Children {
		c := &fp.Children[i]
		if c.Kind != sexpr.List || len(c.Children) < 3 {
			continue
		}
		switch {
		case c.Head() == "property" && c.Children[1].Value == field,
			c.Head() == "fp_text" && c.Children[1].Kind == sexpr.Atom && strings.EqualFold(c.Children[1].Value, field) &&
				(field == "Reference" || field == "Value"):
			return &c.Children[2], c.Children[2].Value
		}
	}
	return nil, ""
}

// replaceFootprint builds the board text of fp replaced by the library
// footprint fpid, the way KiCad's ExchangeFootprint does it for Update PCB
// from Schematic, and the summary line.
func replaceFootprint(name string, src []byte, version int, fp *sexpr.Node, ref, value, fpid string, fields map[string]string, lib FootprintLoader) (string, string, error) {
	old := fp.Arg(0)
	if fp.Value1("layer") != "F.Cu" {
		return "", "", refuse("%s: %s (%s) is on the bottom side; copperhead replaces front-side footprints only", name, ref, old)
	}
	if lib == nil {
		return "", "", refuse("%s: no footprint libraries to read %s from", name, fpid)
	}
	libFP, err := lib.LoadFootprint(fpid)
	if err != nil {
		return "", "", refuse("%s: %s's new footprint cannot be read: %v", name, ref, err)
	}
	if lv, _ := strconv.Atoi(libFP.Value1("version")); lv > version {
		return "", "", refuse("%s: the board's format (%d) is older than library footprint %s (%d)", name, version, fpid, lv)
	}
	// The old pads' nets by number: the first pad of a number with a net.
	nets := map[string]kigen.PadNet{}
	var numbers []string
	for p := range fp.All("pad") {
		num, n := p.Arg(0), p.Child("net")
		if num == "" || n == nil || n.Arg(len(n.Children)-2) == "" {
			continue
		}
		if _, ok := nets[num]; ok {
			continue
		}
		nets[num] = kigen.PadNet{Net: kigen.Clone(n), PinFunction: p.Value1("pinfunction"), PinType: p.Value1("pintype")}
		numbers = append(numbers, num)
	}
	oldPads := map[string]bool{}
	for p := range fp.All("pad") {
		oldPads[p.Arg(0)] = true
	}
	newPads := map[string]bool{}
	var added []string
	for p := range libFP.All("pad") {
		if padOnCopper(p) {
			num := p.Arg(0)
			if num != "" && !oldPads[num] && !newPads[num] {
				added = append(added, num)
			}
			newPads[num] = true
		}
	}
	// A numbered pad the old footprint lacked may be a schematic pin on a
	// net; only KiCad's update, which reads the netlist, can give it one.
	if len(added) > 0 {
		return "", "", refuse("%s: %s has pads %s that %s's %s lacks, and only KiCad's update from the netlist can give them their nets", name, fpid, strings.Join(added, ", "), ref, old)
	}
	var lost []string
	for _, num := range numbers {
		if !newPads[num] {
			n := nets[num].Net
			lost = append(lost, fmt.Sprintf("pad %s (net %s)", num, n.Arg(len(n.Children)-2)))
		}
	}
	if len(lost) > 0 {
		return "", "", refuse("%s: %s has no pad for %s of %s's %s", name, fpid, strings.Join(lost, ", "), ref, old)
	}
	x, _ := fp.Child("at").Float(0)
	y, _ := fp.Child("at").Float(1)
	rot, _ := fp.Child("at").Float(2)
	id := fp.Value1("uuid")
	if id == "" {
		id = kigen.NameUUID("copperhead/pcbedit\x00" + ref)
	}
	// The old footprint's fields the library lacks (KiCad 8/9 copy the
	// symbol's fields onto the footprint) and its symbol link.
	libProps := map[string]bool{}
	for p := range libFP.All("property") {
		libProps[p.Arg(0)] = true
	}
	var link []sexpr.Node
	for p := range fp.All("property") {
		if k := p.Arg(0); k != "Reference" && k != "Value" && !libProps[k] {
			c := kigen.Clone(p)
			if v, ok := fields[k]; ok && len(c.Children) > 2 {
				kigen.SetArg(&c, 1, kigen.Str(v))
			}
			link = append(link, c)
		}
	}
	for _, k := range []string{"path", "sheetname", "sheetfile"} {
		if c := fp.Child(k); c != nil {
			link = append(link, kigen.Clone(c))
		}
	}
	n := kigen.PlaceFootprint(libFP, kigen.Placement{
		LibID: fpid, X: x, Y: y, Rot: rot, Ref: ref, Value: value,
		UUID: func(item string) string {
			if item == "" {
				return id
			}
			return kigen.NameUUID("copperhead/pcbedit\x00" + id + "\x00" + fpid + item)
		},
		Pad: func(num string) (kigen.PadNet, bool) {
			pn, ok := nets[num]
			return pn, ok
		},
		Link: link,
	})
	if l := fp.Child("locked"); l != nil {
		kigen.InsertAfter(&n, "layer", kigen.Clone(l))
	} else if fp.HasAtom("locked") {
		kigen.InsertAfter(&n, "layer", kigen.N("locked", kigen.Sym("yes")))
	}
	setAttrFlags(&n, attrFlags(fp, fields))
	text := strings.TrimSuffix(kigen.Format(&n), "\n")
	text = strings.ReplaceAll(text, "\n", "\n"+indentOf(src, fp))
	kept := "no pads had nets"
	if len(numbers) > 0 {
		kept = "pads " + strings.Join(numbers, ", ") + " keep their nets"
	}
	line := fmt.Sprintf("%s: %s footprint %s -> %s (same position and rotation, %s; tracks to moved pads need a look in DRC)", name, ref, old, fpid, kept)
	return text, line, nil
}

// padOnCopper reports whether a library pad has copper (only those carry
// nets).
func padOnCopper(p *sexpr.Node) bool {
	ls := p.Child("layers")
	if ls == nil {
		return false
	}
	for _, l := range ls.Children[1:] {
		if strings.HasSuffix(l.Value, ".Cu") {
			return true
		}
	}
	return false
}

// The symbol flags schematic parity compares with a footprint's attr, and
// the attr atom each one sets (for the flag's "yes", or for "no" when
// inverted).
var attrFlagOf = map[string]struct {
	atom     string
	inverted bool
}{"dnp": {"dnp", false}, "in_bom": {"exclude_from_bom", true}, "exclude_from_bom": {"exclude_from_bom", false}}

// isFlag reports whether field is a symbol flag parity checks.
func isFlag(field string) bool {
	_, ok := attrFlagOf[strings.ToLower(field)]
	return ok
}

// attrFlags is the set of parity-checked attr atoms (dnp,
// exclude_from_bom) the footprint must carry: the old footprint's, with the
// changed flags applied.
func attrFlags(fp *sexpr.Node, fields map[string]string) map[string]bool {
	want := map[string]bool{}
	if oa := fp.Child("attr"); oa != nil {
		for _, a := range oa.Children[1:] {
			if a.Kind == sexpr.Atom && (a.Value == "dnp" || a.Value == "exclude_from_bom") {
				want[a.Value] = true
			}
		}
	}
	for field, v := range fields {
		f, ok := attrFlagOf[strings.ToLower(field)]
		if !ok {
			continue
		}
		yes := strings.EqualFold(v, "yes") || strings.EqualFold(v, "true")
		if yes != f.inverted {
			want[f.atom] = true
		} else {
			delete(want, f.atom)
		}
	}
	return want
}

// attrAtoms is an attr's atoms with the parity flags set as want says, in
// the order KiCad writes them (exclude_from_bom before
// allow_missing_courtyard, dnp last).
func attrAtoms(old []string, want map[string]bool) []string {
	var out []string
	for _, a := range old {
		if a == "allow_missing_courtyard" && want["exclude_from_bom"] {
			out = append(out, "exclude_from_bom")
			want = maps.Clone(want)
			delete(want, "exclude_from_bom")
		}
		if a != "dnp" && a != "exclude_from_bom" {
			out = append(out, a)
		}
	}
	for _, a := range []string{"exclude_from_bom", "dnp"} {
		if want[a] {
			out = append(out, a)
		}
	}
	return out
}

func atomsOf(n *sexpr.Node) []string {
	var out []string
	if n != nil {
		for _, a := range n.Children[1:] {
			out = append(out, a.Value)
		}
	}
	return out
}

// setAttrFlags sets the parity flags of a placed (built, not parsed)
// footprint's attr.
func setAttrFlags(n *sexpr.Node, want map[string]bool) {
	na := n.Child("attr")
	atoms := attrAtoms(atomsOf(na), want)
	if na == nil {
		if len(atoms) == 0 {
			return
		}
		after := "at"
		if n.Child("sheetfile") != nil {
			after = "sheetfile"
		}
		kigen.InsertAfter(n, after, kigen.N("attr"))
		na = n.Child("attr")
	}
	na.Children = na.Children[:1]
	for _, a := range atoms {
		na.Children = append(na.Children, sexpr.Node{Kind: sexpr.Atom, Value: a})
	}
}

// attrEdit splices the parity flags of a board footprint's attr, or
// returns ok false when they already are as wanted.
func attrEdit(src []byte, fp *sexpr.Node, want map[string]bool) (sexpr.Edit, bool) {
	oa := fp.Child("attr")
	old := atomsOf(oa)
	atoms := attrAtoms(old, want)
	if slices.Equal(old, atoms) {
		return sexpr.Edit{}, false
	}
	text := "(attr " + strings.Join(atoms, " ") + ")"
	if len(atoms) == 0 {
		text = "(attr)"
	}
	if oa != nil {
		return sexpr.Edit{Start: oa.Start, End: oa.End, Text: text}, true
	}
	var after *sexpr.Node
	for _, k := range []string{"at", "path", "sheetfile"} {
		if c := fp.Child(k); c != nil && (after == nil || c.End > after.End) {
			after = c
		}
	}
	if after == nil {
		return sexpr.Edit{Start: fp.End - 1, End: fp.End - 1, Text: " " + text}, true
	}
	return sexpr.Edit{Start: after.End, End: after.End, Text: "\n" + indentOf(src, after) + text}, true
}

// indentOf is the whitespace that starts the line the node starts on:
// what every further line of its replacement is indented by.
func indentOf(src []byte, n *sexpr.Node) string {
	i := n.Start
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	if i > 0 && src[i-1] != '\n' {
		return "\t"
	}
	return string(src[i:n.Start])
}
