package layout

import (
	"container/heap"
	"fmt"
	"math"
)

// The two-layer maze router: A* over a grid of track centre points on
// F.Cu and B.Cu, eight directions, a via to change layer. Every step is
// checked exactly against the copper it passes (pads, holes, keepouts,
// tracks and vias already laid, through a bucket index), with the design
// rules' clearances plus routeMargin, so a path it returns passes DRC's
// geometry; DRC still judges the result (draft.go's repair rounds).

// Router grid and costs.
const (
	// gridPitch is the spacing of track centre points: fine enough to pass
	// between 2.54 mm header pins and to reach 0.5 mm pitch pads from
	// outside, coarse enough that a 100 x 75 mm board is 240 000 points.
	gridPitch = 0.25
	// bucketMM is the side of one cell of the copper index.
	bucketMM = 1.0
	// viaCost is what a via costs in millimetres of track: a via is a
	// drill hit and two pads in the way of other nets, so one is taken only
	// when it saves this much track.
	viaCost = 2.5
	// backCost is the cost factor of B.Cu: the ground pour lives there, so
	// tracks prefer the front and cut the pour only where they must.
	backCost = 1.6
	// maxExpand bounds one connection's search, so a hopeless connection
	// fails quickly instead of flooding the board.
	maxExpand = 300000
	// padReach is how far from a pad's centre the search may join the grid.
	padReach = 1.2
	// ripCost is what passing through another net's routed copper costs a
	// soft (rip-up) search per step, in millimetres of track: high enough
	// that it rips up only what it must.
	ripCost = 3.0
)

// copperIndex buckets obstacles and tracks by area for the router's checks.
type copperIndex struct {
	nx, ny int
	obst   [][]int32 // bucket -> obstacle indices
	trk    [][]int32 // bucket -> track indices
	stampO []uint32  // per obstacle: the query that last saw it
	stampT []uint32
	query  uint32
	near   []int // the buckets of the last buckets call
}

func (r *router) bucketRange(b Rect) (x0, y0, x1, y1 int) {
	ix := r.idx
	clamp := func(v, n int) int { return max(0, min(n-1, v)) }
	return clamp(int(math.Floor(b.X0/bucketMM)), ix.nx), clamp(int(math.Floor(b.Y0/bucketMM)), ix.ny),
		clamp(int(math.Floor(b.X1/bucketMM)), ix.nx), clamp(int(math.Floor(b.Y1/bucketMM)), ix.ny)
}

// buckets lists the buckets b touches, row by row, in a slice the next call
// reuses.
func (r *router) buckets(b Rect) []int {
	ix := r.idx
	x0, y0, x1, y1 := r.bucketRange(b)
	ix.near = ix.near[:0]
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			ix.near = append(ix.near, y*ix.nx+x)
		}
	}
	return ix.near
}

// seen reports whether query q has already visited entry i of stamps (an
// obstacle or track sitting in several buckets), and marks it visited.
func seen(stamps []uint32, i int32, q uint32) bool {
	if stamps[i] == q {
		return true
	}
	stamps[i] = q
	return false
}

// buildIndex indexes every obstacle and track the router holds.
func (r *router) buildIndex() {
	ix := &copperIndex{nx: int(math.Ceil(r.w/bucketMM)) + 1, ny: int(math.Ceil(r.h/bucketMM)) + 1}
	ix.obst = make([][]int32, ix.nx*ix.ny)
	ix.trk = make([][]int32, ix.nx*ix.ny)
	r.idx = ix
	for i := range r.obstacles {
		r.indexObstacle(i)
	}
	for i := range r.tracks {
		r.indexTrack(i)
	}
}

func (r *router) indexObstacle(i int) {
	o := &r.obstacles[i]
	for _, k := range r.buckets(o.sh.bbox().Inflate(o.clearance)) {
		r.idx.obst[k] = append(r.idx.obst[k], int32(i))
	}
	r.idx.stampO = append(r.idx.stampO, 0)
}

func (r *router) indexTrack(i int) {
	t := &r.tracks[i]
	for _, k := range r.buckets(emptyRect.AddPt(t.a).AddPt(t.b).Inflate(t.width / 2)) {
		r.idx.trk[k] = append(r.idx.trk[k], int32(i))
	}
	r.idx.stampT = append(r.idx.stampT, 0)
}

// addTrack lays a track and indexes it.
func (r *router) addTrack(t track) {
	r.tracks = append(r.tracks, t)
	if r.idx != nil {
		r.indexTrack(len(r.tracks) - 1)
	}
}

// addVia lays a via: its copper on both layers and its hole.
func (r *router) addVia(p Pt, net string) {
	r.vias = append(r.vias, via{at: p, net: net})
	rad := r.rules.ViaDiameter / 2
	r.obstacles = append(r.obstacles,
		obstacle{sh: shape{kind: shapeCircle, a: p, r: rad}, net: net, layers: [2]bool{true, true}},
		obstacle{sh: shape{kind: shapeCircle, a: p, r: r.rules.ViaDrill / 2}, net: net, layers: [2]bool{true, true}, hole: true})
	if r.idx != nil {
		r.indexObstacle(len(r.obstacles) - 2)
		r.indexObstacle(len(r.obstacles) - 1)
	}
}

// via is a routed through via.
type via struct {
	at  Pt
	net string
}

// segFree is segOK through the index: whether a track a-b of width on
// layer for net clears the board edge, other nets' copper, holes, keepouts,
// tracks and vias.
func (r *router) segFree(a, b Pt, layer int, net string, width float64) bool {
	half := width / 2
	e := r.rules.EdgeClearance + half + routeMargin
	if a.X < e || a.Y < e || a.X > r.w-e || a.Y > r.h-e || b.X < e || b.Y < e || b.X > r.w-e || b.Y > r.h-e {
		return false
	}
	reach := math.Max(r.rules.Clearance, r.rules.HoleClearance) + half + routeMargin
	seg := emptyRect.AddPt(a).AddPt(b).Inflate(reach + r.maxTrackWidth/2)
	ix := r.idx
	ix.query++
	q := ix.query
	for _, k := range r.buckets(seg) {
		for _, oi := range ix.obst[k] {
			if seen(ix.stampO, oi, q) {
				continue
			}
			o := &r.obstacles[oi]
			if !o.layers[layer] {
				continue
			}
			var need float64
			switch {
			case o.keep:
				need = half + routeMargin
			case o.hole:
				if o.net == net && !o.npth {
					continue
				}
				need = r.rules.HoleClearance + half + routeMargin
			default:
				if o.net == net && net != "" {
					continue
				}
				need = math.Max(r.rules.Clearance, o.clearance) + half + routeMargin
			}
			if o.sh.segDist(a, b) < need {
				if r.softOK(int(oi), o.net) {
					continue
				}
				return false
			}
		}
		for _, ti := range ix.trk[k] {
			if seen(ix.stampT, ti, q) {
				continue
			}
			t := &r.tracks[ti]
			if t.layer != layer || t.net == net {
				continue
			}
			if segSegDist(a, b, t.a, t.b) < r.rules.Clearance+half+t.width/2+routeMargin {
				if r.softOK(r.routedFrom, t.net) {
					continue
				}
				return false
			}
		}
	}
	return true
}

// viaFree reports whether a via for net fits at p: its copper clears other
// nets' copper and tracks on both layers and the board edge, its hole keeps
// hole-to-hole from every other hole, and no keepout covers it.
func (r *router) viaFree(p Pt, net string) bool {
	rad := r.rules.ViaDiameter / 2
	e := r.rules.EdgeClearance + rad + routeMargin
	if p.X < e || p.Y < e || p.X > r.w-e || p.Y > r.h-e {
		return false
	}
	drill := r.rules.ViaDrill / 2
	reach := math.Max(r.rules.Clearance, math.Max(r.rules.HoleClearance, r.rules.HoleToHole)) + rad + routeMargin
	box := Rect{X0: p.X, Y0: p.Y, X1: p.X, Y1: p.Y}.Inflate(reach + r.maxTrackWidth/2)
	ix := r.idx
	ix.query++
	q := ix.query
	for _, k := range r.buckets(box) {
		for _, oi := range ix.obst[k] {
			if seen(ix.stampO, oi, q) {
				continue
			}
			o := &r.obstacles[oi]
			d := o.sh.segDist(p, p)
			switch {
			case o.keep:
				if d < rad+routeMargin {
					return false
				}
			case o.hole:
				// Hole to hole, whatever the nets; copper to a foreign hole.
				if d < drill+r.rules.HoleToHole+routeMargin || o.net != net && d < rad+r.rules.HoleClearance+routeMargin {
					if o.net != net && r.softOK(int(oi), o.net) {
						continue
					}
					return false
				}
			default:
				if o.net == net && net != "" {
					continue
				}
				if d < rad+math.Max(r.rules.Clearance, o.clearance)+routeMargin {
					if r.softOK(int(oi), o.net) {
						continue
					}
					return false
				}
			}
		}
		for _, ti := range ix.trk[k] {
			if seen(ix.stampT, ti, q) {
				continue
			}
			t := &r.tracks[ti]
			if t.net == net {
				continue
			}
			if pointSegDist(p, t.a, t.b) < rad+r.rules.Clearance+t.width/2+routeMargin {
				if r.softOK(r.routedFrom, t.net) {
					continue
				}
				return false
			}
		}
	}
	return true
}

// gridNode is a grid point on a layer, packed as (layer*ny+iy)*nx+ix.
type gridNode int32

type openItem struct {
	n gridNode
	f float64
}

type openHeap []openItem

func (h openHeap) Len() int { return len(h) }
func (h openHeap) Less(i, j int) bool {
	if h[i].f != h[j].f {
		return h[i].f < h[j].f
	}
	return h[i].n < h[j].n
}
func (h openHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *openHeap) Push(x any)   { *h = append(*h, x.(openItem)) }
func (h *openHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// maze is the A* state, reused across connections.
type maze struct {
	nx, ny int
	g      []float64
	from   []gridNode
	seen   []uint32 // generation that set g
	closed []uint32
	gen    uint32
}

// newMaze allocates the A* state for the router's board; a board whose
// size is not finite, or is over maxBoardMM a side, is refused before
// anything is allocated (its grid would not fit in memory).
func (r *router) newMaze() (*maze, error) {
	if err := checkBoardSize(r.w, r.h); err != nil {
		return nil, fmt.Errorf("route: %w", err)
	}
	nx, ny := int(r.w/gridPitch)+1, int(r.h/gridPitch)+1
	n := nx * ny * 2
	return &maze{nx: nx, ny: ny, g: make([]float64, n), from: make([]gridNode, n), seen: make([]uint32, n), closed: make([]uint32, n)}, nil
}

func (m *maze) node(ix, iy, l int) gridNode { return gridNode((l*m.ny+iy)*m.nx + ix) }

func (m *maze) split(n gridNode) (ix, iy, l int) {
	v := int(n)
	ix, v = v%m.nx, v/m.nx
	iy, l = v%m.ny, v/m.ny
	return
}

func (m *maze) pt(n gridNode) Pt {
	ix, iy, _ := m.split(n)
	return Pt{X: float64(ix) * gridPitch, Y: float64(iy) * gridPitch}
}

// padNodes are the grid points a track can reach from a pad's centre on
// layer l, each by its exit: a straight run when the point lies on a
// horizontal, vertical or 45° line through the centre, else an L of a
// horizontal and a vertical run (whichever clears first). A track that
// leaves a rectangular pad at any other angle leaves a thin wedge of pad
// copper beside it, which DRC reports as a copper sliver.
func (r *router) padNodes(m *maze, p routePad, l int, net string, width float64) map[gridNode]padExit {
	out := map[gridNode]padExit{}
	if !p.layers[l] {
		return out
	}
	b := p.sh.bbox()
	reach := math.Max(padReach, math.Hypot(b.W(), b.H())/2+gridPitch)
	x0, x1 := int(math.Ceil((p.at.X-reach)/gridPitch)), int(math.Floor((p.at.X+reach)/gridPitch))
	y0, y1 := int(math.Ceil((p.at.Y-reach)/gridPitch)), int(math.Floor((p.at.Y+reach)/gridPitch))
	for iy := max(0, y0); iy <= min(m.ny-1, y1); iy++ {
		for ix := max(0, x0); ix <= min(m.nx-1, x1); ix++ {
			q := Pt{X: float64(ix) * gridPitch, Y: float64(iy) * gridPitch}
			if q.Dist(p.at) > reach {
				continue
			}
			if e, ok := r.exit(p.at, q, l, net, width); ok {
				out[m.node(ix, iy, l)] = e
			}
		}
	}
	return out
}

// padExit is how a track leaves a pad's centre for a grid point: through
// corner (the pad centre itself for a straight exit), and its length.
type padExit struct {
	corner Pt
	length float64
}

// exit finds the way from a pad centre c to grid point q (see padNodes).
func (r *router) exit(c, q Pt, l int, net string, width float64) (padExit, bool) {
	d := q.Sub(c)
	ax, ay := math.Abs(d.X), math.Abs(d.Y)
	if ax < eps || ay < eps || math.Abs(ax-ay) < eps {
		if r.segFree(c, q, l, net, width) {
			return padExit{corner: c, length: q.Dist(c)}, true
		}
		return padExit{}, false
	}
	for _, k := range []Pt{{X: q.X, Y: c.Y}, {X: c.X, Y: q.Y}} {
		if r.segFree(c, k, l, net, width) && r.segFree(k, q, l, net, width) {
			return padExit{corner: k, length: ax + ay}, true
		}
	}
	return padExit{}, false
}

var dirs = [8][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}}

// mazeRoute finds a path for net from pad a to pad b at width, and lays
// it (tracks and vias). It reports whether it found one.
func (r *router) mazeRoute(m *maze, a, b routePad, net string, width float64) bool {
	// A straight or L-shaped track first (pad exits kept square, as in
	// exit): the common case for neighbours.
	for l := range 2 {
		if !a.layers[l] || !b.layers[l] {
			continue
		}
		if e, ok := r.exit(a.at, b.at, l, net, width); ok {
			if e.corner.Dist(a.at) > eps {
				r.addTrack(track{a: a.at, b: e.corner, layer: l, net: net, width: width})
			}
			r.addTrack(track{a: e.corner, b: b.at, layer: l, net: net, width: width})
			return true
		}
	}
	path, ea, eb, ok := r.search(m, a, b, net, width)
	if !ok {
		return false
	}
	r.layPath(m, a, b, path, net, width, ea, eb)
	return true
}

// search is mazeRoute's A*: the grid path from a pad exit of a to one of
// b, and both exits.
func (r *router) search(m *maze, a, b routePad, net string, width float64) ([]gridNode, padExit, padExit, bool) {
	m.gen++
	gen := m.gen
	layerCost := [2]float64{1, backCost}
	targets := map[gridNode]float64{}
	targetExit := map[gridNode]padExit{}
	for l := range 2 {
		for n, e := range r.padNodes(m, b, l, net, width) {
			targets[n], targetExit[n] = e.length*layerCost[l], e
		}
	}
	if len(targets) == 0 {
		return nil, padExit{}, padExit{}, false
	}
	h := func(n gridNode) float64 { return m.pt(n).Dist(b.at) }
	open := &openHeap{}
	startExit := map[gridNode]padExit{}
	for l := range 2 {
		for n, e := range r.padNodes(m, a, l, net, width) {
			startExit[n] = e
			d := e.length
			if m.seen[n] != gen || d*layerCost[l] < m.g[n] {
				m.seen[n], m.g[n], m.from[n] = gen, d*layerCost[l], -1
				heap.Push(open, openItem{n, m.g[n] + h(n)})
			}
		}
	}
	best, bestCost := gridNode(-1), math.Inf(1)
	expanded := 0
	for open.Len() > 0 && expanded < maxExpand {
		it := heap.Pop(open).(openItem)
		n := it.n
		if m.closed[n] == gen {
			continue
		}
		if it.f >= bestCost {
			break
		}
		m.closed[n] = gen
		expanded++
		if d, ok := targets[n]; ok && m.g[n]+d < bestCost {
			best, bestCost = n, m.g[n]+d
		}
		ix, iy, l := m.split(n)
		p := m.pt(n)
		relax := func(nb gridNode, cost float64) {
			if m.closed[nb] == gen {
				return
			}
			g := m.g[n] + cost
			if m.seen[nb] == gen && g >= m.g[nb] {
				return
			}
			m.seen[nb], m.g[nb], m.from[nb] = gen, g, n
			heap.Push(open, openItem{nb, g + h(nb)})
		}
		for _, d := range dirs {
			jx, jy := ix+d[0], iy+d[1]
			if jx < 0 || jy < 0 || jx >= m.nx || jy >= m.ny {
				continue
			}
			nb := m.node(jx, jy, l)
			if m.closed[nb] == gen {
				continue
			}
			q := Pt{X: float64(jx) * gridPitch, Y: float64(jy) * gridPitch}
			r.hit = false
			if !r.segFree(p, q, l, net, width) {
				continue
			}
			step := gridPitch
			if d[0] != 0 && d[1] != 0 {
				step *= math.Sqrt2
			}
			cost := step * layerCost[l]
			if r.hit {
				cost += ripCost
			}
			relax(nb, cost)
		}
		other := m.node(ix, iy, 1-l)
		r.hit = false
		if m.closed[other] != gen && !r.viaBehind(m, n, p) && r.viaFree(p, net) {
			cost := viaCost
			if r.hit {
				cost += ripCost
			}
			relax(other, cost)
		}
	}
	if best < 0 {
		return nil, padExit{}, padExit{}, false
	}
	// Walk back: grid points, a via wherever the layer changes.
	var path []gridNode
	for n := best; n >= 0; n = m.from[n] {
		path = append(path, n)
	}
	// path runs from b's side to a's side; lay it from a.
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path, startExit[path[0]], targetExit[path[len(path)-1]], true
}

// softOK, in a soft search (rip-up), lets a path through another net's
// routed copper (a track, or an obstacle at index routedFrom or later: a
// via) and notes it: hit for the step's cost, conflicts for the nets to rip
// up. Pads, holes of footprints and keepouts stay hard.
func (r *router) softOK(obstacleIndex int, net string) bool {
	if !r.soft || obstacleIndex < r.routedFrom {
		return false
	}
	r.hit = true
	if r.conflicts != nil {
		r.conflicts[net] = true
	}
	return true
}

// conflictNets is the soft search's path from a to b for net, and the
// other nets whose routed copper it passes (to be ripped up); ok is false
// when even that finds no way.
func (r *router) conflictNets(m *maze, a, b routePad, net string, width float64) (map[string]bool, bool) {
	r.soft = true
	defer func() { r.soft, r.conflicts = false, nil }()
	path, ea, eb, ok := r.search(m, a, b, net, width)
	if !ok {
		return nil, false
	}
	r.conflicts = map[string]bool{}
	pt := func(i int) (Pt, int) {
		_, _, l := m.split(path[i])
		return m.pt(path[i]), l
	}
	p0, l0 := pt(0)
	r.exitFree(a.at, ea, p0, l0, net, width)
	for i := 0; i+1 < len(path); i++ {
		p, l := pt(i)
		q, lq := pt(i + 1)
		if l != lq {
			r.viaFree(p, net)
		} else {
			r.segFree(p, q, l, net, width)
		}
	}
	pn, ln := pt(len(path) - 1)
	r.exitFree(b.at, eb, pn, ln, net, width)
	delete(r.conflicts, net)
	return r.conflicts, true
}

// exitFree checks a pad exit's legs (recording conflicts in a soft search).
func (r *router) exitFree(c Pt, e padExit, q Pt, l int, net string, width float64) {
	if e.corner.Dist(c) > eps {
		r.segFree(c, e.corner, l, net, width)
	}
	r.segFree(e.corner, q, l, net, width)
}

// layPath turns a grid path into tracks (each straight run pulled as
// tight as the copper allows) and vias.
func (r *router) layPath(m *maze, a, b routePad, path []gridNode, net string, width float64, ea, eb padExit) {
	type run struct {
		layer int
		pts   []Pt
	}
	var runs []run
	for i, n := range path {
		_, _, l := m.split(n)
		p := m.pt(n)
		if i == 0 || l != runs[len(runs)-1].layer {
			if i > 0 {
				r.addVia(p, net)
			}
			runs = append(runs, run{layer: l})
		}
		runs[len(runs)-1].pts = append(runs[len(runs)-1].pts, p)
	}
	for i, rn := range runs {
		pts := r.pull(rn.pts, rn.layer, net, width)
		// The pad exits stay as exit found them: square to the pad.
		if i == 0 {
			pts = append(exitPts(a.at, ea), pts...)
		}
		if i == len(runs)-1 {
			pts = append(pts, reverse(exitPts(b.at, eb))...)
		}
		for i := 0; i+1 < len(pts); i++ {
			if pts[i].Dist(pts[i+1]) > eps {
				r.addTrack(track{a: pts[i], b: pts[i+1], layer: rn.layer, net: net, width: width})
			}
		}
	}
}

// pull shortens a run: from each kept point, the farthest later point a
// straight track reaches clear of everything (within a window), then
// collinear points merged.
func (r *router) pull(pts []Pt, layer int, net string, width float64) []Pt {
	const window = 24
	out := []Pt{pts[0]}
	i := 0
	for i < len(pts)-1 {
		j := i + 1
		for k := min(len(pts)-1, i+window); k > i+1; k-- {
			if r.segFree(pts[i], pts[k], layer, net, width) {
				j = k
				break
			}
		}
		out = append(out, pts[j])
		i = j
	}
	return out
}

// exitPts are the points from a pad centre c to its exit's grid point,
// the grid point left out.
func exitPts(c Pt, e padExit) []Pt {
	if e.corner.Dist(c) > eps {
		return []Pt{c, e.corner}
	}
	return []Pt{c}
}

func reverse(p []Pt) []Pt {
	out := make([]Pt, len(p))
	for i := range p {
		out[len(p)-1-i] = p[i]
	}
	return out
}

// viaBehind reports whether the path reaching n changed layer (laid a via)
// so near p that a second via at p would break hole-to-hole: the search
// checks a via against the copper already laid, not against its own path.
func (r *router) viaBehind(m *maze, n gridNode, p Pt) bool {
	near := r.rules.ViaDiameter + r.rules.HoleToHole + routeMargin
	for k := n; k >= 0; {
		f := m.from[k]
		if f < 0 {
			return false
		}
		q := m.pt(k)
		if q.Dist(p) >= near {
			return false
		}
		_, _, lk := m.split(k)
		_, _, lf := m.split(f)
		if lk != lf {
			return true
		}
		k = f
	}
	return false
}
