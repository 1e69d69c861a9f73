package draft

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"copperhead/internal/kicad/kigen"
	"copperhead/internal/sexpr"
)

// sheetItems rebuilds the legibility check's items from a written sheet,
// not from the engine's own state: symbols from their embedded library
// graphics at the position and rotation written, fields where they are
// written (a field written without justification is drawn centred there,
// its text turned with a turned symbol), labels, wires and no-connect
// flags, nets from the wires' connectivity. It is the test's oracle that
// what was written is what was checked. Problems are things a sheet must
// not have beside overlaps: a label or no-connect flag on nothing.
func sheetItems(t *testing.T, path string) (items []item, problems []string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root, err := sexpr.Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	libs := map[string]*kigen.SymDef{}
	if ls := root.Child("lib_symbols"); ls != nil {
		for s := range ls.All("symbol") {
			libs[s.Arg(0)] = &kigen.SymDef{LibID: s.Arg(0), Node: *s, Power: s.Child("power") != nil}
		}
	}
	key := func(p point) string { return fmt.Sprintf("%.3f,%.3f", p.X, p.Y) }
	parent := map[string]string{}
	var find func(string) string
	find = func(k string) string {
		if p, ok := parent[k]; ok && p != k {
			r := find(p)
			parent[k] = r
			return r
		}
		parent[k] = k
		return k
	}
	union := func(a, b string) { parent[find(a)] = find(b) }
	type seg struct{ a, b point }
	var wires []seg
	for w := range root.All("wire") {
		var pts []point
		for xy := range w.Child("pts").All("xy") {
			x, _ := xy.Float(0)
			y, _ := xy.Float(1)
			pts = append(pts, point{x, y})
		}
		wires = append(wires, seg{pts[0], pts[1]})
		union(key(pts[0]), key(pts[1]))
	}
	onSeg := func(p point, s seg) bool {
		return math.Abs((s.b.X-s.a.X)*(p.Y-s.a.Y)-(s.b.Y-s.a.Y)*(p.X-s.a.X)) < 1e-6 &&
			p.X >= min(s.a.X, s.b.X)-1e-6 && p.X <= max(s.a.X, s.b.X)+1e-6 && p.Y >= min(s.a.Y, s.b.Y)-1e-6 && p.Y <= max(s.a.Y, s.b.Y)+1e-6
	}
	netAt := func(p point) string {
		for _, s := range wires {
			if onSeg(p, s) {
				return find(key(s.a))
			}
		}
		return ""
	}

	pinOwners := map[string][]string{} // point -> symbols with a pin end there
	for s := range root.All("symbol") {
		lib := libs[s.Child("lib_id").Arg(0)]
		if lib == nil {
			t.Fatalf("%s: symbol %s has no lib_symbols entry", path, s.Child("lib_id").Arg(0))
		}
		at := s.Child("at")
		x, _ := at.Float(0)
		y, _ := at.Float(1)
		a, _ := at.Float(2)
		origin, o := point{x, y}, orient(int(a))
		unit := 1
		if u := s.Child("unit"); u != nil {
			f, _ := u.Float(0)
			unit = int(f)
		}
		ref := ""
		for p := range s.All("property") {
			if p.Arg(0) == "Reference" {
				ref = p.Arg(1)
			}
		}
		owner := fmt.Sprintf("%s/%d", ref, unit)
		g := unitGeometry(lib, unit)
		for _, sh := range g.shapes {
			items = append(items, item{kind: kindBody, owner: owner, what: "body of " + ref, b: o.box(sh).move(origin)})
		}
		for _, pb := range g.pins {
			items = append(items, item{kind: kindBody, owner: owner, what: "a pin of " + ref, b: o.box(pb).move(origin)})
		}
		for _, tx := range g.texts {
			items = append(items, item{kind: kindText, owner: owner, what: tx.what + " of " + ref, b: o.box(tx.b).move(origin)})
		}
		for sub := range lib.Node.All("symbol") {
			parts := strings.Split(sub.Arg(0), "_")
			su, _ := strconv.Atoi(parts[len(parts)-2])
			style, _ := strconv.Atoi(parts[len(parts)-1])
			if (su != 0 && su != unit) || style > 1 {
				continue
			}
			for pin := range sub.All("pin") {
				if hiddenFlag(pin) {
					continue
				}
				end := o.apply(xyOf(pin.Child("at"))).add(origin).round()
				pinOwners[key(end)] = append(pinOwners[key(end)], owner)
			}
		}
		for p := range s.All("property") {
			size, hj, vj, hidden := textEffects(p)
			if hidden || p.Arg(1) == "" {
				continue
			}
			pos := xyOf(p.Child("at"))
			pos.Y = -pos.Y // a placed field's at is already sheet coordinates
			ang, _ := p.Child("at").Float(2)
			var b box
			if p.Child("effects").Child("justify") == nil {
				b = justified(pos, textWidth(p.Arg(1), size), textHeight(size), (int(ang)%180 == 90) != o.sideways(), "center", "center")
			} else {
				b = fieldBox(pos, ang, p.Arg(1), size, hj, vj)
			}
			items = append(items, item{kind: kindText, owner: owner, what: strings.ToLower(p.Arg(0)) + " " + p.Arg(1) + " of " + ref, b: b, placed: lib.Power})
		}
	}
	for i, w := range wires {
		var attach []string
		attach = append(attach, pinOwners[key(w.a)]...)
		attach = append(attach, pinOwners[key(w.b)]...)
		items = append(items, item{kind: kindWire, owner: fmt.Sprintf("wire/%d", i), what: fmt.Sprintf("wire %s–%s", w.a, w.b),
			b: segBox(w.a, w.b, wireHalf), net: find(key(w.a)), attach: attach, seg: &[2]point{w.a, w.b}})
	}
	for l := range root.All("label") {
		p := xyOf(l.Child("at"))
		p.Y = -p.Y
		ang, _ := l.Child("at").Float(2)
		out := map[int]point{0: {1, 0}, 90: {0, -1}, 180: {-1, 0}, 270: {0, 1}}[int(ang)]
		if netAt(p) == "" {
			problems = append(problems, fmt.Sprintf("label %s at %s is on no wire", l.Arg(0), p))
		}
		items = append(items, item{kind: kindText, owner: "label/" + key(p), what: "label " + l.Arg(0), b: labelBox(p, out, l.Arg(0)),
			placed: true, anchor: &p})
	}
	for n := range root.All("no_connect") {
		p := xyOf(n.Child("at"))
		p.Y = -p.Y
		owners := pinOwners[key(p.round())]
		if len(owners) == 0 {
			problems = append(problems, fmt.Sprintf("no-connect flag at %s is on no pin", p))
			continue
		}
		items = append(items, item{kind: kindBody, owner: owners[0], what: "no-connect flag at " + p.String(), b: box{p.X - 0.7, p.Y - 0.7, p.X + 0.7, p.Y + 0.7}})
	}
	// Junctions: a dot wherever three or more wire ends and pins meet, none
	// elsewhere, and no wire ending on the middle of another (a T the
	// reader cannot tell from a crossing).
	ends := map[string]int{}
	for _, w := range wires {
		ends[key(w.a)]++
		ends[key(w.b)]++
	}
	dots := map[string]bool{}
	for j := range root.All("junction") {
		p := xyOf(j.Child("at"))
		p.Y = -p.Y
		dots[key(p.round())] = true
	}
	for k, n := range ends {
		n += len(pinOwners[k])
		switch {
		case n >= 3 && !dots[k]:
			problems = append(problems, fmt.Sprintf("%d wire ends and pins meet at %s without a junction", n, k))
		case n < 3 && dots[k]:
			problems = append(problems, fmt.Sprintf("a junction at %s where only %d meet", k, n))
		}
	}
	for i, w := range wires {
		for j, o := range wires {
			for _, e := range []point{o.a, o.b} {
				if i != j && onSeg(e, w) && !e.eq(w.a) && !e.eq(w.b) {
					problems = append(problems, fmt.Sprintf("a wire ends on the middle of wire %s–%s at %s", w.a, w.b, e))
				}
			}
		}
	}
	for tx := range root.All("text") {
		p := xyOf(tx.Child("at"))
		p.Y = -p.Y
		items = append(items, item{kind: kindText, owner: "title/" + tx.Arg(0), what: "group title " + tx.Arg(0), placed: true,
			b: justified(p, titleWidth(tx.Arg(0)), textHeight(2.54), false, "left", "bottom")})
	}
	return items, problems
}

// TestSheetCheckCatchesCrowding holds the oracle to failing: a drafted
// sheet passes it, and the same sheet with one label moved onto a part's
// reference does not.
func TestSheetCheckCatchesCrowding(t *testing.T) {
	path, _ := draftFile(t, "ldo")
	items, problems := sheetItems(t, path)
	if err := checkLegible(items); err != nil || len(problems) > 0 {
		t.Fatalf("the drafted sheet fails the file check: %v %v", err, problems)
	}
	src, _ := os.ReadFile(path)
	root, _ := sexpr.Parse(path, src)
	var refAt *sexpr.Node
	for s := range root.All("symbol") {
		for p := range s.All("property") {
			if p.Arg(0) == "Reference" && p.Arg(1) == "U1" {
				refAt = p.Child("at")
			}
		}
	}
	var lab *sexpr.Node
	for l := range root.All("label") {
		lab = l
		break
	}
	if refAt == nil || lab == nil {
		t.Fatal("the ldo sheet has no U1 reference or no label")
	}
	at := lab.Child("at")
	crowded := string(src[:at.Start]) + fmt.Sprintf("(at %s %s 0)", refAt.Arg(0), refAt.Arg(1)) + string(src[at.End:])
	bad := path + ".crowded.kicad_sch"
	if err := os.WriteFile(bad, []byte(crowded), 0o644); err != nil {
		t.Fatal(err)
	}
	items, _ = sheetItems(t, bad)
	err := checkLegible(items)
	if err == nil || !strings.Contains(err.Error(), "label "+lab.Arg(0)) {
		t.Errorf("a label moved onto U1's reference: check = %v, want an overlap naming the label", err)
	}
}
