package draft

import (
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"copperhead/internal/kicad/kigen"
	"copperhead/internal/sexpr"
)

// Drawing constants, in millimetres. Symbol origins land on the 2.54 mm
// grid and every pin end, wire end and label on KiCad's 1.27 mm connection
// grid.
const (
	grid      = 2.54
	stub      = 2.54 // wire from a pin end to its label or power port
	gap       = 5.08 // between the clusters of a group, beyond their drawn extent
	groupGap  = 7.62 // between groups
	margin    = 12.7 // from the paper edge (KiCad's frame is 10 mm)
	titleRoom = 7.62 // above a group, for its name
	labelSize = 1.27 // label and port value font size
)

// papers are the sheet sizes tried, smallest first (landscape, mm).
var papers = []struct {
	name string
	w, h float64
}{{"A4", 297, 210}, {"A3", 420, 297}, {"A2", 594, 420}, {"A1", 841, 594}, {"A0", 1189, 841}}

// Report says what the schematic engine drew.
type Report struct {
	File       string   `json:"file"`  // the sheet's file name
	Paper      string   `json:"paper"` // A4 .. A0, the smallest that holds the drawing
	Parts      int      `json:"parts"`
	Units      int      `json:"units"` // placed symbol units (a multi-unit part counts each)
	Nets       int      `json:"nets"`
	Labels     int      `json:"labels"`
	PowerPorts int      `json:"power_ports"`
	PowerFlags []string `json:"power_flags"` // nets given a PWR_FLAG
	NoConnects int      `json:"no_connects"`
	Groups     []string `json:"groups"`
	// WiredNets are the nets drawn at least partly as wires from pin to
	// pin (a short local net, or a passive hung off the pin it serves);
	// the rest join through labels and power ports.
	WiredNets []string `json:"wired_nets"`
	Junctions int      `json:"junctions"`
	// Legible is true once the legibility check passed: no text overlaps
	// another text, a wire or a body (a sheet that fails it is not
	// returned at all).
	Legible bool `json:"legible"`
}

type point struct{ X, Y float64 }

func (p point) add(q point) point         { return point{p.X + q.X, p.Y + q.Y} }
func (p point) sub(q point) point         { return point{p.X - q.X, p.Y - q.Y} }
func (p point) scale(k float64) point     { return point{p.X * k, p.Y * k} }
func (p point) dot(q point) float64       { return p.X*q.X + p.Y*q.Y }
func (p point) eq(q point) bool           { return math.Abs(p.X-q.X) < 1e-6 && math.Abs(p.Y-q.Y) < 1e-6 }
func (p point) neg() point                { return point{-p.X, -p.Y} }
func (p point) perp(q point) bool         { return math.Abs(p.dot(q)) < 1e-9 }
func (p point) round() point              { return point{round6(p.X), round6(p.Y)} }
func round6(v float64) float64            { return math.Round(v*1e6) / 1e6 }
func (p point) String() string            { return fmt.Sprintf("(%.2f, %.2f)", p.X, p.Y) }
func segBox(a, b point, half float64) box { return ptBox(a, b).grow(half) }

// pinSpot is one drawn pin position of a placed unit: the pins stacked
// there, where the pin end is relative to the unit's origin, and the unit
// vector pointing away from the body.
type pinSpot struct {
	nums     []string
	off, out point
	net      string
	nc       bool
	linked   bool // joined by a wire from pin to pin: no stub of its own
}

// unitDraw is one unit of a part as it will be drawn.
type unitDraw struct {
	part   *part
	unit   int
	key    string // "R1/1": the owner name in the legibility check
	group  string
	geo    symGeo
	spots  []pinSpot
	fields []fieldDraw
	rel    point  // origin relative to its cluster's origin
	o      orient // rotation on the sheet (two-pin parts turn to meet the pin they serve)
	base   *unitDraw
}

// turn sets u's rotation: its spots, geometry and fields become the
// unrotated ones turned by o. A turned unit's fields are written where they
// are drawn, centred (KiCad draws a rotated symbol's field centred where it
// is stored and turns its text with the symbol).
func (u *unitDraw) turn(o orient) {
	if u.base == nil {
		b := *u
		b.spots = slices.Clone(u.spots)
		b.fields = slices.Clone(u.fields)
		u.base = &b
	}
	b := u.base
	u.o = o
	u.spots = u.spots[:0]
	for _, sp := range b.spots {
		sp.off, sp.out = o.apply(sp.off).round(), o.apply(sp.out).round()
		u.spots = append(u.spots, sp)
	}
	u.geo = symGeo{body: o.box(b.geo.body)}
	for _, sh := range b.geo.shapes {
		u.geo.shapes = append(u.geo.shapes, o.box(sh))
	}
	for _, p := range b.geo.pins {
		u.geo.pins = append(u.geo.pins, o.box(p))
	}
	for _, t := range b.geo.texts {
		u.geo.texts = append(u.geo.texts, labelled{t.what, o.box(t.b)})
	}
	u.fields = u.fields[:0]
	for _, f := range b.fields {
		if o != 0 {
			bx := o.box(f.box(point{}))
			f.pos = point{(bx.X0 + bx.X1) / 2, (bx.Y0 + bx.Y1) / 2}.round()
			f.hj, f.vj, f.moved, f.own = "center", "center", true, true
			f.vertical = (bx.Y1 - bx.Y0) > (bx.X1 - bx.X0)
		}
		u.fields = append(u.fields, f)
	}
}

// fieldDraw is one visible field of a placed unit, relative to the unit's
// origin (KiCad's unrotated field frame).
type fieldDraw struct {
	name, text string
	pos        point
	ang        float64
	size       float64
	hj, vj     string
	moved      bool // written at pos with hj and vj, not the library's place
	own        bool // still the library's place, only turned with its symbol
	vertical   bool // drawn reading upward (a turned symbol's field)
}

func (f fieldDraw) box(origin point) box {
	if f.own {
		return justified(f.pos, textWidth(f.text, f.size), textHeight(f.size), f.vertical, "center", "center").move(origin)
	}
	return fieldBox(f.pos, f.ang, f.text, f.size, f.hj, f.vj).move(origin)
}

// portSym is a power library symbol and how it is drawn.
type portSym struct {
	sym     *kigen.SymDef
	geo     symGeo
	natural point // the way its body points at rotation 0 (GND down, +V up)
}

// Schematic draws a validated intent as one KiCad 9 sheet named
// project.kicad_sch and returns its bytes. Parts are grouped by subsystem;
// within a group a two-pin part whose net is short (two or three pins) is
// hung off the pin it serves by a real orthogonal wire (a junction and a
// label where the net goes on), and every other pin is joined to its net by
// a 2.54 mm stub ending in a local label or a power port rotated to point
// away from its pin (several neighbouring pins on one net share one port
// over a short bus). No-connect flags, and a PWR_FLAG on every net that
// powers an input but has no driver. The drawing is on the smallest paper
// it fits and passes the legibility check (no text over another text, a
// wire or a body) or is refused as an engine bug. UUIDs derive from the
// project and each object's role, so the same intent gives the same bytes.
func Schematic(r *resolved, project string, opts Options) ([]byte, *Report, error) {
	lib := opts.library()
	d := &drawer{lib: lib, project: project, rootUUID: uid(project, "sheet/root"), used: map[string]*kigen.SymDef{},
		ports: map[string]*portSym{}, netSize: map[string]int{}, netParts: map[string]int{}}
	rep := &Report{File: project + ".kicad_sch", Parts: len(r.parts), Nets: len(r.nets)}

	for _, n := range r.nets {
		d.netSize[n.Name] = len(n.Pins)
		parts := map[string]bool{}
		for _, key := range n.Pins {
			ref, _, _ := strings.Cut(key, ".")
			parts[ref] = true
		}
		d.netParts[n.Name] = len(parts)
		if s, err := lib.Symbol("power:" + n.Name); err == nil && s.Power {
			d.ports[n.Name] = newPortSym(s)
		}
	}

	// Units with their pin spots, geometry and fields.
	var groups []string
	byGroup := map[string][]*unitDraw{}
	for _, p := range r.parts {
		g := p.Group
		if g == "" {
			g = "main"
		}
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		for _, u := range p.units {
			byGroup[g] = append(byGroup[g], d.unit(p, u, g))
		}
	}

	// A PWR_FLAG for every net feeding power inputs that nothing drives.
	var flags []*part
	flagSym, flagErr := lib.Symbol("power:PWR_FLAG")
	for _, n := range r.nets {
		in, out := d.ports[n.Name] != nil, false
		for _, key := range n.Pins {
			ref, num, _ := strings.Cut(key, ".")
			switch r.byRef[ref].pinByNumber(num).Type {
			case "power_in":
				in = true
			case "power_out":
				out = true
			}
		}
		if !in || out {
			continue
		}
		if flagErr != nil {
			return nil, nil, fmt.Errorf("net %s needs a PWR_FLAG: %w", n.Name, flagErr)
		}
		ref := fmt.Sprintf("#FLG%02d", len(flags)+1)
		flags = append(flags, &part{IntentPart: IntentPart{Ref: ref, LibID: "power:PWR_FLAG", Value: "PWR_FLAG"},
			sym: flagSym, units: []int{1}, nets: map[string]string{"1": n.Name}, nc: map[string]bool{}})
		rep.PowerFlags = append(rep.PowerFlags, n.Name)
	}
	if len(flags) > 0 {
		const g = "power flags"
		groups = append(groups, g)
		for _, f := range flags {
			byGroup[g] = append(byGroup[g], d.unit(f, 1, g))
		}
	}
	rep.Groups = groups

	// Each unit's library fields moved off what the engine draws beside it.
	for _, g := range groups {
		for _, u := range byGroup[g] {
			d.fixFields(u)
		}
	}

	// Clusters: a host and the two-pin parts wired to its pins.
	clusters := map[string][]*cluster{}
	for _, g := range groups {
		clusters[g] = d.clusters(byGroup[g])
	}

	// Place: groups in shelves on the smallest paper that holds them, clear
	// of the title block, trying the intent's group order first, then the
	// tallest groups first, each with groups squarer or wider.
	byHeight := slices.Clone(groups)
	sort.SliceStable(byHeight, func(i, j int) bool { return groupHeight(clusters[byHeight[i]]) > groupHeight(clusters[byHeight[j]]) })
	var paper string
	var titles []groupTitle
	fitted := false
	for _, pp := range papers {
		for _, order := range [][]string{groups, byHeight} {
			for _, aspect := range []float64{1.6, 1, 3} {
				titles = place(order, clusters, pp.w-2*margin, aspect)
				paper = pp.name
				if fits(pp.w, pp.h, titles, groups, clusters) {
					fitted = true
					break
				}
			}
			if fitted {
				break
			}
		}
		if fitted {
			break
		}
	}
	if !fitted {
		titles = place(groups, clusters, papers[len(papers)-1].w-2*margin, 1.6)
	}
	rep.Paper = paper

	// Everything drawn, on the sheet, and the legibility check over it.
	var all drawn
	for _, g := range groups {
		for _, cl := range clusters[g] {
			all.merge(d.render(cl), cl.at)
		}
	}
	for _, t := range titles {
		all.items = append(all.items, item{kind: kindText, owner: "title/" + t.name, what: "group title " + t.name, placed: true,
			b: justified(t.at, titleWidth(t.name), textHeight(2.54), false, "left", "bottom")})
	}
	if err := checkLegible(all.items); err != nil {
		return nil, nil, err
	}
	rep.Legible = true

	// Emit.
	var items []sexpr.Node
	for _, t := range titles {
		items = append(items, kigen.N("text", t.name, kigen.N("exclude_from_sim", kigen.Sym("no")),
			kigen.N("at", t.at.X, t.at.Y, 0),
			kigen.N("effects", kigen.N("font", kigen.N("size", 2.54, 2.54), kigen.N("bold", kigen.Sym("yes"))),
				kigen.N("justify", kigen.Sym("left"), kigen.Sym("bottom"))),
			kigen.N("uuid", uid(project, "text/"+t.name))))
	}
	var symbols, wires, juncs, labels, ncs, powers []sexpr.Node
	for _, g := range groups {
		for _, cl := range clusters[g] {
			for _, u := range cl.members {
				symbols = append(symbols, d.symbolDef(u.part.sym, u.part.LibID, u.unit, cl.at.add(u.rel), float64(u.o),
					u.part.Ref, u.part.Value, u.part.Footprint, u.part.Fields, u.fields))
				rep.Units++
			}
		}
	}
	for _, n := range all.ncs {
		ncs = append(ncs, kigen.N("no_connect", kigen.N("at", n.at.X, n.at.Y), kigen.N("uuid", uid(project, "nc/"+n.key))))
		rep.NoConnects++
	}
	for _, w := range all.wires {
		wires = append(wires, kigen.N("wire", kigen.N("pts", kigen.N("xy", w.a.X, w.a.Y), kigen.N("xy", w.b.X, w.b.Y)),
			kigen.N("stroke", kigen.N("width", 0), kigen.N("type", kigen.Sym("default"))), kigen.N("uuid", uid(project, "wire/"+w.key))))
	}
	for _, j := range all.juncs {
		juncs = append(juncs, kigen.N("junction", kigen.N("at", j.at.X, j.at.Y), kigen.N("diameter", 0),
			kigen.N("color", 0, 0, 0, 0), kigen.N("uuid", uid(project, "junction/"+j.key))))
		rep.Junctions++
	}
	for _, l := range all.labels {
		ang, just := labelSpin(l.out.X, l.out.Y)
		labels = append(labels, kigen.N("label", l.net, kigen.N("at", l.at.X, l.at.Y, ang),
			kigen.N("fields_autoplaced", kigen.Sym("yes")),
			kigen.N("effects", kigen.N("font", kigen.N("size", labelSize, labelSize)), kigen.N("justify", kigen.Sym(just), kigen.Sym("bottom"))),
			kigen.N("uuid", uid(project, "label/"+l.key))))
		rep.Labels++
	}
	for i, p := range all.ports {
		ref := fmt.Sprintf("#PWR%02d", i+1)
		ps := d.ports[p.net]
		powers = append(powers, d.symbolDef(ps.sym, "power:"+p.net, 1, p.at, float64(p.o), ref, p.net, "", nil,
			[]fieldDraw{{name: "Value", text: p.net, pos: p.valuePos.sub(p.at), ang: p.valueAng, size: labelSize, moved: true}}))
		rep.PowerPorts++
	}
	rep.WiredNets = slices.Sorted(mapKeys(all.wired))
	if rep.WiredNets == nil {
		rep.WiredNets = []string{}
	}
	items = append(items, ncs...)
	items = append(items, wires...)
	items = append(items, juncs...)
	items = append(items, labels...)
	items = append(items, symbols...)
	items = append(items, powers...)

	title := r.intent.Title
	if title == "" {
		title = project
	}
	args := []any{kigen.N("version", 20250114), kigen.N("generator", "eeschema"), kigen.N("generator_version", "9.0"),
		kigen.N("uuid", d.rootUUID), kigen.N("paper", paper),
		kigen.N("title_block", kigen.N("title", title), kigen.N("comment", 1, "Drafted by copperhead from a schematic intent; placement is a first draft")),
		d.libSymbols()}
	for _, it := range items {
		args = append(args, it)
	}
	args = append(args, kigen.N("sheet_instances", kigen.N("path", "/", kigen.N("page", "1"))), kigen.N("embedded_fonts", kigen.Sym("no")))
	root := kigen.N("kicad_sch", args...)
	out := []byte(kigen.Format(&root))
	if _, err := sexpr.Parse(rep.File, out); err != nil {
		return nil, nil, fmt.Errorf("drafted sheet does not parse (a copperhead bug): %w", err)
	}
	return out, rep, nil
}

type drawer struct {
	lib      *kigen.Library
	project  string
	rootUUID string
	used     map[string]*kigen.SymDef // lib id -> symbol embedded
	ports    map[string]*portSym      // net -> its power library symbol
	netSize  map[string]int           // net -> pins on it
	netParts map[string]int           // net -> parts with a pin on it
}

func newPortSym(s *kigen.SymDef) *portSym {
	g := unitGeometry(s, 1)
	nat := point{0, -1}
	if g.body.Y0+g.body.Y1 > 0 {
		nat = point{0, 1}
	}
	return &portSym{sym: s, geo: g, natural: nat}
}

// unit computes the pin spots, geometry and visible fields of unit u of p.
func (d *drawer) unit(p *part, u int, group string) *unitDraw {
	ud := &unitDraw{part: p, unit: u, key: fmt.Sprintf("%s/%d", p.Ref, u), group: group, geo: unitGeometry(p.sym, u)}
	byPos := map[point]int{}
	for _, pin := range p.sym.Pins {
		if pin.Unit != 0 && pin.Unit != u {
			continue
		}
		off := point{pin.X, -pin.Y}.round()
		net, on := p.nets[pin.Number]
		if pin.Hidden && !on {
			continue
		}
		i, seen := byPos[off]
		if !seen {
			i = len(ud.spots)
			byPos[off] = i
			ud.spots = append(ud.spots, pinSpot{off: off, out: pinOut(pin.Angle)})
		}
		sp := &ud.spots[i]
		sp.nums = append(sp.nums, pin.Number)
		switch {
		case on:
			sp.net, sp.nc = net, false
		case p.nc[pin.Number] && sp.net == "" && pin.Type != "no_connect":
			sp.nc = true
		}
	}
	ref := p.Ref
	if len(p.units) > 1 {
		ref += string(rune('A' + u - 1))
	}
	for _, name := range []string{"Reference", "Value", "Footprint", "Datasheet", "Description"} {
		lp := p.sym.Prop(name)
		if lp == nil {
			continue
		}
		size, hj, vj, hidden := textEffects(lp)
		if hidden {
			continue
		}
		text := lp.Arg(1)
		switch name {
		case "Reference":
			text = ref
		case "Value":
			text = p.Value
		case "Footprint":
			text = p.Footprint
		}
		if text == "" {
			continue
		}
		at := lp.Child("at")
		ang, _ := at.Float(2)
		ud.fields = append(ud.fields, fieldDraw{name: name, text: text, pos: xyOf(at), ang: ang, size: size, hj: hj, vj: vj})
	}
	return ud
}

// is2pin reports whether u is a two-pin part, both pins on nets.
func (u *unitDraw) is2pin() bool {
	return len(u.spots) == 2 && u.spots[0].net != "" && u.spots[1].net != "" && !u.spots[0].nc && !u.spots[1].nc
}

// pinOut is the unit vector from a pin's end away from the body, on the
// sheet (Y down), for a library pin angle (the pin points from its end
// toward the body along that angle, Y up).
func pinOut(angle float64) point {
	switch int(math.Round(angle)) % 360 {
	case 0:
		return point{-1, 0}
	case 90:
		return point{0, 1}
	case 180:
		return point{1, 0}
	default:
		return point{0, -1}
	}
}

// labelSpin is the angle and justification of a label at the end of a stub
// running in direction (x, y).
func labelSpin(x, y float64) (float64, string) {
	switch {
	case x > 0:
		return 0, "left"
	case x < 0:
		return 180, "right"
	case y < 0:
		return 90, "left"
	default:
		return 270, "right"
	}
}

// labelBox is the drawn extent of a local label at p on a stub running in
// direction out: the text runs on along out, drawn on the upper (left)
// side of the wire line.
func labelBox(p, out point, net string) box {
	w, h := textWidth(net, labelSize), textHeight(labelSize)+0.4
	const lead = 0.3 // KiCad starts the text a little past the anchor
	switch {
	case out.X > 0:
		return box{p.X + lead, p.Y - h, p.X + lead + w, p.Y + 0.1}
	case out.X < 0:
		return box{p.X - lead - w, p.Y - h, p.X - lead, p.Y + 0.1}
	case out.Y < 0:
		return box{p.X - h, p.Y - lead - w, p.X + 0.1, p.Y - lead}
	}
	return box{p.X - h, p.Y + lead, p.X + 0.1, p.Y + lead + w}
}

type groupTitle struct {
	name string
	at   point
}

// titleBlock is where KiCad's default drawing sheet puts the title block
// on a paper w by h: the bottom right corner inside the 10 mm frame.
func titleBlock(w, h float64) box { return box{w - 10 - 112, h - 10 - 36, w - 10, h - 10} }

// fits reports whether the placed clusters and titles lie inside the
// margins of a w by h paper and clear of its title block.
func fits(w, h float64, titles []groupTitle, groups []string, byGroup map[string][]*cluster) bool {
	inner := box{margin, margin, w - margin, h - margin}
	tb := titleBlock(w, h).grow(2.54)
	ok := func(b box) bool {
		return b.X0 >= inner.X0-eps && b.Y0 >= inner.Y0-eps && b.X1 <= inner.X1+eps && b.Y1 <= inner.Y1+eps && !b.overlaps(tb)
	}
	for _, t := range titles {
		if !ok(justified(t.at, titleWidth(t.name), textHeight(2.54), false, "left", "bottom")) {
			return false
		}
	}
	for _, g := range groups {
		for _, c := range byGroup[g] {
			if !ok(c.box.move(c.at)) {
				return false
			}
		}
	}
	return true
}

func groupHeight(cls []*cluster) float64 {
	h := 0.0
	for _, c := range cls {
		h = max(h, c.box.Y1-c.box.Y0)
	}
	return h
}

// place packs each group's clusters (tallest first, bottom-left on a
// skyline) into a block about as wide as its area times aspect under a
// square root, then packs the blocks, in the order given, onto a sheet
// width wide; it sets every cluster's origin and returns the group titles.
func place(groups []string, byGroup map[string][]*cluster, width, aspect float64) []groupTitle {
	type block struct {
		w, h float64
		cls  []*cluster
		pos  []point
	}
	blocks := map[string]*block{}
	for _, g := range groups {
		cls := slices.Clone(byGroup[g])
		sort.SliceStable(cls, func(i, j int) bool { return cls[i].box.Y1-cls[i].box.Y0 > cls[j].box.Y1-cls[j].box.Y0 })
		var sizes []size
		gw, area := 0.0, 0.0
		for _, c := range cls {
			sz := size{snapUp(c.box.X1 - c.box.X0 + gap), snapUp(c.box.Y1 - c.box.Y0 + gap)}
			sizes = append(sizes, sz)
			gw = max(gw, sz.w)
			area += sz.w * sz.h
		}
		target := min(max(width, gw), max(gw, titleWidth(g)+gap, snapUp(math.Sqrt(area*aspect))))
		pos, w, h := skyline(sizes, target)
		blocks[g] = &block{w: max(w, snapUp(titleWidth(g)+gap)), h: h + titleRoom, cls: cls, pos: pos}
	}
	var sizes []size
	for _, g := range groups {
		sizes = append(sizes, size{blocks[g].w + groupGap - gap, blocks[g].h + groupGap - gap})
	}
	at, _, _ := skyline(sizes, snapUp(width+groupGap-gap))
	var titles []groupTitle
	for i, g := range groups {
		b := blocks[g]
		o := point{snap(margin + at[i].X), snap(margin + at[i].Y)}
		titles = append(titles, groupTitle{g, point{o.X, o.Y + titleRoom - grid}})
		for k, c := range b.cls {
			c.at = point{snapUp(o.X + b.pos[k].X - c.box.X0), snapUp(o.Y + titleRoom + b.pos[k].Y - c.box.Y0)}
		}
	}
	return titles
}

type size struct{ w, h float64 }

// skyline packs rectangles in order into a strip width wide, each at the
// lowest spot it fits (leftmost among equals), and returns their top-left
// corners and the width and height used. A rectangle wider than the strip
// goes at its left edge.
func skyline(sizes []size, width float64) ([]point, float64, float64) {
	type seg struct{ x, w, y float64 }
	segs := []seg{{0, width, 0}}
	var out []point
	usedW, usedH := 0.0, 0.0
	for _, s := range sizes {
		bestX, bestY := 0.0, math.Inf(1)
		for _, sg := range segs {
			x := sg.x
			if x > 0 && x+s.w > width+eps {
				continue
			}
			y := 0.0
			for _, o := range segs {
				if o.x < x+s.w-eps && x < o.x+o.w-eps {
					y = max(y, o.y)
				}
			}
			if y < bestY-eps {
				bestX, bestY = x, y
			}
		}
		out = append(out, point{bestX, bestY})
		usedW, usedH = max(usedW, bestX+s.w), max(usedH, bestY+s.h)
		// Raise the skyline under the new rectangle.
		var next []seg
		x0, x1 := bestX, bestX+s.w
		for _, o := range segs {
			if o.x+o.w <= x0+eps || o.x >= x1-eps {
				next = append(next, o)
				continue
			}
			if o.x < x0 {
				next = append(next, seg{o.x, x0 - o.x, o.y})
			}
			if o.x+o.w > x1 {
				next = append(next, seg{x1, o.x + o.w - x1, o.y})
			}
		}
		next = append(next, seg{x0, s.w, bestY + s.h})
		sort.Slice(next, func(i, j int) bool { return next[i].x < next[j].x })
		segs = next
	}
	return out, usedW, usedH
}

// titleWidth is a group title's drawn length (2.54 mm bold).
func titleWidth(name string) float64 { return textWidth(name, 2.54) * 1.15 }

func snap(v float64) float64   { return math.Round(v/grid*1e6) / 1e6 * grid }
func snapUp(v float64) float64 { return math.Ceil(v/grid-1e-6) * grid }

// symbolDef emits one placed unit (or power port) at angle; fields the
// engine placed override the library's position and justification.
func (d *drawer) symbolDef(s *kigen.SymDef, libID string, unit int, at point, angle float64, ref, value, footprint string,
	fields map[string]string, placed []fieldDraw) sexpr.Node {
	d.used[libID] = s
	key := fmt.Sprintf("sym/%s/%d", ref, unit)
	var props []any
	for _, name := range []string{"Reference", "Value", "Footprint", "Datasheet", "Description"} {
		lp := s.Prop(name)
		if lp == nil {
			continue
		}
		n := kigen.Clone(lp)
		switch name {
		case "Reference":
			kigen.SetArg(&n, 1, kigen.Str(ref))
		case "Value":
			kigen.SetArg(&n, 1, kigen.Str(value))
		case "Footprint":
			if footprint != "" {
				kigen.SetArg(&n, 1, kigen.Str(footprint))
			}
		}
		if a := n.Child("at"); a != nil {
			x, _ := a.Float(0)
			y, _ := a.Float(1)
			ang, _ := a.Float(2)
			*a = kigen.N("at", at.X+x, at.Y-y, ang)
		}
		for _, f := range placed {
			if f.name != name || !f.moved {
				continue
			}
			*n.Child("at") = kigen.N("at", round6(at.X+f.pos.X), round6(at.Y+f.pos.Y), f.ang)
			eff := []any{kigen.N("font", kigen.N("size", f.size, f.size))}
			var just []any
			if f.hj == "left" || f.hj == "right" {
				just = append(just, kigen.Sym(f.hj))
			}
			if f.vj == "top" || f.vj == "bottom" {
				just = append(just, kigen.Sym(f.vj))
			}
			if len(just) > 0 {
				eff = append(eff, kigen.N("justify", just...))
			}
			*n.Child("effects") = kigen.N("effects", eff...)
		}
		props = append(props, n)
	}
	for _, k := range slices.Sorted(mapKeys(fields)) {
		if slices.Contains([]string{"Reference", "Value", "Footprint"}, k) {
			continue
		}
		props = append(props, kigen.N("property", k, fields[k], kigen.N("at", at.X, at.Y, 0),
			kigen.N("effects", kigen.N("font", kigen.N("size", 1.27, 1.27)), kigen.N("hide", kigen.Sym("yes")))))
	}
	var pins []any
	seen := map[string]bool{}
	for _, pin := range s.Pins {
		if (pin.Unit != 0 && pin.Unit != unit) || seen[pin.Number] {
			continue
		}
		seen[pin.Number] = true
		pins = append(pins, kigen.N("pin", pin.Number, kigen.N("uuid", uid(d.project, fmt.Sprintf("pin/%s/%d/%s", ref, unit, pin.Number)))))
	}
	flag := func(k string) kigen.Sym {
		if c := s.Node.Child(k); c != nil {
			return kigen.Sym(c.Arg(0))
		}
		return "yes"
	}
	args := []any{
		kigen.N("lib_id", libID),
		kigen.N("at", at.X, at.Y, angle),
		kigen.N("unit", unit),
		kigen.N("exclude_from_sim", flagOr(s, "exclude_from_sim", "no")),
		kigen.N("in_bom", flag("in_bom")),
		kigen.N("on_board", flag("on_board")),
		kigen.N("dnp", kigen.Sym("no")),
		kigen.N("uuid", uid(d.project, key)),
	}
	args = append(args, props...)
	args = append(args, pins...)
	args = append(args, kigen.N("instances", kigen.N("project", d.project,
		kigen.N("path", "/"+d.rootUUID, kigen.N("reference", ref), kigen.N("unit", unit)))))
	return kigen.N("symbol", args...)
}

func flagOr(s *kigen.SymDef, k, dflt string) kigen.Sym {
	if c := s.Node.Child(k); c != nil {
		return kigen.Sym(c.Arg(0))
	}
	return kigen.Sym(dflt)
}

func (d *drawer) libSymbols() sexpr.Node {
	ids := make([]string, 0, len(d.used))
	for id := range d.used {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	kids := make([]any, 0, len(ids))
	for _, id := range ids {
		kids = append(kids, d.used[id].Node)
	}
	return kigen.N("lib_symbols", kids...)
}

// uid derives a stable version-4-shaped UUID from the project and an
// object's role, so a redraw of the same intent gives the same file.
func uid(project, role string) string {
	h := sha256.Sum256([]byte("copperhead-draft/" + project + "/" + role))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}
