package layout

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"copperhead/internal/kicad"
)

// part is one footprint to place: the schematic component, its library
// footprint and where the engine put it.
type part struct {
	Refdes      string
	Value       string
	LibID       string // the symbol's library id
	FootprintID string
	SheetName   string // "/" or "/Power/"
	SheetFile   string
	Path        string // board path of the symbol, "" when unknown
	fp          *Footprint
	pins        map[string]netNode // pad number -> its net

	role      role
	anchor    *part  // the IC a decoupling cap or crystal serves
	anchorNet string // decoupling: the power net it filters
	mate      int    // the side (sideTop...) facing out for edge parts, -1 for none

	// Placement result, board-relative (0,0 is the outline's top-left).
	placed bool
	pos    Pt
	rot    float64
	edge   int // the board edge an edge part sits on, -1 otherwise
	note   string
	// keepout is the antenna keepout the engine added (board coordinates),
	// for an antenna footprint that marks its antenna but carries no rule
	// area of its own; empty otherwise.
	keepout Rect
}

// netNode is a pin's net as the netlist states it.
type netNode struct {
	Net         string
	PinFunction string
	PinType     string
}

// netInfo is a net and its pins, in netlist order.
type netInfo struct {
	Name  string
	Nodes []kicad.NetNode
}

// Sides of a rectangle and edges of the board, clockwise from the top.
const (
	sideTop = iota
	sideRight
	sideBottom
	sideLeft
)

var sideNames = [4]string{"top", "right", "bottom", "left"}

// Placement constants.
const (
	// partGap is the minimum spacing between two parts' keep-clear boxes
	// (courtyard, silkscreen and pads): enough that courtyards never touch
	// and a reference on one part never lands on its neighbour.
	partGap = 0.5
	// placeGrid is the step of candidate positions: fine enough to pack
	// 0402 parts, coarse enough to keep the search fast.
	placeGrid = 0.5
	// fillFactor is the board area per unit of part area a computed board
	// starts from when LAYOUT.md states no size (about 60% density); it
	// grows by growFactor until everything fits (up to maxGrowth attempts),
	// then is cropped to the placed parts (cropToParts): the two-layer
	// router needs room between parts, not an empty margin.
	fillFactor = 2.2
	growFactor = 1.08
	maxGrowth  = 24
	// nearMM is how close a decoupling cap or crystal must end up to the pin
	// it serves for the rule to count as honoured.
	nearMM = 6.0
)

// keepClear is the part's keep-clear area at rotation rot (footprint
// coordinates): its own box (courtyard, silkscreen, the reference text and
// pads) and the footprint's rule areas that forbid other footprints.
func (p *part) keepClear(rot float64) []Rect {
	out := []Rect{p.outline(rot)}
	for _, k := range p.fp.Keepouts {
		if k.Footprints {
			out = append(out, rotateRect(k.Box, rot))
		}
	}
	return out
}

// outline is the part's own box, which must lie inside the board: the
// courtyard (less any stretch outlining a rule area: an antenna module's
// keepout is meant to overhang the board edge), silkscreen, copper
// graphics, the reference text and the pads. A footprint with none of
// these (a logo on the mask, with its reference hidden) is sized by its
// other graphics, and one with nothing at all is a point at its origin:
// an outline is never empty, whose infinite extent would make the board
// infinite.
func (p *part) outline(rot float64) Rect {
	fp := p.fp
	box := fp.ownCourtyard().Union(fp.Silk).Union(fp.Copper).Union(fp.padsBox())
	if p.role == roleAntenna {
		box = box.Union(fp.Body)
	}
	if fp.Ref.Silk {
		box = box.Union(fp.Ref.box(p.Refdes, 0))
	}
	if box.Empty() {
		box = fp.Graphics
	}
	if box.Empty() {
		box = Rect{}
	}
	return rotateRect(box, rot)
}

// hasKeepout reports whether the engine added an antenna keepout for p.
func (p *part) hasKeepout() bool { return p.keepout != (Rect{}) && !p.keepout.Empty() }

// padCenter is the centre of the part's pads at rotation rot.
func (p *part) padCenter(rot float64) Pt {
	b := p.fp.padsBox()
	if b.Empty() {
		return Pt{}
	}
	return rotate(b.Center(), rot)
}

// padAt is the board position of pad i once placed.
func (p *part) padAt(i int) Pt {
	return p.pos.Add(rotate(p.fp.Pads[i].At, p.rot))
}

// mateSide finds the side of an edge part that belongs at the board edge,
// in footprint coordinates: for antenna parts the side of the antenna (its
// rule area, else its "Antenna" note, else the top, where KiCad's module
// footprints draw it); for connectors the side where the body reaches
// furthest past the pads (a USB receptacle's mouth, a right-angle header's
// pins). A symmetric connector has no mating side (-1).
func mateSide(p *part) int {
	fp := p.fp
	pads := fp.padsBox()
	if pads.Empty() {
		return -1
	}
	c := pads.Center()
	if p.role == roleAntenna {
		target, ok := Pt{}, false
		for _, k := range fp.Keepouts {
			target, ok = k.Box.Center(), true
			break
		}
		if !ok && fp.HasAntennaText {
			target, ok = fp.AntennaText, true
		}
		if !ok {
			return sideTop
		}
		return sideOf(target.Sub(c))
	}
	body := fp.Body.Union(fp.Courtyard)
	if body.Empty() {
		return -1
	}
	ext := [4]float64{pads.Y0 - body.Y0, body.X1 - pads.X1, body.Y1 - pads.Y1, pads.X0 - body.X0}
	best, second := -1, math.Inf(-1)
	for s, e := range ext {
		if best < 0 || e > ext[best] {
			if best >= 0 {
				second = math.Max(second, ext[best])
			}
			best = s
		} else {
			second = math.Max(second, e)
		}
	}
	// Less than a millimetre of difference is a symmetric body with
	// courtyard rounding, not a mouth.
	if ext[best]-second < 1 {
		return -1
	}
	return best
}

// Antenna keepout the engine adds when a footprint marks its antenna but
// has no rule area: no copper within antennaMarginMM of the antenna's sides,
// and at least minAntennaDepthMM deep from the board edge.
const (
	antennaMarginMM   = 5.0
	minAntennaDepthMM = 5.0
)

// antennaKeepout is the keepout for a placed antenna part whose footprint
// notes "Antenna" but has no rule area: the antenna end of the body (twice
// the note's distance from the end, at least minAntennaDepthMM deep),
// antennaMarginMM wider on both sides, from the board edge inward, clipped
// to the board.
func antennaKeepout(p *part, w, h float64) (Rect, bool) {
	fp := p.fp
	if len(fp.Keepouts) > 0 || !fp.HasAntennaText || p.mate < 0 {
		return Rect{}, false
	}
	// Work with the antenna end on top, then turn back.
	k := rotationFor(p.mate, sideTop)
	body := rotateRect(fp.Body.Union(fp.padsBox()), k)
	text := rotate(fp.AntennaText, k)
	depth := math.Max(minAntennaDepthMM, 2*(text.Y-body.Y0))
	// The top reaches past the body's end to the board edge (clipped below).
	r := Rect{X0: body.X0 - antennaMarginMM, Y0: body.Y0 - antennaMarginMM, X1: body.X1 + antennaMarginMM, Y1: body.Y0 + depth}
	r = rotateRect(rotateRect(r, -k), p.rot).Shift(p.pos)
	r = Rect{X0: math.Max(r.X0, 0), Y0: math.Max(r.Y0, 0), X1: math.Min(r.X1, w), Y1: math.Min(r.Y1, h)}
	return r, !r.Empty()
}

func sideOf(d Pt) int {
	if math.Abs(d.Y) >= math.Abs(d.X) {
		if d.Y < 0 {
			return sideTop
		}
		return sideBottom
	}
	if d.X > 0 {
		return sideRight
	}
	return sideLeft
}

// rotationFor turns side s to face edge e: each 90° counter-clockwise moves
// a side one step anticlockwise (right becomes top).
func rotationFor(s, e int) float64 {
	if s < 0 {
		return 0
	}
	return float64(((s-e)%4+4)%4) * 90
}

// placer holds the board and what is placed so far.
type placer struct {
	w, h   float64
	inset  float64
	taken  []Rect // keep-clear areas of placed parts, board coordinates
	blocks []Rect // areas no footprint may enter (added antenna keepouts)
	// servedPins are the IC pins (pad indices) a decoupling cap serves.
	servedPins map[*part]map[int]bool
}

// fits reports whether a part whose keep-clear area is kc, shifted to at
// (board coordinates), collides with nothing placed.
func (pl *placer) fits(kc []Rect, at Pt) bool {
	for _, r := range kc {
		r = r.Shift(at)
		for _, t := range pl.taken {
			if r.Overlaps(t) {
				return false
			}
		}
		for _, b := range pl.blocks {
			if r.Overlaps(b) {
				return false
			}
		}
	}
	return true
}

type candidate struct {
	pos Pt
	d   float64
}

// search finds the free position for p at rotation rot closest to target,
// with its outline inside the board. When edge >= 0 the outline's side on
// that edge must sit on it. ok is false when no position fits.
func (pl *placer) search(p *part, rot float64, target Pt, edge int) (Pt, bool) {
	ol := p.outline(rot)
	kc := p.keepClear(rot)
	for i := range kc {
		kc[i] = kc[i].Inflate(partGap / 2)
	}
	pc := p.padCenter(rot)
	lo := Pt{X: pl.inset - ol.X0, Y: pl.inset - ol.Y0}
	hi := Pt{X: pl.w - pl.inset - ol.X1, Y: pl.h - pl.inset - ol.Y1}
	// A range that is not finite, or too wide for the grid of candidates,
	// would never end: such a board or part has no position (build refuses
	// the board first, with the reason).
	if !finiteSpan(lo.X, hi.X) || !finiteSpan(lo.Y, hi.Y) {
		return Pt{}, false
	}
	if lo.X > hi.X+eps || lo.Y > hi.Y+eps {
		return Pt{}, false
	}
	var xs, ys []float64
	grid := func(a, b float64) []float64 {
		var out []float64
		for v := math.Ceil(a/placeGrid-eps) * placeGrid; v <= b+eps; v += placeGrid {
			out = append(out, round4(v))
		}
		if len(out) == 0 {
			out = append(out, round4(a))
		}
		return out
	}
	switch edge {
	case sideTop:
		xs, ys = grid(lo.X, hi.X), []float64{round4(lo.Y)}
	case sideBottom:
		xs, ys = grid(lo.X, hi.X), []float64{round4(hi.Y)}
	case sideLeft:
		xs, ys = []float64{round4(lo.X)}, grid(lo.Y, hi.Y)
	case sideRight:
		xs, ys = []float64{round4(hi.X)}, grid(lo.Y, hi.Y)
	default:
		xs, ys = grid(lo.X, hi.X), grid(lo.Y, hi.Y)
	}
	cands := make([]candidate, 0, len(xs)*len(ys))
	for _, y := range ys {
		for _, x := range xs {
			pos := Pt{X: x, Y: y}
			cands = append(cands, candidate{pos, pos.Add(pc).Dist(target)})
		}
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		if c := cmp.Compare(round4(a.d), round4(b.d)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.pos.Y, b.pos.Y); c != 0 {
			return c
		}
		return cmp.Compare(a.pos.X, b.pos.X)
	})
	for _, c := range cands {
		if pl.fits(kc, c.pos) {
			return c.pos, true
		}
	}
	return Pt{}, false
}

func (pl *placer) commit(p *part, pos Pt, rot float64, edge int) {
	p.pos, p.rot, p.edge, p.placed = pos, rot, edge, true
	for _, r := range p.keepClear(rot) {
		pl.taken = append(pl.taken, r.Inflate(partGap/2).Shift(pos))
	}
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// finiteSpan reports whether a and b are finite and no further apart than
// the largest board allows.
func finiteSpan(a, b float64) bool {
	d := b - a
	return !math.IsNaN(d) && !math.IsInf(d, 0) && math.Abs(d) <= maxBoardMM
}

// placeAll places every part on a w x h board, in rule order. It returns
// the parts that found no room.
func placeAll(parts []*part, w, h, inset float64, nets map[string][]*part, kinds netKinds) []*part {
	pl := &placer{w: w, h: h, inset: inset}
	for _, p := range parts {
		p.placed, p.note, p.edge, p.keepout = false, "", -1, Rect{}
	}
	var unplaced []*part
	center := Pt{X: w / 2, Y: h / 2}
	edgeMid := func(e int) Pt {
		return [4]Pt{{X: w / 2, Y: 0}, {X: w, Y: h / 2}, {X: w / 2, Y: h}, {X: 0, Y: h / 2}}[e]
	}
	byRole := func(r role) []*part {
		var out []*part
		for _, p := range parts {
			if p.role == r {
				out = append(out, p)
			}
		}
		return out
	}

	// Antennas first: they need an edge and the most room around them.
	for _, p := range byRole(roleAntenna) {
		done := false
		for _, e := range []int{sideTop, sideRight, sideLeft, sideBottom} {
			rot := rotationFor(p.mate, e)
			if pos, ok := pl.search(p, rot, edgeMid(e), e); ok {
				pl.commit(p, pos, rot, e)
				p.note = fmt.Sprintf("antenna end on the %s edge", sideNames[e])
				if r, ok := antennaKeepout(p, w, h); ok {
					p.keepout = r
					pl.blocks = append(pl.blocks, r)
				}
				done = true
				break
			}
		}
		if !done {
			unplaced = append(unplaced, p)
		}
	}
	// Connectors round the edges, mouth outward, starting at the bottom.
	order := []int{sideBottom, sideLeft, sideRight, sideTop}
	for i, p := range byRole(roleConnector) {
		done := false
		for k := range order {
			e := order[(i+k)%len(order)]
			rot := rotationFor(p.mate, e)
			if pos, ok := pl.search(p, rot, edgeMid(e), e); ok {
				pl.commit(p, pos, rot, e)
				p.note = fmt.Sprintf("on the %s edge", sideNames[e])
				done = true
				break
			}
		}
		if !done {
			unplaced = append(unplaced, p)
		}
	}
	corners := []Pt{{X: 0, Y: 0}, {X: w, Y: 0}, {X: 0, Y: h}, {X: w, Y: h}}
	for i, p := range byRole(roleMounting) {
		if pos, ok := pl.search(p, 0, corners[i%4], -1); ok {
			pl.commit(p, pos, 0, -1)
			p.note = "in a corner"
		} else {
			unplaced = append(unplaced, p)
		}
	}
	// ICs and large parts, largest first, each at the rotation that brings
	// its pads nearest what they connect to.
	var large []*part
	for _, p := range parts {
		if p.role == roleIC || p.role == roleOther && p.area() >= largePartMM2 {
			large = append(large, p)
		}
	}
	slices.SortStableFunc(large, func(a, b *part) int {
		if c := cmp.Compare(round4(b.area()), round4(a.area())); c != 0 {
			return c
		}
		return cmp.Compare(len(b.fp.Pads), len(a.fp.Pads))
	})
	// What serves a part (its crystal, the crystal's load caps, its
	// decoupling caps) is placed as soon as the part is, so the spots by
	// its pins are theirs before the next large part takes them.
	served := map[*part]int{}
	placeServed := func(anchor *part) {
		for _, r := range []role{roleCrystal, roleLoadCap, roleDecoupling} {
			for _, q := range byRole(r) {
				a := q.anchor
				if r == roleLoadCap && a != nil {
					a = a.anchor // the crystal's IC
				}
				if q.placed || a != anchor || slices.Contains(unplaced, q) {
					continue
				}
				if !pl.placeServing(q, served, nets, kinds, center) {
					unplaced = append(unplaced, q)
				}
			}
		}
	}
	for _, p := range byRole(roleAntenna) {
		if p.placed {
			placeServed(p)
		}
	}
	for _, p := range large {
		if !pl.placeTurning(p, pullTarget(p, nets, kinds, center), nets, kinds) {
			unplaced = append(unplaced, p)
			continue
		}
		placeServed(p)
	}
	// Served parts whose anchor is elsewhere (or none).
	for _, r := range []role{roleCrystal, roleLoadCap, roleDecoupling} {
		for _, q := range byRole(r) {
			if !q.placed && !slices.Contains(unplaced, q) && !pl.placeServing(q, served, nets, kinds, center) {
				unplaced = append(unplaced, q)
			}
		}
	}
	// The rest, most connected to what is placed first.
	var rest []*part
	for _, p := range byRole(roleOther) {
		if !p.placed && !slices.Contains(unplaced, p) {
			rest = append(rest, p)
		}
	}
	for len(rest) > 0 {
		best, bestScore := 0, -1
		for i, p := range rest {
			if s := connections(p, nets, kinds); s > bestScore {
				best, bestScore = i, s
			}
		}
		p := rest[best]
		rest = slices.Delete(rest, best, best+1)
		if !pl.placeTurning(p, pullTarget(p, nets, kinds, center), nets, kinds) {
			unplaced = append(unplaced, p)
		}
	}
	return unplaced
}

// placeServing places a crystal, load cap or decoupling cap at the pin it
// serves, else by connectivity, and notes how near it got. A decoupling
// cap goes to whichever of its IC's pins on its net that no cap serves yet
// (all of them once each has one) it can get nearest to.
func (pl *placer) placeServing(p *part, served map[*part]int, nets map[string][]*part, kinds netKinds, center Pt) bool {
	var targets []Pt
	var pins []int
	if p.role == roleDecoupling && p.anchor != nil && p.anchor.placed {
		ic := p.anchor
		if pl.servedPins == nil {
			pl.servedPins = map[*part]map[int]bool{}
		}
		done := pl.servedPins[ic]
		if done == nil {
			done = map[int]bool{}
			pl.servedPins[ic] = done
		}
		for round := 0; round < 2 && len(pins) == 0; round++ {
			for i := range ic.fp.Pads {
				if ic.pins[ic.fp.Pads[i].Number].Net == p.anchorNet && (round == 1 || !done[i]) {
					pins = append(pins, i)
					targets = append(targets, ic.padAt(i))
				}
			}
			if len(pins) > 0 && round == 1 {
				clear(done)
			}
		}
	} else if t, ok := servedPin(p, served); ok {
		targets = []Pt{t}
	}
	if len(targets) == 0 {
		return pl.placeTurning(p, pullTarget(p, nets, kinds, center), nets, kinds)
	}
	best, bestD := -1, math.Inf(1)
	for i, t := range targets {
		if pos, ok := pl.search(p, 0, t, -1); ok {
			if d := pos.Add(p.padCenter(0)).Dist(t); d < bestD-1e-9 {
				best, bestD = i, d
			}
		}
	}
	if best < 0 {
		return false
	}
	t := targets[best]
	if !pl.placeTurning(p, t, nets, kinds) {
		return false
	}
	if pins != nil {
		pl.servedPins[p.anchor][pins[best]] = true
	}
	d := p.pos.Add(p.padCenter(p.rot)).Dist(t)
	if d <= nearMM {
		p.note = fmt.Sprintf("next to %s (%.1f mm from its pin)", p.anchor.Refdes, d)
	} else {
		p.note = fmt.Sprintf("%.1f mm from %s: no room closer", d, p.anchor.Refdes)
	}
	return true
}

// largePartMM2 is the outline area from which a part that is not an IC is
// placed with the ICs, largest first (a battery holder, a relay, an
// inductor), before the small parts fill in around them: a DIP-8 is about
// 100 mm², an 0603 resistor 5 mm².
const largePartMM2 = 60.0

// area is the part's outline area.
func (p *part) area() float64 {
	o := p.outline(0)
	return o.W() * o.H()
}

// rotations are the turns a part not bound to an edge may take.
var rotations = [4]float64{0, 90, 180, 270}

// placeTurning places p at the free spot nearest target at each of the four
// rotations, and keeps the one whose pads lie nearest the placed pads they
// share nets with (ties: nearest target, then the smaller rotation). It
// reports whether any rotation fit.
func (pl *placer) placeTurning(p *part, target Pt, nets map[string][]*part, kinds netKinds) bool {
	bestRot, bestCost := -1.0, math.Inf(1)
	var bestPos Pt
	turns := rotations[:]
	if p.role != roleIC && p.area() < largePartMM2 {
		// Small parts keep the library's orientation: KiCad draws a turned
		// reference upright, which moves it onto the part's own silkscreen
		// on tight footprints (an 0805 LED's), a DRC silk overlap.
		turns = []float64{0}
	}
	for _, rot := range turns {
		pos, ok := pl.search(p, rot, target, -1)
		if !ok {
			continue
		}
		c := wireCost(p, pos, rot, nets, kinds) + 1e-3*pos.Add(p.padCenter(rot)).Dist(target)
		if c < bestCost-1e-9 {
			bestRot, bestCost, bestPos = rot, c, pos
		}
	}
	if bestRot < 0 {
		return false
	}
	pl.commit(p, bestPos, bestRot, -1)
	return true
}

// wireCost is the summed distance from each of p's pads (p at pos, rot) to
// the centroid of the placed pads on the same net: ground and power count
// too, a decoupling cap's two pads each want their own pin.
func wireCost(p *part, pos Pt, rot float64, nets map[string][]*part, kinds netKinds) float64 {
	cost := 0.0
	for i := range p.fp.Pads {
		net := p.pins[p.fp.Pads[i].Number].Net
		if net == "" || strings.HasPrefix(net, "unconnected-(") {
			continue
		}
		sum, n := addPlacedPads(Pt{}, 0, p, nets[net], net)
		if n == 0 {
			continue
		}
		w := 1.0
		if kinds.ground[net] {
			w = 0.3 // the pour reaches ground pads anywhere
		}
		at := pos.Add(rotate(p.fp.Pads[i].At, rot))
		cost += w * at.Dist(sum.Scale(1/float64(n)))
	}
	return cost
}

// signalNets are the nets of p that pull it towards other parts: every net
// but ground and power (those reach everywhere and would pull everything to
// the middle).
func signalNets(p *part, kinds netKinds) []string {
	var out []string
	seen := map[string]bool{}
	for _, num := range sortedKeys(p.pins) {
		n := p.pins[num].Net
		if n == "" || seen[n] || kinds.power[n] || strings.HasPrefix(n, "unconnected-(") {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

// connections counts p's signal-net links to parts already placed.
func connections(p *part, nets map[string][]*part, kinds netKinds) int {
	n := 0
	for _, net := range signalNets(p, kinds) {
		for _, q := range nets[net] {
			if q != p && q.placed {
				n++
			}
		}
	}
	return n
}

// pullTarget is the centroid of the placed pads p shares a signal net
// with, or dflt when there are none.
func pullTarget(p *part, nets map[string][]*part, kinds netKinds, dflt Pt) Pt {
	var sum Pt
	n := 0
	for _, net := range signalNets(p, kinds) {
		sum, n = addPlacedPads(sum, n, p, nets[net], net)
	}
	if n == 0 {
		return dflt
	}
	return sum.Scale(1 / float64(n))
}

// addPlacedPads adds to sum the position of each pad on net of the placed
// parts among on, p itself left out, and to n their count: the running sum
// of a centroid, in the order the pads come.
func addPlacedPads(sum Pt, n int, p *part, on []*part, net string) (Pt, int) {
	for _, q := range on {
		if q == p || !q.placed {
			continue
		}
		for i := range q.fp.Pads {
			if q.pins[q.fp.Pads[i].Number].Net == net {
				sum = sum.Add(q.padAt(i))
				n++
			}
		}
	}
	return sum, n
}

// servedPin is where a decoupling cap or crystal should go: for a cap, the
// next of its IC's pins on the cap's power net (round robin, so three caps
// on one IC spread over its supply pins); for a crystal, the centroid of the
// IC pins it shares nets with.
func servedPin(p *part, served map[*part]int) (Pt, bool) {
	ic := p.anchor
	if ic == nil || !ic.placed {
		return Pt{}, false
	}
	var pins []int
	for i := range ic.fp.Pads {
		n := ic.pins[ic.fp.Pads[i].Number].Net
		switch p.role {
		case roleDecoupling:
			if n == p.anchorNet {
				pins = append(pins, i)
			}
		case roleLoadCap:
			if n == p.anchorNet {
				pins = append(pins, i)
			}
		case roleCrystal:
			for _, pn := range p.pins {
				if pn.Net == n && n != "" {
					pins = append(pins, i)
					break
				}
			}
		}
	}
	if len(pins) == 0 {
		return Pt{}, false
	}
	if p.role == roleLoadCap {
		return ic.padAt(pins[0]), true
	}
	if p.role == roleDecoupling {
		k := served[ic]
		served[ic] = k + 1
		return ic.padAt(pins[k%len(pins)]), true
	}
	var sum Pt
	for _, i := range pins {
		sum = sum.Add(ic.padAt(i))
	}
	return sum.Scale(1 / float64(len(pins))), true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, kicad.CompareRefdes)
	return keys
}
