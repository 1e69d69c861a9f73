package schedit

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"copperhead/internal/kicad"
	"copperhead/internal/sexpr"
	"copperhead/internal/textdist"
	"copperhead/internal/textfmt"
)

// labelHeads are the label expressions whose first argument names a net.
var labelHeads = map[string]string{
	"label":              "local label",
	"global_label":       "global label",
	"hierarchical_label": "hierarchical label",
}

// autoNetName reports whether name has the shape of KiCad's automatic net
// names, which a label must not take.
func autoNetName(name string) bool {
	return strings.HasPrefix(name, "Net-(") || strings.HasPrefix(name, "unconnected-(")
}

// RenameNet renames the net old to new everywhere its name is written: every
// local, global and hierarchical label, every sheet pin (so the parent's pin
// and the child's hierarchical label change together and the hierarchical
// connection survives), and the Value of every power symbol naming it. A
// sheet file used twice is one file, so all its instances follow.
//
// old is spelled as KiCad's netlist and the read commands print it ("/PTT",
// "/amp/OUT", "VCC") or as the bare label text ("PTT"). A bare name renames
// every net the text is written on, across every sheet: a local label in a
// sheet used three times is three nets, and the plan says so. A name scoped
// to one instance ("/a/PTT") whose label lives in a file other instances
// share is refused: KiCad stores one label for them all. new is bare label
// text (or carries old's own instance path).
//
// It refuses when new already names a net in KiCad's netlist in any of
// those spellings (the rename would merge two nets, or give two nets one
// name) unless merge is set; when either name is a bus, a member of a bus
// label or of a bus alias (a rename there would silently change the bus's
// membership); when the net is named by a hidden power-input pin (a KiCad 5
// style power symbol or part: the name lives in the symbol library); and
// when old names no net at all (with close matches). When old is gone and
// new is present, the rename is already applied and the plan is empty.
func RenameNet(d *Design, old, new string, merge bool) (*Plan, error) {
	old, new = strings.TrimSpace(old), strings.TrimSpace(new)
	if old == "" || new == "" {
		return nil, Refusef("rename-net needs two non-empty net names")
	}
	if strings.ContainsAny(new, "\n\r") {
		return nil, Refusef("a net name cannot span lines: %q", new)
	}
	ns := d.netSpace()
	from := ns.resolve(old)
	to := unescapeNetName(new)
	if scope, text, scoped := ns.splitScoped(new); scoped {
		if scope != from.scope {
			return nil, Refusef("a rename keeps a net in its sheet: give the new name without a sheet path (%s, not %s)", text, new)
		}
		to = text
	}
	for _, n := range []string{from.text, to} {
		if isBusName(n) {
			return nil, Refusef("%s is a bus, not a net: rename its members' labels one by one in KiCad", n)
		}
	}
	// KiCad names unlabelled nets itself ("Net-(R1-Pad2)", "unconnected-(U1-
	// IO7-Pad12)"); a label taking such a name could collide with one of
	// those nets in the netlist, merging them for every downstream tool.
	if autoNetName(to) {
		return nil, Refusef("%s has the form of a name KiCad gives unlabelled nets; choose a name that does not start with Net-( or unconnected-(", to)
	}
	plan := &Plan{Op: "rename-net " + old + " " + new}
	if from.text == to {
		return plan, nil
	}
	if len(from.writes) == 0 {
		if len(from.nets) > 0 {
			return nil, Refusef("%s has no label to rename: KiCad made the name up from a pin; label the net in KiCad first", old)
		}
		done := ns.resolve(to)
		if from.scope != "" {
			done = ns.resolve(from.scope + to)
		}
		if len(done.writes) > 0 {
			return plan, nil // already applied
		}
		return nil, Refusef("no net named %s%s", old, closeMatches(old, ns.printedNames()))
	}
	if from.scope != "" {
		if extra := slices.DeleteFunc(slices.Clone(from.nets), func(n string) bool { return n == old }); len(extra) > 0 {
			return nil, Refusef("%s is written in %s, which also names %s (KiCad stores one label for every use of a sheet, so it cannot rename one alone): rename-net %s %s renames all %s",
				old, joinNets(writingFiles(from.writes)), joinNets(extra), from.text, to, textfmt.CountForms(len(from.nets), "net", "nets"))
		}
	}
	for _, w := range from.writes {
		if w.kind == "power_pin" && w.oldPower {
			return nil, Refusef("%s is named by the power-input pin %s of the power symbol %s (%s): in a file older than KiCad 8 KiCad takes a power net's name from the symbol library's pin, not from the Value; open and save the schematic in KiCad 8 or later (then the Value names the net), or replace the symbol", from.text, w.text, w.ref, w.lib)
		}
		if w.kind == "power_pin" {
			return nil, Refusef("%s is named by the hidden power-input pin %s of %s (%s, a symbol without KiCad's power flag): KiCad takes the net name from the pin in the symbol library; rename the pin there in KiCad, or replace the symbol with a power symbol", from.text, w.text, w.ref, w.lib)
		}
	}
	if buses := busesContaining(d, from.text); len(buses) > 0 {
		return nil, Refusef("%s is a member of bus %s: renaming it would take it out of the bus; edit the bus in KiCad", from.text, strings.Join(buses, ", "))
	}
	for _, n := range []string{from.text, to} {
		if aliases := aliasesContaining(d, n); len(aliases) > 0 {
			return nil, Refusef("%s is a member of bus alias %s: renaming it would change the bus's membership (KiCad's ERC then reports net_not_bus_member); edit the alias and its labels in KiCad (Schematic Setup > Bus Alias Definitions)", n, strings.Join(aliases, ", "))
		}
	}
	if err := ambiguousName(from); err != nil {
		return nil, err
	}
	var renames []NetRename
	var joins []string // nets the renamed labels would join: a merge
	seen := map[string]bool{}
	// After the rename the renamed global labels and power symbols show
	// the new text on their sheets.
	globalOn := map[*Sheet]bool{}
	for _, w := range from.writes {
		if w.global() {
			globalOn[w.sh] = true
		}
	}
	for _, w := range from.writes {
		olds, news := ns.derived(w, from.text, nil), ns.derived(w, to, globalOn)
		for i, o := range olds {
			if ns.names[news[i]] && !slices.Contains(joins, news[i]) {
				joins = append(joins, news[i])
			}
			if ns.names[o] && !seen[o] {
				seen[o] = true
				renames = append(renames, NetRename{Old: o, New: news[i]})
			}
		}
	}
	if !merge {
		if len(joins) > 0 {
			return nil, Refusef("a net named %s already exists (%s): renaming %s would merge the two nets (pass --merge if that is intended)", to, joinNets(joins), old)
		}
		if others := ns.existing(to); len(others) > 0 {
			return nil, Refusef("a net named %s already exists (%s): renaming %s would give two nets that name on different sheets (pass --merge if that is intended)", to, joinNets(others), old)
		}
		for _, w := range ns.writings {
			if w.text == to {
				return nil, Refusef("%s is already written on %s (a %s): renaming %s to it could join the nets (pass --merge if that is intended)", to, w.sh.Rel, strings.ReplaceAll(w.kind, "_", " "), old)
			}
		}
	}
	for _, w := range from.writes {
		if !renameArg(plan, w.sh, w.node, w.arg, from.text, to) {
			continue
		}
		switch w.kind {
		case "sheet_pin":
			plan.Summary = append(plan.Summary, fmt.Sprintf("%s: sheet pin %s -> %s on sheet %s", w.sh.Rel, from.text, to, sheetNameOfPin(w.sh, w.node)))
		case "power":
			plan.Summary = append(plan.Summary, fmt.Sprintf("%s: power symbol %s %s -> %s", w.sh.Rel, w.ref, from.text, to))
		default:
			plan.Summary = append(plan.Summary, fmt.Sprintf("%s: %s %s -> %s at %s", w.sh.Rel, labelHeads[w.kind], from.text, to, atText(w.node)))
		}
	}
	slices.SortFunc(renames, func(a, b NetRename) int { return kicad.CompareRefdes(a.Old, b.Old) })
	plan.Expect.Renames = renames
	switch {
	case len(renames) > 1:
		var pairs []string
		for _, r := range renames {
			pairs = append(pairs, r.Old+" -> "+r.New)
		}
		plan.Summary = append(plan.Summary, fmt.Sprintf("renames %s: %s", textfmt.CountForms(len(renames), "net", "nets"), strings.Join(pairs, ", ")))
	case len(renames) == 0 && ns.fromNetlist:
		plan.Summary = append(plan.Summary, fmt.Sprintf("no net changes its name: KiCad names the net %s is written on by another label", from.text))
	}
	return plan, nil
}

// writingFiles lists the files writings sit in, sorted, once each.
func writingFiles(ws []writing) []string {
	var out []string
	for _, w := range ws {
		if !slices.Contains(out, w.sh.Rel) {
			out = append(out, w.sh.Rel)
		}
	}
	slices.Sort(out)
	return out
}

// sheetNameOfPin names the sheet symbol holding a sheet pin.
func sheetNameOfPin(sh *Sheet, pin *sexpr.Node) string {
	for s := range sh.Root.All("sheet") {
		if pin.Start >= s.Start && pin.End <= s.End {
			return sheetName(s)
		}
	}
	return "?"
}

// renameArg replaces child i of n (a string) when it reads old ("{slash}"
// read as "/"). The new name keeps the old one's spelling of "/": KiCad's
// editor writes "{slash}".
func renameArg(plan *Plan, sh *Sheet, n *sexpr.Node, i int, old, new string) bool {
	if i >= len(n.Children) || n.Children[i].Kind == sexpr.List || unescapeNetName(n.Children[i].Value) != old {
		return false
	}
	c := &n.Children[i]
	if strings.Contains(c.Value, "{slash}") {
		new = strings.ReplaceAll(new, "/", "{slash}")
	}
	plan.Add(sh.Path, sexpr.Edit{Start: c.Start, End: c.End, Text: sexpr.Quote(new)})
	return true
}

// netNames is every net name the schematic writes down: labels, sheet pins
// and power nets. It is the read model's view; kicad-cli's netlist (checked
// by the callers that have it) also knows auto-named nets.
func (d *Design) netNames() map[string]bool {
	names := map[string]bool{}
	for _, l := range d.Model.Labels {
		names[l.Name] = true
	}
	for _, n := range d.Model.PowerNets {
		names[n] = true
	}
	for _, s := range d.Model.Sheets {
		for _, p := range s.Pins {
			names[p.Name] = true
		}
	}
	return names
}

// sortedSheets returns the design's sheets ordered by Rel, so plans and
// summaries are deterministic.
func (d *Design) sortedSheets() []*Sheet {
	out := make([]*Sheet, 0, len(d.Sheets))
	for _, s := range d.Sheets {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out
}

var (
	vectorBus = regexp.MustCompile(`^(.*)\[(\d+)\.\.(\d+)\]$`)
	groupBus  = regexp.MustCompile(`^([^{]*)\{([^}]*)\}$`)
)

// isBusName reports whether name is a KiCad bus: a vector D[0..7] or a
// group {SDA SCL} / I2C{SDA SCL}. KiCad's text markup is not a group:
// ~{RESET} (overbar), V_{DD} (subscript) and x^{2} (superscript) are net
// names, and a bus may carry markup itself (~{D}[0..7]).
func isBusName(name string) bool {
	plain, group := stripMarkup(name)
	return group || vectorBus.MatchString(plain)
}

// stripMarkup removes KiCad's ~{..}, _{..} and ^{..} markup from name,
// keeping the text inside, and reports whether a brace that is not markup
// (a bus group's) remains.
func stripMarkup(name string) (string, bool) {
	var b strings.Builder
	var stack []bool // per open brace: is it markup?
	group := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case (c == '~' || c == '_' || c == '^') && i+1 < len(name) && name[i+1] == '{':
			stack = append(stack, true)
			i++
		case c == '{':
			stack = append(stack, false)
			group = true
		case c == '}' && len(stack) > 0:
			if !stack[len(stack)-1] {
				group = true
			}
			stack = stack[:len(stack)-1]
		case c == '}':
			group = true
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), group
}

// aliasesContaining names the bus aliases, (bus_alias "NAME" (members ..))
// in any sheet, that list net as a member (directly or inside a vector
// member such as D[0..7]).
func aliasesContaining(d *Design, net string) []string {
	var out []string
	for _, sh := range d.sortedSheets() {
		for a := range sh.Root.All("bus_alias") {
			m := a.Child("members")
			if m == nil {
				continue
			}
			for i := 1; i < len(m.Children); i++ {
				member := m.Children[i].Value
				if (member == net || busHasMember(member, net)) && !slices.Contains(out, a.Arg(0)) {
					out = append(out, a.Arg(0))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// busesContaining names the bus labels (and sheet pins) whose members
// include net, e.g. D[0..7] for D3 or I2C{SDA SCL} for I2C.SDA.
func busesContaining(d *Design, net string) []string {
	var out []string
	seen := map[string]bool{}
	check := func(name string) {
		if seen[name] || !busHasMember(name, net) {
			return
		}
		seen[name] = true
		out = append(out, name)
	}
	for _, l := range d.Model.Labels {
		check(l.Name)
	}
	for _, s := range d.Model.Sheets {
		for _, p := range s.Pins {
			check(p.Name)
		}
	}
	sort.Strings(out)
	return out
}

func busHasMember(bus, net string) bool {
	if !isBusName(bus) {
		return false
	}
	if m := vectorBus.FindStringSubmatch(bus); m != nil {
		lo, _ := strconv.Atoi(m[2])
		hi, _ := strconv.Atoi(m[3])
		if lo > hi {
			lo, hi = hi, lo
		}
		rest, ok := strings.CutPrefix(net, m[1])
		if !ok {
			return false
		}
		n, err := strconv.Atoi(rest)
		return err == nil && n >= lo && n <= hi
	}
	if m := groupBus.FindStringSubmatch(bus); m != nil {
		for _, member := range strings.Fields(m[2]) {
			full := member
			if m[1] != "" {
				full = m[1] + "." + member
			}
			if full == net || member == net || busHasMember(member, net) || m[1] != "" && busHasMember(member, strings.TrimPrefix(net, m[1]+".")) {
				return true
			}
		}
	}
	return false
}

// closeMatches renders up to three known names near name, for a refusal.
func closeMatches(name string, names map[string]bool) string {
	type cand struct {
		name string
		dist int
	}
	var cs []cand
	upper := strings.ToUpper(name)
	for n := range names {
		dist := textdist.Levenshtein(upper, strings.ToUpper(n))
		if dist <= max(2, len(name)/3) || strings.Contains(strings.ToUpper(n), upper) {
			cs = append(cs, cand{n, dist})
		}
	}
	if len(cs) == 0 {
		return ""
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return " (did you mean " + strings.Join(out, ", ") + "?)"
}

// propertyNode returns the (property name ..) child of n, or nil.
func propertyNode(n *sexpr.Node, name string) *sexpr.Node {
	for p := range n.All("property") {
		if p.Arg(0) == name {
			return p
		}
	}
	return nil
}

// propertyValue returns the value of the (property name value ..) child of n.
func propertyValue(n *sexpr.Node, name string) string {
	return propertyNode(n, name).Arg(1)
}

// sheetName is a sheet symbol's Sheetname (KiCad 6 spelled it "Sheet name").
func sheetName(n *sexpr.Node) string {
	for p := range n.All("property") {
		if k := strings.ToLower(strings.ReplaceAll(p.Arg(0), " ", "")); k == "sheetname" {
			return p.Arg(1)
		}
	}
	return "?"
}

// atText renders a node's (at x y) for a summary line.
func atText(n *sexpr.Node) string {
	at := n.Child("at")
	return "(" + at.Arg(0) + ", " + at.Arg(1) + ")"
}
