package layout

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Routing constants.
const (
	// routeMargin is added to every clearance the router checks, so a track
	// that passes here passes DRC's exact geometry after coordinates are
	// rounded to four decimals.
	routeMargin = 0.02
)

// layerNames are the copper layers the router uses, by index: front first.
var layerNames = [2]string{"F.Cu", "B.Cu"}

// obstacle is copper, a hole or a keepout the router must keep clear of.
type obstacle struct {
	sh     shape
	net    string // "" for no net
	layers [2]bool
	hole   bool // a drilled hole: hole clearance applies, even to its own net's tracks when unplated
	npth   bool
	keep   bool // a rule area forbidding tracks
	// clearance is the copper clearance this obstacle needs when larger than
	// the design rules' (a pad's own clearance or solder mask margin).
	clearance float64
}

// track is one routed segment.
type track struct {
	a, b  Pt
	layer int
	net   string
	width float64
}

// routePad is a pad a net must reach.
type routePad struct {
	at     Pt
	layers [2]bool
	sh     shape
}

// router checks and records tracks on a w x h board.
type router struct {
	rules     designRules
	w, h      float64
	obstacles []obstacle
	tracks    []track
	// maxObstacleClearance is the largest obstacle clearance.
	maxObstacleClearance float64
	// maxTrackWidth is the widest track the router lays, which bounds how
	// far the index lookups must look.
	maxTrackWidth float64
	vias          []via
	idx           *copperIndex
	// routedFrom is the index of the first obstacle the router laid (a
	// via's copper or hole); those before are the footprints'.
	routedFrom int
	// A soft search (rip-up) passes through other nets' routed copper:
	// hit says the step just checked did, conflicts collects their nets.
	soft      bool
	hit       bool
	conflicts map[string]bool
}

// netRoute is the outcome for one net the engine tried.
type netRoute struct {
	Net         string
	Connections int // pad-to-pad connections a spanning tree needs
	Routed      int // of those, the ones now a track
}

// spanningTree returns the pad pairs of a minimum spanning tree over pads
// (Prim's algorithm on centre distance, ties by index: deterministic).
// Overlapping pads are already connected and need no track.
func spanningTree(pads []routePad) [][2]int {
	n := len(pads)
	if n < 2 {
		return nil
	}
	in := make([]bool, n)
	best := make([]float64, n)
	from := make([]int, n)
	for i := range best {
		best[i] = math.Inf(1)
	}
	in[0] = true
	for j := 1; j < n; j++ {
		best[j], from[j] = pads[0].at.Dist(pads[j].at), 0
	}
	var edges [][2]int
	for range n - 1 {
		k := -1
		for j := range n {
			if !in[j] && (k < 0 || best[j] < best[k]) {
				k = j
			}
		}
		in[k] = true
		if !pads[k].sh.bbox().Overlaps(pads[from[k]].sh.bbox()) {
			edges = append(edges, [2]int{from[k], k})
		}
		for j := range n {
			if d := pads[k].at.Dist(pads[j].at); !in[j] && d < best[j] {
				best[j], from[j] = d, k
			}
		}
	}
	return edges
}

// maxPasses bounds rip-up and retry: each pass after the first rips up
// every track and routes the connections the best pass so far failed
// first, then the rest; the pass that routed the most is kept.
const maxPasses = 3

// connJob is one pad-to-pad connection of a net's spanning tree.
type connJob struct {
	net    string
	a, b   routePad
	rank   int // 0 signal, 1 power, 2 ground
	length float64
}

// routeNets routes every net with two or more pads (those in skip left
// alone) as the pad-to-pad connections of its spanning tree, on both
// layers with vias (mazeRoute): signal nets shortest first, then power
// nets at the power width (the signal width where that does not fit),
// ground last (the pour serves it too). Up to maxPasses passes, each
// routing the best pass's failures first, the best kept; then ripUp.
func (r *router) routeNets(padsByNet map[string][]routePad, kinds netKinds, skip map[string]string) ([]netRoute, error) {
	m, err := r.newMaze()
	if err != nil {
		return nil, err
	}
	var jobs []connJob
	nets := sortedKeys(padsByNet)
	for _, net := range nets {
		pads := padsByNet[net]
		if _, ok := skip[net]; ok || len(pads) < 2 || strings.HasPrefix(net, "unconnected-(") {
			continue
		}
		rank := 0
		switch {
		case kinds.ground[net]:
			rank = 2
		case kinds.power[net]:
			rank = 1
		}
		for _, e := range spanningTree(pads) {
			jobs = append(jobs, connJob{net: net, a: pads[e[0]], b: pads[e[1]], rank: rank, length: pads[e[0]].at.Dist(pads[e[1]].at)})
		}
	}
	slices.SortStableFunc(jobs, func(x, y connJob) int {
		if c := cmp.Compare(x.rank, y.rank); c != 0 {
			return c
		}
		return cmp.Compare(round4(x.length), round4(y.length))
	})
	baseObstacles := len(r.obstacles)
	r.routedFrom = baseObstacles
	r.maxTrackWidth = math.Max(r.rules.PowerWidth, r.rules.SignalWidth)
	type outcome struct {
		ok        []bool
		n         int
		tracks    []track
		vias      []via
		obstacles []obstacle
	}
	var best *outcome
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	for pass := 0; pass < maxPasses; pass++ {
		r.tracks, r.vias, r.obstacles = nil, nil, r.obstacles[:baseObstacles:baseObstacles]
		r.buildIndex()
		ok := make([]bool, len(jobs))
		n := 0
		for _, i := range order {
			if r.routeJob(m, jobs[i]) {
				ok[i] = true
				n++
			}
		}
		if best == nil || n > best.n {
			best = &outcome{ok: ok, n: n, tracks: r.tracks, vias: r.vias, obstacles: slices.Clone(r.obstacles)}
		}
		if best.n == len(jobs) {
			break
		}
		// Next pass: the best pass's failures first, in their order.
		var failed, rest []int
		for i := range jobs {
			if best.ok[i] {
				rest = append(rest, i)
			} else {
				failed = append(failed, i)
			}
		}
		order = append(failed, rest...)
	}
	r.tracks, r.vias, r.obstacles = best.tracks, best.vias, best.obstacles
	r.buildIndex()
	r.ripUp(m, jobs, best.ok, baseObstacles)
	byNet := map[string]*netRoute{}
	var out []netRoute
	for i, j := range jobs {
		nr := byNet[j.net]
		if nr == nil {
			nr = &netRoute{Net: j.net}
			byNet[j.net] = nr
		}
		nr.Connections++
		if best.ok[i] {
			nr.Routed++
		}
	}
	for _, net := range nets {
		if nr := byNet[net]; nr != nil {
			out = append(out, *nr)
		}
	}
	return out, nil
}

// routeJob routes one connection: at the power width first for power
// nets, then the signal width.
func (r *router) routeJob(m *maze, j connJob) bool {
	widths := []float64{r.rules.SignalWidth}
	if j.rank > 0 && r.rules.PowerWidth > r.rules.SignalWidth {
		widths = []float64{r.rules.PowerWidth, r.rules.SignalWidth}
	}
	for _, w := range widths {
		if r.mazeRoute(m, j.a, j.b, j.net, w) {
			return true
		}
	}
	return false
}

// maxRipUps bounds the rip-up attempts after the passes.
const maxRipUps = 40

// ripUp tries each connection still unrouted once: a soft search finds its
// way through other nets' routed copper, those nets are ripped up, the
// connection is routed, then the ripped nets' connections again. The
// attempt is kept only when more connections end up routed than before;
// else every track and via is put back. ok is updated in place.
func (r *router) ripUp(m *maze, jobs []connJob, ok []bool, base int) {
	count := func() int {
		n := 0
		for _, v := range ok {
			if v {
				n++
			}
		}
		return n
	}
	attempts := 0
	for i, j := range jobs {
		if ok[i] || attempts >= maxRipUps {
			continue
		}
		attempts++
		rip, found := r.conflictNets(m, j.a, j.b, j.net, r.rules.SignalWidth)
		if !found || len(rip) == 0 {
			continue
		}
		before := count()
		saved := struct {
			tracks    []track
			vias      []via
			obstacles []obstacle
			ok        []bool
		}{slices.Clone(r.tracks), slices.Clone(r.vias), slices.Clone(r.obstacles), slices.Clone(ok)}
		r.removeNets(rip, base)
		for k := range jobs {
			if rip[jobs[k].net] {
				ok[k] = false
			}
		}
		ok[i] = r.routeJob(m, j)
		for k := range jobs {
			if !ok[k] && rip[jobs[k].net] {
				ok[k] = r.routeJob(m, jobs[k])
			}
		}
		if count() <= before {
			r.tracks, r.vias, r.obstacles = saved.tracks, saved.vias, saved.obstacles
			copy(ok, saved.ok)
			r.buildIndex()
		}
	}
}

// removeNets takes every track and via of nets off the board (obstacles
// from base on are the vias' copper and holes) and re-indexes.
func (r *router) removeNets(nets map[string]bool, base int) {
	var tracks []track
	for _, t := range r.tracks {
		if !nets[t.net] {
			tracks = append(tracks, t)
		}
	}
	vias := r.vias
	r.tracks, r.vias, r.obstacles = tracks, nil, r.obstacles[:base:base]
	r.idx = nil
	for _, v := range vias {
		if !nets[v.net] {
			r.addVia(v.at, v.net)
		}
	}
	r.buildIndex()
}

// padShape is a placed pad's copper in board coordinates. Pads at angles
// other than multiples of 90° become the circle around them: the router
// only ever needs a shape at least as large as the copper.
func padShape(p *Pad, at Pt, rot float64) shape {
	ang := normAngle(p.Angle + rot)
	right := math.Mod(ang, 90) == 0
	if !right {
		b := p.Extent
		r := math.Max(math.Hypot(b.X0, b.Y0), math.Hypot(b.X1, b.Y1))
		return shape{kind: shapeCircle, a: at, r: r}
	}
	// The copper sits at the pad position plus its offset from the hole.
	at = at.Add(rotate(p.Offset, ang))
	w, h := p.Size.X, p.Size.Y
	if ang == 90 || ang == 270 {
		w, h = h, w
	}
	switch p.Shape {
	case "circle":
		return shape{kind: shapeCircle, a: at, r: w / 2}
	case "oval":
		if w > h {
			return shape{kind: shapeCapsule, a: Pt{X: at.X - (w-h)/2, Y: at.Y}, b: Pt{X: at.X + (w-h)/2, Y: at.Y}, r: h / 2}
		}
		return shape{kind: shapeCapsule, a: Pt{X: at.X, Y: at.Y - (h-w)/2}, b: Pt{X: at.X, Y: at.Y + (h-w)/2}, r: w / 2}
	case "custom":
		return shape{kind: shapeRect, box: rotateRect(p.Extent.Shift(p.Offset.Scale(-1)), ang).Shift(at)}
	}
	return shape{kind: shapeRect, box: Rect{X0: at.X - w/2, Y0: at.Y - h/2, X1: at.X + w/2, Y1: at.Y + h/2}}
}

// holeShape is a pad's drilled hole in board coordinates.
func holeShape(p *Pad, at Pt, rot float64) shape {
	w, h := p.Drill.X, p.Drill.Y
	ang := normAngle(p.Angle + rot)
	if ang == 90 || ang == 270 {
		w, h = h, w
	}
	switch {
	case w == h || math.Mod(ang, 90) != 0:
		return shape{kind: shapeCircle, a: at, r: math.Max(w, h) / 2}
	case w > h:
		return shape{kind: shapeCapsule, a: Pt{X: at.X - (w-h)/2, Y: at.Y}, b: Pt{X: at.X + (w-h)/2, Y: at.Y}, r: h / 2}
	}
	return shape{kind: shapeCapsule, a: Pt{X: at.X, Y: at.Y - (h-w)/2}, b: Pt{X: at.X, Y: at.Y + (h-w)/2}, r: w / 2}
}
