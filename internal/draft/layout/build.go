package layout

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"copperhead/internal/fab"
	"copperhead/internal/kicad"
	"copperhead/internal/kicad/kigen"
	"copperhead/internal/sexpr"
)

// input is everything a draft is computed from; build does no I/O beyond
// what the Libraries and the project's board read.
type input struct {
	project string
	sch     *kicad.Schematic
	netlist *kicad.Netlist
	libs    Libraries
	// board is the project's existing board, for footprints no library
	// holds; nil for none.
	board       *boardSource
	intent      Intent
	rules       designRules
	house       fab.House
	proData     []byte // the drafted .kicad_pro
	symbolPaths map[string]string
	// skip lists nets not to route, with why (DRC faulted their tracks).
	skip map[string]string
}

// draftResult is a board and the facts the report is made of.
type draftResult struct {
	board  []byte
	parts  []*part
	w, h   float64
	stated bool
	routes []netRoute
	tracks []track
	vias   []via
	nets   []netInfo
	// pourNet is the ground net poured on B.Cu ("" for none); pourFill its
	// filled polygons when the zone filler ran.
	pourNet  string
	pourFill []sexpr.Node
	pourNote string // why the pour is unfilled, "" when filled
	// padsByNet are the copper pads of each net, as the router saw them.
	padsByNet map[string][]routePad
	kinds     netKinds
	keepouts  []KeepoutNote
	fromBoard []BoardFootprint
}

// build computes the draft: parts and footprints, the outline, placement,
// routing and the board file's bytes.
func build(in input) (*draftResult, error) {
	parts, nets, fromBoard, err := collectParts(in)
	if err != nil {
		return nil, err
	}
	kinds := classifyNets(nets, in.sch.PowerNets)
	byNet := map[string][]*part{}
	for _, p := range parts {
		seen := map[string]bool{}
		for _, num := range sortedKeys(p.pins) {
			n := p.pins[num].Net
			if !seen[n] {
				seen[n] = true
				byNet[n] = append(byNet[n], p)
			}
		}
	}
	assignRoles(parts, byNet, kinds)

	inset := in.rules.EdgeClearance
	res := &draftResult{parts: parts, nets: nets, kinds: kinds, fromBoard: fromBoard}
	if in.intent.Width > 0 {
		res.w, res.h, res.stated = in.intent.Width, in.intent.Height, true
		if err := checkBoardSize(res.w, res.h); err != nil {
			return nil, fmt.Errorf("LAYOUT.md states %q: %w", in.intent.Source, err)
		}
		if unplaced := placeAll(parts, res.w, res.h, inset, byNet, kinds); len(unplaced) > 0 {
			return nil, fmt.Errorf("the parts do not fit on the %s x %s mm board LAYOUT.md states (%q): no room for %s",
				kigen.Num(res.w), kigen.Num(res.h), in.intent.Source, refList(unplaced))
		}
	} else {
		res.w, res.h = computedSize(parts, inset)
		for attempt := 0; ; attempt++ {
			if err := checkBoardSize(res.w, res.h); err != nil {
				big := largestPart(parts)
				o := big.outline(0)
				return nil, fmt.Errorf("computed from the footprints' area, %w (the largest part, %s (%s), is %.6g x %.6g mm)", err, big.Refdes, big.FootprintID, round4(o.W()), round4(o.H()))
			}
			unplaced := placeAll(parts, res.w, res.h, inset, byNet, kinds)
			if len(unplaced) == 0 {
				break
			}
			if attempt == maxGrowth {
				return nil, fmt.Errorf("could not place %s even on a %s x %s mm board", refList(unplaced), kigen.Num(res.w), kigen.Num(res.h))
			}
			res.w, res.h = math.Ceil(res.w*growFactor), math.Ceil(res.h*growFactor)
		}
		res.w, res.h = cropToParts(parts, res.w, res.h, inset)
	}

	r := &router{rules: in.rules, w: res.w, h: res.h}
	padsByNet := map[string][]routePad{}
	for _, p := range parts {
		for i := range p.fp.Pads {
			pad := &p.fp.Pads[i]
			at := p.padAt(i)
			net := p.pins[pad.Number].Net
			if pad.Number == "" {
				net = ""
			}
			if pad.copper() {
				sh := padShape(pad, at, p.rot)
				clr := math.Max(pad.Clearance, pad.MaskMargin)
				r.maxObstacleClearance = math.Max(r.maxObstacleClearance, clr)
				r.obstacles = append(r.obstacles, obstacle{sh: sh, net: net, layers: [2]bool{pad.Front, pad.Back}, clearance: clr})
				if net != "" {
					padsByNet[net] = append(padsByNet[net], routePad{at: at, layers: [2]bool{pad.Front, pad.Back}, sh: sh})
				}
			}
			if pad.Drill.X > 0 {
				npth := pad.Type == "np_thru_hole"
				hn := net
				if npth {
					hn = ""
				}
				r.obstacles = append(r.obstacles, obstacle{sh: holeShape(pad, at, p.rot), net: hn, layers: [2]bool{true, true}, hole: true, npth: npth})
			}
		}
		r.obstacles = append(r.obstacles, copperArtObstacles(p)...)
		for _, k := range p.fp.Keepouts {
			if k.Tracks {
				box := rotateRect(k.Box, p.rot).Shift(p.pos)
				r.obstacles = append(r.obstacles, obstacle{sh: shape{kind: shapeRect, box: box}, layers: [2]bool{true, true}, keep: true})
			}
		}
		if p.role == roleAntenna {
			switch {
			case p.hasKeepout():
				r.obstacles = append(r.obstacles, obstacle{sh: shape{kind: shapeRect, box: p.keepout}, layers: [2]bool{true, true}, keep: true})
				res.keepouts = append(res.keepouts, KeepoutNote{Refdes: p.Refdes, Source: "added by the draft", Edge: sideNames[p.edge]})
			case len(p.fp.Keepouts) > 0:
				res.keepouts = append(res.keepouts, KeepoutNote{Refdes: p.Refdes, Source: "the footprint's own rule area", Edge: sideNames[p.edge]})
			default:
				res.keepouts = append(res.keepouts, KeepoutNote{Refdes: p.Refdes, Source: "none: the footprint marks no antenna", Edge: sideNames[p.edge]})
			}
		}
	}
	// Pads that share a spot (a module's ground tab array) still count once
	// per pad; the spanning tree skips overlapping pairs.
	res.padsByNet = padsByNet
	res.pourNet = pourNet(nets, kinds, padsByNet)
	if res.routes, err = r.routeNets(padsByNet, kinds, in.skip); err != nil {
		return nil, err
	}
	res.tracks, res.vias = r.tracks, r.vias
	res.board = emit(in, res, r.tracks)
	return res, nil
}

// copperArtObstacles are the placed part's copper graphics (a copper logo)
// as the router sees them: copper of no net, which tracks keep clear of.
func copperArtObstacles(p *part) []obstacle {
	var out []obstacle
	for _, g := range p.fp.copperArt {
		box := rotateRect(g.Box, p.rot).Shift(p.pos)
		out = append(out, obstacle{sh: shape{kind: shapeRect, box: box}, layers: [2]bool{g.Front, g.Back}})
	}
	return out
}

// KeepoutNote says how an antenna's keepout is honoured.
type KeepoutNote struct {
	Refdes string `json:"refdes"`
	Source string `json:"source"` // "the footprint's own rule area", "added by the draft", or why there is none
	Edge   string `json:"edge"`   // the board edge the antenna end sits on
}

func refList(ps []*part) string {
	refs := make([]string, len(ps))
	for i, p := range ps {
		refs[i] = p.Refdes
	}
	slices.SortFunc(refs, kicad.CompareRefdes)
	return strings.Join(refs, ", ")
}

// errMissingFootprints lists every component whose footprint cannot be
// drafted, all at once.
var errMissingFootprints = errors.New("cannot draft the layout")

// collectParts joins the netlist's components (the authority for what is
// on the board) with the schematic's placement data and loads every
// footprint: from its library, else (when no library holds it) from the
// project's board, which fromBoard lists. Components excluded from the
// board are left out.
func collectParts(in input) (parts []*part, nets []netInfo, fromBoard []BoardFootprint, err error) {
	schParts := map[string]*kicad.Part{}
	for i := range in.sch.Parts {
		schParts[in.sch.Parts[i].Refdes] = &in.sch.Parts[i]
	}
	pins := map[string]map[string]netNode{}
	for _, n := range in.netlist.Nets {
		nets = append(nets, netInfo{Name: n.Name, Nodes: n.Nodes})
		for _, nd := range n.Nodes {
			if pins[nd.Refdes] == nil {
				pins[nd.Refdes] = map[string]netNode{}
			}
			pins[nd.Refdes][nd.Pin] = netNode{Net: n.Name, PinFunction: nd.PinFunction, PinType: nd.PinType}
		}
	}
	// The parts of each footprint, so a missing one is named once.
	var comps []kicad.NetComponent
	var fpids []string
	users := map[string][]string{}
	var problems []string
	for _, c := range in.netlist.Components {
		if sp := schParts[c.Refdes]; sp != nil && !sp.OnBoard {
			continue
		}
		if c.Footprint == "" {
			problems = append(problems, c.Refdes+" has no footprint assigned")
			continue
		}
		if users[c.Footprint] == nil {
			fpids = append(fpids, c.Footprint)
		}
		users[c.Footprint] = append(users[c.Footprint], c.Refdes)
		comps = append(comps, c)
	}
	loaded := map[string]*Footprint{}
	for _, id := range fpids {
		refs := users[id]
		slices.SortFunc(refs, kicad.CompareRefdes)
		fp, err := loadFootprint(in.libs, id)
		if errors.Is(err, kigen.ErrNoFootprint) {
			var bf BoardFootprint
			var berr error
			if fp, bf, berr = in.board.footprint(id, refs); berr == nil {
				err = nil
				fromBoard = append(fromBoard, bf)
			} else {
				err = fmt.Errorf("%w, and %w", err, berr)
			}
		}
		if err != nil {
			problems = append(problems, strings.Join(refs, ", ")+": "+err.Error())
			continue
		}
		loaded[id] = fp
	}
	for _, c := range comps {
		fp := loaded[c.Footprint]
		if fp == nil {
			continue
		}
		sp := schParts[c.Refdes]
		p := &part{
			Refdes: c.Refdes, Value: c.Value, LibID: c.LibID, FootprintID: c.Footprint,
			SheetName: "/", SheetFile: filepath.Base(in.sch.Root), Path: in.symbolPaths[c.Refdes],
			fp: fp, pins: pins[c.Refdes], edge: -1,
		}
		if sp != nil {
			p.SheetName = sp.SheetPath
			if sp.SheetFile != "" {
				// As the sheet symbol names it: relative to the root's folder.
				p.SheetFile = sp.SheetFile
			}
		}
		if p.pins == nil {
			p.pins = map[string]netNode{}
		}
		parts = append(parts, p)
	}
	if len(problems) > 0 {
		return nil, nil, nil, fmt.Errorf("%w: %s", errMissingFootprints, strings.Join(problems, "; "))
	}
	if len(parts) == 0 {
		return nil, nil, nil, fmt.Errorf("%w: the schematic has no parts to place on a board", errMissingFootprints)
	}
	slices.SortFunc(parts, func(a, b *part) int { return kicad.CompareRefdes(a.Refdes, b.Refdes) })
	return parts, nets, fromBoard, nil
}

// assignRoles decides each part's role, and for decoupling caps and
// crystals the IC they serve.
func assignRoles(parts []*part, byNet map[string][]*part, kinds netKinds) {
	for _, p := range parts {
		switch {
		case isAntenna(p):
			p.role = roleAntenna
		case isMountingHole(p):
			p.role = roleMounting
		case isConnector(p):
			p.role = roleConnector
		case isIC(p):
			p.role = roleIC
		case isCrystalPart(p) && (refPrefix(p.Refdes) == "Y" || refPrefix(p.Refdes) == "X"):
			p.role = roleCrystal
		}
		p.mate = -1
		if p.role == roleAntenna || p.role == roleConnector {
			p.mate = mateSide(p)
		}
	}
	icOn := func(net string) []*part {
		var out []*part
		for _, q := range byNet[net] {
			if q.role == roleIC || q.role == roleAntenna {
				out = append(out, q)
			}
		}
		return out
	}
	caps := map[*part]int{}
	for _, p := range parts {
		if p.role != roleOther {
			continue
		}
		nets := map[string]bool{}
		for _, pn := range p.pins {
			nets[pn.Net] = true
		}
		if refPrefix(p.Refdes) == "C" && len(nets) == 2 {
			var pwr, gnd string
			for n := range nets {
				switch {
				case kinds.ground[n]:
					gnd = n
				case kinds.power[n]:
					pwr = n
				}
			}
			if pwr == "" || gnd == "" {
				continue
			}
			// The IC whose power input the cap filters: among the ICs with
			// a power-input pin on the cap's net (else any IC on it), the
			// one with the fewest caps per such pin, so a regulator's
			// output does not collect the MCU's caps.
			powerIns := func(ic *part) int {
				n := 0
				for _, pn := range ic.pins {
					if pn.Net == pwr && strings.HasPrefix(pn.PinType, "power_in") {
						n++
					}
				}
				return n
			}
			var cands []*part
			for _, ic := range icOn(pwr) {
				if slices.Contains(byNet[gnd], ic) && powerIns(ic) > 0 {
					cands = append(cands, ic)
				}
			}
			if len(cands) == 0 {
				for _, ic := range icOn(pwr) {
					if slices.Contains(byNet[gnd], ic) {
						cands = append(cands, ic)
					}
				}
			}
			var best *part
			load := func(ic *part) float64 { return float64(caps[ic]) / float64(max(1, powerIns(ic))) }
			for _, ic := range cands {
				if best == nil || load(ic) < load(best) {
					best = ic
				}
			}
			if best != nil {
				p.role, p.anchor, p.anchorNet = roleDecoupling, best, pwr
				caps[best]++
			}
		}
	}
	for _, p := range parts {
		if p.role != roleCrystal {
			continue
		}
		var best *part
		bestN := 0
		for _, num := range sortedKeys(p.pins) {
			for _, ic := range icOn(p.pins[num].Net) {
				if kinds.power[p.pins[num].Net] {
					continue
				}
				n := 0
				for _, pn := range p.pins {
					if slices.Contains(byNet[pn.Net], ic) && !kinds.power[pn.Net] {
						n++
					}
				}
				if n > bestN {
					best, bestN = ic, n
				}
			}
		}
		p.anchor = best
	}
	// A crystal's load caps: a capacitor from one of the crystal's signal
	// pins to ground.
	for _, p := range parts {
		if p.role != roleOther || refPrefix(p.Refdes) != "C" {
			continue
		}
		var sig, gnd string
		for _, pn := range p.pins {
			switch {
			case kinds.ground[pn.Net]:
				gnd = pn.Net
			case !kinds.power[pn.Net]:
				sig = pn.Net
			}
		}
		if sig == "" || gnd == "" {
			continue
		}
		for _, q := range byNet[sig] {
			if q.role == roleCrystal {
				p.role, p.anchor, p.anchorNet = roleLoadCap, q, sig
				break
			}
		}
	}
}

// checkBoardSize refuses an outline the placer and router cannot work on:
// a size that is not a positive finite number (an empty box's extent is
// infinite), or one over maxBoardMM a side, whose routing grid would not
// fit in memory.
func checkBoardSize(w, h float64) error {
	switch {
	case !(w > 0 && h > 0) || math.IsInf(w, 0) || math.IsInf(h, 0):
		return fmt.Errorf("the board outline %g x %g mm is not a finite size", w, h)
	case w > maxBoardMM || h > maxBoardMM:
		return fmt.Errorf("the board outline %.6g x %.6g mm is over %d mm a side: too large to place and route", w, h, maxBoardMM)
	}
	return nil
}

// largestPart is the part of largest outline area (the first of equals).
func largestPart(parts []*part) *part {
	var best *part
	for _, p := range parts {
		if best == nil || p.area() > best.area() {
			best = p
		}
	}
	return best
}

// computedSize is the board size when LAYOUT.md states none: the parts'
// area times fillFactor at a 4:3 aspect, never smaller than the largest
// part plus the edge inset, in whole millimetres.
func computedSize(parts []*part, inset float64) (float64, float64) {
	area, maxW, maxH := 0.0, 0.0, 0.0
	for _, p := range parts {
		for _, r := range p.keepClear(0) {
			rr := r.Inflate(partGap / 2)
			area += rr.W() * rr.H()
		}
		o := p.outline(0).Inflate(partGap / 2)
		d := math.Max(o.W(), o.H())
		if p.role == roleAntenna || p.role == roleConnector {
			// Edge parts may turn: allow for the longer side either way.
			maxW, maxH = math.Max(maxW, d), math.Max(maxH, d)
		} else {
			maxW, maxH = math.Max(maxW, o.W()), math.Max(maxH, o.H())
		}
	}
	area *= fillFactor
	w := math.Sqrt(area * 4 / 3)
	h := area / math.Max(w, 1)
	w = math.Ceil(math.Max(w, maxW+2*inset+1))
	h = math.Ceil(math.Max(h, maxH+2*inset+1))
	return w, h
}

// emit writes the board file.
func emit(in input, res *draftResult, tracks []track) []byte {
	bw := &boardWriter{project: in.project, netID: map[string]int{}, sheets: sheetPaths(in.sch)}
	args := []any{
		kigen.N("version", boardFileVersion), kigen.N("generator", "pcbnew"), kigen.N("generator_version", "9.0"),
		kigen.N("general", kigen.N("thickness", 1.6), kigen.N("legacy_teardrops", kigen.Sym("no"))),
		kigen.N("paper", "A4"),
		kigen.N("title_block", kigen.N("title", in.project),
			kigen.N("comment", 1, DraftMarker+": placement and routing are a first draft, see LAYOUT.md Draft quality")),
		kigen.TwoLayerStack(),
		setupNode(),
		kigen.N("net", 0, ""),
	}
	for i, n := range res.nets {
		bw.netID[n.Name] = i + 1
		args = append(args, kigen.N("net", i+1, bw.netName(n.Name)))
	}
	for _, p := range res.parts {
		args = append(args, bw.footprintNode(p))
	}
	x0, y0 := abs(Pt{X: 0, Y: 0})
	x1, y1 := abs(Pt{X: res.w, Y: res.h})
	args = append(args, kigen.N("gr_rect",
		kigen.N("start", x0, y0), kigen.N("end", x1, y1),
		kigen.N("stroke", kigen.N("width", 0.05), kigen.N("type", kigen.Sym("default"))),
		kigen.N("fill", kigen.Sym("no")), kigen.N("layer", "Edge.Cuts"), bw.uuid("outline")))
	if res.pourNet != "" {
		e := in.rules.EdgeClearance
		args = append(args, bw.pourZone(res.pourNet, layerNames[1], Rect{X0: e, Y0: e, X1: res.w - e, Y1: res.h - e}, in.rules.Clearance, res.pourFill))
	}
	for _, p := range res.parts {
		if p.role == roleAntenna && p.hasKeepout() {
			args = append(args, bw.keepoutZone("antenna keepout "+p.Refdes, p.keepout))
		}
	}
	count := map[string]int{}
	for _, t := range tracks {
		ax, ay := abs(t.a)
		bx, by := abs(t.b)
		k := count[t.net]
		count[t.net] = k + 1
		args = append(args, kigen.N("segment",
			kigen.N("start", ax, ay), kigen.N("end", bx, by),
			kigen.N("width", t.width), kigen.N("layer", layerNames[t.layer]), kigen.N("net", bw.netID[t.net]),
			bw.uuid(fmt.Sprintf("seg/%s/%d", t.net, k))))
	}
	for i, v := range res.vias {
		x, y := abs(v.at)
		args = append(args, kigen.N("via",
			kigen.N("at", x, y), kigen.N("size", in.rules.ViaDiameter), kigen.N("drill", in.rules.ViaDrill),
			kigen.N("layers", "F.Cu", "B.Cu"), kigen.N("net", bw.netID[v.net]),
			bw.uuid(fmt.Sprintf("via/%s/%d", v.net, i))))
	}
	args = append(args, kigen.N("embedded_fonts", kigen.Sym("no")))
	n := kigen.N("kicad_pcb", args...)
	return []byte(kigen.Format(&n))
}

// pourNet is the ground net the B.Cu pour carries: the ground net with the
// most pads (ties by name), "" when no ground net has two pads.
func pourNet(nets []netInfo, kinds netKinds, padsByNet map[string][]routePad) string {
	best := ""
	for _, n := range nets {
		if !kinds.ground[n.Name] || len(padsByNet[n.Name]) < 2 {
			continue
		}
		if best == "" || len(padsByNet[n.Name]) > len(padsByNet[best]) || len(padsByNet[n.Name]) == len(padsByNet[best]) && n.Name < best {
			best = n.Name
		}
	}
	return best
}

// cropToParts trims a computed outline to the placed parts: the union of
// their outlines plus the edge inset, in whole millimetres, every part
// shifted with it. Parts on the right or bottom edge (and corner holes
// there) move out by the rounding, so edge parts stay on their edges; an
// added antenna keepout is computed again for the new outline.
func cropToParts(parts []*part, w, h, inset float64) (float64, float64) {
	box := emptyRect
	for _, p := range parts {
		box = box.Union(p.outline(p.rot).Shift(p.pos))
	}
	if box.Empty() {
		return w, h
	}
	dx, dy := box.X0-inset, box.Y0-inset
	nw := math.Ceil(box.W() + 2*inset - eps)
	nh := math.Ceil(box.H() + 2*inset - eps)
	if nw >= w && nh >= h {
		return w, h
	}
	ex, ey := nw-(box.W()+2*inset), nh-(box.H()+2*inset)
	for _, p := range parts {
		p.pos = Pt{X: round4(p.pos.X - dx), Y: round4(p.pos.Y - dy)}
		c := p.outline(p.rot).Shift(p.pos).Center()
		if p.edge == sideRight || p.role == roleMounting && c.X > nw/2 {
			p.pos.X = round4(p.pos.X + ex)
		}
		if p.edge == sideBottom || p.role == roleMounting && c.Y > nh/2 {
			p.pos.Y = round4(p.pos.Y + ey)
		}
	}
	for _, p := range parts {
		if p.hasKeepout() {
			p.keepout, _ = antennaKeepout(p, nw, nh)
		}
	}
	return nw, nh
}
