package draft

import (
	"fmt"
	"math"
	"strings"
)

// extent is the union of the items' boxes.
func extent(items []item) box {
	b := noBox
	for _, it := range items {
		b = b.union(it.b)
	}
	if b.empty() {
		return box{}
	}
	return b
}

// fixFields moves a library field that would cover the unit's own stubs,
// labels or ports (a field placed beyond a pin end) to above or below the
// unit's drawn extent.
func (dr *drawer) fixFields(u *unitDraw) {
	solo := &cluster{members: []*unitDraw{u}}
	rel := u.rel
	u.rel = point{}
	defer func() { u.rel = rel }()
	for fi := range u.fields {
		d := dr.render(solo)
		if fieldClear(d.items, fieldWhat(u.fields[fi], u)) {
			continue
		}
		var others []item
		for _, it := range d.items {
			if it.what != fieldWhat(u.fields[fi], u) || it.kind != kindText {
				others = append(others, it)
			}
		}
		e := extent(others)
		f := u.fields[fi]
		for _, c := range []struct {
			p      point
			hj, vj string
		}{
			{point{e.X0, e.Y0 - 0.5}, "left", "bottom"},
			{point{e.X0, e.Y1 + 0.5}, "left", "top"},
			{point{e.X1, e.Y0 - 0.5}, "right", "bottom"},
			{point{e.X1, e.Y1 + 0.5}, "right", "top"},
			{point{e.X0, e.Y0 - 2.5}, "left", "bottom"},
			{point{e.X0, e.Y1 + 2.5}, "left", "top"},
		} {
			u.fields[fi] = fieldDraw{name: f.name, text: f.text, pos: c.p.round(), ang: 0, size: f.size, hj: c.hj, vj: c.vj, moved: true}
			if fieldClear(dr.render(solo).items, fieldWhat(u.fields[fi], u)) {
				break
			}
			u.fields[fi] = f
		}
	}
}

// fieldClear reports whether the field item named what overlaps nothing it
// may not.
func fieldClear(items []item, what string) bool {
	for i := range items {
		if items[i].what != what || items[i].kind != kindText {
			continue
		}
		for j := range items {
			if i != j && clash(&items[i], &items[j]) {
				return false
			}
		}
	}
	return true
}

// clusters groups a group's units: each host (a unit with more than two
// pins, then the rest in order) takes, pin by pin, an unplaced two-pin part
// on the same short net (two or three pins) and hangs it off that pin by a
// straight or L-shaped wire, then does the same from the new part's other
// pin, as long as the cluster stays legible. A short net joins at most
// three parts.
func (dr *drawer) clusters(units []*unitDraw) []*cluster {
	var order []*unitDraw
	for _, u := range units {
		if !u.is2pin() {
			order = append(order, u)
		}
	}
	for _, u := range units {
		if u.is2pin() {
			order = append(order, u)
		}
	}
	done := map[*unitDraw]bool{}
	var out []*cluster
	for _, u := range order {
		if done[u] {
			continue
		}
		done[u] = true
		u.rel = point{}
		cl := &cluster{members: []*unitDraw{u}}
		for m := 0; m < len(cl.members); m++ {
			for s := range cl.members[m].spots {
				sp := cl.members[m].spots[s]
				if sp.linked || sp.nc || sp.net == "" || dr.ports[sp.net] != nil || dr.netParts[sp.net] > 3 {
					continue
				}
				dr.tryLink(cl, m, s, order, done)
			}
		}
		if !u.is2pin() {
			dr.decouple(cl, order, done)
		}
		dr.routeInside(cl)
		cl.box = extent(dr.render(cl).items)
		out = append(out, cl)
	}
	return out
}

// isDecoupler reports whether u is a two-pin part between two power-port
// nets (a decoupling or bulk capacitor), and which of them it shares with
// the host's pin at spot.
func (dr *drawer) isDecoupler(u *unitDraw) bool {
	return u.is2pin() && dr.ports[u.spots[0].net] != nil && dr.ports[u.spots[1].net] != nil && u.spots[0].net != u.spots[1].net
}

// decouple sets each decoupling capacitor of the host's group beside a
// power pin of the host on one of its nets (one capacitor a pin, pins in
// order), at the nearest spot past the pin's port that keeps the cluster
// legible. No wire: both its pins meet their nets through ports, so being
// beside the pin is what tells the reader which pin it serves.
func (dr *drawer) decouple(cl *cluster, order []*unitDraw, done map[*unitDraw]bool) {
	host := cl.members[0]
	for s := range host.spots {
		sp := host.spots[s]
		if sp.linked || dr.ports[sp.net] == nil || isGround(sp.net) {
			continue
		}
		for _, b := range order {
			if done[b] || b.group != host.group || !dr.isDecoupler(b) || (b.spots[0].net != sp.net && b.spots[1].net != sp.net) {
				continue
			}
			if dr.placeBeside(cl, b, host.rel.add(sp.off), sp.out) {
				done[b] = true
			}
			break // the first capacitor on this net is this pin's; one left over tries the next pin
		}
	}
}

// isGround reports whether a net is a ground return, which a decoupling
// capacitor is not set beside (it serves the supply pin).
func isGround(net string) bool {
	n := strings.ToUpper(net)
	return strings.Contains(n, "GND") || n == "VSS" || n == "0V"
}

// placeBeside tries b at grid spots around a pin end (stub direction out),
// nearest first, and keeps the first that leaves the cluster legible.
func (dr *drawer) placeBeside(cl *cluster, b *unitDraw, end, out point) bool {
	side := point{out.Y, -out.X}
	b.turn(0)
	bb := b.geo.extent()
	for _, f := range b.fields {
		bb = bb.union(f.box(point{}))
	}
	if len(cl.members) >= maxCluster {
		return false
	}
	items := dr.render(cl).items
	for _, d := range []float64{7.62, 10.16, 12.7, 15.24, 17.78} {
		for _, w := range []float64{5.08, -5.08, 7.62, -7.62, 10.16, -10.16, 12.7, -12.7} {
			b.rel = point{snap(end.X + out.X*d + side.X*w), snap(end.Y + out.Y*d + side.Y*w)}
			clear := true
			for _, it := range items {
				if it.b.overlaps(bb.move(b.rel).grow(clearance)) {
					clear = false
					break
				}
			}
			if !clear {
				continue
			}
			cl.members = append(cl.members, b)
			if checkLegible(dr.render(cl).items) == nil {
				return true
			}
			cl.members = cl.members[:len(cl.members)-1]
		}
	}
	return false
}

// linkOption is one way to wire a pin end to another part's pin: the path
// from the first pin end (corners included), and either a branch (a stub
// from a corner to a label, for a net with more pins) or a tag (a label
// sitting on the path itself, naming a net the wire joins whole).
type linkOption struct {
	path   []point
	branch []point
	tag    *labelDraw
}

// tagLead keeps a label on a link's first leg off the pin's number.
const tagLead = 1.27

// linkOptions lists the paths from pin end e (stub direction da) to a pin
// whose stub direction is db, shortest first: straight when the pins face
// each other, an L when they are at right angles. tagLen is the length a
// leg needs to carry the net's name.
func linkOptions(e, da, db point, branch bool, tagLen float64) []linkOption {
	var out []linkOption
	switch {
	case db.eq(da.neg()):
		for _, l := range []float64{5.08, 7.62, 10.16, 12.7} {
			f := e.add(da.scale(l)).round()
			if !branch {
				if l >= tagLen+tagLead {
					out = append(out, linkOption{path: []point{e, f}, tag: &labelDraw{at: e.add(da.scale(tagLead)).round(), out: da}})
				}
				continue
			}
			m := e.add(da.scale(l / 2)).round()
			for _, p := range []point{{da.Y, -da.X}, {-da.Y, da.X}} {
				out = append(out, linkOption{path: []point{e, m, f}, branch: []point{m, m.add(p.scale(stub)).round()}})
			}
		}
	case da.perp(db):
		for _, k := range []float64{2.54, 5.08, 7.62, 10.16, 12.7, 15.24, 17.78, 20.32} {
			for _, m := range []float64{2.54, 5.08, 7.62, 10.16} {
				c := e.add(da.scale(k)).round()
				f := c.sub(db.scale(m)).round()
				o := linkOption{path: []point{e, c, f}}
				switch {
				case branch:
					o.branch = []point{c, c.add(da.scale(stub)).round()}
				case m >= tagLen:
					o.tag = &labelDraw{at: c, out: db.neg()}
				case k >= tagLen+tagLead:
					o.tag = &labelDraw{at: e.add(da.scale(tagLead)).round(), out: da}
				default:
					continue
				}
				out = append(out, o)
			}
		}
	}
	return out
}

// tryLink hangs the first unplaced two-pin part of the group on spot s of
// member m that fits, and reports whether one did.
func (dr *drawer) tryLink(cl *cluster, m, s int, order []*unitDraw, done map[*unitDraw]bool) bool {
	if len(cl.members) >= maxCluster {
		return false
	}
	host := cl.members[m]
	sp := host.spots[s]
	e := host.rel.add(sp.off).round()
	// What the cluster draws with this pin's stub and label gone, for the
	// cheap first test of every candidate.
	host.spots[s].linked = true
	base := dr.render(cl).items
	host.spots[s].linked = false
	for _, b := range order {
		if done[b] || !smallPart(b) || b.group != host.group || !b.onNet(sp.net) {
			continue
		}
		turns := []orient{0, 180, 90, 270}
		if !b.is2pin() {
			turns = turns[:1] // a connector or transistor keeps its library orientation
		}
		for _, o := range turns {
			if dr.tryLinkTurned(cl, m, s, b, o, e, base) {
				done[b] = true
				return true
			}
		}
		b.turn(0)
	}
	return false
}

// smallPart reports whether u may hang off another part's pin: a two-pin
// part, or a small one (a terminal block, a transistor) of up to four pins.
func smallPart(u *unitDraw) bool { return u.is2pin() || (len(u.spots) <= 4 && len(u.spots) >= 2) }

func (u *unitDraw) onNet(net string) bool {
	for _, sp := range u.spots {
		if sp.net == net {
			return true
		}
	}
	return false
}

// routeInside wires the two-pin nets whose both pins ended up in the
// cluster unwired (a terminal block hung off a relay's COM pin has its NO
// and NC pins beside the relay's): a straight, L, Z or U path pin to pin
// with the net's name on its longest leg, kept only if the cluster stays
// legible.
func (dr *drawer) routeInside(cl *cluster) {
	type end struct{ m, s int }
	byNet := map[string][]end{}
	var nets []string
	for m, u := range cl.members {
		for s, sp := range u.spots {
			if sp.linked || sp.nc || sp.net == "" || dr.ports[sp.net] != nil || dr.netSize[sp.net] != 2 || len(sp.nums) != 1 {
				continue
			}
			if _, ok := byNet[sp.net]; !ok {
				nets = append(nets, sp.net)
			}
			byNet[sp.net] = append(byNet[sp.net], end{m, s})
		}
	}
	for _, net := range nets {
		ends := byNet[net]
		if len(ends) != 2 {
			continue
		}
		a, b := cl.members[ends[0].m], cl.members[ends[1].m]
		sa, sb := a.spots[ends[0].s], b.spots[ends[1].s]
		ea, eb := a.rel.add(sa.off).round(), b.rel.add(sb.off).round()
		for _, path := range routes(ea, sa.out, eb, sb.out) {
			// The name goes on the longest leg, a little in from its start.
			li, ll := 0, 0.0
			for i := 0; i+1 < len(path); i++ {
				if l := path[i+1].sub(path[i]); math.Abs(l.X)+math.Abs(l.Y) > ll {
					li, ll = i, math.Abs(l.X)+math.Abs(l.Y)
				}
			}
			if ll < textWidth(net, labelSize)+tagLead+0.8 {
				continue
			}
			dir := path[li+1].sub(path[li]).scale(1 / ll)
			tag := &labelDraw{at: path[li].add(dir.scale(tagLead)).round(), out: dir.round()}
			cl.links = append(cl.links, link{from: spotRef{ends[0].m, ends[0].s}, to: spotRef{ends[1].m, ends[1].s}, net: net,
				path: path, tag: tag, key: fmt.Sprintf("route/%s/%s", a.key, sa.nums[0])})
			a.spots[ends[0].s].linked, b.spots[ends[1].s].linked = true, true
			if checkLegible(dr.render(cl).items) == nil {
				break
			}
			cl.links = cl.links[:len(cl.links)-1]
			a.spots[ends[0].s].linked, b.spots[ends[1].s].linked = false, false
		}
	}
}

// routes lists orthogonal paths from pin end a (stub direction da) to pin
// end b (db), each leaving a along da and reaching b from along db:
// straight, L, Z (a jog halfway) or U (both out to a common depth).
func routes(a, da, b, db point) [][]point {
	var out [][]point
	ahead := func(from, to, d point) float64 { return to.sub(from).dot(d) }
	switch {
	case db.eq(da.neg()):
		gap := ahead(a, b, da)
		if gap < grid-1e-6 {
			return nil
		}
		if math.Abs(b.sub(a).dot(point{da.Y, -da.X})) < 1e-6 {
			return [][]point{{a, b}}
		}
		for _, k := range []float64{math.Round(gap/2/1.27) * 1.27, grid, gap - grid} {
			if k < grid-1e-6 || k > gap-grid+1e-6 {
				continue
			}
			c1 := a.add(da.scale(k)).round()
			c2 := c1.add(b.sub(c1).sub(da.scale(ahead(c1, b, da)))).round()
			out = append(out, []point{a, c1, c2, b})
		}
	case da.perp(db):
		c := a.add(da.scale(ahead(a, b, da))).round()
		if ahead(a, c, da) >= grid-1e-6 && ahead(b, c, db) >= grid-1e-6 {
			out = append(out, []point{a, c, b})
		}
	default: // da == db: out to a common depth past both, across, back in
		depth := max(a.dot(da), b.dot(da)) + grid
		for _, extra := range []float64{0, grid, 2 * grid} {
			c1 := a.add(da.scale(depth + extra - a.dot(da))).round()
			c2 := b.add(da.scale(depth + extra - b.dot(da))).round()
			out = append(out, []point{a, c1, c2, b})
		}
	}
	return out
}

// maxCluster bounds the parts hung off one host (and so the cost of
// checking the cluster after each).
const maxCluster = 16

// tryLinkTurned tries b turned by o on spot s of member m (pin end e),
// every path from the shortest, and keeps the first that leaves the
// cluster legible.
func (dr *drawer) tryLinkTurned(cl *cluster, m, s int, b *unitDraw, o orient, e point, base []item) bool {
	host := cl.members[m]
	sp := host.spots[s]
	b.turn(o)
	for t := range b.spots {
		bs := b.spots[t]
		if bs.net != sp.net {
			continue
		}
		branch := dr.netSize[sp.net] > len(sp.nums)+len(bs.nums)
		for _, opt := range linkOptions(e, sp.out, bs.out, branch, textWidth(sp.net, labelSize)+0.8) {
			f := opt.path[len(opt.path)-1]
			b.rel = f.sub(bs.off).round()
			if !quickClear(base, b, opt, host.key) {
				continue
			}
			host.spots[s].linked = true // its stub and label give way to the link
			cl.members = append(cl.members, b)
			b.spots[t].linked = true
			cl.links = append(cl.links, link{from: spotRef{m, s}, to: spotRef{len(cl.members) - 1, t}, net: sp.net,
				path: opt.path, branch: opt.branch, tag: opt.tag, key: fmt.Sprintf("link/%s/%s", host.key, sp.nums[0])})
			if checkLegible(dr.render(cl).items) == nil {
				return true
			}
			cl.members = cl.members[:len(cl.members)-1]
			cl.links = cl.links[:len(cl.links)-1]
			host.spots[s].linked, b.spots[t].linked = false, false
		}
	}
	return false
}

// quickClear rejects a candidate placement cheaply: the new part's drawn
// extent or the link's wires over anything of the cluster (items, drawn
// without the stub of the pin being wired) that is not the host's body.
func quickClear(items []item, b *unitDraw, opt linkOption, hostKey string) bool {
	bb := b.geo.extent().move(b.rel)
	for _, f := range b.fields {
		bb = bb.union(f.box(b.rel))
	}
	var segs []box
	for i := 0; i+1 < len(opt.path); i++ {
		segs = append(segs, segBox(opt.path[i], opt.path[i+1], wireHalf))
	}
	if opt.branch != nil {
		segs = append(segs, segBox(opt.branch[0], opt.branch[1], wireHalf))
	}
	if opt.tag != nil {
		segs = append(segs, labelBox(opt.tag.at, opt.tag.out, "")) // the label's height; its length is the leg's
	}
	for _, it := range items {
		if it.b.overlaps(bb.grow(clearance)) {
			return false
		}
		for i, s := range segs {
			if !it.b.overlaps(s) {
				continue
			}
			// The first segment leaves the host's pin: it may touch the
			// host's body there.
			if i == 0 && it.owner == hostKey && it.kind == kindBody {
				continue
			}
			return false
		}
	}
	return true
}
