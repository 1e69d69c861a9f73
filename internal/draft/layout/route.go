package layout

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Routing constants.
const (
	// shortNetMM is the longest two-pin net the engine routes by rule when
	// it is not a power net: beyond it a straight or L-shaped track is rarely
	// the track a human would draw.
	shortNetMM = 15.0
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
	// maxObstacleClearance is the largest obstacle clearance, which bounds
	// how far the bounding-box prefilter must look.
	maxObstacleClearance float64
}

// segOK reports whether a track a-b of width on layer for net clears
// everything: the board edge, other nets' pads and tracks, holes and
// keepouts.
func (r *router) segOK(a, b Pt, layer int, net string, width float64) bool {
	half := width / 2
	e := r.rules.EdgeClearance + half + routeMargin
	for _, p := range []Pt{a, b} {
		if p.X < e || p.Y < e || p.X > r.w-e || p.Y > r.h-e {
			return false
		}
	}
	seg := emptyRect.AddPt(a).AddPt(b)
	reach := math.Max(r.rules.Clearance, r.rules.HoleClearance) + half + routeMargin + 1
	if r.maxObstacleClearance > reach {
		reach = r.maxObstacleClearance + half + routeMargin + 1
	}
	for i := range r.obstacles {
		o := &r.obstacles[i]
		if !o.layers[layer] {
			continue
		}
		var need float64
		switch {
		case o.keep:
			need = routeMargin
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
		if !o.sh.bbox().Inflate(reach).Overlaps(seg) {
			continue
		}
		if o.sh.segDist(a, b) < need {
			return false
		}
	}
	for i := range r.tracks {
		t := &r.tracks[i]
		if t.layer != layer || t.net == net {
			continue
		}
		if segSegDist(a, b, t.a, t.b) < r.rules.Clearance+half+t.width/2+routeMargin {
			return false
		}
	}
	return true
}

// connect tries a straight track from a to b, then the two L-shaped ones,
// on each layer both pads reach (front first), at each width in turn. It
// records the first that clears everything.
func (r *router) connect(pa, pb routePad, net string, widths []float64) bool {
	a, b := pa.at, pb.at
	paths := [][]Pt{{a, b}}
	if math.Abs(a.X-b.X) > eps && math.Abs(a.Y-b.Y) > eps {
		paths = append(paths, []Pt{a, {X: b.X, Y: a.Y}, b}, []Pt{a, {X: a.X, Y: b.Y}, b})
	}
	for l := range 2 {
		if !pa.layers[l] || !pb.layers[l] {
			continue
		}
		for _, w := range widths {
			for _, path := range paths {
				ok := true
				for i := 0; i+1 < len(path) && ok; i++ {
					ok = r.segOK(path[i], path[i+1], l, net, w)
				}
				if !ok {
					continue
				}
				for i := 0; i+1 < len(path); i++ {
					if path[i].Dist(path[i+1]) > eps {
						r.tracks = append(r.tracks, track{a: path[i], b: path[i+1], layer: l, net: net, width: w})
					}
				}
				return true
			}
		}
	}
	return false
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

// routeNets routes, in order, the nets worth a rule-based track: two-pin
// nets shorter than shortNetMM (shortest first), then power nets, ground
// last (ground is better served by a pour, and its tracks would block the
// others). Nets in skip are left alone.
func (r *router) routeNets(padsByNet map[string][]routePad, kinds netKinds, skip map[string]string) []netRoute {
	type job struct {
		net   string
		rank  int
		score float64
	}
	var jobs []job
	for net, pads := range padsByNet {
		if _, ok := skip[net]; ok || len(pads) < 2 || strings.HasPrefix(net, "unconnected-(") {
			continue
		}
		switch {
		case kinds.ground[net]:
			jobs = append(jobs, job{net, 2, float64(len(pads))})
		case kinds.power[net]:
			jobs = append(jobs, job{net, 1, float64(len(pads))})
		case len(pads) == 2 && pads[0].at.Dist(pads[1].at) <= shortNetMM:
			jobs = append(jobs, job{net, 0, pads[0].at.Dist(pads[1].at)})
		}
	}
	slices.SortFunc(jobs, func(a, b job) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		if c := cmp.Compare(round4(a.score), round4(b.score)); c != 0 {
			return c
		}
		return strings.Compare(a.net, b.net)
	})
	var out []netRoute
	for _, j := range jobs {
		pads := padsByNet[j.net]
		widths := []float64{r.rules.SignalWidth}
		if kinds.power[j.net] && r.rules.PowerWidth > r.rules.SignalWidth {
			widths = []float64{r.rules.PowerWidth, r.rules.SignalWidth}
		}
		res := netRoute{Net: j.net}
		for _, e := range spanningTree(pads) {
			res.Connections++
			if r.connect(pads[e[0]], pads[e[1]], j.net, widths) {
				res.Routed++
			}
		}
		if res.Connections > 0 {
			out = append(out, res)
		}
	}
	return out
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
