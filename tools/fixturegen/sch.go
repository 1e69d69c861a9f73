package main

import (
	"crypto/sha256"
	"fmt"
	"math"
	"sort"

	"copperhead/internal/sexpr"
)

// uid derives a stable UUID from a name.
func uid(name string) string {
	h := sha256.Sum256([]byte("open-telegraph/" + name))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

const stub = 2.54

var (
	rootUUID  = uid("sheet/root")
	powerUUID = uid("sheet/power-symbol")
)

// sheetPath is the instance path of symbols placed on a sheet file.
func sheetPath(sheet string) string {
	if sheet == "power" {
		return "/" + rootUUID + "/" + powerUUID
	}
	return "/" + rootUUID
}

func font(size float64) sexpr.Node { return N("font", N("size", size, size)) }

func effects(justify ...string) sexpr.Node {
	if len(justify) == 0 {
		return N("effects", font(1.27))
	}
	j := make([]any, len(justify))
	for i, s := range justify {
		j[i] = Sym(s)
	}
	return N("effects", font(1.27), N("justify", j...))
}

// pinPoint is a pin's connection point in schematic coordinates and the unit
// vector pointing away from the symbol body.
func pinPoint(p *Part, pin Pin) (Pt, Pt) {
	pos := Pt{X: p.SX + pin.X, Y: p.SY - pin.Y}
	var out Pt
	switch int(math.Round(pin.Angle)) {
	case 0:
		out = Pt{X: -1, Y: 0}
	case 90:
		out = Pt{X: 0, Y: 1}
	case 180:
		out = Pt{X: 1, Y: 0}
	default:
		out = Pt{X: 0, Y: -1}
	}
	return pos, out
}

// labelSpin returns the label angle and justification for a label sitting
// at the end of a stub running in direction out.
func labelSpin(out Pt) (float64, string) {
	switch {
	case out.X > 0:
		return 0, "left"
	case out.X < 0:
		return 180, "right"
	case out.Y < 0:
		return 90, "left"
	default:
		return 270, "right"
	}
}

type schBuilder struct {
	lib     *Library
	syms    map[string]*SymDef
	pwrSeq  int
	items   map[string][]sexpr.Node // per sheet file stem
	used    map[string]map[string]bool
	pinNets map[string]map[string]string // ref -> pin number -> net
}

func (b *schBuilder) sym(libID string) *SymDef {
	if s, ok := b.syms[libID]; ok {
		return s
	}
	s, err := b.lib.Symbol(libID)
	if err != nil {
		panic(err)
	}
	b.syms[libID] = s
	return s
}

func (b *schBuilder) add(sheet string, n sexpr.Node) { b.items[sheet] = append(b.items[sheet], n) }

// placeSymbol emits a symbol instance.
func (b *schBuilder) placeSymbol(p *Part) {
	s := b.sym(p.LibID)
	if b.used[p.Sheet] == nil {
		b.used[p.Sheet] = map[string]bool{}
	}
	b.used[p.Sheet][p.LibID] = true
	id := uid("sym/" + p.Ref)
	var props []any
	for _, name := range []string{"Reference", "Value", "Footprint", "Datasheet", "Description"} {
		lp := s.Prop(name)
		if lp == nil {
			continue
		}
		n := clone(lp)
		switch name {
		case "Reference":
			setArg(&n, 1, str(p.Ref))
		case "Value":
			setArg(&n, 1, str(p.Value))
		case "Footprint":
			setArg(&n, 1, str(p.Footprint))
		}
		at := n.Child("at")
		x, _ := at.Float(0)
		y, _ := at.Float(1)
		a, _ := at.Float(2)
		*at = N("at", p.SX+x, p.SY-y, a)
		props = append(props, n)
	}
	var pins []any
	seen := map[string]bool{}
	for _, pin := range s.Pins {
		if seen[pin.Number] {
			continue
		}
		seen[pin.Number] = true
		pins = append(pins, N("pin", pin.Number, N("uuid", uid("pin/"+p.Ref+"/"+pin.Number))))
	}
	flags := func(k string) Sym {
		if c := s.Node.Child(k); c != nil {
			return Sym(c.Arg(0))
		}
		return "yes"
	}
	args := []any{
		N("lib_id", p.LibID),
		N("at", p.SX, p.SY, 0),
		N("unit", 1),
		N("exclude_from_sim", flags("exclude_from_sim")),
		N("in_bom", flags("in_bom")),
		N("on_board", flags("on_board")),
		N("dnp", Sym("no")),
		N("uuid", id),
	}
	args = append(args, props...)
	args = append(args, pins...)
	args = append(args, N("instances", N("project", project,
		N("path", sheetPath(p.Sheet), N("reference", p.Ref), N("unit", 1)))))
	b.add(p.Sheet, N("symbol", args...))
}

func (b *schBuilder) wire(sheet, key string, a, c Pt) {
	b.add(sheet, N("wire", N("pts", N("xy", a.X, a.Y), N("xy", c.X, c.Y)),
		N("stroke", N("width", 0), N("type", Sym("default"))), N("uuid", uid("wire/"+key))))
}

func isHier(net string) bool {
	for _, h := range hierNets {
		if h == net {
			return true
		}
	}
	return false
}

// connect attaches the stub end at pt (direction out) to net.
func (b *schBuilder) connect(sheet, key, net string, pt, out Pt) {
	switch {
	case net == "GND":
		b.pwrSeq++
		ref := fmt.Sprintf("#PWR%02d", b.pwrSeq)
		b.placeSymbol(&Part{Ref: ref, LibID: "power:GND", Value: "GND", Sheet: sheet, SX: pt.X, SY: pt.Y})
	case sheet == "power" && isHier(net):
		ang, just := labelSpin(out)
		b.add(sheet, N("hierarchical_label", net, N("shape", Sym("bidirectional")), N("at", pt.X, pt.Y, ang),
			effects(just), N("uuid", uid("hlabel/"+key))))
	default:
		ang, just := labelSpin(out)
		shape := Sym("bidirectional")
		switch net {
		case "3V3", "VBUS", "VBAT", "VSYS":
			shape = "passive"
		case "KEY_DIT", "KEY_DAH":
			shape = "input"
		}
		b.add(sheet, N("global_label", net, N("shape", shape), N("at", pt.X, pt.Y, ang),
			N("fields_autoplaced", Sym("yes")), effects(just), N("uuid", uid("glabel/"+key)),
			N("property", "Intersheetrefs", "${INTERSHEET_REFS}", N("at", pt.X, pt.Y, ang),
				N("effects", font(1.27), N("justify", Sym(just)), N("hide", Sym("yes"))))))
	}
}

// wirePart draws stubs, labels and no-connect flags for every pin.
func (b *schBuilder) wirePart(p *Part) {
	s := b.sym(p.LibID)
	type group struct {
		pos, out Pt
		pins     []Pin
		net      string
	}
	var groups []*group
	byPos := map[Pt]*group{}
	for _, pin := range s.Pins {
		pos, out := pinPoint(p, pin)
		g := byPos[pos]
		if g == nil {
			g = &group{pos: pos, out: out}
			byPos[pos] = g
			groups = append(groups, g)
		}
		g.pins = append(g.pins, pin)
		if n := p.Nets[pin.Number]; n != "" {
			if g.net != "" && g.net != n {
				panic(fmt.Sprintf("%s: stacked pins on %s and %s", p.Ref, g.net, n))
			}
			g.net = n
		}
	}
	nets := map[string]string{}
	for _, g := range groups {
		key := fmt.Sprintf("%s/%s", p.Ref, g.pins[0].Number)
		if g.net == "" {
			allNC := true
			for _, pin := range g.pins {
				if pin.Type != "no_connect" {
					allNC = false
				}
			}
			if !allNC {
				b.add(p.Sheet, N("no_connect", N("at", g.pos.X, g.pos.Y), N("uuid", uid("nc/"+key))))
			}
			continue
		}
		for _, pin := range g.pins {
			nets[pin.Number] = g.net
		}
		end := g.pos.Add(g.out.Scale(stub))
		b.wire(p.Sheet, key, g.pos, end)
		b.connect(p.Sheet, key, g.net, end, g.out)
	}
	for num := range p.Nets {
		if _, ok := nets[num]; !ok {
			panic(fmt.Sprintf("%s: pin %s not found", p.Ref, num))
		}
	}
	b.pinNets[p.Ref] = nets
}

func titleBlock(title string) sexpr.Node {
	return N("title_block", N("title", title), N("date", "2025-01-01"), N("rev", "A"),
		N("company", "open-telegraph"), N("comment", 1, "ESP32-S3 Morse keyer, generated by tools/fixturegen"))
}

func (b *schBuilder) libSymbols(sheet string) sexpr.Node {
	var ids []string
	for id := range b.used[sheet] {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var kids []any
	for _, id := range ids {
		kids = append(kids, b.syms[id].Node)
	}
	return N("lib_symbols", kids...)
}

// buildSchematics returns the root and power sheet files plus each footprint
// pin's net.
func buildSchematics(lib *Library, parts []*Part) (root, power string, pinNets map[string]map[string]string) {
	b := &schBuilder{lib: lib, syms: map[string]*SymDef{}, items: map[string][]sexpr.Node{},
		used: map[string]map[string]bool{}, pinNets: map[string]map[string]string{}}
	for _, p := range parts {
		b.placeSymbol(p)
	}
	for _, p := range parts {
		b.wirePart(p)
	}
	// Sheet symbol for the power sheet, with one pin per hierarchical net.
	sx, sy, sw, sh := 215.9, 139.7, 38.1, 25.4
	var pins []any
	for i, net := range hierNets {
		py := sy + 5.08 + float64(i)*5.08
		pins = append(pins, N("pin", net, Sym("bidirectional"), N("at", sx, py, 180),
			N("uuid", uid("sheetpin/"+net)), effects("left")))
		a := Pt{X: sx, Y: py}
		c := Pt{X: sx - stub, Y: py}
		b.wire("root", "sheetpin/"+net, a, c)
		b.connect("root", "sheetpin/"+net, net, c, Pt{X: -1, Y: 0})
	}
	sheetArgs := []any{
		N("at", sx, sy), N("size", sw, sh),
		N("exclude_from_sim", Sym("no")), N("in_bom", Sym("yes")), N("on_board", Sym("yes")), N("dnp", Sym("no")),
		N("fields_autoplaced", Sym("yes")),
		N("stroke", N("width", 0.1524), N("type", Sym("solid"))),
		N("fill", N("color", 0, 0, 0, Sym("0.0000"))),
		N("uuid", powerUUID),
		N("property", "Sheetname", powerSheet, N("at", sx, sy-0.7116, 0), effects("left", "bottom")),
		N("property", "Sheetfile", powerFile, N("at", sx, sy+sh+0.5846, 0), effects("left", "top")),
	}
	sheetArgs = append(sheetArgs, pins...)
	sheetArgs = append(sheetArgs, N("instances", N("project", project, N("path", "/"+rootUUID, N("page", "2")))))
	b.add("root", N("sheet", sheetArgs...))

	file := func(sheet, id, title string, extra ...sexpr.Node) string {
		args := []any{N("version", 20250114), N("generator", "eeschema"), N("generator_version", "9.0"),
			N("uuid", id), N("paper", "A4"), titleBlock(title), b.libSymbols(sheet)}
		for _, it := range b.items[sheet] {
			args = append(args, it)
		}
		for _, e := range extra {
			args = append(args, e)
		}
		args = append(args, N("embedded_fonts", Sym("no")))
		n := N("kicad_sch", args...)
		return format(&n)
	}
	root = file("root", rootUUID, "open-telegraph: MCU, status LED and key inputs",
		N("sheet_instances", N("path", "/", N("page", "1"))))
	power = file("power", uid("sheet/power-file"), "open-telegraph: USB-C power, charger and LDO")
	return root, power, b.pinNets
}
