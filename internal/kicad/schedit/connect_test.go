package schedit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/testkit"
)

// partFixture copies open-telegraph's hardware folder to a temp dir and
// returns the root schematic's path in the copy.
func partFixture(t *testing.T) string {
	t.Helper()
	dst := testkit.CopyFixture(t, "../../../examples/open-telegraph/hardware")
	return filepath.Join(dst, "open-telegraph.kicad_sch")
}

func partLoad(t *testing.T, root string) *Design {
	t.Helper()
	d, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// partApply plans with op against a fresh load of root (KiCad's netlist
// attached), applies it, checks KiCad's netlist afterwards against the
// plan's Expect, and that planning the same change again is a no-op.
func partApply(t *testing.T, root string, op func(*Design) (*Plan, error)) *Plan {
	t.Helper()
	d := loadVerified(t, root)
	p, err := op(d)
	if err != nil {
		t.Fatal(err)
	}
	if p.NoOp() {
		t.Fatalf("%s: plan changes nothing", p.Op)
	}
	if p.Expect.Empty() {
		t.Fatalf("%s: the plan states no netlist change", p.Op)
	}
	applyVerified(t, d, p)
	again, err := op(loadVerified(t, root))
	if err != nil {
		t.Fatalf("%s again: %v", p.Op, err)
	}
	if !again.NoOp() {
		t.Fatalf("%s again is not a no-op: %v", p.Op, again.Summary)
	}
	return p
}

// partCheck is kicad-cli's view of a design: netlist pins by net and ERC
// violation counts by type.
type partCheck struct {
	pins map[string]string // "REF.PIN" -> net name
	erc  map[string]int
}

func partKiCad(t *testing.T, root string) partCheck {
	t.Helper()
	st := demoKiCad(t, root)
	nl, rep := st.nl, st.erc
	c := partCheck{pins: map[string]string{}, erc: map[string]int{}}
	for _, n := range nl.Nets {
		for _, nd := range n.Nodes {
			c.pins[nd.Refdes+"."+nd.Pin] = n.Name
		}
	}
	for _, v := range rep.Violations {
		c.erc[v.Type]++
	}
	return c
}

// changes lists pins whose net changed, "REF.PIN: old -> new", sorted;
// auto-named unconnected nets read as "".
func (before partCheck) changes(after partCheck) []string {
	name := func(n string) string {
		if kicad.IsUnconnectedNet(n) {
			return ""
		}
		return n
	}
	var out []string
	for k, v := range before.pins {
		if w, ok := after.pins[k]; !ok {
			out = append(out, k+": "+name(v)+" -> (gone)")
		} else if name(v) != name(w) {
			out = append(out, k+": "+name(v)+" -> "+name(w))
		}
	}
	for k, v := range after.pins {
		if _, ok := before.pins[k]; !ok {
			out = append(out, k+": (new) -> "+name(v))
		}
	}
	sort.Strings(out)
	return out
}

// newViolations lists ERC types that grew, beyond the allowed ones.
func (before partCheck) newViolations(after partCheck, allowed ...string) []string {
	var out []string
	for k, n := range after.erc {
		if n > before.erc[k] && !partContains(allowed, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func partContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func partWantChanges(t *testing.T, got []string, want ...string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("netlist changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestConnectNewNetAndDisconnect(t *testing.T) {
	root := partFixture(t)
	orig, _ := os.ReadFile(root)
	before := partKiCad(t, root)
	// Two pins on the new net: with one pin only, KiCad 9's ERC reports
	// global_label_dangling ("global label not connected anywhere else"),
	// which is true of a one-pin net and not damage this test looks for.
	partApply(t, root, func(d *Design) (*Plan, error) { return Connect(d, "U1", "IO17", "TEST_PT") })
	partApply(t, root, func(d *Design) (*Plan, error) { return Connect(d, "U1", "11", "TEST_PT") })
	after := partKiCad(t, root)
	partWantChanges(t, before.changes(after), "U1.10:  -> TEST_PT", "U1.11:  -> TEST_PT")
	if nv := before.newViolations(after); len(nv) > 0 {
		t.Fatalf("new ERC violations: %v (before %v, after %v)", nv, before.erc, after.erc)
	}

	partApply(t, root, func(d *Design) (*Plan, error) { return Disconnect(d, "U1", "IO17") })
	partApply(t, root, func(d *Design) (*Plan, error) { return Disconnect(d, "U1", "11") })
	partApply(t, root, func(d *Design) (*Plan, error) { return NoConnect(d, "U1", "10") })
	partApply(t, root, func(d *Design) (*Plan, error) { return NoConnect(d, "U1", "IO18") })
	final := partKiCad(t, root)
	partWantChanges(t, before.changes(final))
	if nv := before.newViolations(final); len(nv) > 0 {
		t.Fatalf("new ERC violations after undo: %v", nv)
	}
	now, _ := os.ReadFile(root)
	// Only the two no-connect flags differ: new UUIDs, same places.
	if a, b := strings.Count(string(orig), "\n"), strings.Count(string(now), "\n"); a != b {
		t.Fatalf("round trip changed the line count %d -> %d", a, b)
	}
}

func TestConnectExistingGlobalNet(t *testing.T) {
	root := partFixture(t)
	before := partKiCad(t, root)
	p := partApply(t, root, func(d *Design) (*Plan, error) { return Connect(d, "U1", "IO17", "KEY_DIT") })
	text := strings.Join(p.Summary, "\n")
	if !strings.Contains(text, "global label") || !strings.Contains(text, "no-connect") {
		t.Fatalf("summary: %s", text)
	}
	after := partKiCad(t, root)
	partWantChanges(t, before.changes(after), "U1.10:  -> KEY_DIT")
	if nv := before.newViolations(after); len(nv) > 0 {
		t.Fatalf("new ERC violations: %v", nv)
	}
}

func TestConnectRefusals(t *testing.T) {
	d := partLoad(t, partFixture(t))
	for _, tc := range []struct {
		name string
		op   func() (*Plan, error)
		want string
	}{
		{"unknown ref", func() (*Plan, error) { return Connect(d, "R99", "1", "X") }, "unknown reference R99"},
		{"unknown pin", func() (*Plan, error) { return Connect(d, "R6", "3", "X") }, "its pins are 1, 2"},
		{"connected elsewhere", func() (*Plan, error) { return Connect(d, "R8", "2", "X") }, "already connected to net LED_R"},
		{"no-connect on a wired pin", func() (*Plan, error) { return NoConnect(d, "R8", "2") }, "connected to net LED_R"},
		{"disconnect unknown pin", func() (*Plan, error) { return Disconnect(d, "U1", "NOPE") }, "has no pin NOPE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.op()
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want refusal containing %q", err, tc.want)
			}
		})
	}
	p, err := Connect(d, "R8", "2", "LED_R")
	if err != nil || !p.NoOp() {
		t.Fatalf("connect to its own net: %v, %+v", err, p)
	}
}

func TestConnectRefusesOccupiedStub(t *testing.T) {
	root := partFixture(t)
	d := partLoad(t, root)
	_, _, pe, err := partPin(d, "U1", "10")
	if err != nil {
		t.Fatal(err)
	}
	end := pe.pos
	end.X += pe.out.X * stubLength
	end.Y += pe.out.Y * stubLength
	sh := d.SheetByRel("open-telegraph.kicad_sch")
	at := insertAt(sh)
	src := string(sh.Src[:at]) + noConnectText("\t", end) + string(sh.Src[at:])
	if err := os.WriteFile(root, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Connect(partLoad(t, root), "U1", "10", "X")
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "would run into a no-connect") {
		t.Fatalf("err = %v", err)
	}
}

// Connecting a free pin in a sheet used twice: the one file changes, each
// instance's pin gets its own net (a local label, never a global one that
// would join the instances), and disconnect restores the file.
func TestConnectFreePinInReusedSheet(t *testing.T) {
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS("../testdata/kicad6")); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(dst, 0o755)
	root, sub := filepath.Join(dst, "kicad6.kicad_sch"), filepath.Join(dst, "filter.kicad_sch")
	for _, f := range []string{root, sub} {
		_ = os.Chmod(f, 0o644)
	}
	orig, _ := os.ReadFile(sub)
	before := partKiCad(t, root)
	p := partApply(t, root, func(d *Design) (*Plan, error) { return Connect(d, "R10", "2", "OUT") })
	if got := strings.Join(p.Summary, "\n"); !strings.Contains(got, "(label at") || !strings.Contains(got, "every instance (/Filter A/, /Filter B/)") {
		t.Errorf("summary %q: want a local label in every instance", got)
	}
	if src, _ := os.ReadFile(root); !strings.Contains(string(src), "(symbol_instances") {
		t.Fatal("root lost its symbol_instances")
	}
	after := partKiCad(t, root)
	partWantChanges(t, before.changes(after), "R10.2:  -> /Filter A/OUT", "R20.2:  -> /Filter B/OUT")
	// A one-pin net is reported as a dangling label by KiCad 9 (see
	// TestConnectNewNetAndDisconnect); anything else would be damage.
	if nv := before.newViolations(after, "label_dangling", "isolated_pin_label"); len(nv) > 0 {
		t.Errorf("new ERC violations: %v", nv)
	}
	// The pin carried a no-connect flag, which connect removed: disconnect
	// (through the other instance's reference) and no-connect restore the
	// connectivity and the ERC report; the file differs only in the flag,
	// now written in KiCad 9's layout with a fresh UUID.
	partApply(t, root, func(d *Design) (*Plan, error) { return Disconnect(d, "R20", "2") })
	partApply(t, root, func(d *Design) (*Plan, error) { return NoConnect(d, "R10", "2") })
	now, _ := os.ReadFile(sub)
	head := func(b []byte) string { return string(b[:strings.Index(string(b), "(no_connect")]) }
	if head(now) != head(orig) {
		t.Errorf("connect, disconnect, no-connect changed more than the flag:\n%s", now)
	}
	final := partKiCad(t, root)
	partWantChanges(t, before.changes(final))
	if nv := before.newViolations(final); len(nv) > 0 {
		t.Errorf("new ERC violations after the round trip: %v", nv)
	}
}

// TestConnectRefusesNoConnectPin: KiCad keeps a pin of electrical type
// no_connect on a net of its own whatever is wired to it (a label placed
// on U4's NC pin here leaves it on unconnected-(U4-NC-Pad4) in KiCad's
// netlist), so connect refuses it up front, naming why, instead of
// failing verification with KiCad's net name.
func TestConnectRefusesNoConnectPin(t *testing.T) {
	root := partFixture(t)
	d := mustLoad(t, root)
	sh, _, pe, err := partPin(d, "U4", "4")
	if err != nil {
		t.Fatal(err)
	}
	if pe.etype != "no_connect" {
		t.Fatalf("U4.4 reads as type %q, want no_connect (the fixture's AP2112K NC pin)", pe.etype)
	}
	// KiCad's own answer first: a label on the pin does not join it.
	src, err := os.ReadFile(sh.Path)
	if err != nil {
		t.Fatal(err)
	}
	label := fmt.Sprintf("(label \"FZ_NC\" (at %s %s 0) (effects (font (size 1.27 1.27))) (uuid %s))\n\t",
		mm(pe.pos.X), mm(pe.pos.Y), newUUID())
	at := strings.LastIndex(string(src), ")") // the file's closing parenthesis
	labelled := string(src[:at]) + label + string(src[at:])
	if err := os.WriteFile(sh.Path, []byte(labelled), 0o644); err != nil {
		t.Fatal(err)
	}
	got := partKiCad(t, root).pins["U4.4"]
	if !kicad.IsUnconnectedNet(got) {
		t.Fatalf("KiCad puts U4.4, labelled FZ_NC, on %q: it does join a no_connect pin, so the refusal is wrong", got)
	}
	if err := os.WriteFile(sh.Path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Connect(mustLoad(t, root), "U4", "4", "FZ_NC")
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "no_connect") {
		t.Fatalf("Connect U4.4 = %v, want a refusal naming the no_connect type", err)
	}
}
