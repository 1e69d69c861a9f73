package draft

import (
	"fmt"
	"math"
	"sort"
)

// A cluster is what the engine places as one block: a host unit and the
// two-pin parts hung off its pins by wires (a pull-up beside the pin it
// pulls, an RC beside a 555's pins, a chain of passives), each link tried
// in turn and kept only if the cluster still passes the legibility check.

type cluster struct {
	members []*unitDraw
	links   []link
	box     box   // drawn extent, relative to the cluster's origin
	at      point // the cluster's origin on the sheet
}

// link is a wire from one member's pin end to another's, along path
// (corners included), with an optional branch: a stub from a path corner to
// a label, for a net that has pins beyond the two the wire joins.
type link struct {
	from, to spotRef
	net      string
	path     []point
	branch   []point    // [corner, label end], or nil
	tag      *labelDraw // a label on the path naming the net, or nil
	key      string
}

type spotRef struct{ m, s int }

// drawn is everything a cluster (or the whole sheet) puts on the sheet.
type drawn struct {
	wires  []wireDraw
	juncs  []keyed
	labels []labelDraw
	ports  []portDraw
	ncs    []keyed
	items  []item
	wired  map[string]bool
}

type wireDraw struct {
	a, b point
	key  string
}

type keyed struct {
	at  point
	key string
}

type labelDraw struct {
	net     string
	at, out point
	key     string
}

type portDraw struct {
	net      string
	at       point // the port's pin, on the stub end
	o        orient
	valuePos point // the Value field's stored position (sheet)
	valueAng float64
}

// merge appends c's drawing moved by at.
func (d *drawn) merge(c drawn, at point) {
	if d.wired == nil {
		d.wired = map[string]bool{}
	}
	for _, w := range c.wires {
		d.wires = append(d.wires, wireDraw{w.a.add(at).round(), w.b.add(at).round(), w.key})
	}
	for _, j := range c.juncs {
		d.juncs = append(d.juncs, keyed{j.at.add(at).round(), j.key})
	}
	for _, l := range c.labels {
		d.labels = append(d.labels, labelDraw{l.net, l.at.add(at).round(), l.out, l.key})
	}
	for _, p := range c.ports {
		d.ports = append(d.ports, portDraw{p.net, p.at.add(at).round(), p.o, p.valuePos.add(at).round(), p.valueAng})
	}
	for _, n := range c.ncs {
		d.ncs = append(d.ncs, keyed{n.at.add(at).round(), n.key})
	}
	for _, it := range c.items {
		it.b = it.b.move(at)
		if it.seg != nil {
			it.seg = &[2]point{it.seg[0].add(at), it.seg[1].add(at)}
		}
		if it.anchor != nil {
			p := it.anchor.add(at)
			it.anchor = &p
		}
		d.items = append(d.items, it)
	}
	for n := range c.wired {
		d.wired[n] = true
	}
}

const wireHalf = 0.1 // half a wire's width, for its box

func (d *drawn) wire(a, b point, key, net string, attach ...string) {
	d.wires = append(d.wires, wireDraw{a, b, key})
	d.items = append(d.items, item{kind: kindWire, owner: "wire/" + key, what: fmt.Sprintf("wire %s–%s (%s)", a, b, net),
		b: segBox(a, b, wireHalf), attach: attach, net: net, seg: &[2]point{a, b}})
}

func (d *drawn) label(at, out point, net, key string) {
	d.labels = append(d.labels, labelDraw{net, at, out, key})
	d.items = append(d.items, item{kind: kindText, owner: "label/" + key, what: "label " + net, b: labelBox(at, out, net), placed: true, anchor: &at})
}

// port draws net's power port on a stub end at, pointing along out, its
// value beyond the port's tip: along the stub for a side stub, and for a
// vertical stub horizontal when flat is set (no neighbour beside it), else
// vertical so ports on neighbouring pins never share a line of text.
func (dr *drawer) port(d *drawn, at, out point, net, key string, flat bool) {
	ps := dr.ports[net]
	var o orient
	for _, c := range []orient{0, 90, 180, 270} {
		if c.apply(ps.natural).eq(out) {
			o = c
		}
	}
	body := o.box(ps.geo.body).move(at)
	reach := 0.0
	for _, c := range []point{{body.X0, body.Y0}, {body.X1, body.Y1}} {
		reach = max(reach, c.sub(at).dot(out))
	}
	w, h := textWidth(net, labelSize), textHeight(labelSize)
	vertical := out.X == 0 && !flat
	along := w
	if out.X == 0 && flat {
		along = h
	}
	centre := at.add(out.scale(reach + 0.5 + along/2)).round()
	// KiCad draws a rotated symbol's field centred where it is stored, and
	// turns its text with the symbol (a horizontal field of a port turned
	// 90 degrees reads vertically), so the stored angle undoes the turn.
	ang := 0.0
	if vertical != o.sideways() {
		ang = 90
	}
	pos := centre
	d.ports = append(d.ports, portDraw{net, at, o, pos, ang})
	owner := "port/" + key
	d.items = append(d.items,
		item{kind: kindBody, owner: owner, what: "power port " + net, b: body},
		item{kind: kindText, owner: owner, what: "power port value " + net, placed: true,
			b: justified(centre, w, h, vertical, "center", "center")})
}

// reach is how far the port's body reaches from its pin (the length of
// the body along its pointing direction).
func (ps *portSym) reach() float64 {
	b := ps.geo.body
	return max(b.X1-b.X0, b.Y1-b.Y0, math.Max(math.Abs(b.Y0), math.Abs(b.Y1)))
}

// render draws a cluster relative to its origin: member bodies, pin texts
// and fields, links, and every other pin's stub with its label, port or
// no-connect flag.
func (dr *drawer) render(cl *cluster) drawn {
	var d drawn
	d.wired = map[string]bool{}
	for _, u := range cl.members {
		for _, sh := range u.geo.shapes {
			d.items = append(d.items, item{kind: kindBody, owner: u.key, what: "body of " + u.part.Ref, b: sh.move(u.rel)})
		}
		for _, p := range u.geo.pins {
			d.items = append(d.items, item{kind: kindBody, owner: u.key, what: "a pin of " + u.part.Ref, b: p.move(u.rel)})
		}
		for _, t := range u.geo.texts {
			d.items = append(d.items, item{kind: kindText, owner: u.key, what: t.what + " of " + u.part.Ref, b: t.b.move(u.rel)})
		}
		for _, f := range u.fields {
			d.items = append(d.items, item{kind: kindText, owner: u.key, what: fieldWhat(f, u), b: f.box(u.rel), placed: f.moved && !f.own})
		}
	}
	joins, splits := cl.joins()
	dots := map[point]bool{}
	for li, l := range cl.links {
		from, to := cl.members[l.from.m], cl.members[l.to.m]
		d.wired[l.net] = true
		pts := l.path
		if p, ok := splits[li]; ok {
			if !p.eq(pts[1]) {
				pts = append([]point{pts[0], p}, pts[1:]...)
			}
			d.juncs = append(d.juncs, keyed{p, l.key + "/join"})
			dots[p] = true
		}
		for i := 0; i+1 < len(pts); i++ {
			var att []string
			if i == 0 {
				att = append(att, from.key)
			}
			if i+2 == len(pts) {
				att = append(att, to.key)
			}
			d.wire(pts[i], pts[i+1], fmt.Sprintf("%s/%d", l.key, i), l.net, att...)
		}
		if l.branch != nil {
			d.wire(l.branch[0], l.branch[1], l.key+"/branch", l.net)
			if !dots[l.branch[0]] {
				d.juncs = append(d.juncs, keyed{l.branch[0], l.key})
			}
			d.label(l.branch[1], l.branch[1].sub(l.branch[0]).scale(1/stub), l.net, l.key)
		}
		if l.tag != nil {
			d.label(l.tag.at, l.tag.out, l.net, l.key)
		}
	}
	for m, u := range cl.members {
		// A pin beside a wired pin of its net joins that wire's first leg.
		for si, sp := range u.spots {
			p, ok := joins[spotRef{m, si}]
			if !ok {
				continue
			}
			pos := u.rel.add(sp.off)
			end := pos.add(sp.out.scale(stub)).round()
			key := fmt.Sprintf("%s/%s", u.key, sp.nums[0])
			d.wire(pos, end, key, sp.net, u.key)
			d.wire(end, p, key+"/join", sp.net)
		}
		dr.terminate(&d, u, joins, m)
	}
	return d
}

// joins finds the unwired pins lying beside a wired pin of the same net on
// the same edge, where the wire's first leg runs out at least a stub: each
// such pin is joined to that leg at a stub's distance (a junction there)
// instead of carrying a label of its own, like a 555's TRIG beside THRES.
// It returns the joining pins with their point on the leg, and the links
// whose first leg those points split.
func (cl *cluster) joins() (map[spotRef]point, map[int]point) {
	joins, splits := map[spotRef]point{}, map[int]point{}
	for li, l := range cl.links {
		host := cl.members[l.from.m]
		y := host.spots[l.from.s]
		e := host.rel.add(y.off)
		if l.path[1].sub(e).dot(y.out) < stub-1e-6 {
			continue
		}
		p := e.add(y.out.scale(stub)).round()
		for xi, x := range host.spots {
			d := x.off.sub(y.off)
			if x.linked || x.nc || x.net != y.net || !x.out.eq(y.out) || math.Abs(d.dot(y.out)) > 1e-6 ||
				math.Abs(math.Abs(d.X+d.Y)-grid) > 1e-6 {
				continue
			}
			sr := spotRef{l.from.m, xi}
			if _, taken := joins[sr]; !taken {
				joins[sr] = p
				splits[li] = p
			}
		}
	}
	return joins, splits
}

func fieldWhat(f fieldDraw, u *unitDraw) string {
	switch f.name {
	case "Reference":
		return "reference " + f.text
	case "Value":
		return "value " + f.text + " of " + u.part.Ref
	}
	return f.name + " of " + u.part.Ref
}

// terminate draws the stubs of u's unlinked pins: a no-connect flag, or a
// stub ending in a label or power port; neighbouring pins on one edge and
// one net share one label or port over a short bus.
func (dr *drawer) terminate(d *drawn, u *unitDraw, joins map[spotRef]point, m int) {
	type edge struct {
		out   point
		coord float64
	}
	byEdge := map[edge][]int{}
	var edges []edge
	for i, sp := range u.spots {
		pos := u.rel.add(sp.off)
		key := fmt.Sprintf("%s/%s", u.key, sp.nums[0])
		if _, joined := joins[spotRef{m, i}]; joined {
			continue
		}
		switch {
		case sp.linked:
			continue
		case sp.nc:
			d.ncs = append(d.ncs, keyed{pos, key})
			// The flag is the pin's: the pin's own number may touch it.
			d.items = append(d.items, item{kind: kindBody, owner: u.key, what: "no-connect flag on " + u.part.Ref + "." + sp.nums[0],
				b: box{pos.X - 0.7, pos.Y - 0.7, pos.X + 0.7, pos.Y + 0.7}})
			continue
		case sp.net == "":
			continue
		}
		e := edge{sp.out, pos.X} // a side edge is a column
		if sp.out.X == 0 {
			e.coord = pos.Y // a top or bottom edge is a row
		}
		if _, ok := byEdge[e]; !ok {
			edges = append(edges, e)
		}
		byEdge[e] = append(byEdge[e], i)
	}
	for _, e := range edges {
		idx := byEdge[e]
		along := func(i int) float64 {
			if e.out.X != 0 {
				return u.spots[i].off.Y
			}
			return u.spots[i].off.X
		}
		sort.SliceStable(idx, func(a, b int) bool { return along(idx[a]) < along(idx[b]) })
		for k := 0; k < len(idx); {
			// A run: neighbours 2.54 mm apart on one net.
			j := k + 1
			for j < len(idx) && u.spots[idx[j]].net == u.spots[idx[k]].net && math.Abs(along(idx[j])-along(idx[j-1])-grid) < 1e-6 {
				j++
			}
			run := idx[k:j]
			net := u.spots[run[0]].net
			// A label's text rises on the side of smaller along (above a
			// side stub, left of a vertical one): with a power port on the
			// neighbouring pin there, the label moves out past the port.
			reach := stub
			if dr.ports[net] == nil {
				for _, i := range idx {
					if n := u.spots[i].net; dr.ports[n] != nil && math.Abs(along(run[0])-grid-along(i)) < 1e-6 {
						// Past the port and its value: stub, body, gap, text, room.
						past := dr.ports[n].reach() + 0.5 + textWidth(n, labelSize) + clearance + 0.3
						reach = stub + math.Ceil(past/grid-1e-6)*grid
					}
				}
			}
			var ends []point
			key := fmt.Sprintf("%s/%s", u.key, u.spots[run[0]].nums[0])
			port := "port/" + key // the stub and bus wires touching the port
			for n, i := range run {
				sp := u.spots[i]
				pos := u.rel.add(sp.off)
				end := pos.add(sp.out.scale(reach)).round()
				att := []string{u.key}
				if n == 0 {
					att = append(att, port)
				}
				d.wire(pos, end, fmt.Sprintf("%s/%s", u.key, sp.nums[0]), net, att...)
				ends = append(ends, end)
			}
			for i := 0; i+1 < len(ends); i++ {
				var att []string
				if i == 0 {
					att = append(att, port)
				}
				d.wire(ends[i], ends[i+1], fmt.Sprintf("%s/bus%d", key, i), net, att...)
				if i > 0 {
					d.juncs = append(d.juncs, keyed{ends[i], fmt.Sprintf("%s/%d", key, i)})
				}
			}
			if dr.ports[net] != nil {
				if len(ends) > 1 {
					d.juncs = append(d.juncs, keyed{ends[0], key + "/0"})
				}
				// Flat (horizontal) value text on a vertical stub only when no
				// other stub on this edge is within reach of it.
				flat := e.out.X == 0
				for _, i := range idx {
					if dx := math.Abs(along(i) - along(run[0])); i != run[0] && dx < textWidth(net, labelSize)+grid {
						flat = false
					}
				}
				dr.port(d, ends[0], e.out, net, key, flat)
			} else {
				d.label(ends[0], e.out, net, key)
			}
			k = j
		}
	}
}
