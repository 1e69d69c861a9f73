package schedit

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"copperhead/internal/sexpr"
	"copperhead/internal/textdist"
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
// Labels are matched by name across every sheet, as the issue defines the
// operation: a local label called old on another sheet is renamed too, even
// though KiCad treats it as a different (sheet-local) net.
//
// It refuses when new already names a net (the rename would merge two nets)
// unless merge is set, when either name is a bus or a member of a bus label
// (a rename there would silently change the bus's membership), and when old
// names no net at all (with close matches). When old is gone and new is
// present, the rename is already applied and the plan is empty.
func RenameNet(d *Design, old, new string, merge bool) (*Plan, error) {
	old, new = strings.TrimSpace(old), strings.TrimSpace(new)
	if old == "" || new == "" {
		return nil, Refusef("rename-net needs two non-empty net names")
	}
	for _, n := range []string{old, new} {
		if isBusName(n) {
			return nil, Refusef("%s is a bus, not a net: rename its members' labels one by one in KiCad", n)
		}
	}
	// KiCad names unlabelled nets itself ("Net-(R1-Pad2)", "unconnected-(U1-
	// IO7-Pad12)"); a label taking such a name could collide with one of
	// those nets in the netlist, merging them for every downstream tool.
	if autoNetName(new) {
		return nil, Refusef("%s has the form of a name KiCad gives unlabelled nets; choose a name that does not start with Net-( or unconnected-(", new)
	}
	plan := &Plan{Op: "rename-net " + old + " " + new}
	if old == new {
		return plan, nil
	}
	names := d.netNames()
	if !names[old] {
		if names[new] {
			return plan, nil // already applied
		}
		return nil, Refusef("no net named %s%s", old, closeMatches(old, names))
	}
	if names[new] && !merge {
		return nil, Refusef("a net named %s already exists: renaming %s would merge the two nets (pass --merge if that is intended)", new, old)
	}
	if buses := busesContaining(d, old); len(buses) > 0 {
		return nil, Refusef("%s is a member of bus %s: renaming it would take it out of the bus; edit the bus in KiCad", old, strings.Join(buses, ", "))
	}
	for _, sh := range d.sortedSheets() {
		for i := range sh.Root.Children {
			n := &sh.Root.Children[i]
			head := n.Head()
			switch {
			case labelHeads[head] != "":
				if renameArg(plan, sh, n, 1, old, new) {
					plan.Summary = append(plan.Summary, fmt.Sprintf("%s: %s %s -> %s at %s", sh.Rel, labelHeads[head], old, new, atText(n)))
				}
			case head == "sheet":
				for pin := range n.All("pin") {
					if renameArg(plan, sh, pin, 1, old, new) {
						plan.Summary = append(plan.Summary, fmt.Sprintf("%s: sheet pin %s -> %s on sheet %s", sh.Rel, old, new, sheetName(n)))
					}
				}
			case head == "symbol" && n.Child("lib_id") != nil && d.isPowerSymbol(sh, n):
				prop := propertyNode(n, "Value")
				if prop != nil && renameArg(plan, sh, prop, 2, old, new) {
					plan.Summary = append(plan.Summary, fmt.Sprintf("%s: power symbol %s %s -> %s", sh.Rel, propertyValue(n, "Reference"), old, new))
				}
			}
		}
	}
	return plan, nil
}

// renameArg replaces child i of n (a string) when it reads old.
func renameArg(plan *Plan, sh *Sheet, n *sexpr.Node, i int, old, new string) bool {
	if i >= len(n.Children) || n.Children[i].Kind == sexpr.List || n.Children[i].Value != old {
		return false
	}
	c := &n.Children[i]
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

// isPowerSymbol reports whether a placed symbol draws a power symbol of the
// sheet's embedded library: its Value is then a global net name.
func (d *Design) isPowerSymbol(sh *Sheet, sym *sexpr.Node) bool {
	key := sym.Value1("lib_name")
	if key == "" {
		key = sym.Value1("lib_id")
	}
	for lib := range sh.Root.Child("lib_symbols").All("symbol") {
		if lib.Arg(0) == key {
			return lib.Child("power") != nil || lib.HasAtom("power")
		}
	}
	return strings.HasPrefix(propertyValue(sym, "Reference"), "#PWR")
}

var (
	vectorBus = regexp.MustCompile(`^(.*)\[(\d+)\.\.(\d+)\]$`)
	groupBus  = regexp.MustCompile(`^([^{]*)\{([^}]*)\}$`)
)

// isBusName reports whether name is a KiCad bus: a vector D[0..7] or a
// group {SDA SCL} / I2C{SDA SCL}.
func isBusName(name string) bool {
	return vectorBus.MatchString(name) || strings.ContainsAny(name, "{}")
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
