package schedit

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"copperhead/internal/kicad"
	"copperhead/internal/sexpr"
)

// stubLength is the wire Connect draws from a pin to its label: one 100 mil
// grid step. A label placed directly on a pin end is a known way to get no
// connection at all (KiCad attaches labels to wires, and a label on a pin
// end that another object also touches can fail to join), so every label
// Connect adds sits at the far end of its own stub.
const stubLength = 2.54

// pointEps is the distance below which two schematic points are the same point.
// KiCad's schematic resolution is 100 nm; 1 µm absorbs float noise only.
const pointEps = 1e-3

// placedSym is one placed symbol unit in one sheet file.
type placedSym struct {
	node   *sexpr.Node
	refs   []string      // every reference it has, one per sheet instance (distinct)
	insts  []symInstance // per sheet instance; nil when read without its sheet (readPlaced)
	libKey string        // the lib_symbols entry it draws: lib_name, else lib_id
	unit   int
	style  int
	at     kicad.Point
	angle  float64
	mirror string
}

// pinEnd is a pin of a placed symbol where wires attach, and the unit vector
// pointing away from the symbol body.
type pinEnd struct {
	number, name string
	etype        string // the library pin's electrical type: input, passive, no_connect, ...
	pos, out     kicad.Point
}

func (p pinEnd) label() string {
	if p.name != "" && p.name != p.number {
		return p.number + " (" + p.name + ")"
	}
	return p.number
}

func readPlaced(n *sexpr.Node) *placedSym {
	ps := &placedSym{node: n, libKey: n.Value1("lib_name"), unit: 1, style: 1, mirror: n.Value1("mirror")}
	if ps.libKey == "" {
		ps.libKey = n.Value1("lib_id")
	}
	if u, err := strconv.Atoi(n.Value1("unit")); err == nil {
		ps.unit = u
	}
	if s, err := strconv.Atoi(n.Value1("body_style")); err == nil {
		ps.style = s
	} else if s, err := strconv.Atoi(n.Value1("convert")); err == nil {
		ps.style = s
	}
	at := n.Child("at")
	ps.at.X, _ = at.Float(0)
	ps.at.Y, _ = at.Float(1)
	ps.angle, _ = at.Float(2)
	// Without its sheet a symbol's per-instance references are unknown
	// (Sheet.placed resolves them): the Reference property stands in.
	if r := propertyValue(n, "Reference"); r != "" {
		ps.refs = []string{r}
	}
	return ps
}

// orient maps a library-coordinate vector to the sheet without translating,
// exactly as the read model does (kicad.Orient).
func (ps *placedSym) orient(lx, ly float64) (float64, float64) {
	return kicad.Orient(ps.angle, ps.mirror, lx, ly)
}

func (ps *placedSym) toSheet(lx, ly float64) kicad.Point {
	x, y := ps.orient(lx, ly)
	return kicad.Point{X: roundMM(ps.at.X + x), Y: roundMM(ps.at.Y + y)}
}

func roundMM(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// libSymbol returns the (lib_symbols (symbol name ..)) entry of sh, or nil.
func libSymbol(sh *Sheet, name string) *sexpr.Node {
	for s := range sh.Root.Child("lib_symbols").All("symbol") {
		if s.Arg(0) == name {
			return s
		}
	}
	return nil
}

// libPins yields the pins a library symbol draws for unit and body style,
// following one (extends ..) when the entry itself draws none.
func libPins(sh *Sheet, lib *sexpr.Node, unit, style int) []*sexpr.Node {
	var out []*sexpr.Node
	collect := func(n *sexpr.Node) {
		out = append(out, slices.Collect(n.All("pin"))...)
		for sub := range n.All("symbol") {
			u, s := libUnitStyle(sub.Arg(0))
			if (u == 0 || u == unit) && (s == 0 || s == style) {
				out = append(out, slices.Collect(sub.All("pin"))...)
			}
		}
	}
	collect(lib)
	if len(out) == 0 && sh != nil {
		if parent := lib.Value1("extends"); parent != "" {
			name := lib.Arg(0)
			if i := strings.IndexByte(name, ':'); i >= 0 {
				parent = name[:i+1] + parent
			}
			if p := libSymbol(sh, parent); p != nil {
				collect(p)
			}
		}
	}
	return out
}

// libUnitStyle reads "<name>_<unit>_<style>"; anything else reads as 0, 0.
func libUnitStyle(name string) (int, int) {
	parts := strings.Split(name, "_")
	if len(parts) < 3 {
		return 0, 0
	}
	u, err1 := strconv.Atoi(parts[len(parts)-2])
	s, err2 := strconv.Atoi(parts[len(parts)-1])
	if err1 != nil || err2 != nil {
		return 0, 0
	}
	return u, s
}

// pins returns the placed symbol's pins in sheet coordinates.
func (ps *placedSym) pins(sh *Sheet) []pinEnd {
	lib := libSymbol(sh, ps.libKey)
	if lib == nil {
		return nil
	}
	var out []pinEnd
	for _, p := range libPins(sh, lib, ps.unit, ps.style) {
		at := p.Child("at")
		x, _ := at.Float(0)
		y, _ := at.Float(1)
		a, _ := at.Float(2)
		// A library pin's angle points from its connection point into the
		// body; the way out is the opposite direction.
		s, c := math.Sincos(a * math.Pi / 180)
		ox, oy := ps.orient(-c, -s)
		out = append(out, pinEnd{
			number: pinText(p.Value1("number")),
			name:   pinText(p.Value1("name")),
			etype:  p.Arg(0),
			pos:    ps.toSheet(x, y),
			out:    kicad.Point{X: math.Round(ox), Y: math.Round(oy)},
		})
	}
	return out
}

func pinText(s string) string {
	if s == "~" {
		return ""
	}
	return s
}

// sheetUnits is one sheet file and the units of a part placed on it.
type sheetUnits struct {
	sh    *Sheet
	units []*placedSym
}

// partSheets finds every sheet file holding a unit of ref, with its units
// there: a multi-unit part (an FPGA's banks, an MCU's ports) may put its
// units on several sheets. The sheet the read model files the part under
// comes first, the others follow by path.
func partSheets(d *Design, ref string) ([]sheetUnits, error) {
	var file string
	found := false
	for _, p := range d.Model.Parts {
		if p.Refdes == ref {
			file, found = p.SheetFile, true
			break
		}
	}
	if !found {
		return nil, Refusef("unknown reference %s", ref)
	}
	first := d.SheetByRel(file)
	if first == nil {
		return nil, fmt.Errorf("%s: sheet %s is not loaded", ref, file)
	}
	sheets := []*Sheet{first}
	var rest []*Sheet
	for _, sh := range d.Sheets {
		if sh != first {
			rest = append(rest, sh)
		}
	}
	slices.SortFunc(rest, func(a, b *Sheet) int { return cmp.Compare(a.Rel, b.Rel) })
	sheets = append(sheets, rest...)
	var out []sheetUnits
	for _, sh := range sheets {
		var units []*placedSym
		for i := range sh.Root.Children {
			c := &sh.Root.Children[i]
			if c.Kind != sexpr.List || c.Head() != "symbol" {
				continue
			}
			if ps := sh.placed(c); slices.Contains(ps.refs, ref) {
				units = append(units, ps)
			}
		}
		if len(units) > 0 {
			out = append(out, sheetUnits{sh, units})
		}
	}
	if len(out) == 0 || out[0].sh != first {
		return nil, Refusef("unknown reference %s", ref)
	}
	return out, nil
}

// partSheet finds the sheet file the read model files ref under and its
// placed units there (the other sheets holding units of it: partSheets).
func partSheet(d *Design, ref string) (*Sheet, []*placedSym, error) {
	all, err := partSheets(d, ref)
	if err != nil {
		return nil, nil, err
	}
	return all[0].sh, all[0].units, nil
}

// partPin resolves "PIN" (a number, else a unique pin name) on ref.
//
// The pin may be on any of the part's units, on whichever sheet holds it.
func partPin(d *Design, ref, pin string) (*Sheet, *placedSym, pinEnd, error) {
	sheets, err := partSheets(d, ref)
	if err != nil {
		return nil, nil, pinEnd{}, err
	}
	var all []string
	type hit struct {
		sh *Sheet
		ps *placedSym
		pe pinEnd
	}
	var byNum, byName []hit
	for _, su := range sheets {
		for _, ps := range su.units {
			for _, pe := range ps.pins(su.sh) {
				all = append(all, pe.label())
				if pe.number == pin {
					byNum = append(byNum, hit{su.sh, ps, pe})
				} else if pe.name == pin {
					byName = append(byName, hit{su.sh, ps, pe})
				}
			}
		}
	}
	switch {
	case len(byNum) > 0:
		return byNum[0].sh, byNum[0].ps, byNum[0].pe, nil
	case len(byName) == 1:
		return byName[0].sh, byName[0].ps, byName[0].pe, nil
	case len(byName) > 1:
		var nums []string
		for _, h := range byName {
			nums = append(nums, h.pe.number)
		}
		return nil, nil, pinEnd{}, Refusef("%s has several pins named %s (%s): give the pin number", ref, pin, strings.Join(nums, ", "))
	}
	slices.SortFunc(all, kicad.CompareRefdes)
	all = slices.Compact(all)
	return nil, nil, pinEnd{}, Refusef("%s has no pin %s; its pins are %s", ref, pin, strings.Join(all, ", "))
}

// sheetObjects is everything on one sheet file a connection can touch.
type sheetObjects struct {
	wires      []wireSeg
	labels     []labelAt
	noConnects []objAt
	junctions  []objAt
	pins       []symPin
	// anchors are the other points a wire connects at: sheet pins and both
	// ends of bus entries.
	anchors []objAt
}

type wireSeg struct {
	node *sexpr.Node
	a, b kicad.Point
}

type labelAt struct {
	node *sexpr.Node
	kind string // label, global_label, hierarchical_label
	name string
	pos  kicad.Point
}

type objAt struct {
	node *sexpr.Node
	pos  kicad.Point
}

type symPin struct {
	sym   *placedSym
	power string // the net a power symbol names, else ""
	pin   pinEnd
}

func (sp symPin) String() string {
	if sp.power != "" {
		return "power symbol " + sp.power
	}
	ref := "?"
	if len(sp.sym.refs) > 0 {
		ref = sp.sym.refs[0]
	}
	return ref + "." + sp.pin.number
}

func pointOf(n *sexpr.Node) kicad.Point {
	var p kicad.Point
	p.X, _ = n.Float(0)
	p.Y, _ = n.Float(1)
	return p
}

func scanSheet(sh *Sheet) *sheetObjects {
	o := &sheetObjects{}
	for i := range sh.Root.Children {
		c := &sh.Root.Children[i]
		if c.Kind != sexpr.List {
			continue
		}
		switch h := c.Head(); h {
		case "wire":
			xy := slices.Collect(c.Child("pts").All("xy"))
			if len(xy) == 2 {
				o.wires = append(o.wires, wireSeg{c, pointOf(xy[0]), pointOf(xy[1])})
			}
		case "label", "global_label", "hierarchical_label":
			o.labels = append(o.labels, labelAt{c, h, unescapeNetName(c.Arg(0)), pointOf(c.Child("at"))})
		case "no_connect":
			o.noConnects = append(o.noConnects, objAt{c, pointOf(c.Child("at"))})
		case "junction":
			o.junctions = append(o.junctions, objAt{c, pointOf(c.Child("at"))})
		case "bus_entry":
			if at, size := c.Child("at"), c.Child("size"); at != nil && size != nil {
				p := pointOf(at)
				dx, _ := size.Float(0)
				dy, _ := size.Float(1)
				o.anchors = append(o.anchors, objAt{c, p}, objAt{c, kicad.Point{X: p.X + dx, Y: p.Y + dy}})
			}
		case "sheet":
			for pin := range c.All("pin") {
				if at := pin.Child("at"); at != nil {
					o.anchors = append(o.anchors, objAt{pin, pointOf(at)})
				}
			}
		case "symbol":
			ps := sh.placed(c)
			power := ""
			lib := libSymbol(sh, ps.libKey)
			if lib != nil && (lib.Child("power") != nil || lib.HasAtom("power")) {
				power = propertyValue(c, "Value")
			}
			hidden := map[string]string{} // pin number -> the global net a hidden power pin names
			if lib != nil && power == "" {
				for _, w := range powerWritings(sh, c) {
					for _, p := range libPins(sh, lib, ps.unit, ps.style) {
						if pinText(p.Value1("name")) == w.text {
							hidden[pinText(p.Value1("number"))] = w.text
						}
					}
				}
			}
			for _, pe := range ps.pins(sh) {
				pw := power
				if n, ok := hidden[pe.number]; ok && strings.HasPrefix(propertyValue(c, "Reference"), "#") {
					// A KiCad 5 style power symbol: its hidden pin is the net.
					pw = n
				}
				o.pins = append(o.pins, symPin{ps, pw, pe})
			}
		}
	}
	return o
}

func samePoint(a, b kicad.Point) bool {
	return math.Abs(a.X-b.X) < pointEps && math.Abs(a.Y-b.Y) < pointEps
}

// onSegment reports whether p lies on the segment a-b, ends included.
func onSegment(p, a, b kicad.Point) bool {
	cross := (b.X-a.X)*(p.Y-a.Y) - (b.Y-a.Y)*(p.X-a.X)
	if math.Abs(cross) > pointEps*math.Max(1, math.Hypot(b.X-a.X, b.Y-a.Y)) {
		return false
	}
	return p.X >= math.Min(a.X, b.X)-pointEps && p.X <= math.Max(a.X, b.X)+pointEps &&
		p.Y >= math.Min(a.Y, b.Y)-pointEps && p.Y <= math.Max(a.Y, b.Y)+pointEps
}

// attachment is what is electrically reachable from a pin through wires on
// its sheet: net names (labels, power symbols), other pins, wires.
type attachment struct {
	names []string
	pins  []string
	wires []*wireSeg
}

func (a attachment) empty() bool { return len(a.names)+len(a.pins)+len(a.wires) == 0 }

func (a attachment) String() string {
	var parts []string
	if len(a.names) > 0 {
		parts = append(parts, "net "+strings.Join(a.names, ", "))
	}
	if len(a.pins) > 0 {
		parts = append(parts, strings.Join(a.pins, ", "))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%d wire(s) leading nowhere", len(a.wires))
	}
	return strings.Join(parts, "; ")
}

// attached floods from the pin through wires touching end to end or at a
// T, collecting what the pin reaches on this sheet. It is the editor's view
// of connectivity, good enough to refuse a double connection; the netlist
// remains the authority.
func (o *sheetObjects) attached(self *placedSym, pe pinEnd) attachment {
	var att attachment
	points := []kicad.Point{pe.pos}
	used := make([]bool, len(o.wires))
	for i := 0; i < len(points); i++ {
		p := points[i]
		for _, l := range o.labels {
			if samePoint(l.pos, p) && !slices.Contains(att.names, l.name) {
				att.names = append(att.names, l.name)
			}
		}
		for _, sp := range o.pins {
			if sp.sym.node == self.node && sp.pin.number == pe.number || !samePoint(sp.pin.pos, p) {
				continue
			}
			switch {
			case sp.power != "":
				if !slices.Contains(att.names, sp.power) {
					att.names = append(att.names, sp.power)
				}
			case !slices.Contains(att.pins, sp.String()):
				att.pins = append(att.pins, sp.String())
			}
		}
		for j := range o.wires {
			w := &o.wires[j]
			if used[j] || !(samePoint(w.a, p) || samePoint(w.b, p) || onSegment(p, w.a, w.b)) {
				continue
			}
			used[j] = true
			att.wires = append(att.wires, w)
			points = append(points, w.a, w.b)
		}
	}
	return att
}

// occupant names an object, other than the pin itself, on the segment from
// the pin end to the stub end, or "" when the way is clear.
func (o *sheetObjects) occupant(pe pinEnd, end kicad.Point) string {
	on := func(p kicad.Point) bool { return onSegment(p, pe.pos, end) && !samePoint(p, pe.pos) }
	for _, sp := range o.pins {
		if on(sp.pin.pos) {
			return fmt.Sprintf("pin %s at (%s, %s)", sp, mm(sp.pin.pos.X), mm(sp.pin.pos.Y))
		}
	}
	for _, l := range o.labels {
		if on(l.pos) {
			return fmt.Sprintf("%s %q at (%s, %s)", strings.ReplaceAll(l.kind, "_", " "), l.name, mm(l.pos.X), mm(l.pos.Y))
		}
	}
	for _, n := range append(append([]objAt(nil), o.noConnects...), o.junctions...) {
		if on(n.pos) {
			return fmt.Sprintf("a %s at (%s, %s)", strings.ReplaceAll(n.node.Head(), "_", "-"), mm(n.pos.X), mm(n.pos.Y))
		}
	}
	for _, w := range o.wires {
		if on(w.a) || on(w.b) || onSegment(end, w.a, w.b) {
			return fmt.Sprintf("a wire (%s, %s)-(%s, %s)", mm(w.a.X), mm(w.a.Y), mm(w.b.X), mm(w.b.Y))
		}
	}
	return ""
}

// mm formats a coordinate as KiCad writes it: at most 4 decimals, no
// trailing zeros, no negative zero.
func mm(v float64) string {
	r := math.Round(v*1e4) / 1e4
	if r == 0 {
		return "0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// indentStyle is a file's indentation: KiCad 8 and 9 indent with tabs, KiCad 6
// and 7 with two spaces. New text copies it so the diff is only the change.
type indentStyle string

func fileStyle(src []byte) indentStyle {
	if strings.Contains(string(src[:min(len(src), 4096)]), "\n\t(") {
		return "\t"
	}
	return "  "
}

func (s indentStyle) lines(depth int, lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		d := depth
		for strings.HasPrefix(l, ">") {
			d++
			l = l[1:]
		}
		b.WriteString(strings.Repeat(string(s), d))
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// insertAt is where new top-level expressions go: at the start of the line
// holding (sheet_instances, (symbol_instances or (embedded_fonts, whichever
// comes first, else before the file's final ")"; KiCad keeps those last.
func insertAt(sh *Sheet) int {
	at := sh.Root.End - 1
	for i := range sh.Root.Children {
		c := &sh.Root.Children[i]
		switch c.Head() {
		case "sheet_instances", "symbol_instances", "embedded_fonts":
			at = c.Start
		default:
			continue
		}
		break
	}
	for at > 0 && (sh.Src[at-1] == ' ' || sh.Src[at-1] == '\t') {
		at--
	}
	return at
}

// removal deletes a top-level expression with its line: leading indentation
// and trailing newline go too when it sits alone on its lines.
func removal(src []byte, n *sexpr.Node) sexpr.Edit {
	s, e := n.Start, n.End
	for s > 0 && (src[s-1] == ' ' || src[s-1] == '\t') {
		s--
	}
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	if (s == 0 || src[s-1] == '\n') && e < len(src) && src[e] == '\n' {
		return sexpr.Edit{Start: s, End: e + 1}
	}
	return sexpr.Edit{Start: n.Start, End: n.End}
}

func wireText(st indentStyle, a, b kicad.Point) string {
	return st.lines(1,
		"(wire",
		">(pts",
		">>(xy "+mm(a.X)+" "+mm(a.Y)+") (xy "+mm(b.X)+" "+mm(b.Y)+")",
		">)",
		">(stroke",
		">>(width 0)",
		">>(type default)",
		">)",
		">(uuid "+sexpr.Quote(newUUID())+")",
		")")
}

func noConnectText(st indentStyle, p kicad.Point) string {
	return st.lines(1,
		"(no_connect",
		">(at "+mm(p.X)+" "+mm(p.Y)+")",
		">(uuid "+sexpr.Quote(newUUID())+")",
		")")
}

// labelSpin is the angle and justification of a label at the end of a stub
// running in direction out, so its text reads away from the pin.
func labelSpin(out kicad.Point) (string, string) {
	switch {
	case out.X > 0:
		return "0", "left"
	case out.X < 0:
		return "180", "right"
	case out.Y < 0:
		return "90", "left"
	default:
		return "270", "right"
	}
}

func labelText(st indentStyle, kind, name, shape string, p, out kicad.Point) string {
	ang, just := labelSpin(out)
	at := "(at " + mm(p.X) + " " + mm(p.Y) + " " + ang + ")"
	font := []string{">(effects", ">>(font", ">>>(size 1.27 1.27)", ">>)"}
	if kind == "label" {
		lines := []string{"(label " + sexpr.Quote(name), ">" + at, ">(fields_autoplaced yes)"}
		lines = append(lines, font...)
		lines = append(lines, ">>(justify "+just+" bottom)", ">)", ">(uuid "+sexpr.Quote(newUUID())+")", ")")
		return st.lines(1, lines...)
	}
	lines := []string{"(global_label " + sexpr.Quote(name), ">(shape " + shape + ")", ">" + at, ">(fields_autoplaced yes)"}
	lines = append(lines, font...)
	lines = append(lines, ">>(justify "+just+")", ">)", ">(uuid "+sexpr.Quote(newUUID())+")",
		">(property \"Intersheetrefs\" \"${INTERSHEET_REFS}\"",
		">>"+at,
		">>(effects", ">>>(font", ">>>>(size 1.27 1.27)", ">>>)", ">>>(justify "+just+")", ">>>(hide yes)", ">>)",
		">)", ")")
	return st.lines(1, lines...)
}

// connectNet decides how Connect names net on a pin of sheet sh, and the
// name KiCad's netlist gives the net the pin joins in each instance of sh:
//
//   - a name spelled with its sheet ("/PTT", "/amp/OUT") is a local label
//     of that sheet; a pin on another sheet is refused (joining it needs a
//     sheet pin and hierarchical label, a drawing job for KiCad);
//   - a bare name that names a global net in KiCad's netlist (a global
//     label, a power symbol, a hidden power-input pin) gets a global label
//     (copying an existing label's shape), so the pin joins that net and
//     never a same-named local one;
//   - a bare name written on this sheet, or naming a local net of this
//     sheet's instances, gets a local label, which joins it;
//   - a bare name that is only another sheet's local net is refused: a
//     label here would make a different net of the same name;
//   - a new net follows the design's habit: global labels when the design
//     uses more global than local labels (open-telegraph does), else a local
//     label. A new local label on a sub-sheet stays on that sheet; joining
//     it to the parent needs a sheet pin, which Connect does not draw;
//   - except in a sheet used more than once: there a new net is always a
//     local label, one net per instance, because a global label would join
//     the instances' pins into a single net.
func connectNet(d *Design, ns *netSpace, sh *Sheet, net string) (text, kind, shape string, names map[string]string, err error) {
	paths := instancePaths(ns.instances[sh.Rel])
	if len(paths) == 0 {
		return "", "", "", nil, fmt.Errorf("%s is not a sheet of the design's hierarchy", sh.Rel)
	}
	scope, scopedText, scoped := ns.splitScoped(net)
	text = scopedText
	if !scoped {
		text = unescapeNetName(net)
	}
	switch {
	case strings.TrimSpace(text) == "" || strings.ContainsAny(text, "\n\r"):
		return "", "", "", nil, Refusef("bad net name %q", net)
	case isBusName(text):
		return "", "", "", nil, Refusef("%s is a bus, not a net: connect a pin to one of its members", net)
	case autoNetName(text):
		return "", "", "", nil, Refusef("%s has the form of a name KiCad gives unlabelled nets; name the net with a label in KiCad (or choose another name)", net)
	}
	local := func() map[string]string {
		m := map[string]string{}
		for _, p := range paths {
			m[p] = p + text
		}
		return m
	}
	if scoped {
		if !slices.Contains(paths, scope) {
			return "", "", "", nil, Refusef("%s is a net of sheet %s, and the pin is on %s: a label there would make a different net; connect across sheets through a sheet pin and hierarchical label in KiCad", net, scope, strings.Join(paths, ", "))
		}
		if ns.globalOnSheet(sh, text) {
			// The sheet shows text as a global name: KiCad joins the
			// label to that global net.
			m := map[string]string{}
			for _, p := range paths {
				m[p] = text
			}
			return text, "label", "", m, nil
		}
		return text, "label", "", local(), nil
	}
	global := func(shape string) (string, string, string, map[string]string, error) {
		m := map[string]string{}
		for _, p := range paths {
			m[p] = text
		}
		return text, "global_label", cmp.Or(shape, "bidirectional"), m, nil
	}
	shape = ""
	isGlobal := ns.fromNetlist && ns.names[text] && !strings.HasPrefix(text, "/")
	for _, w := range ns.writings {
		if w.text != text || !w.global() {
			continue
		}
		isGlobal = true
		switch {
		case w.kind == "global_label" && shape == "":
			shape = w.node.Value1("shape")
		case w.kind != "global_label" && shape == "":
			shape = "passive"
		}
	}
	if isGlobal {
		return global(shape)
	}
	for _, w := range ns.writings {
		if w.text == text && w.sh == sh && (w.kind == "label" || w.kind == "hierarchical_label") {
			return text, "label", "", local(), nil
		}
	}
	for _, p := range paths {
		if ns.names[p+text] {
			return text, "label", "", local(), nil
		}
	}
	if others := ns.existing(text); len(others) > 0 {
		return "", "", "", nil, Refusef("%s is the local net %s of another sheet; the pin is on %s, where a label %s would make a separate net %s: connect across sheets through a sheet pin in KiCad, or pass %s to make that new net",
			text, joinNets(others), strings.Join(paths, ", "), text, paths[0]+text, paths[0]+text)
	}
	globals, locals := 0, 0
	for _, w := range ns.writings {
		switch w.kind {
		case "global_label":
			globals++
		case "label":
			locals++
		}
	}
	if globals > locals && len(paths) == 1 {
		return global("bidirectional")
	}
	return text, "label", "", local(), nil
}

// pinAcross finds pin pe of a symbol in sh as each instance of sh sees it:
// the instance's reference, by instance path.
func pinAcross(d *Design, sh *Sheet, pe pinEnd) map[string]string {
	paths := map[string]bool{}
	for _, si := range d.Model.Sheets {
		if si.File == sh.Rel {
			paths[si.Path] = true
		}
	}
	out := map[string]string{}
	for _, p := range d.Model.Pins() {
		if paths[p.SheetPath] && !p.Power && p.Number == pe.number && samePoint(p.Pos, pe.pos) {
			out[p.SheetPath] = p.Refdes
		}
	}
	return out
}

// alonePins states that pe ends up on no net, in every instance of sh.
func alonePins(d *Design, sh *Sheet, pe pinEnd) []PinNet {
	across := pinAcross(d, sh, pe)
	var out []PinNet
	for _, path := range sortedKeys(across) {
		out = append(out, PinNet{Ref: across[path], Pin: pe.number})
	}
	return out
}

func pinRef(ref string, pe pinEnd) string { return ref + "." + pe.number }

// Connect attaches ref's pin to net: a 2.54 mm wire stub from the pin end,
// pointing away from the symbol body, and a label at the stub's far end
// (labelKind says which kind). A no-connect flag on the pin is removed.
// PIN is a pin number, or a pin name when that name is unique on the part.
// In a sheet used several times the edit applies to every instance, as any
// edit of that file does.
//
// Connecting a pin already on net is a no-op. It refuses an unknown ref or
// pin (listing the part's pins), a pin already connected to something else
// (naming it: disconnect first), and a stub whose path or end another object
// occupies.
func Connect(d *Design, ref, pin, net string) (*Plan, error) {
	net = strings.TrimSpace(net)
	if net == "" || strings.ContainsAny(net, "\n\r") {
		return nil, Refusef("connect %s.%s: bad net name %q", ref, pin, net)
	}
	sh, ps, pe, err := partPin(d, ref, pin)
	if err != nil {
		return nil, err
	}
	ns := d.netSpace()
	text, kind, shape, names, err := connectNet(d, ns, sh, net)
	if errors.Is(err, ErrRefused) {
		return nil, Refusef("connect %s: %s", pinRef(ref, pe), strings.TrimPrefix(err.Error(), ErrRefused.Error()+": "))
	}
	if err != nil {
		return nil, err
	}
	if pe.etype == "no_connect" {
		// KiCad keeps such a pin on a net of its own whatever is wired to it.
		return nil, Refusef("cannot connect %s: its library symbol makes it a no-connect pin (electrical type no_connect), which KiCad keeps off every net; change the pin's type in the symbol first", pinRef(ref, pe))
	}
	plan := &Plan{Op: fmt.Sprintf("connect %s.%s %s", ref, pin, net), Touched: []string{ref}}
	o := scanSheet(sh)
	att := o.attached(ps, pe)
	if slices.Contains(att.names, text) {
		plan.Summary = append(plan.Summary, fmt.Sprintf("%s is already on %s", pinRef(ref, pe), net))
		return plan, nil
	}
	if !att.empty() {
		return nil, Refusef("%s is already connected to %s; disconnect it first", pinRef(ref, pe), att)
	}
	end := kicad.Point{X: roundMM(pe.pos.X + pe.out.X*stubLength), Y: roundMM(pe.pos.Y + pe.out.Y*stubLength)}
	if what := o.occupant(pe, end); what != "" {
		return nil, Refusef("cannot connect %s: the stub to (%s, %s) would run into %s", pinRef(ref, pe), mm(end.X), mm(end.Y), what)
	}
	for _, nc := range o.noConnects {
		if samePoint(nc.pos, pe.pos) {
			plan.Add(sh.Path, removal(sh.Src, nc.node))
			plan.Summary = append(plan.Summary, "remove the no-connect flag on "+pinRef(ref, pe))
		}
	}
	st := fileStyle(sh.Src)
	instances := sortedKeys(names)
	plan.Add(sh.Path, sexpr.Edit{Start: insertAt(sh), End: insertAt(sh), Text: wireText(st, pe.pos, end) + labelText(st, kind, text, shape, end, pe.out)})
	across := pinAcross(d, sh, pe)
	var joined []string
	for _, path := range instances {
		if r, ok := across[path]; ok {
			plan.Expect.Pins = append(plan.Expect.Pins, PinNet{Ref: r, Pin: pe.number, Net: names[path]})
			if !slices.Contains(joined, names[path]) {
				joined = append(joined, names[path])
			}
		}
	}
	where := ""
	if len(instances) > 1 {
		where = fmt.Sprintf("; %s is used %d times, so every instance (%s) gets it", sh.Rel, len(instances), strings.Join(instances, ", "))
	}
	plan.Summary = append(plan.Summary, fmt.Sprintf("connect %s to %s (%s at (%s, %s))%s",
		pinRef(ref, pe), joinNets(joined), strings.ReplaceAll(kind, "_", " "), mm(end.X), mm(end.Y), where))
	return plan, nil
}

// NoConnect puts a no-connect flag on ref's pin, telling ERC the pin is
// deliberately unused. A pin already flagged is a no-op; a pin connected to
// anything is refused (naming it).
func NoConnect(d *Design, ref, pin string) (*Plan, error) {
	sh, ps, pe, err := partPin(d, ref, pin)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Op: fmt.Sprintf("no-connect %s.%s", ref, pin), Touched: []string{ref}}
	o := scanSheet(sh)
	for _, nc := range o.noConnects {
		if samePoint(nc.pos, pe.pos) {
			plan.Summary = append(plan.Summary, pinRef(ref, pe)+" is already flagged no-connect")
			return plan, nil
		}
	}
	if att := o.attached(ps, pe); !att.empty() {
		return nil, Refusef("%s is connected to %s; disconnect it first", pinRef(ref, pe), att)
	}
	plan.Add(sh.Path, sexpr.Edit{Start: insertAt(sh), End: insertAt(sh), Text: noConnectText(fileStyle(sh.Src), pe.pos)})
	plan.Summary = append(plan.Summary, "flag "+pinRef(ref, pe)+" no-connect")
	plan.Expect.Pins = alonePins(d, sh, pe)
	return plan, nil
}

// Disconnect undoes Connect and NoConnect on ref's pin: it removes a
// no-connect flag on the pin, a label sitting directly on it, and every wire
// stub from the pin (bends and splits followed) whose far end holds only
// labels (removed too) or nothing. A pin with nothing attached is a no-op.
// A pin wired onward to other pins or wires is refused: removing that
// wiring is a drawing decision, not a stub's undo.
func Disconnect(d *Design, ref, pin string) (*Plan, error) {
	sh, ps, pe, err := partPin(d, ref, pin)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Op: fmt.Sprintf("disconnect %s.%s", ref, pin), Touched: []string{ref}}
	o := scanSheet(sh)
	rm, _, ports, err := o.stubsOf(ps, pe, false)
	if err != nil {
		return nil, Refusef("%s: %v", pinRef(ref, pe), err)
	}
	for _, n := range rm {
		plan.Add(sh.Path, removal(sh.Src, n))
		plan.Summary = append(plan.Summary, fmt.Sprintf("remove %s from %s", describeObject(n), pinRef(ref, pe)))
	}
	plan.Summary = append(plan.Summary, keptPorts(ports)...)
	if len(rm) == 0 {
		plan.Summary = append(plan.Summary, pinRef(ref, pe)+" has nothing attached")
		return plan, nil
	}
	// A pin touching another symbol's pin stays on that net: only its
	// no-connect flag went.
	for _, sp := range o.pins {
		if samePoint(sp.pin.pos, pe.pos) && sp.sym.node != ps.node {
			return plan, nil
		}
	}
	plan.Expect.Pins = alonePins(d, sh, pe)
	return plan, nil
}

func describeObject(n *sexpr.Node) string {
	switch h := n.Head(); h {
	case "label", "global_label", "hierarchical_label":
		return strings.ReplaceAll(h, "_", " ") + " " + strconv.Quote(n.Arg(0))
	case "no_connect":
		return "the no-connect flag"
	case "symbol":
		if refs := readPlaced(n).refs; len(refs) > 0 {
			return "power symbol " + strconv.Quote(refs[0])
		}
		return "a power symbol"
	default:
		return "a " + h
	}
}

// stubsOf lists the objects that serve only this pin: a no-connect on it,
// labels on it (when no other pin shares the point), and each stub from it
// (a wire, followed through bends and splits: follow) that leads to nothing
// but labels — and, when lenient, power symbols — which go with it, along
// it or at its far end. When lenient is false (Disconnect) a stub leading
// anywhere else is an error. RemovePart passes lenient: a stub that leads
// into other wiring or pins goes up to the first thing along it that
// connects or names a net (the wire that carries it is shortened to end
// there), so neither a dangling end nor a net without its name is left;
// what it leads to stays.
func (o *sheetObjects) stubsOf(ps *placedSym, pe pinEnd, lenient bool) (rmOut []*sexpr.Node, trimsOut []trim, ports []*sexpr.Node, err error) {
	var rm []*sexpr.Node
	var trims []trim
	keep := map[*sexpr.Node]bool{}
	others := func(p kicad.Point, skip []wireSeg) (labels []*sexpr.Node, power []*sexpr.Node, busy bool) {
		for _, l := range o.labels {
			if samePoint(l.pos, p) {
				labels = append(labels, l.node)
			}
		}
		for _, sp := range o.pins {
			if !samePoint(sp.pin.pos, p) || sp.sym.node == ps.node {
				continue
			}
			if sp.power != "" && lenient {
				power = append(power, sp.sym.node)
				continue
			}
			busy = true
		}
		for _, w := range o.wires {
			if !inWires(skip, w) && onSegment(p, w.a, w.b) {
				busy = true
			}
		}
		if o.jointAt(p) {
			busy = true
		}
		return labels, power, busy
	}
	for _, nc := range o.noConnects {
		if samePoint(nc.pos, pe.pos) {
			rm = append(rm, nc.node)
		}
	}
	// Wires and labels on a pin end another symbol's pin shares still serve
	// that pin.
	for _, sp := range o.pins {
		if samePoint(sp.pin.pos, pe.pos) && sp.sym.node != ps.node {
			return rm, nil, nil, nil
		}
	}
	if labels, _, busy := others(pe.pos, nil); !busy {
		rm = append(rm, labels...)
	}
	type stubAt struct {
		stub   []wireSeg
		far    kicad.Point
		marks  []mark
		labels []*sexpr.Node
		power  []*sexpr.Node
		conn   bool
		at     kicad.Point // the first connection: along it, else far
	}
	var stubs []stubAt
	joined := o.jointAt(pe.pos) // wiring that meets at the pin besides its stubs
	for _, w := range o.wires {
		var far kicad.Point
		switch {
		case samePoint(w.a, pe.pos):
			far = w.b
		case samePoint(w.b, pe.pos):
			far = w.a
		default:
			joined = joined || onSegment(pe.pos, w.a, w.b)
			continue
		}
		var s stubAt
		s.stub, s.far = o.follow(w, far)
		s.marks = o.along(ps, pe.pos, s.stub, s.far, lenient)
		s.labels, s.power, s.conn = others(s.far, s.stub)
		s.at = s.far
		for _, m := range s.marks {
			if m.node == nil && !s.conn {
				s.at, s.conn = m.pos, true
			}
		}
		stubs = append(stubs, s)
	}
	joined = joined || len(stubs) > 1
	// Wires that meet at the pin stay joined there without it (KiCad
	// connects wire ends that touch): when one of them leads on to other
	// wiring or pins, the pin's point is a node of that net, and removing
	// the part keeps every wire there and what names it.
	if lenient && joined && slices.ContainsFunc(stubs, func(s stubAt) bool { return s.conn }) {
		stubs = nil
		rm = slices.DeleteFunc(rm, func(n *sexpr.Node) bool { return n.Head() != "no_connect" })
	}
	for _, s := range stubs {
		stub, marks, labels, power, at, conn := s.stub, s.marks, s.labels, s.power, s.at, s.conn
		if !conn {
			rm = append(rm, wireNodes(stub)...)
			for _, m := range marks {
				rm = append(rm, m.node)
			}
			rm = append(rm, labels...)
			rm = append(rm, power...)
			continue
		}
		if !lenient {
			return nil, nil, nil, fmt.Errorf("it is wired to other objects at (%s, %s); disconnect only removes a stub and its label", mm(at.X), mm(at.Y))
		}
		if len(marks) == 0 {
			// Only the far end joins other wiring: the whole stub goes.
			rm = append(rm, wireNodes(stub)...)
			continue
		}
		first := marks[0]
		rm = append(rm, wireNodes(stub[:first.seg])...)
		if !samePoint(first.pos, first.near) {
			trims = append(trims, trim{stub[first.seg], first.near, first.pos})
		}
		for _, m := range marks {
			if m.node != nil {
				keep[m.node] = true
			}
		}
	}
	// A label on the pin that one stub takes and another keeps (it names
	// the wiring that stub leads to) stays; removing a part's two stubs to
	// one object lists it once. A hierarchical label stays too: it is the
	// sheet's port, which a sheet pin in the parent sheet names, and
	// without it KiCad's ERC reports that sheet pin (hier_label_mismatch)
	// and the net on the parent's side takes the sheet pin's name. Its
	// wire goes, so the label is left unconnected on its sheet, as a port
	// nothing inside uses is. Disconnect cannot leave one sitting on the
	// pin, where it would still connect it.
	var out []*sexpr.Node
	for _, n := range rm {
		if n.Head() == "hierarchical_label" {
			if !lenient && samePoint(pointOf(n.Child("at")), pe.pos) {
				return nil, nil, nil, fmt.Errorf("the hierarchical label %s sits on the pin, and the parent sheet's pin %s needs it; move the label off the pin in KiCad", strconv.Quote(n.Arg(0)), strconv.Quote(n.Arg(0)))
			}
			if !slices.Contains(ports, n) {
				ports = append(ports, n)
			}
			continue
		}
		if !keep[n] && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, trims, ports, nil
}

// keptPorts is the summary line of each hierarchical label stubsOf left
// in place.
func keptPorts(ports []*sexpr.Node) []string {
	var out []string
	for _, n := range ports {
		at := pointOf(n.Child("at"))
		out = append(out, fmt.Sprintf("keep %s at (%s, %s), unconnected on its sheet: the parent sheet's pin %s names it", describeObject(n), mm(at.X), mm(at.Y), strconv.Quote(n.Arg(0))))
	}
	return out
}

// mark is something along a stub short of its far end: a label, or (when
// lenient) a power symbol, that would go with the stub (node), or another
// connection (node nil): a pin, junction, sheet pin, bus entry or another
// wire's end.
type mark struct {
	seg       int         // the stub's segment it is on
	near, pos kicad.Point // that segment's end toward the pin; where the mark is
	node      *sexpr.Node
}

// along lists the marks on stub, nearest the pin first. At the pin itself
// only labels count: other wiring there is the pin's, not the stub's.
func (o *sheetObjects) along(ps *placedSym, pin kicad.Point, stub []wireSeg, far kicad.Point, lenient bool) []mark {
	var marks []mark
	near := pin
	for i, s := range stub {
		var here []mark
		add := func(p kicad.Point, n *sexpr.Node, conn bool) {
			if samePoint(p, far) || !onSegment(p, s.a, s.b) || conn && samePoint(p, pin) {
				return
			}
			here = append(here, mark{i, near, p, n})
		}
		for _, l := range o.labels {
			add(l.pos, l.node, false)
		}
		for _, sp := range o.pins {
			switch {
			case sp.sym.node == ps.node:
			case sp.power != "" && lenient:
				add(sp.pin.pos, sp.sym.node, false)
			default:
				add(sp.pin.pos, nil, true)
			}
		}
		for _, j := range o.junctions {
			add(j.pos, nil, true)
		}
		for _, a := range o.anchors {
			add(a.pos, nil, true)
		}
		for _, w := range o.wires {
			if !inWires(stub, w) {
				add(w.a, nil, true)
				add(w.b, nil, true)
			}
		}
		slices.SortStableFunc(here, func(x, y mark) int {
			return cmp.Compare(dist(near, x.pos), dist(near, y.pos))
		})
		marks = append(marks, here...)
		if samePoint(s.a, near) {
			near = s.b
		} else {
			near = s.a
		}
	}
	return marks
}

// trim moves a wire's end from one point to another along it: the part of
// a stub RemovePart takes short of the wire's other end.
type trim struct {
	wire     wireSeg
	from, to kicad.Point
}

// edit is the splice that rewrites the wire's (xy) at from.
func (t trim) edit() (sexpr.Edit, bool) {
	for xy := range t.wire.node.Child("pts").All("xy") {
		if len(xy.Children) >= 3 && samePoint(pointOf(xy), t.from) {
			return sexpr.Edit{Start: xy.Children[1].Start, End: xy.Children[2].End, Text: mm(t.to.X) + " " + mm(t.to.Y)}, true
		}
	}
	return sexpr.Edit{}, false
}

func dist(a, b kicad.Point) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }

// follow is the stub that starts with wire w, whose far end is far: a stub
// drawn with bends (or a wire KiCad split) goes on through every point
// where exactly one other wire meets it end to end and nothing else is
// there (no junction, label, pin, sheet pin or bus entry, no wire passing
// through). It returns the stub's wires from the pin on and its last far
// end.
func (o *sheetObjects) follow(w wireSeg, far kicad.Point) ([]wireSeg, kicad.Point) {
	stub := []wireSeg{w}
	for !o.occupied(far) {
		var next wireSeg
		n := 0
		for _, x := range o.wires {
			switch {
			case inWires(stub, x):
			case samePoint(x.a, far) || samePoint(x.b, far):
				next, n = x, n+1
			case onSegment(far, x.a, x.b):
				n += 2 // a wire passing through: a branch
			}
		}
		if n != 1 {
			break
		}
		stub = append(stub, next)
		if samePoint(next.a, far) {
			far = next.b
		} else {
			far = next.a
		}
	}
	return stub, far
}

// occupied reports whether anything but wires connects at p: a junction, a
// label, a symbol's pin, a sheet pin or a bus entry.
func (o *sheetObjects) occupied(p kicad.Point) bool {
	if o.jointAt(p) {
		return true
	}
	for _, l := range o.labels {
		if samePoint(l.pos, p) {
			return true
		}
	}
	for _, sp := range o.pins {
		if samePoint(sp.pin.pos, p) {
			return true
		}
	}
	return false
}

// jointAt reports whether a junction, a sheet pin or a bus entry is at p.
func (o *sheetObjects) jointAt(p kicad.Point) bool {
	at := func(x objAt) bool { return samePoint(x.pos, p) }
	return slices.ContainsFunc(o.junctions, at) || slices.ContainsFunc(o.anchors, at)
}

func inWires(ws []wireSeg, w wireSeg) bool {
	return slices.ContainsFunc(ws, func(x wireSeg) bool { return x.node == w.node })
}

func wireNodes(ws []wireSeg) []*sexpr.Node {
	nodes := make([]*sexpr.Node, len(ws))
	for i, w := range ws {
		nodes[i] = w.node
	}
	return nodes
}
