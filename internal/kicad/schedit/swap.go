package schedit

import (
	"fmt"

	"copperhead/internal/kicad"
	"copperhead/internal/sexpr"
)

// SwapPins moves the signals on two pins of one part, typically two MCU
// GPIOs. It handles the way such pins are drawn: a net label on the pin or at
// the end of a short wire stub from it, a no-connect flag, or nothing. Two
// labelled pins swap label texts (and shapes); a labelled pin and a free one
// move the stub and label across and the no-connect flag back. A pin wired
// to anything else (another part, a junction, a longer net) is refused:
// moving copper-level connections by hand is a redrawing job for KiCad.
//
// Swapping is its own inverse, so a bare swap applied twice restores the
// schematic. net states the intent instead ("net must end up on pinB"),
// which makes the operation idempotent like the others: when pinB already
// carries net the plan is a no-op, when pinA carries it the pins swap, and
// when neither does the call is refused. An empty net is the bare toggle.
// net is spelled as the read commands print it ("/PTT") or as the bare
// label text. In a sheet used several times every instance swaps.
func SwapPins(d *Design, ref, pinA, pinB, net string) (*Plan, error) {
	var part *kicad.Part
	for i := range d.Model.Parts {
		if d.Model.Parts[i].Refdes == ref {
			part = &d.Model.Parts[i]
			break
		}
	}
	if part == nil {
		return nil, Refusef("no part %s in the schematic", ref)
	}
	sh := d.SheetByRel(part.SheetFile)
	if sh == nil {
		return nil, fmt.Errorf("part %s: sheet %s is not loaded", ref, part.SheetFile)
	}
	pins := d.Model.Pins()
	a, err := findPin(pins, ref, part.SheetPath, pinA)
	if err != nil {
		return nil, err
	}
	b, err := findPin(pins, ref, part.SheetPath, pinB)
	if err != nil {
		return nil, err
	}
	if a.Number == b.Number {
		return nil, Refusef("%s.%s and %s.%s are the same pin", ref, pinA, ref, pinB)
	}
	others := map[kicad.Point]string{}
	for _, p := range pins {
		if p.SheetPath == part.SheetPath && !(p.Refdes == ref && (p.Number == a.Number || p.Number == b.Number)) {
			others[p.Pos] = p.Refdes + "." + p.Number
		}
	}
	ca, err := pinConnection(sh, a, others)
	if err != nil {
		return nil, err
	}
	cb, err := pinConnection(sh, b, others)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Op: fmt.Sprintf("swap-pins %s.%s %s.%s", ref, a.Number, ref, b.Number), Touched: []string{ref}}
	if net != "" {
		plan.Op += " --net " + net
		// The net as the read commands print it ("/PTT") or bare: the
		// labels carry the bare text.
		_, net, _ = d.netSpace().splitScoped(net)
		switch {
		case cb.label != nil && unescapeNetName(cb.label.Arg(0)) == net:
			plan.Summary = append(plan.Summary, fmt.Sprintf("%s: %s pin %s already carries %s", sh.Rel, ref, b.Number, net))
			return plan, nil
		case ca.label == nil || unescapeNetName(ca.label.Arg(0)) != net:
			return nil, Refusef("neither %s.%s (%s) nor %s.%s (%s) carries %s", ref, a.Number, labelOf(ca), ref, b.Number, labelOf(cb), net)
		}
	}
	switch {
	case ca.label != nil && cb.label != nil:
		if ca.label.Head() != cb.label.Head() {
			return nil, Refusef("%s.%s has a %s and %s.%s a %s: swap them in KiCad", ref, a.Number, labelHeads[ca.label.Head()], ref, b.Number, labelHeads[cb.label.Head()])
		}
		swapString(plan, sh, &ca.label.Children[1], &cb.label.Children[1])
		if sa, sb := ca.label.Child("shape"), cb.label.Child("shape"); sa != nil && sb != nil {
			swapString(plan, sh, &sa.Children[1], &sb.Children[1])
		}
		plan.Summary = append(plan.Summary, fmt.Sprintf("%s: %s pin %s (%s) <-> pin %s (%s)", sh.Rel, ref, a.Number, ca.label.Arg(0), b.Number, cb.label.Arg(0)))
	case ca.label != nil:
		moveConnection(plan, sh, ca, cb, a.Pos, b.Pos)
		plan.Summary = append(plan.Summary, fmt.Sprintf("%s: %s %s moved from pin %s to pin %s", sh.Rel, ref, ca.label.Arg(0), a.Number, b.Number))
	case cb.label != nil:
		moveConnection(plan, sh, cb, ca, b.Pos, a.Pos)
		plan.Summary = append(plan.Summary, fmt.Sprintf("%s: %s %s moved from pin %s to pin %s", sh.Rel, ref, cb.label.Arg(0), b.Number, a.Number))
	}
	if !plan.NoOp() {
		// Each pin takes the other's net, in every instance of the sheet.
		refsA := pinAcross(d, sh, pinEnd{number: a.Number, pos: a.Pos})
		refsB := pinAcross(d, sh, pinEnd{number: b.Number, pos: b.Pos})
		for _, path := range sortedKeys(refsA) {
			ra, rb := refsA[path], refsB[path]
			if rb == "" {
				continue
			}
			plan.Expect.Pins = append(plan.Expect.Pins,
				PinNet{Ref: ra, Pin: a.Number, Like: rb + "." + b.Number},
				PinNet{Ref: rb, Pin: b.Number, Like: ra + "." + a.Number})
		}
	}
	return plan, nil
}

// labelOf names what a pin carries, for messages.
func labelOf(l pinLink) string {
	switch {
	case l.label != nil:
		return l.label.Arg(0)
	case l.nc != nil:
		return "no-connect"
	}
	return "unconnected"
}

// findPin finds a pin of ref on the sheet instance by number, else by name.
func findPin(pins []kicad.PlacedPin, ref, sheetPath, pin string) (kicad.PlacedPin, error) {
	var byName []kicad.PlacedPin
	for _, p := range pins {
		if p.Refdes != ref || p.SheetPath != sheetPath {
			continue
		}
		if p.Number == pin {
			return p, nil
		}
		if p.Name == pin {
			byName = append(byName, p)
		}
	}
	if len(byName) == 1 {
		return byName[0], nil
	}
	if len(byName) > 1 {
		return kicad.PlacedPin{}, Refusef("%s has %d pins named %s: give the pin number", ref, len(byName), pin)
	}
	return kicad.PlacedPin{}, Refusef("%s has no pin %s", ref, pin)
}

// pinLink is how a pin is drawn connected: a label on it or at the end of a
// one-wire stub, a no-connect flag, or nothing.
type pinLink struct {
	label *sexpr.Node // the net label, or nil
	wire  *sexpr.Node // the stub between pin and label, or nil
	nc    *sexpr.Node // the no-connect flag on the pin, or nil
}

// pinConnection classifies how pin p is connected on sheet sh, refusing
// anything but the simple shapes SwapPins can move safely.
func pinConnection(sh *Sheet, p kicad.PlacedPin, others map[kicad.Point]string) (pinLink, error) {
	var link pinLink
	refuse := func(what string) (pinLink, error) {
		return pinLink{}, Refusef("%s.%s is connected by %s: swap-pins only moves labels on short stubs; move it in KiCad", p.Refdes, p.Number, what)
	}
	if o, ok := others[p.Pos]; ok {
		return refuse("direct contact with pin " + o)
	}
	wiresAt := func(pt kicad.Point) []*sexpr.Node {
		var out []*sexpr.Node
		for w := range sh.Root.All("wire") {
			for _, e := range wireEnds(w) {
				if e == pt {
					out = append(out, w)
					break
				}
			}
		}
		return out
	}
	labelAt := func(pt kicad.Point) (*sexpr.Node, int) {
		var found *sexpr.Node
		n := 0
		for i := range sh.Root.Children {
			c := &sh.Root.Children[i]
			if labelHeads[c.Head()] != "" && nodeAt(c) == pt {
				found = c
				n++
			}
		}
		return found, n
	}
	for nc := range sh.Root.All("no_connect") {
		if nodeAt(nc) == p.Pos {
			link.nc = nc
		}
	}
	wires := wiresAt(p.Pos)
	label, nl := labelAt(p.Pos)
	switch {
	case nl > 1:
		return refuse("several labels")
	case len(wires) == 0:
		link.label = label
		return link, nil
	case len(wires) > 1:
		return refuse("several wires")
	case label != nil:
		return refuse("a label and a wire")
	}
	w := wires[0]
	ends := wireEnds(w)
	far := ends[0]
	if far == p.Pos {
		far = ends[1]
	}
	if o, ok := others[far]; ok {
		return refuse("a wire to pin " + o)
	}
	if len(wiresAt(far)) > 1 {
		return refuse("a wire that continues to other wires")
	}
	for j := range sh.Root.All("junction") {
		if nodeAt(j) == far {
			return refuse("a wire to a junction")
		}
	}
	label, nl = labelAt(far)
	if nl != 1 {
		return refuse("a wire that ends without exactly one label")
	}
	link.wire, link.label = w, label
	return link, nil
}

// wireEnds returns a wire's two end points.
func wireEnds(w *sexpr.Node) [2]kicad.Point {
	var out [2]kicad.Point
	i := 0
	for xy := range w.Child("pts").All("xy") {
		if i < 2 {
			x, _ := xy.Float(0)
			y, _ := xy.Float(1)
			out[i] = kicad.Point{X: x, Y: y}
		}
		i++
	}
	return out
}

// nodeAt returns a node's (at x y) position.
func nodeAt(n *sexpr.Node) kicad.Point {
	at := n.Child("at")
	x, _ := at.Float(0)
	y, _ := at.Float(1)
	return kicad.Point{X: x, Y: y}
}

// swapString exchanges two string atoms of one file.
func swapString(plan *Plan, sh *Sheet, a, b *sexpr.Node) {
	if a.Value == b.Value {
		return
	}
	plan.Add(sh.Path, sexpr.Edit{Start: a.Start, End: a.End, Text: string(b.Text(sh.Src))})
	plan.Add(sh.Path, sexpr.Edit{Start: b.Start, End: b.End, Text: string(a.Text(sh.Src))})
}

// moveConnection translates the label (and its stub) of from by to-from
// positions, and moves to's no-connect flag, if any, onto the freed pin.
func moveConnection(plan *Plan, sh *Sheet, from, to pinLink, fromPos, toPos kicad.Point) {
	dx, dy := toPos.X-fromPos.X, toPos.Y-fromPos.Y
	shift := func(n *sexpr.Node) {
		if len(n.Children) < 3 {
			return
		}
		x, _ := n.Float(0)
		y, _ := n.Float(1)
		plan.Add(sh.Path, sexpr.Edit{Start: n.Children[1].Start, End: n.Children[2].End, Text: mm(x+dx) + " " + mm(y+dy)})
	}
	if from.wire != nil {
		for xy := range from.wire.Child("pts").All("xy") {
			shift(xy)
		}
	}
	shift(from.label.Child("at"))
	for prop := range from.label.All("property") {
		if at := prop.Child("at"); at != nil {
			shift(at)
		}
	}
	if to.nc != nil {
		at := to.nc.Child("at")
		plan.Add(sh.Path, sexpr.Edit{Start: at.Children[1].Start, End: at.Children[2].End, Text: mm(fromPos.X) + " " + mm(fromPos.Y)})
	}
}
