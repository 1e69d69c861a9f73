package schedit

import (
	"slices"
	"strconv"
	"strings"

	"copperhead/internal/kicad"
	"copperhead/internal/sexpr"
)

// Net names, as KiCad's netlist spells them and as the read commands
// (nets, explain, list_nets) print them:
//
//   - a global label or a power symbol names a global net: "VPP", "GND";
//   - a local or hierarchical label names a net of its sheet instance,
//     prefixed with the instance path: "/PTT" on the root sheet,
//     "/amp/OUT" in instance /amp/;
//   - a "/" inside a label reads "/" in the (XML) netlist, as it does in
//     the instance path, so "/P/T" may be text "T" in instance /P/ or text
//     "P/T" on the root: resolve takes the split some label writes. KiCad's
//     editor saves a typed "/" as "{slash}" in the file, a hand-edited file
//     may hold a bare "/", and kicad-cli 9 reads both as "/": a writing's
//     text is the file's with "{slash}" read as "/", and a rename writes
//     the new name in the spelling the old one had. KiCad's markup
//     (~{overbar}, _{sub}, ^{super}) stays as written.
//
// An edit that names a net accepts the netlist spelling ("/PTT",
// "/amp/OUT") or the bare label text ("PTT"). A bare name means every net
// the text is written on: the global net of that name and the local nets of
// every sheet instance that writes it (a local label in a sheet used three
// times is three nets).

// writing is one place a net name is written: a label, a sheet pin, the
// Value of a power symbol, or the name of a hidden power-input pin (which
// KiCad makes a global net of, even on a symbol without the power flag).
type writing struct {
	sh   *Sheet
	node *sexpr.Node // the label, the sheet's (pin ..) or the (property "Value" ..) of a power symbol; the placed symbol for a power pin
	arg  int         // the child of node holding the name (0 for a power pin: not spliceable)
	kind string      // label, hierarchical_label, global_label, sheet_pin, power, power_pin
	text string
	// sheet pins: the child instances the pin leads into; labels: the
	// sheet instances of the file.
	scopes []string
	ref    string // power symbols and power pins: the symbol's reference
	lib    string // power pins: the library symbol whose pin names the net
	// oldPower marks a power_pin writing of a real power symbol in a file
	// older than KiCad 8, whose net KiCad names by the pin, not the Value.
	oldPower bool
}

// valueNamesPower reports whether KiCad names a power symbol's net by its
// Value in this file: from format 20231120 (KiCad 8) on. In older files
// (KiCad 6 and 7) kicad-cli 9 still names it by the library's power-input
// pin, whatever the Value says (checked against kicad-cli 9).
func valueNamesPower(sh *Sheet) bool {
	v, err := strconv.Atoi(sh.Root.Value1("version"))
	return err != nil || v >= 20231120
}

func (w writing) global() bool {
	return w.kind == "global_label" || w.kind == "power" || w.kind == "power_pin"
}

// derived is the netlist names a writing gives its net when it reads text:
// the text for a global name, else the text in each sheet instance it is
// written in (a sheet pin in its parent's instances and its child's). A
// local or hierarchical label on a sheet that also shows a global name of
// the same text (a global label, a power symbol) joins that global net:
// KiCad connects every label of one text on a sheet. globalOn names the
// sheets that will show a global text even though no writing reads it yet
// (a rename's own global labels).
func (ns *netSpace) derived(w writing, text string, globalOn map[*Sheet]bool) []string {
	if w.global() || w.kind != "sheet_pin" && (globalOn[w.sh] || ns.globalOnSheet(w.sh, text)) {
		return []string{text}
	}
	out := make([]string, 0, len(w.scopes))
	for _, s := range w.scopes {
		out = append(out, s+text)
	}
	return out
}

// globalOnSheet reports whether sh writes text as a global name.
func (ns *netSpace) globalOnSheet(sh *Sheet, text string) bool {
	for _, w := range ns.writings {
		if w.sh == sh && w.text == text && w.global() {
			return true
		}
	}
	return false
}

// unescapeNetName reads a name as kicad-cli does: "{slash}" is "/".
func unescapeNetName(s string) string { return strings.ReplaceAll(s, "{slash}", "/") }

// netSpace is the design's net names and where each is written.
type netSpace struct {
	d           *Design
	names       map[string]bool // KiCad's net names (the netlist's, else derived from the writings)
	fromNetlist bool
	writings    []writing
	instances   map[string][]kicad.SheetInstance // by file Rel
}

// netSpace reads every writing of the design and the net names: KiCad's
// netlist when the design has one, else what the writings derive.
func (d *Design) netSpace() *netSpace {
	ns := &netSpace{d: d, names: map[string]bool{}, instances: map[string][]kicad.SheetInstance{}}
	for _, si := range d.Model.Sheets {
		ns.instances[si.File] = append(ns.instances[si.File], si)
	}
	for _, sh := range d.sortedSheets() {
		paths := instancePaths(ns.instances[sh.Rel])
		for i := range sh.Root.Children {
			n := &sh.Root.Children[i]
			switch head := n.Head(); {
			case labelHeads[head] != "":
				ns.writings = append(ns.writings, writing{sh: sh, node: n, arg: 1, kind: head, text: unescapeNetName(n.Arg(0)), scopes: paths})
			case head == "sheet":
				children := ns.childInstances(sh, n)
				for pin := range n.All("pin") {
					scopes := append(slices.Clone(paths), children...)
					ns.writings = append(ns.writings, writing{sh: sh, node: pin, arg: 1, kind: "sheet_pin", text: unescapeNetName(pin.Arg(0)), scopes: scopes})
				}
			case head == "symbol" && n.Child("lib_id") != nil:
				ns.writings = append(ns.writings, powerWritings(sh, n)...)
			}
		}
	}
	if d.Netlist != nil {
		ns.fromNetlist = true
		for _, n := range d.Netlist.Nets {
			ns.names[n.Name] = true
		}
	} else {
		for _, w := range ns.writings {
			for _, n := range ns.derived(w, w.text, nil) {
				ns.names[n] = true
			}
		}
	}
	return ns
}

func instancePaths(insts []kicad.SheetInstance) []string {
	out := make([]string, 0, len(insts))
	for _, si := range insts {
		out = append(out, si.Path)
	}
	return out
}

// childInstances are the instance paths a sheet symbol in sh creates, one
// per instance of sh.
func (ns *netSpace) childInstances(sh *Sheet, sheet *sexpr.Node) []string {
	uuid := sheet.Value1("uuid")
	var out []string
	for _, parent := range ns.instances[sh.Rel] {
		want := strings.TrimSuffix(parent.UUIDPath, "/") + "/" + uuid
		for _, si := range ns.d.Model.Sheets {
			if si.UUIDPath == want {
				out = append(out, si.Path)
			}
		}
	}
	return out
}

// powerWritings are the global names a placed symbol writes, by KiCad's
// rule: a symbol whose library entry has the power flag names the net of
// its power-input pins by its Value; on any other symbol each hidden
// power-input pin names a global net by the pin's own name (KiCad 5
// libraries drew power symbols that way, and old parts hid their supply
// pins so).
func powerWritings(sh *Sheet, sym *sexpr.Node) []writing {
	ps := sh.placed(sym)
	ref := propertyValue(sym, "Reference")
	lib := libSymbol(sh, ps.libKey)
	if lib == nil {
		if strings.HasPrefix(ref, "#PWR") {
			if prop := propertyNode(sym, "Value"); prop != nil {
				return []writing{{sh: sh, node: prop, arg: 2, kind: "power", text: prop.Arg(1), ref: ref}}
			}
		}
		return nil
	}
	pins := libPins(sh, lib, ps.unit, ps.style)
	if (lib.Child("power") != nil || lib.HasAtom("power")) && valueNamesPower(sh) {
		for _, p := range pins {
			if p.Arg(0) == "power_in" {
				if prop := propertyNode(sym, "Value"); prop != nil {
					return []writing{{sh: sh, node: prop, arg: 2, kind: "power", text: prop.Arg(1), ref: ref}}
				}
			}
		}
		return nil
	}
	var out []writing
	for _, p := range pins {
		hidden := p.HasAtom("hide") || p.Child("hide") != nil && p.Value1("hide") != "no"
		if p.Arg(0) == "power_in" && (hidden || lib.Child("power") != nil || lib.HasAtom("power")) {
			if name := pinText(p.Value1("name")); name != "" {
				out = append(out, writing{sh: sh, node: sym, kind: "power_pin", text: name, ref: ref, lib: lib.Arg(0), oldPower: lib.Child("power") != nil || lib.HasAtom("power")})
			}
		}
	}
	return out
}

// netTarget is what a net name given to an edit denotes.
type netTarget struct {
	given  string    // as the caller spelled it
	text   string    // the label text
	scope  string    // "" for a bare name, else the instance path ("/", "/amp/")
	writes []writing // where the text is written for these nets
	nets   []string  // KiCad's names of the nets, sorted (only names that exist)
}

// splitScoped reads "/amp/OUT" as instance path "/amp/" and text "OUT";
// ok is false for a bare name. A "/" inside a label's text reads like the
// path's own: the longest instance path of the design whose remaining text
// some label writes wins ("/P/T" is text "P/T" on the root when no label
// of instance /P/ writes "T"), else the longest instance path.
func (ns *netSpace) splitScoped(name string) (scope, text string, ok bool) {
	name = unescapeNetName(name)
	if !strings.HasPrefix(name, "/") {
		return "", name, false
	}
	var paths []string
	for _, si := range ns.d.Model.Sheets {
		if strings.HasPrefix(name, si.Path) && len(name) > len(si.Path) && !slices.Contains(paths, si.Path) {
			paths = append(paths, si.Path)
		}
	}
	slices.SortFunc(paths, func(a, b string) int { return len(b) - len(a) })
	for _, p := range paths {
		text := name[len(p):]
		if slices.ContainsFunc(ns.writings, func(w writing) bool { return w.text == text && slices.Contains(w.scopes, p) }) {
			return p, text, true
		}
	}
	if len(paths) > 0 {
		return paths[0], name[len(paths[0]):], true
	}
	i := strings.LastIndexByte(name, '/')
	return name[:i+1], name[i+1:], true
}

// resolve finds what name denotes: for "/P/T" the nets of instance /P/
// reading T (and every writing KiCad would have to change with them), for
// a bare T every net T is written on.
func (ns *netSpace) resolve(name string) netTarget {
	t := netTarget{given: name}
	scope, text, scoped := ns.splitScoped(name)
	t.text, t.scope = text, scope
	if !scoped {
		t.text = unescapeNetName(name)
		for _, w := range ns.writings {
			if w.text == t.text {
				t.writes = append(t.writes, w)
			}
		}
	} else {
		// Close over the derived names: a label in a file used twice
		// writes both instances' names; a sheet pin joins parent and child.
		want := map[string]bool{name: true}
		in := make([]bool, len(ns.writings))
		for changed := true; changed; {
			changed = false
			for i, w := range ns.writings {
				if in[i] || w.text != t.text {
					continue
				}
				for _, n := range ns.derived(w, w.text, nil) {
					if want[n] {
						in[i], changed = true, true
						break
					}
				}
				if in[i] {
					for _, n := range ns.derived(w, w.text, nil) {
						want[n] = true
					}
				}
			}
		}
		for i, w := range ns.writings {
			if in[i] {
				t.writes = append(t.writes, w)
			}
		}
	}
	seen := map[string]bool{}
	for _, w := range t.writes {
		for _, n := range ns.derived(w, t.text, nil) {
			if ns.names[n] && !seen[n] {
				seen[n] = true
				t.nets = append(t.nets, n)
			}
		}
	}
	// A name KiCad gave a net no label writes (an auto name) still names it.
	if len(t.writes) == 0 && ns.names[name] {
		t.nets = append(t.nets, name)
	}
	slices.SortFunc(t.nets, kicad.CompareRefdes)
	return t
}

// existing reports the netlist nets a name already denotes in any spelling
// the read commands print: the exact name, the global net of the bare text,
// or the text in any sheet instance. It is how a rename target is checked
// for a merge.
func (ns *netSpace) existing(text string) []string {
	var out []string
	esc := text
	for n := range ns.names {
		if n == esc {
			out = append(out, n)
			continue
		}
		if strings.HasPrefix(n, "/") && strings.HasSuffix(n, "/"+esc) {
			if _, ok := ns.instancePath(n[:len(n)-len(esc)]); ok {
				out = append(out, n)
			}
		}
	}
	slices.SortFunc(out, kicad.CompareRefdes)
	return out
}

func (ns *netSpace) instancePath(p string) (kicad.SheetInstance, bool) {
	for _, si := range ns.d.Model.Sheets {
		if si.Path == p {
			return si, true
		}
	}
	return kicad.SheetInstance{}, false
}

// printedNames are the names a refusal's suggestions draw from: the
// netlist names and the bare texts.
func (ns *netSpace) printedNames() map[string]bool {
	out := map[string]bool{}
	for n := range ns.names {
		if !autoNetName(n) {
			out[n] = true
		}
	}
	for _, w := range ns.writings {
		out[w.text] = true
	}
	return out
}

// joinNets renders net names for a message: "a, b and c".
func joinNets(nets []string) string {
	switch len(nets) {
	case 0:
		return ""
	case 1:
		return nets[0]
	}
	return strings.Join(nets[:len(nets)-1], ", ") + " and " + nets[len(nets)-1]
}

// driverRank is KiCad's priority among the drivers that name a net
// (CONNECTION_SUBGRAPH's PRIORITY): a global label beats a power pin,
// which beats a local label, which beats a hierarchical label.
var driverRank = map[string]int{
	"hierarchical_label": 3,
	"label":              4,
	"power":              6,
	"power_pin":          6,
	"global_label":       7,
}

// drivers floods from start over the sheet's wires and returns every name
// a label or power symbol drives there, with its highest rank.
func (o *sheetObjects) drivers(start kicad.Point) map[string]int {
	out := map[string]int{}
	note := func(name string, rank int) {
		if rank > out[name] {
			out[name] = rank
		}
	}
	points := []kicad.Point{start}
	used := make([]bool, len(o.wires))
	for i := 0; i < len(points); i++ {
		p := points[i]
		for _, l := range o.labels {
			if samePoint(l.pos, p) {
				note(l.name, driverRank[l.kind])
			}
		}
		for _, sp := range o.pins {
			if sp.power != "" && samePoint(sp.pin.pos, p) {
				note(sp.power, driverRank["power"])
			}
		}
		for j := range o.wires {
			w := &o.wires[j]
			if used[j] || !(samePoint(w.a, p) || samePoint(w.b, p) || onSegment(p, w.a, w.b)) {
				continue
			}
			used[j] = true
			points = append(points, w.a, w.b)
		}
	}
	return out
}

// ambiguousName refuses a rename when a label being renamed shares its
// wires with another name of the same rank: KiCad then names the net by
// one of them, and which one after the rename is not for copperhead to
// guess.
func ambiguousName(from netTarget) error {
	objs := map[*Sheet]*sheetObjects{}
	for _, w := range from.writes {
		if driverRank[w.kind] == 0 || w.kind == "power" || w.kind == "power_pin" {
			continue
		}
		o := objs[w.sh]
		if o == nil {
			o = scanSheet(w.sh)
			objs[w.sh] = o
		}
		ds := o.drivers(pointOf(w.node.Child("at")))
		mine := ds[from.text]
		for _, other := range sortedKeys(ds) {
			if other != from.text && ds[other] == mine {
				return Refusef("%s shares its wires on %s with %s, a name of the same kind: KiCad names such a net by one of them, so the name after the rename is not certain; rename or remove one of the labels in KiCad first", from.text, w.sh.Rel, other)
			}
		}
	}
	return nil
}
