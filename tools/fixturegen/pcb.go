package main

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"copperhead/internal/sexpr"
)

// Board outline (board-relative millimetres) and where it sits on the page.
const (
	boardW  = 60.0
	boardH  = 50.0
	originX = 100.0
	originY = 60.0
	grid    = 0.25
)

// placement: ref -> x, y, rotation (board-relative).
var placement = map[string][3]float64{
	"U1": {49.5, 13.5, 0},
	// power
	"J1": {12, 45.75, 0},
	"U2": {12, 36, 0},
	"R1": {5.5, 37.5, 0},
	"R2": {18.5, 37.5, 0},
	"C1": {21, 44, 0},
	"D1": {27, 44, 0},
	"Q1": {27, 38.5, 0},
	"R3": {21, 33, 0},
	"U3": {34, 34, 0},
	"R4": {34, 38.5, 0},
	"C2": {40, 38.5, 0},
	"J2": {51, 44.5, 0},
	"U4": {44, 32, 0},
	"C3": {40, 30, 0},
	"C4": {48, 30, 0},
	// root
	"C5":  {36.5, 9, 0},
	"C6":  {36.5, 12, 0},
	"R5":  {31, 9, 0},
	"C7":  {31, 12, 0},
	"J3":  {4, 4, 0},
	"R6":  {16, 3, 0},
	"R7":  {21, 3, 0},
	"C8":  {16, 7.5, 0},
	"C9":  {21, 7.5, 0},
	"D2":  {27, 19, 0},
	"R8":  {34, 15.5, 0},
	"R9":  {34, 18.5, 0},
	"R10": {34, 21.5, 0},
}

// powerNets get wider tracks.
var powerNets = map[string]bool{"GND": true, "3V3": true, "VBUS": true, "VBAT": true, "VSYS": true}

func normAngle(a float64) float64 {
	a = math.Mod(a, 360)
	if a < 0 {
		a += 360
	}
	return a
}

// atNode rewrites an (at x y [a]) node adding rot to the angle.
func rotateAt(at *sexpr.Node, rot float64, keepZero bool) {
	x, _ := at.Float(0)
	y, _ := at.Float(1)
	a, _ := at.Float(2)
	na := normAngle(a + rot)
	if na == 0 && !keepZero && at.Arg(2) == "" {
		*at = N("at", x, y)
		return
	}
	*at = N("at", x, y, na)
}

type boardPin struct {
	net, fn, typ string
}

func buildBoard(lib *Library, parts []*Part, pinNets map[string]map[string]string) (string, error) {
	// Net table: every symbol pin of every footprint part.
	pinInfo := map[string]map[string]boardPin{}
	netSet := map[string]bool{}
	for _, p := range parts {
		if p.Footprint == "" {
			continue
		}
		s, err := lib.Symbol(p.LibID)
		if err != nil {
			return "", err
		}
		m := map[string]boardPin{}
		for _, pin := range s.Pins {
			net := pinNets[p.Ref][pin.Number]
			typ := pin.Type
			if net == "" {
				name := pin.Name
				if name == "~" || name == "" {
					net = fmt.Sprintf("unconnected-(%s-Pad%s)", p.Ref, pin.Number)
				} else {
					net = fmt.Sprintf("unconnected-(%s-%s-Pad%s)", p.Ref, name, pin.Number)
				}
				if typ != "no_connect" {
					typ += "+no_connect"
				}
			}
			fn := pin.Name
			if fn == "~" {
				fn = ""
			}
			m[pin.Number] = boardPin{net: net, fn: fn, typ: typ}
			netSet[net] = true
		}
		pinInfo[p.Ref] = m
	}
	var netNames []string
	for n := range netSet {
		netNames = append(netNames, n)
	}
	sort.Slice(netNames, func(a, b int) bool {
		ua, ub := strings.HasPrefix(netNames[a], "unconnected-"), strings.HasPrefix(netNames[b], "unconnected-")
		if ua != ub {
			return ub
		}
		return netNames[a] < netNames[b]
	})
	netID := map[string]int{}
	for i, n := range netNames {
		netID[n] = i + 1
	}

	r := newRouter(boardW, boardH, grid)
	for n, id := range netID {
		if powerNets[n] {
			r.widths[id] = powerWidth
		}
	}
	padsByNet := map[int][]*rpad{}
	var fps []sexpr.Node
	var static []obstacle
	for _, p := range parts {
		if p.Footprint == "" {
			continue
		}
		pl, ok := placement[p.Ref]
		if !ok {
			return "", fmt.Errorf("no placement for %s", p.Ref)
		}
		def, err := lib.Footprint(p.Footprint)
		if err != nil {
			return "", err
		}
		pos := Pt{X: pl[0], Y: pl[1]}
		rot := pl[2]
		// Router geometry.
		for _, pad := range def.Pads {
			c := pos.Add(rotPt(Pt{X: pad.X, Y: pad.Y}, rot))
			ang := normAngle(pad.Angle + rot)
			w, h := pad.W, pad.H
			if ang == 90 || ang == 270 {
				w, h = h, w
			}
			if math.Mod(ang, 90) != 0 || pad.Shape == "custom" || pad.Shape == "trapezoid" || pad.Shape == "chamfered_rect" {
				return "", fmt.Errorf("%s pad %s: %s pad at %g degrees is not supported by the router", p.Ref, pad.Number, pad.Shape, ang)
			}
			var sh Shape
			switch pad.Shape {
			case "circle":
				sh = Shape{Kind: ShCircle, A: c, R: w / 2}
			case "oval":
				if w > h {
					sh = Shape{Kind: ShCapsule, A: Pt{X: c.X - (w-h)/2, Y: c.Y}, B: Pt{X: c.X + (w-h)/2, Y: c.Y}, R: h / 2}
				} else {
					sh = Shape{Kind: ShCapsule, A: Pt{X: c.X, Y: c.Y - (h-w)/2}, B: Pt{X: c.X, Y: c.Y + (h-w)/2}, R: w / 2}
				}
			default:
				sh = Shape{Kind: ShRect, Box: Rect{X0: c.X - w/2, Y0: c.Y - h/2, X1: c.X + w/2, Y1: c.Y + h/2}}
			}
			net := 0
			if bp, ok := pinInfo[p.Ref][pad.Number]; ok && pad.Number != "" {
				net = netID[bp.net]
			}
			if pad.Copper {
				static = append(static, obstacle{sh: sh, net: net, layers: [2]bool{pad.Front, pad.Back}})
			}
			if pad.Drill > 0 {
				dw, dh := pad.DrillW, pad.DrillH
				if ang == 90 || ang == 270 {
					dw, dh = dh, dw
				}
				var hs Shape
				if dw == dh {
					hs = Shape{Kind: ShCircle, A: c, R: dw / 2}
				} else if dw > dh {
					hs = Shape{Kind: ShCapsule, A: Pt{X: c.X - (dw-dh)/2, Y: c.Y}, B: Pt{X: c.X + (dw-dh)/2, Y: c.Y}, R: dh / 2}
				} else {
					hs = Shape{Kind: ShCapsule, A: Pt{X: c.X, Y: c.Y - (dh-dw)/2}, B: Pt{X: c.X, Y: c.Y + (dh-dw)/2}, R: dw / 2}
				}
				hnet := net
				if pad.Type == "np_thru_hole" {
					hnet = 0
				}
				static = append(static, obstacle{sh: hs, net: hnet, layers: [2]bool{true, true}, hole: true})
			}
			if net > 0 && pad.Copper {
				rp := &rpad{ref: p.Ref, num: pad.Number, net: net, center: c, sh: sh, layers: [2]bool{pad.Front, pad.Back}}
				padsByNet[net] = append(padsByNet[net], rp)
				for l := 0; l < 2; l++ {
					if rp.layers[l] {
						r.anchors[key(c, l)] = true
					}
				}
			}
		}
		for _, k := range def.Keepouts {
			a := pos.Add(rotPt(Pt{X: k.X0, Y: k.Y0}, rot))
			b := pos.Add(rotPt(Pt{X: k.X1, Y: k.Y1}, rot))
			box := Rect{X0: math.Min(a.X, b.X), Y0: math.Min(a.Y, b.Y), X1: math.Max(a.X, b.X), Y1: math.Max(a.Y, b.Y)}
			static = append(static, obstacle{sh: Shape{Kind: ShRect, Box: box}, layers: [2]bool{true, true}, keep: true})
		}
		fps = append(fps, footprintNode(def, p, pos, rot, pinInfo[p.Ref], netID))
	}

	// Route in the planned order; when nets fail, move them to the front
	// and start over (a deterministic rip-up-everything retry).
	order := routeOrder(padsByNet, netID)
	var failures []string
	for attempt := 0; attempt < 12; attempt++ {
		r.reset()
		for _, o := range static {
			r.addObstacle(o)
		}
		failures = nil
		var failed []int
		for _, net := range order {
			if err := r.routeNet(net, padsByNet[net]); err != nil {
				failures = append(failures, fmt.Sprintf("%s: %v", netNames[net-1], err))
				failed = append(failed, net)
			}
		}
		if *verbose {
			fmt.Fprintf(os.Stderr, "routing attempt %d: %d nets failed\n", attempt+1, len(failed))
		}
		if len(failed) == 0 {
			break
		}
		isFailed := map[int]bool{}
		for _, f := range failed {
			isFailed[f] = true
		}
		next := append([]int{}, failed...)
		for _, n := range order {
			if !isFailed[n] {
				next = append(next, n)
			}
		}
		order = next
	}
	var routeErr error
	if len(failures) > 0 {
		routeErr = fmt.Errorf("routing failed:\n  %s", strings.Join(failures, "\n  "))
	}
	segs, vias := r.tracks()
	if *verbose {
		fmt.Fprintf(os.Stderr, "board: %d footprints, %d nets, %d track segments, %d vias\n", len(fps), len(netNames), len(segs), len(vias))
	}

	// Emit.
	args := []any{
		N("version", 20241229), N("generator", "pcbnew"), N("generator_version", "9.0"),
		N("general", N("thickness", 1.6), N("legacy_teardrops", Sym("no"))),
		N("paper", "A4"),
		N("title_block", N("title", "open-telegraph"), N("date", "2025-01-01"), N("rev", "A"),
			N("company", "open-telegraph"), N("comment", 1, "ESP32-S3 Morse keyer, generated by tools/fixturegen")),
		twoLayerStack(),
		setupNode(),
		N("net", 0, ""),
	}
	for i, n := range netNames {
		args = append(args, N("net", i+1, n))
	}
	for i := range fps {
		args = append(args, fps[i])
	}
	args = append(args, N("gr_rect",
		N("start", originX, originY), N("end", originX+boardW, originY+boardH),
		N("stroke", N("width", 0.05), N("type", Sym("default"))),
		N("fill", Sym("no")), N("layer", "Edge.Cuts"), N("uuid", uid("edge"))))
	layerName := [2]string{"F.Cu", "B.Cu"}
	for i, s := range segs {
		args = append(args, N("segment",
			N("start", originX+s.a.X, originY+s.a.Y), N("end", originX+s.b.X, originY+s.b.Y),
			N("width", r.width(s.net)), N("layer", layerName[s.l]), N("net", s.net),
			N("uuid", uid(fmt.Sprintf("seg/%d", i)))))
	}
	for i, v := range vias {
		args = append(args, N("via",
			N("at", originX+v.p.X, originY+v.p.Y), N("size", viaSize), N("drill", viaDrill),
			N("layers", "F.Cu", "B.Cu"), N("net", v.net), N("uuid", uid(fmt.Sprintf("via/%d", i)))))
	}
	args = append(args, N("embedded_fonts", Sym("no")))
	n := N("kicad_pcb", args...)
	return format(&n), routeErr
}

// routeOrder routes the hardest, most constrained nets first.
func routeOrder(padsByNet map[int][]*rpad, netID map[string]int) []int {
	first := []string{"USB_D+", "USB_D-", "CC1", "CC2"}
	last := []string{"VBUS", "VSYS", "VBAT", "3V3", "GND"}
	pinned := map[int]bool{}
	var order []int
	for _, n := range first {
		if id, ok := netID[n]; ok {
			order = append(order, id)
			pinned[id] = true
		}
	}
	for _, n := range last {
		pinned[netID[n]] = true
	}
	var mid []int
	for id := range padsByNet {
		if !pinned[id] {
			mid = append(mid, id)
		}
	}
	hpwl := func(id int) float64 {
		b := Rect{X0: 1e9, Y0: 1e9, X1: -1e9, Y1: -1e9}
		for _, p := range padsByNet[id] {
			b = Rect{X0: math.Min(b.X0, p.center.X), Y0: math.Min(b.Y0, p.center.Y), X1: math.Max(b.X1, p.center.X), Y1: math.Max(b.Y1, p.center.Y)}
		}
		return b.X1 - b.X0 + b.Y1 - b.Y0
	}
	sort.Slice(mid, func(a, b int) bool {
		ha, hb := hpwl(mid[a]), hpwl(mid[b])
		if ha != hb {
			return ha < hb
		}
		return mid[a] < mid[b]
	})
	order = append(order, mid...)
	for _, n := range last {
		if id, ok := netID[n]; ok {
			order = append(order, id)
		}
	}
	return order
}

// footprintNode turns a library footprint into a placed board footprint.
func footprintNode(def *FootprintDef, p *Part, pos Pt, rot float64, pins map[string]boardPin, netID map[string]int) sexpr.Node {
	n := clone(&def.Node)
	setArg(&n, 0, str(def.LibID))
	removeChildren(&n, "version", "generator", "generator_version")
	at := N("at", originX+pos.X, originY+pos.Y)
	if rot != 0 {
		at = N("at", originX+pos.X, originY+pos.Y, rot)
	}
	insertAfter(&n, "layer", N("uuid", uid("fp/"+p.Ref)), at)
	sheetname, sheetfile := "/", rootFile
	if p.Sheet == "power" {
		sheetname, sheetfile = "/"+powerSheet+"/", powerFile
	}
	for i := range n.Children {
		c := &n.Children[i]
		if c.Kind != sexpr.List {
			continue
		}
		switch c.Head() {
		case "property", "fp_text", "fp_text_box", "fp_line", "fp_rect", "fp_circle", "fp_arc", "fp_poly", "fp_curve", "pad", "zone":
			// Library files may omit item uuids; KiCad invents random ones
			// on load, we derive stable ones.
			if c.Child("uuid") == nil {
				c.Children = append(c.Children, N("uuid", uid(fmt.Sprintf("fp/%s/item/%d", p.Ref, i))))
			}
		}
		switch c.Head() {
		case "property":
			switch c.Arg(0) {
			case "Reference":
				setArg(c, 1, str(p.Ref))
			case "Value":
				setArg(c, 1, str(p.Value))
			}
			if a := c.Child("at"); a != nil && rot != 0 {
				rotateAt(a, rot, true)
			}
		case "fp_text":
			if a := c.Child("at"); a != nil && rot != 0 {
				rotateAt(a, rot, true)
			}
		case "pad":
			if a := c.Child("at"); a != nil && rot != 0 {
				rotateAt(a, rot, false)
			}
			num := c.Arg(0)
			bp, ok := pins[num]
			if !ok || num == "" {
				continue
			}
			extra := []sexpr.Node{N("net", netID[bp.net], bp.net)}
			if bp.fn != "" {
				extra = append(extra, N("pinfunction", bp.fn))
			}
			extra = append(extra, N("pintype", bp.typ))
			// insert before uuid
			kids := make([]sexpr.Node, 0, len(c.Children)+len(extra))
			for _, k := range c.Children {
				if k.Kind == sexpr.List && k.Head() == "uuid" {
					kids = append(kids, extra...)
				}
				kids = append(kids, k)
			}
			c.Children = kids
		case "zone":
			for xy := range c.Child("polygon").Child("pts").All("xy") {
				x, _ := xy.Float(0)
				y, _ := xy.Float(1)
				q := pos.Add(rotPt(Pt{X: x, Y: y}, rot))
				*xy = N("xy", originX+q.X, originY+q.Y)
			}
		}
	}
	// path/sheetname/sheetfile after the last property.
	last := 0
	for i := range n.Children {
		if n.Children[i].Kind == sexpr.List && n.Children[i].Head() == "property" {
			last = i
		}
	}
	path := "/" + uid("sym/"+p.Ref)
	if p.Sheet == "power" {
		path = "/" + powerUUID + path
	}
	kids := append([]sexpr.Node{}, n.Children[:last+1]...)
	kids = append(kids, N("path", path), N("sheetname", sheetname), N("sheetfile", sheetfile))
	kids = append(kids, n.Children[last+1:]...)
	n.Children = kids
	return n
}
