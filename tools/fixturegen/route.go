package main

import (
	"container/heap"
	"fmt"
	"math"
	"sort"
)

// The router is a grid A* maze router over two copper layers. Clearance is
// checked exactly against real copper geometry (not against grid cells), so
// the result is DRC-clean by construction.

const (
	layerF = 0
	layerB = 1
	eps    = 0.01 // safety margin on every clearance
)

// obstacle is copper, a hole or a keepout seen by the router.
type obstacle struct {
	sh     Shape
	net    int // 0: no net (clear against every net); >0: net id
	layers [2]bool
	hole   bool // drilled hole: hole clearance and hole-to-hole apply
	keep   bool // rule area: no tracks, no vias
}

type rpad struct {
	ref, num string
	net      int
	center   Pt
	sh       Shape
	layers   [2]bool
	terms    []int // grid node ids inside the pad whose stub is clear
}

type gnode struct {
	x, y int64 // 1e-4 mm
	l    int
}

type router struct {
	w, h   float64
	g      float64
	nx, ny int
	obs    []obstacle
	bucket map[[2]int][]int
	stamp  []int
	tick   int
	widths map[int]float64

	// per-net routed geometry
	edges map[int]map[[2]gnode]bool
	vias  map[int]map[gnode]bool
	// grid nodes of each net's routed copper
	tree map[int]map[int]bool
	// pad centres: tracks always end there, never run through
	anchors map[gnode]bool
}

const bucketSize = 1.0

// reset forgets every obstacle and routed track.
func (r *router) reset() {
	r.obs = nil
	r.stamp = nil
	r.bucket = map[[2]int][]int{}
	r.edges = map[int]map[[2]gnode]bool{}
	r.vias = map[int]map[gnode]bool{}
	r.tree = map[int]map[int]bool{}
}

func newRouter(w, h, g float64) *router {
	r := &router{w: w, h: h, g: g, nx: int(math.Round(w/g)) + 1, ny: int(math.Round(h/g)) + 1,
		bucket: map[[2]int][]int{}, widths: map[int]float64{},
		edges: map[int]map[[2]gnode]bool{}, vias: map[int]map[gnode]bool{}, tree: map[int]map[int]bool{},
		anchors: map[gnode]bool{}}
	return r
}

func (r *router) addObstacle(o obstacle) {
	id := len(r.obs)
	r.obs = append(r.obs, o)
	r.stamp = append(r.stamp, 0)
	bb := o.sh.bbox()
	for bx := int(math.Floor(bb.X0 / bucketSize)); bx <= int(math.Floor(bb.X1/bucketSize)); bx++ {
		for by := int(math.Floor(bb.Y0 / bucketSize)); by <= int(math.Floor(bb.Y1/bucketSize)); by++ {
			k := [2]int{bx, by}
			r.bucket[k] = append(r.bucket[k], id)
		}
	}
}

// near calls fn for every obstacle whose bbox may lie within d of box.
func (r *router) near(box Rect, d float64, fn func(o *obstacle) bool) bool {
	r.tick++
	box = box.Inflate(d)
	for bx := int(math.Floor(box.X0 / bucketSize)); bx <= int(math.Floor(box.X1/bucketSize)); bx++ {
		for by := int(math.Floor(box.Y0 / bucketSize)); by <= int(math.Floor(box.Y1/bucketSize)); by++ {
			for _, id := range r.bucket[[2]int{bx, by}] {
				if r.stamp[id] == r.tick {
					continue
				}
				r.stamp[id] = r.tick
				if !fn(&r.obs[id]) {
					return false
				}
			}
		}
	}
	return true
}

func (r *router) width(net int) float64 {
	if w, ok := r.widths[net]; ok {
		return w
	}
	return trackWidth
}

// segOK reports whether a track of net on layer l from a to b keeps every
// clearance.
func (r *router) segOK(a, b Pt, l, net int) bool {
	hw := r.width(net) / 2
	lim := edgeClear + hw + eps
	for _, p := range []Pt{a, b} {
		if p.X < lim || p.Y < lim || p.X > r.w-lim || p.Y > r.h-lim {
			return false
		}
	}
	box := Rect{X0: math.Min(a.X, b.X), Y0: math.Min(a.Y, b.Y), X1: math.Max(a.X, b.X), Y1: math.Max(a.Y, b.Y)}
	return r.near(box, hw+clearance+eps+0.05, func(o *obstacle) bool {
		if !o.layers[l] {
			return true
		}
		if o.keep {
			return o.sh.segDist(a, b) > hw+eps
		}
		return o.clears(net, hw, func() float64 { return o.sh.segDist(a, b) })
	})
}

// clears reports whether copper of net and half width hw, at the distance
// dist measures, keeps its clearance from o: copper of o's own net may
// touch it; a hole wants holeClear, anything else clearance.
func (o *obstacle) clears(net int, hw float64, dist func() float64) bool {
	if o.net == net && o.net != 0 {
		return true
	}
	c := clearance
	if o.hole {
		c = holeClear
	}
	return dist() >= hw+c+eps
}

// viaOK reports whether a via of net fits at p.
func (r *router) viaOK(p Pt, net int) bool {
	vr := viaSize / 2
	lim := edgeClear + vr + eps
	if p.X < lim || p.Y < lim || p.X > r.w-lim || p.Y > r.h-lim {
		return false
	}
	box := Rect{X0: p.X, Y0: p.Y, X1: p.X, Y1: p.Y}
	return r.near(box, vr+clearance+eps+0.3, func(o *obstacle) bool {
		if o.keep {
			return o.sh.segDist(p, p) > vr+eps
		}
		if o.hole {
			if o.sh.segDist(p, p) < viaDrill/2+holeToHole+eps {
				return false
			}
		}
		return o.clears(net, vr, func() float64 { return o.sh.segDist(p, p) })
	})
}

func (r *router) pt(i, j int) Pt { return Pt{X: float64(i) * r.g, Y: float64(j) * r.g} }

func (r *router) id(i, j, l int) int { return (l*r.ny+j)*r.nx + i }

func (r *router) unid(id int) (i, j, l int) {
	i = id % r.nx
	id /= r.nx
	j = id % r.ny
	l = id / r.ny
	return
}

func key(p Pt, l int) gnode {
	return gnode{int64(math.Round(p.X * 10000)), int64(math.Round(p.Y * 10000)), l}
}

// computeTerms finds the grid nodes inside pad p usable as track ends.
func (r *router) computeTerms(p *rpad) {
	p.terms = nil
	bb := p.sh.bbox()
	for i := int(math.Ceil(bb.X0 / r.g)); float64(i)*r.g <= bb.X1; i++ {
		for j := int(math.Ceil(bb.Y0 / r.g)); float64(j)*r.g <= bb.Y1; j++ {
			if i < 0 || j < 0 || i >= r.nx || j >= r.ny {
				continue
			}
			c := r.pt(i, j)
			if !p.sh.contains(c, 0.02) {
				continue
			}
			for l := 0; l < 2; l++ {
				if p.layers[l] && r.segOK(p.center, c, l, p.net) {
					p.terms = append(p.terms, r.id(i, j, l))
				}
			}
		}
	}
}

func (r *router) addEdge(net int, a, b gnode) {
	if a == b {
		return
	}
	if r.edges[net] == nil {
		r.edges[net] = map[[2]gnode]bool{}
	}
	if b.x < a.x || (b.x == a.x && (b.y < a.y || (b.y == a.y && b.l < a.l))) {
		a, b = b, a
	}
	r.edges[net][[2]gnode{a, b}] = true
}

func (r *router) addTrackObstacle(net int, a, b Pt, l int) {
	o := obstacle{sh: Shape{Kind: ShCapsule, A: a, B: b, R: r.width(net) / 2}, net: net}
	o.layers[l] = true
	r.addObstacle(o)
}

func (r *router) addVia(net int, p Pt) {
	if r.vias[net] == nil {
		r.vias[net] = map[gnode]bool{}
	}
	r.vias[net][key(p, 0)] = true
	r.addObstacle(obstacle{sh: Shape{Kind: ShCircle, A: p, R: viaSize / 2}, net: net, layers: [2]bool{true, true}})
	r.addObstacle(obstacle{sh: Shape{Kind: ShCircle, A: p, R: viaDrill / 2}, net: net, layers: [2]bool{true, true}, hole: true})
}

// --- A* ---

type pqItem struct {
	id int
	f  float64
}
type pq []pqItem

func (q pq) Len() int { return len(q) }
func (q pq) Less(a, b int) bool {
	if q[a].f != q[b].f {
		return q[a].f < q[b].f
	}
	return q[a].id < q[b].id
}
func (q pq) Swap(a, b int) { q[a], q[b] = q[b], q[a] }
func (q *pq) Push(x any)   { *q = append(*q, x.(pqItem)) }
func (q *pq) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

var dirs = [8][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}}

const (
	viaCost  = 30.0
	bendCost = 0.6
)

// search finds a path from any source node to any target node. It returns
// the node ids from source to target.
func (r *router) search(net int, sources []int, targets map[int]int, goal []Pt) []int {
	n := r.nx * r.ny * 2
	gc := make([]float64, n)
	par := make([]int32, n)
	dir := make([]int8, n)
	closed := make([]bool, n)
	for i := range gc {
		gc[i] = math.Inf(1)
		par[i] = -1
		dir[i] = -1
	}
	hfn := func(id int) float64 {
		i, j, _ := r.unid(id)
		p := r.pt(i, j)
		best := math.Inf(1)
		for _, q := range goal {
			best = math.Min(best, p.Dist(q))
		}
		return best / r.g
	}
	q := &pq{}
	for _, s := range sources {
		if gc[s] > 0 {
			gc[s] = 0
			heap.Push(q, pqItem{s, hfn(s)})
		}
	}
	for q.Len() > 0 {
		it := heap.Pop(q).(pqItem)
		cur := it.id
		if closed[cur] {
			continue
		}
		closed[cur] = true
		if _, ok := targets[cur]; ok {
			var path []int
			for c := cur; c >= 0; c = int(par[c]) {
				path = append(path, c)
			}
			for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
				path[a], path[b] = path[b], path[a]
			}
			return path
		}
		i, j, l := r.unid(cur)
		p := r.pt(i, j)
		for d, dv := range dirs {
			ni, nj := i+dv[0], j+dv[1]
			if ni < 0 || nj < 0 || ni >= r.nx || nj >= r.ny {
				continue
			}
			nid := r.id(ni, nj, l)
			if closed[nid] {
				continue
			}
			cost := 1.0
			if d >= 4 {
				cost = math.Sqrt2
			}
			if dir[cur] >= 0 && int(dir[cur]) != d {
				cost += bendCost
			}
			if l == layerB {
				cost *= 1.15
			}
			ng := gc[cur] + cost
			if ng >= gc[nid] {
				continue
			}
			if !r.segOK(p, r.pt(ni, nj), l, net) {
				continue
			}
			gc[nid] = ng
			par[nid] = int32(cur)
			dir[nid] = int8(d)
			heap.Push(q, pqItem{nid, ng + hfn(nid)})
		}
		// via
		nid := r.id(i, j, 1-l)
		if !closed[nid] {
			ng := gc[cur] + viaCost
			if ng < gc[nid] && r.viaOK(p, net) {
				gc[nid] = ng
				par[nid] = int32(cur)
				dir[nid] = -1
				heap.Push(q, pqItem{nid, ng + hfn(nid)})
			}
		}
	}
	return nil
}

// routeNet connects every pad of net; it reports the pads it failed to reach.
func (r *router) routeNet(net int, pads []*rpad) error {
	if len(pads) < 2 {
		return nil
	}
	for _, p := range pads {
		r.computeTerms(p)
		if len(p.terms) == 0 {
			return fmt.Errorf("pad %s.%s has no usable track entry", p.ref, p.num)
		}
	}
	connected := map[*rpad]bool{pads[0]: true}
	sources := map[int]bool{}
	padOf := map[int]*rpad{}
	addPad := func(p *rpad) {
		for _, t := range p.terms {
			sources[t] = true
			padOf[t] = p
		}
	}
	addPad(pads[0])
	for t := range r.tree[net] {
		sources[t] = true
	}
	for len(connected) < len(pads) {
		targets := map[int]int{}
		var goal []Pt
		for pi, p := range pads {
			if connected[p] {
				continue
			}
			goal = append(goal, p.center)
			for _, t := range p.terms {
				targets[t] = pi
			}
		}
		var src []int
		for s := range sources {
			src = append(src, s)
		}
		sort.Ints(src)
		path := r.search(net, src, targets, goal)
		if path == nil {
			var names []string
			for _, p := range pads {
				if !connected[p] {
					names = append(names, p.ref+"."+p.num)
				}
			}
			return fmt.Errorf("no path to %v", names)
		}
		// Geometry.
		first, last := path[0], path[len(path)-1]
		if sp := padOf[first]; sp != nil && !r.tree[net][first] {
			fi, fj, fl := r.unid(first)
			c := r.pt(fi, fj)
			if c != sp.center {
				r.addEdge(net, key(sp.center, fl), key(c, fl))
				r.addTrackObstacle(net, sp.center, c, fl)
			}
		}
		tp := pads[targets[last]]
		for k := 0; k+1 < len(path); k++ {
			ai, aj, al := r.unid(path[k])
			bi, bj, bl := r.unid(path[k+1])
			a, b := r.pt(ai, aj), r.pt(bi, bj)
			if al != bl {
				r.addVia(net, a)
				continue
			}
			r.addEdge(net, key(a, al), key(b, bl))
			r.addTrackObstacle(net, a, b, al)
		}
		li, lj, ll := r.unid(last)
		c := r.pt(li, lj)
		if c != tp.center {
			r.addEdge(net, key(c, ll), key(tp.center, ll))
			r.addTrackObstacle(net, c, tp.center, ll)
		}
		if r.tree[net] == nil {
			r.tree[net] = map[int]bool{}
		}
		for _, id := range path {
			r.tree[net][id] = true
			sources[id] = true
		}
		connected[tp] = true
		addPad(tp)
	}
	return nil
}

// segment is one emitted track.
type segment struct {
	a, b Pt
	l    int
	net  int
}

// tracks merges each net's grid edges into straight segments.
func (r *router) tracks() ([]segment, []struct {
	p   Pt
	net int
}) {
	var segs []segment
	var nets []int
	for n := range r.edges {
		nets = append(nets, n)
	}
	sort.Ints(nets)
	type viaT = struct {
		p   Pt
		net int
	}
	var vias []viaT
	for _, net := range nets {
		adj := map[gnode][]gnode{}
		var keys [][2]gnode
		for e := range r.edges[net] {
			keys = append(keys, e)
		}
		sort.Slice(keys, func(a, b int) bool { return lessEdge(keys[a], keys[b]) })
		for _, e := range keys {
			adj[e[0]] = append(adj[e[0]], e[1])
			adj[e[1]] = append(adj[e[1]], e[0])
		}
		viaAt := r.vias[net]
		through := func(nd gnode) bool {
			if len(adj[nd]) != 2 || viaAt[gnode{nd.x, nd.y, 0}] || r.anchors[nd] {
				return false
			}
			a, b := adj[nd][0], adj[nd][1]
			dx1, dy1 := nd.x-a.x, nd.y-a.y
			dx2, dy2 := b.x-nd.x, b.y-nd.y
			return dx1*dy2-dy1*dx2 == 0 && dx1*dx2+dy1*dy2 > 0
		}
		used := map[[2]gnode]bool{}
		norm := func(a, b gnode) [2]gnode {
			if b.x < a.x || (b.x == a.x && (b.y < a.y || (b.y == a.y && b.l < a.l))) {
				a, b = b, a
			}
			return [2]gnode{a, b}
		}
		// extend walks from end n along unused collinear edges through
		// straight-through nodes, marking them used, and returns the far end.
		extend := func(n gnode) gnode {
			for through(n) {
				nxt := adj[n][0]
				if used[norm(n, nxt)] {
					nxt = adj[n][1]
				}
				if used[norm(n, nxt)] {
					break
				}
				used[norm(n, nxt)] = true
				n = nxt
			}
			return n
		}
		for _, e := range keys {
			if used[e] {
				continue
			}
			used[e] = true
			a := extend(e[0])
			b := extend(e[1])
			segs = append(segs, segment{a: Pt{X: float64(a.x) / 1e4, Y: float64(a.y) / 1e4},
				b: Pt{X: float64(b.x) / 1e4, Y: float64(b.y) / 1e4}, l: a.l, net: net})
		}
		var vk []gnode
		for v := range viaAt {
			vk = append(vk, v)
		}
		sort.Slice(vk, func(a, b int) bool {
			if vk[a].x != vk[b].x {
				return vk[a].x < vk[b].x
			}
			return vk[a].y < vk[b].y
		})
		for _, v := range vk {
			vias = append(vias, viaT{Pt{X: float64(v.x) / 1e4, Y: float64(v.y) / 1e4}, net})
		}
	}
	return segs, vias
}

func lessEdge(a, b [2]gnode) bool {
	for k := 0; k < 2; k++ {
		if a[k].x != b[k].x {
			return a[k].x < b[k].x
		}
		if a[k].y != b[k].y {
			return a[k].y < b[k].y
		}
		if a[k].l != b[k].l {
			return a[k].l < b[k].l
		}
	}
	return false
}
