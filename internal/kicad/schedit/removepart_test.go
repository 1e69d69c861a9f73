package schedit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/kicad"
)

func TestRemovePartR8(t *testing.T) {
	root := partFixture(t)
	orig, _ := os.ReadFile(root)
	before := partKiCad(t, root)
	d := loadVerified(t, root)
	p, err := RemovePart(d, "R8")
	if err != nil {
		t.Fatal(err)
	}
	applyVerified(t, d, p)
	t.Log(strings.Join(p.Summary, "\n"))
	// U1.6 shared LED_R with R8.2 alone: the summary says it is left so.
	if !slices.Contains(p.Summary, "U1.6 (IO6) is now the only pin on LED_R") {
		t.Errorf("the summary does not say U1.6 is left alone on LED_R: %v", p.Summary)
	}
	after := partKiCad(t, root)
	partWantChanges(t, before.changes(after), "R8.1: LED_RK -> (gone)", "R8.2: LED_R -> (gone)")
	// The labels that named R8's nets at R8 go with it, so the labels left
	// at U1 and D2 are single-pin global labels, which KiCad 9 reports as
	// global_label_dangling: that is the removal, not damage.
	if nv := before.newViolations(after, "global_label_dangling"); len(nv) > 0 {
		t.Fatalf("new ERC violations: %v (before %v, after %v)", nv, before.erc, after.erc)
	}
	now, _ := os.ReadFile(root)
	if !strings.Contains(string(now), "(lib_id \"Device:R\")") {
		t.Fatal("Device:R library symbol removed while other resistors use it")
	}
	// Every UUID left in the file was there before.
	for _, line := range strings.Split(string(now), "\n") {
		if strings.Contains(line, "(uuid ") && !strings.Contains(string(orig), line) {
			t.Fatalf("new or changed UUID line %q", line)
		}
	}
	if _, err := RemovePart(partLoad(t, root), "R8"); !errors.Is(err, ErrRefused) {
		t.Fatalf("second removal: %v, want unknown reference", err)
	}
}

// TestRemovePartKeepsTheNetsItsWiresName: removing a part whose wires run
// straight to another part's pins, with the net's label on them, keeps
// those wires: the other part stays on the labelled net (FuzzPlanner found
// the labels orphaned). In a sheet used three times all three go.
func TestRemovePartKeepsTheNetsItsWiresName(t *testing.T) {
	root := copyProject(t, "../testdata/reused3", "reused3.kicad_sch")
	d := loadVerified(t, root)
	p, err := RemovePart(d, "R101")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Expect.Removed; len(got) != 3 {
		t.Fatalf("Expect.Removed = %v, want the three instances", got)
	}
	applyVerified(t, d, p)
}

// TestRenameNetOldFormatPowerSymbol: in a file older than KiCad 8, KiCad
// names a power net by the library pin, not the Value, so renaming the
// Value would change nothing KiCad shows: refused, saying why.
func TestRenameNetOldFormatPowerSymbol(t *testing.T) {
	root := copyProject(t, "../testdata/kicad6", "kicad6.kicad_sch")
	d := loadVerified(t, root)
	_, err := RenameNet(d, "GND", "GND_A", false)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "older than KiCad 8") {
		t.Fatalf("RenameNet GND on a KiCad 6 file = %v, want a refusal naming the file format", err)
	}
}

// TestRemovePartFollowsSplitWires: a wire from a part's pin to the rest of
// its net, drawn as two segments (a bend, or a wire KiCad split), goes
// whole with the part: removing only the segment at the pin left the other
// dangling (unconnected_wire_endpoint) on a real OLIMEX board. The netlist
// must not change beyond the part, and ERC must find no new dangling wire.
func TestRemovePartFollowsSplitWires(t *testing.T) {
	root := partFixture(t)
	d := mustLoad(t, root)
	sh := d.Sheets[d.RootPath]
	o := scanSheet(sh)
	// A pin whose one wire runs to a point other wiring meets.
	var ref string
	var w wireSeg
find:
	for _, sp := range o.pins {
		if sp.power != "" || len(sp.sym.refs) == 0 || strings.HasPrefix(sp.sym.refs[0], "#") {
			continue
		}
		for _, x := range o.wires {
			far := x.b
			if !samePoint(x.a, sp.pin.pos) {
				if !samePoint(x.b, sp.pin.pos) {
					continue
				}
				far = x.a
			}
			// Other wiring or another part's pin at the far end, no label.
			busy := slices.ContainsFunc(o.junctions, func(j objAt) bool { return samePoint(j.pos, far) }) ||
				slices.ContainsFunc(o.pins, func(q symPin) bool { return q.sym.node != sp.sym.node && samePoint(q.pin.pos, far) }) ||
				slices.ContainsFunc(o.wires, func(y wireSeg) bool { return y.node != x.node && onSegment(far, y.a, y.b) })
			labelled := slices.ContainsFunc(o.labels, func(l labelAt) bool { return onSegment(l.pos, x.a, x.b) })
			if stub, _ := o.follow(x, far); len(stub) == 1 && busy && !labelled {
				ref, w = sp.sym.refs[0], x
				break find
			}
		}
	}
	if ref == "" {
		t.Fatal("the fixture has no pin wired straight into other wiring")
	}
	mid := splitWire(t, root, w)
	before := partKiCad(t, root)
	d = loadVerified(t, root)
	p, err := RemovePart(d, ref)
	if err != nil {
		t.Fatal(err)
	}
	applyVerified(t, d, p)
	after := partKiCad(t, root)
	for _, c := range before.changes(after) {
		if !strings.HasPrefix(c, ref+".") {
			t.Errorf("removing %s changed another pin: %s", ref, c)
		}
	}
	if after.erc["unconnected_wire_endpoint"] > before.erc["unconnected_wire_endpoint"] {
		t.Fatalf("removing %s left a dangling wire: %s", ref, strings.Join(p.Summary, "; "))
	}
	nd := mustLoad(t, root)
	for _, x := range scanSheet(nd.Sheets[nd.RootPath]).wires {
		if samePoint(x.a, mid) || samePoint(x.b, mid) {
			t.Fatalf("the segment beyond the split at (%s, %s) stayed", mm(mid.X), mm(mid.Y))
		}
	}
}

// splitWire rewrites wire w of the schematic at root as two segments
// meeting at its midpoint, which it returns.
func splitWire(t *testing.T, root string, w wireSeg) kicad.Point {
	t.Helper()
	mid := kicad.Point{X: (w.a.X + w.b.X) / 2, Y: (w.a.Y + w.b.Y) / 2}
	src, err := os.ReadFile(root)
	if err != nil {
		t.Fatal(err)
	}
	seg := func(a, b kicad.Point) string {
		return fmt.Sprintf("(wire (pts (xy %s %s) (xy %s %s)) (stroke (width 0) (type default)) (uuid %s))",
			mm(a.X), mm(a.Y), mm(b.X), mm(b.Y), newUUID())
	}
	split := string(src[:w.node.Start]) + seg(w.a, mid) + "\n  " + seg(mid, w.b) + string(src[w.node.End:])
	if err := os.WriteFile(root, []byte(split), 0o644); err != nil {
		t.Fatal(err)
	}
	return mid
}

// TestDisconnectFollowsSplitStub: a stub from a pin to its label drawn as
// two segments is still a stub: disconnect removes both and the label
// (it refused, "wired to other objects", at the first segment's end).
func TestDisconnectFollowsSplitStub(t *testing.T) {
	root := partFixture(t)
	before := partKiCad(t, root)
	stub := connectIO17(t, root)
	splitWire(t, root, stub)
	partApply(t, root, func(d *Design) (*Plan, error) { return Disconnect(d, "U1", "IO17") })
	after := partKiCad(t, root)
	partWantChanges(t, before.changes(after))
	// Connect took the pin's no-connect flag; disconnect leaves it bare.
	if nv := before.newViolations(after, "pin_not_connected"); len(nv) > 0 {
		t.Fatalf("new ERC violations: %v (before %v, after %v)", nv, before.erc, after.erc)
	}
	now, _ := os.ReadFile(root)
	if strings.Contains(string(now), `"TEST_PT"`) {
		t.Fatal("the stub's label stayed")
	}
}

// TestRemovePartShortensAtTheFirstConnection: a stub from the removed part
// that leads into other wiring goes only up to the first thing along it that
// connects or names a net; the wire carrying that is shortened to end there.
// Keeping the whole stub (a label or a wire's end partway along a later
// segment) left its first segment dangling where the part was; removing it
// whole would cut that label, or that wire, off. KiCad's netlist must not
// change beyond the part, and ERC must find nothing new.
func TestRemovePartShortensAtTheFirstConnection(t *testing.T) {
	label := func(name string, p kicad.Point) string {
		return fmt.Sprintf("(label %q (at %s %s 0) (effects (font (size 1.27 1.27)) (justify left bottom)) (uuid %s))", name, mm(p.X), mm(p.Y), newUUID())
	}
	for _, tc := range []struct {
		name string
		// mark draws the thing on the stub's last segment at p; up is a
		// grid step square to that segment.
		mark func(p, up kicad.Point) string
	}{
		{"label", func(p, _ kicad.Point) string { return label("TRIM_HERE", p) }},
		{"wire end", func(p, up kicad.Point) string {
			end := kicad.Point{X: p.X + up.X, Y: p.Y + up.Y}
			return wireText(indentStyle("\t"), p, end) + "\n  " + label("TEE_HERE", end)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := partFixture(t)
			s := drawDetour(t, root, "R8", "1")
			insertTopLevel(t, root, tc.mark(s.mark, kicad.Point{X: 0, Y: -2.54}))
			before := partKiCad(t, root)
			d := loadVerified(t, root)
			plan, err := RemovePart(d, "R8")
			if err != nil {
				t.Fatal(err)
			}
			applyVerified(t, d, plan)
			after := partKiCad(t, root)
			for _, c := range before.changes(after) {
				if !strings.HasPrefix(c, "R8.") {
					t.Errorf("removing R8 changed another pin: %s", c)
				}
			}
			// R8.1 was the net's one pin, so its labels are left on a net
			// with no pin (label_dangling), and LED_R's other label single,
			// as in TestRemovePartR8; the wires are checked below.
			if nv := before.newViolations(after, "global_label_dangling", "label_dangling"); len(nv) > 0 {
				t.Fatalf("removing R8: new ERC violations %v (%s)", nv, strings.Join(plan.Summary, "; "))
			}
			shortened := false
			for _, x := range scanSheet(mustLoad(t, root).Sheets[d.RootPath]).wires {
				for _, q := range []kicad.Point{s.pin, s.bends[0], s.bends[1]} {
					if samePoint(x.a, q) || samePoint(x.b, q) {
						t.Fatalf("a wire to (%s, %s) stayed: %s", mm(q.X), mm(q.Y), strings.Join(plan.Summary, "; "))
					}
				}
				shortened = shortened || samePoint(x.a, s.mark) && samePoint(x.b, s.far) || samePoint(x.b, s.mark) && samePoint(x.a, s.far)
			}
			if !shortened {
				t.Fatalf("no wire runs from the mark to the stub's far end: %s", strings.Join(plan.Summary, "; "))
			}
		})
	}
}

// detour is a stub drawn by drawDetour: from the pin through two bends to
// far, with mark a grid point halfway along its last segment.
type detour struct {
	pin, far, mark kicad.Point
	bends          [2]kicad.Point
}

// drawDetour replaces the one straight wire from ref's pin to its label in
// the fixture at root with a three-segment detour to the same point (left
// 5.08 mm, along, back), and draws a wire on from there to a label ONWARD,
// so the stub leads into other wiring.
func drawDetour(t *testing.T, root, ref, pin string) detour {
	t.Helper()
	d := mustLoad(t, root)
	sh, _, pe, err := partPin(d, ref, pin)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range scanSheet(sh).wires {
		far := x.b
		if !samePoint(x.a, pe.pos) {
			if !samePoint(x.b, pe.pos) {
				continue
			}
			far = x.a
		}
		s := detour{pin: pe.pos, far: far, mark: kicad.Point{X: far.X - 2.54, Y: far.Y}}
		s.bends[0] = kicad.Point{X: pe.pos.X - 5.08, Y: pe.pos.Y}
		s.bends[1] = kicad.Point{X: far.X - 5.08, Y: far.Y}
		on := kicad.Point{X: far.X + 2.54, Y: far.Y}
		st := indentStyle("\t")
		wires := wireText(st, s.pin, s.bends[0]) + "\n  " + wireText(st, s.bends[0], s.bends[1]) + "\n  " +
			wireText(st, s.bends[1], far) + "\n  " + wireText(st, far, on) + "\n  " +
			fmt.Sprintf("(label \"ONWARD\" (at %s %s 0) (effects (font (size 1.27 1.27)) (justify left bottom)) (uuid %s))", mm(on.X), mm(on.Y), newUUID())
		src, err := os.ReadFile(root)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(root, []byte(string(src[:x.node.Start])+wires+string(src[x.node.End:])), 0o644); err != nil {
			t.Fatal(err)
		}
		return s
	}
	t.Fatalf("%s.%s has no wire in the fixture", ref, pin)
	return detour{}
}

// TestRemovePartTakesLabelsAlongItsStub: a label partway along a stub that
// leads nowhere else served only the removed pin; it goes with the stub
// (it was left behind, dangling).
func TestRemovePartTakesLabelsAlongItsStub(t *testing.T) {
	root := partFixture(t)
	stub := connectIO17(t, root)
	p := kicad.Point{X: (stub.a.X + stub.b.X) / 2, Y: (stub.a.Y + stub.b.Y) / 2}
	insertTopLevel(t, root, fmt.Sprintf("(label \"ALONG\" (at %s %s 0) (effects (font (size 1.27 1.27)) (justify left bottom)) (uuid %s))", mm(p.X), mm(p.Y), newUUID()))
	plan, err := Disconnect(loadVerified(t, root), "U1", "IO17")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(plan.Summary, "; "); !strings.Contains(got, `label "ALONG"`) || !strings.Contains(got, `label "TEST_PT"`) {
		t.Fatalf("disconnect keeps a label on the stub: %s", got)
	}
	// The same stub on a part being removed goes the same way.
	before := partKiCad(t, root)
	d := loadVerified(t, root)
	rp, err := RemovePart(d, "U1")
	if err != nil {
		t.Fatal(err)
	}
	applyVerified(t, d, rp)
	now, _ := os.ReadFile(root)
	if strings.Contains(string(now), `"ALONG"`) || strings.Contains(string(now), `"TEST_PT"`) {
		t.Fatalf("a label on U1.IO17's stub stayed: %s", strings.Join(rp.Summary, "; "))
	}
	if after := partKiCad(t, root); after.erc["label_dangling"] > before.erc["label_dangling"] {
		t.Fatal("removing U1 left a dangling label")
	}
}

// connectIO17 connects U1.IO17 of the fixture at root to TEST_PT and
// returns the one stub wire connect drew.
func connectIO17(t *testing.T, root string) wireSeg {
	t.Helper()
	partApply(t, root, func(d *Design) (*Plan, error) { return Connect(d, "U1", "IO17", "TEST_PT") })
	sh, _, pe, err := partPin(mustLoad(t, root), "U1", "IO17")
	if err != nil {
		t.Fatal(err)
	}
	var stub []wireSeg
	for _, w := range scanSheet(sh).wires {
		if samePoint(w.a, pe.pos) || samePoint(w.b, pe.pos) {
			stub = append(stub, w)
		}
	}
	if len(stub) != 1 {
		t.Fatalf("connect drew %d wires at U1.IO17, want its one stub", len(stub))
	}
	return stub[0]
}

// insertTopLevel adds text as a top-level item of the schematic at root,
// before its closing parenthesis.
func insertTopLevel(t *testing.T, root, text string) {
	t.Helper()
	src, err := os.ReadFile(root)
	if err != nil {
		t.Fatal(err)
	}
	end := strings.LastIndexByte(string(src), ')')
	if end < 0 {
		t.Fatalf("%s has no closing parenthesis", root)
	}
	if err := os.WriteFile(root, []byte(string(src[:end])+"  "+text+"\n"+string(src[end:])), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRemovePartKeepsAChainThroughItsPin: wires drawn on through a part's
// pin (a daisy chain) stay joined there when the part goes, as KiCad joins
// wire ends that touch. Removing each as the part's stub cut R9.1 off the
// net the pin's other wire names.
func TestRemovePartKeepsAChainThroughItsPin(t *testing.T) {
	root := partFixture(t)
	d := mustLoad(t, root)
	_, _, p8, err := partPin(d, "R8", "1")
	if err != nil {
		t.Fatal(err)
	}
	_, _, p9, err := partPin(d, "R9", "1")
	if err != nil {
		t.Fatal(err)
	}
	insertTopLevel(t, root, wireText(indentStyle("\t"), p8.pos, p9.pos))
	before := partKiCad(t, root)
	if before.pins["R8.1"] != before.pins["R9.1"] {
		t.Fatalf("the chain wire does not join R8.1 (%s) and R9.1 (%s)", before.pins["R8.1"], before.pins["R9.1"])
	}
	d = loadVerified(t, root)
	plan, err := RemovePart(d, "R8")
	if err != nil {
		t.Fatal(err)
	}
	applyVerified(t, d, plan)
	after := partKiCad(t, root)
	partWantChanges(t, before.changes(after), "R8.1: "+before.pins["R8.1"]+" -> (gone)", "R8.2: "+before.pins["R8.2"]+" -> (gone)")
	if nv := before.newViolations(after, "global_label_dangling"); len(nv) > 0 {
		t.Fatalf("removing R8: new ERC violations %v (%s)", nv, strings.Join(plan.Summary, "; "))
	}
}

// TestStubRemovalKeepsHierarchicalLabels: U3.1 (STAT) on open-telegraph's
// power sheet is wired by a stub to the hierarchical label CHG_STAT, the
// port the root's sheet pin CHG_STAT names. Disconnecting the pin or
// removing U3 takes the stub and keeps the label: deleting it left the
// sheet pin without its label (KiCad's ERC: hier_label_mismatch, an error)
// and, on designs where the child's label names the net, renamed the
// parent's net (a verification failure).
func TestStubRemovalKeepsHierarchicalLabels(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   func(*Design) (*Plan, error)
	}{
		{"disconnect", func(d *Design) (*Plan, error) { return Disconnect(d, "U3", "1") }},
		{"remove-part", func(d *Design) (*Plan, error) { return RemovePart(d, "U3") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := partFixture(t)
			power := filepath.Join(filepath.Dir(root), "power.kicad_sch")
			before := partKiCad(t, root)
			d := loadVerified(t, root)
			p, err := tc.op(d)
			if err != nil {
				t.Fatal(err)
			}
			summary := strings.Join(p.Summary, "; ")
			if !strings.Contains(summary, `keep hierarchical label "CHG_STAT"`) {
				t.Errorf("summary does not say the label stays: %s", summary)
			}
			applyVerified(t, d, p)
			src, _ := os.ReadFile(power)
			if !strings.Contains(string(src), `(hierarchical_label "CHG_STAT"`) {
				t.Fatalf("the hierarchical label CHG_STAT went: %s", summary)
			}
			after := partKiCad(t, root)
			// The label is left with nothing on its sheet (label_dangling),
			// U3.1 unconnected after disconnect, and a one-pin global net
			// where a removed part's labels were: the change itself.
			if nv := before.newViolations(after, "label_dangling", "pin_not_connected", "global_label_dangling"); len(nv) > 0 {
				t.Fatalf("new ERC violations: %v (%s)", nv, summary)
			}
			if got := after.pins["U1.9"]; got != "CHG_STAT" {
				t.Errorf("U1.9 is on %q after the change, want CHG_STAT", got)
			}
		})
	}
}
