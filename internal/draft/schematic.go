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

// Drawing constants, in millimetres. Everything lands on the 2.54 mm grid
// (and so on KiCad's 1.27 mm connection grid).
const (
	grid      = 2.54
	stub      = 2.54  // wire from a pin end to its label or power port
	gap       = 7.62  // between parts of a group
	groupGap  = 15.24 // between groups
	margin    = 25.4  // from the paper edge
	titleRoom = 7.62  // above a group, for its name
	charWidth = 1.05  // a label character at 1.27 mm text, generously
	portReach = 5.08  // how far a power port's body reaches beyond the stub
)

// papers are the sheet sizes tried, smallest first (landscape, mm).
var papers = []struct {
	name string
	w, h float64
}{{"A4", 297, 210}, {"A3", 420, 297}, {"A2", 594, 420}, {"A1", 841, 594}, {"A0", 1189, 841}}

// Report says what the schematic engine drew.
type Report struct {
	File       string   `json:"file"`  // the sheet's file name
	Paper      string   `json:"paper"` // A4 .. A0
	Parts      int      `json:"parts"`
	Units      int      `json:"units"` // placed symbol units (a multi-unit part counts each)
	Nets       int      `json:"nets"`
	Labels     int      `json:"labels"`
	PowerPorts int      `json:"power_ports"`
	PowerFlags []string `json:"power_flags"` // nets given a PWR_FLAG
	NoConnects int      `json:"no_connects"`
	Groups     []string `json:"groups"`
}

// pinSpot is one drawn pin position of a placed unit: the pins stacked
// there, where the pin end is relative to the unit's origin, and the unit
// vector pointing away from the body.
type pinSpot struct {
	nums     []string
	off, out point
	net      string
	nc       bool
}

type point struct{ X, Y float64 }

// unitDraw is one unit of a part as it will be drawn.
type unitDraw struct {
	part  *part
	unit  int
	spots []pinSpot
	box   kigen.Rect // extent relative to the unit's origin, labels included
	at    point      // the unit's origin on the sheet, once placed
}

// Schematic draws a validated intent as one KiCad 9 sheet named
// project.kicad_sch and returns its bytes: parts grouped by subsystem on a
// grid, every pin joined to its net by a 2.54 mm stub ending in a local
// label (or a power port for a net KiCad's power library names), no-connect
// flags, and a PWR_FLAG on every net that powers an input but has no
// driver. UUIDs derive from the project and each object's role, so the
// same intent always gives the same bytes.
func Schematic(r *resolved, project string, opts Options) ([]byte, *Report, error) {
	lib := opts.library()
	d := &drawer{lib: lib, project: project, rootUUID: uid(project, "sheet/root"), used: map[string]*kigen.SymDef{}}
	rep := &Report{File: project + ".kicad_sch", Parts: len(r.parts), Nets: len(r.nets)}

	ports := map[string]*kigen.SymDef{} // net -> its power library symbol
	for _, n := range r.nets {
		if s, err := lib.Symbol("power:" + n.Name); err == nil && s.Power {
			ports[n.Name] = s
		}
	}
	label := func(net string) float64 {
		if ports[net] != nil {
			return portReach
		}
		return charWidth*float64(len(net)) + 2.54
	}

	// Units with their pin spots and extents.
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
			byGroup[g] = append(byGroup[g], d.unit(p, u, label))
		}
	}

	// A PWR_FLAG for every net feeding power inputs that nothing drives.
	var flags []*part
	flagSym, flagErr := lib.Symbol("power:PWR_FLAG")
	for _, n := range r.nets {
		in, out := ports[n.Name] != nil, false
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
			byGroup[g] = append(byGroup[g], d.unit(f, 1, label))
		}
	}
	rep.Groups = groups

	// Place: groups in shelves across the smallest paper that holds them.
	var paper string
	var titles []groupTitle
	for _, pp := range papers {
		var h float64
		titles, h = place(groups, byGroup, pp.w-2*margin)
		paper = pp.name
		if h <= pp.h-2*margin {
			break
		}
	}
	rep.Paper = paper

	// Emit.
	var items []sexpr.Node
	for _, t := range titles {
		items = append(items, kigen.N("text", t.name, kigen.N("exclude_from_sim", kigen.Sym("no")),
			kigen.N("at", t.at.X, t.at.Y, 0),
			kigen.N("effects", kigen.N("font", kigen.N("size", 2.54, 2.54), kigen.N("bold", kigen.Sym("yes"))),
				kigen.N("justify", kigen.Sym("left"), kigen.Sym("bottom"))),
			kigen.N("uuid", uid(project, "text/"+t.name))))
	}
	var symbols, wires, labels, ncs, powers []sexpr.Node
	pwr := 0
	for _, g := range groups {
		for _, ud := range byGroup[g] {
			symbols = append(symbols, d.symbol(ud.part, ud.unit, ud.at, ud.part.Ref, ud.part.Value, ud.part.Footprint, ud.part.Fields))
			rep.Units++
			for _, sp := range ud.spots {
				pos := point{ud.at.X + sp.off.X, ud.at.Y + sp.off.Y}
				key := fmt.Sprintf("%s/%d/%s", ud.part.Ref, ud.unit, sp.nums[0])
				switch {
				case sp.nc:
					ncs = append(ncs, kigen.N("no_connect", kigen.N("at", pos.X, pos.Y), kigen.N("uuid", uid(project, "nc/"+key))))
					rep.NoConnects++
				case sp.net != "":
					end := point{snap(pos.X + sp.out.X*stub), snap(pos.Y + sp.out.Y*stub)}
					wires = append(wires, kigen.N("wire", kigen.N("pts", kigen.N("xy", pos.X, pos.Y), kigen.N("xy", end.X, end.Y)),
						kigen.N("stroke", kigen.N("width", 0), kigen.N("type", kigen.Sym("default"))), kigen.N("uuid", uid(project, "wire/"+key))))
					if s := ports[sp.net]; s != nil {
						pwr++
						ref := fmt.Sprintf("#PWR%02d", pwr)
						powers = append(powers, d.symbolDef(s, "power:"+sp.net, 1, end, ref, sp.net, "", nil))
						rep.PowerPorts++
					} else {
						ang, just := labelSpin(sp.out.X, sp.out.Y)
						labels = append(labels, kigen.N("label", sp.net, kigen.N("at", end.X, end.Y, ang),
							kigen.N("fields_autoplaced", kigen.Sym("yes")),
							kigen.N("effects", kigen.N("font", kigen.N("size", 1.27, 1.27)), kigen.N("justify", kigen.Sym(just), kigen.Sym("bottom"))),
							kigen.N("uuid", uid(project, "label/"+key))))
						rep.Labels++
					}
				}
			}
		}
	}
	items = append(items, ncs...)
	items = append(items, wires...)
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
}

// unit computes the pin spots and extent of one unit of p, label reach
// included (label gives a net's reach beyond the stub end).
func (d *drawer) unit(p *part, u int, label func(string) float64) *unitDraw {
	ud := &unitDraw{part: p, unit: u}
	byPos := map[point]int{}
	box := kigen.Rect{X0: -grid, Y0: -grid, X1: grid, Y1: grid}
	grow := func(x, y float64) {
		box = kigen.Rect{X0: min(box.X0, x), Y0: min(box.Y0, y), X1: max(box.X1, x), Y1: max(box.Y1, y)}
	}
	for _, pin := range p.sym.Pins {
		if pin.Unit != 0 && pin.Unit != u {
			continue
		}
		off := point{pin.X, -pin.Y}
		out := pinOut(pin.Angle)
		grow(off.X, off.Y)
		// The pin's length reaches back toward the body: keep it inside.
		net, on := p.nets[pin.Number]
		nc := p.nc[pin.Number]
		if pin.Hidden && !on {
			continue
		}
		i, seen := byPos[off]
		if !seen {
			i = len(ud.spots)
			byPos[off] = i
			ud.spots = append(ud.spots, pinSpot{off: off, out: out})
		}
		sp := &ud.spots[i]
		sp.nums = append(sp.nums, pin.Number)
		switch {
		case on:
			sp.net, sp.nc = net, false
		case nc && sp.net == "" && pin.Type != "no_connect":
			sp.nc = true
		}
		if sp.net != "" {
			reach := stub + label(sp.net)
			grow(off.X+out.X*reach, off.Y+out.Y*reach)
			// A label is about 2 mm tall across the stub direction.
			grow(off.X+out.Y*2.54+out.X*stub, off.Y+out.X*2.54+out.Y*stub)
			grow(off.X-out.Y*2.54+out.X*stub, off.Y-out.X*2.54+out.Y*stub)
		}
	}
	// Room for the reference and value texts beside the body.
	ud.box = kigen.Rect{X0: box.X0 - grid, Y0: box.Y0 - 2*grid, X1: box.X1 + 2*grid, Y1: box.Y1 + 2*grid}
	return ud
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

type groupTitle struct {
	name string
	at   point
}

// place lays groups out in shelves no wider than width (each group's units
// in rows no wider than the group's own width), sets every unit's origin,
// and returns the group titles and the total height used.
func place(groups []string, byGroup map[string][]*unitDraw, width float64) ([]groupTitle, float64) {
	type block struct {
		w, h float64
		rows [][]*unitDraw
	}
	blocks := map[string]*block{}
	for _, g := range groups {
		units := byGroup[g]
		gw := 0.0
		total := 0.0
		for _, u := range units {
			gw = max(gw, u.box.X1-u.box.X0)
			total += u.box.X1 - u.box.X0 + gap
		}
		// Aim for a roughly square group, never wider than the paper.
		target := min(width, max(gw, math.Sqrt(total*maxHeight(units))*1.5, 127))
		b := &block{}
		var row []*unitDraw
		rowW := 0.0
		for _, u := range units {
			w := u.box.X1 - u.box.X0
			if len(row) > 0 && rowW+gap+w > target {
				b.rows = append(b.rows, row)
				row, rowW = nil, 0
			}
			if len(row) > 0 {
				rowW += gap
			}
			row = append(row, u)
			rowW += w
		}
		if len(row) > 0 {
			b.rows = append(b.rows, row)
		}
		for _, row := range b.rows {
			rw, rh := 0.0, 0.0
			for i, u := range row {
				if i > 0 {
					rw += gap
				}
				rw += u.box.X1 - u.box.X0
				rh = max(rh, u.box.Y1-u.box.Y0)
			}
			b.w = max(b.w, rw)
			b.h += rh + gap
		}
		b.h += titleRoom
		blocks[g] = b
	}

	var titles []groupTitle
	x, y, shelfH := margin, margin, 0.0
	for _, g := range groups {
		b := blocks[g]
		if x > margin && x+b.w > margin+width {
			x, y, shelfH = margin, y+shelfH+groupGap, 0
		}
		titles = append(titles, groupTitle{g, point{snap(x), snap(y + titleRoom - grid)}})
		ry := y + titleRoom
		for _, row := range b.rows {
			rx, rh := x, 0.0
			for _, u := range row {
				u.at = point{snapUp(rx - u.box.X0), snapUp(ry - u.box.Y0)}
				rx = u.at.X + u.box.X1 + gap
				rh = max(rh, u.at.Y+u.box.Y1-ry)
			}
			ry += rh + gap
		}
		shelfH = max(shelfH, ry-y)
		x += b.w + groupGap
	}
	return titles, y + shelfH - margin
}

func maxHeight(units []*unitDraw) float64 {
	h := 0.0
	for _, u := range units {
		h = max(h, u.box.Y1-u.box.Y0)
	}
	return h
}

func snap(v float64) float64   { return math.Round(v/grid*1e6) / 1e6 * grid }
func snapUp(v float64) float64 { return math.Ceil(v/grid-1e-6) * grid }

// symbol emits one placed unit of a part.
func (d *drawer) symbol(p *part, unit int, at point, ref, value, footprint string, fields map[string]string) sexpr.Node {
	return d.symbolDef(p.sym, p.LibID, unit, at, ref, value, footprint, fields)
}

func (d *drawer) symbolDef(s *kigen.SymDef, libID string, unit int, at point, ref, value, footprint string, fields map[string]string) sexpr.Node {
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
		kigen.N("at", at.X, at.Y, 0),
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
