package schedit

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/sexpr"
)

const demosDir = "/usr/share/kicad/demos"

// demoCopy copies the KiCad demo name into a temp dir and returns the path
// of its root schematic there, skipping when the demos or kicad-cli are
// absent. The demo folder itself is never written.
func demoCopy(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join(demosDir, name)
	if _, err := os.Stat(filepath.Join(src, name+".kicad_sch")); err != nil {
		t.Skipf("KiCad demo %s not installed", name)
	}
	if _, err := kicadcli.Find(context.Background()); err != nil {
		t.Skipf("kicad-cli: %v", err)
	}
	return copyProject(t, src, name+".kicad_sch")
}

// demoState is kicad-cli's view of a design: its netlist and ERC report.
type demoState struct {
	nl  *kicad.Netlist
	erc *kicadcli.Report
}

func demoKiCad(t *testing.T, root string) demoState {
	t.Helper()
	tool := uncachedTool(t)
	nl, err := tool.Netlist(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := tool.ERC(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	return demoState{nl: nl, erc: rep}
}

// ercNoWorse fails when after has more counted ERC errors than before, or
// more violations of any type.
func ercNoWorse(t *testing.T, op string, before, after demoState) {
	t.Helper()
	if b, a := before.erc.Counts().Errors, after.erc.Counts().Errors; a > b {
		t.Errorf("%s: ERC errors %d -> %d", op, b, a)
	}
	byType := func(r *kicadcli.Report) map[string]int {
		m := map[string]int{}
		for _, v := range slices.Concat(r.Violations, r.Unconnected, r.Parity) {
			m[v.Type]++
		}
		return m
	}
	b, a := byType(before.erc), byType(after.erc)
	for k, n := range a {
		if n > b[k] {
			t.Errorf("%s: ERC %s %d -> %d", op, k, b[k], n)
		}
	}
}

// lastSeg is a net name's last path segment: "/sheet/NAME" -> "NAME".
func lastSeg(net string) string {
	return net[strings.LastIndex(net, "/")+1:]
}

// wantRenamedOnly checks that the only netlist change between before and
// after is the net old renamed new: every pin keeps its net, except that a
// net whose name ends in old now ends in new, and components are untouched.
func wantRenamedOnly(t *testing.T, before, after *kicad.Netlist, old, new string) {
	t.Helper()
	a, b := netOf(before), netOf(after)
	if len(a) != len(b) {
		t.Fatalf("pin count changed: %d -> %d", len(a), len(b))
	}
	renamed := 0
	for _, k := range slices.Sorted(maps.Keys(a)) {
		was, now := a[k], b[k]
		want := was
		if lastSeg(was) == old {
			want = strings.TrimSuffix(was, old) + new
			renamed++
		}
		if now != want {
			t.Errorf("%s: %s -> %s, want %s", k, was, now, want)
		}
	}
	if renamed == 0 {
		t.Errorf("no pin was on a net named %s", old)
	}
	if len(before.Components) != len(after.Components) {
		t.Errorf("component count changed: %d -> %d", len(before.Components), len(after.Components))
	}
}

// lineDelta counts changed lines between two versions of a file: lines
// removed plus lines added, as multisets (the edits are local, so this is
// what a line diff reports).
func lineDelta(before, after []byte) int {
	count := map[string]int{}
	for _, l := range strings.Split(string(before), "\n") {
		count[l]++
	}
	for _, l := range strings.Split(string(after), "\n") {
		count[l]--
	}
	n := 0
	for _, c := range count {
		n += max(c, -c)
	}
	return n
}

// snapshot reads every .kicad_sch in root's folder.
func snapshot(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(root), "*.kicad_sch"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

// changedFiles lists the files whose bytes differ, sorted, and the total
// line delta over them.
func changedFiles(before, after map[string][]byte) ([]string, int) {
	var out []string
	lines := 0
	for k, b := range before {
		if string(after[k]) != string(b) {
			out = append(out, k)
			lines += lineDelta(b, after[k])
		}
	}
	sort.Strings(out)
	return out, lines
}

// filesNaming lists the sheet files that write net as a label or a sheet pin.
func filesNaming(d *Design, net string) []string {
	var out []string
	var walk func(n *sexpr.Node, inSheet bool) bool
	walk = func(n *sexpr.Node, inSheet bool) bool {
		if n.Kind != sexpr.List {
			return false
		}
		switch n.Head() {
		case "label", "global_label", "hierarchical_label":
			if n.Arg(0) == net {
				return true
			}
		case "pin":
			if inSheet && n.Arg(0) == net {
				return true
			}
		}
		for i := range n.Children {
			if walk(&n.Children[i], n.Head() == "sheet") {
				return true
			}
		}
		return false
	}
	for _, sh := range d.Sheets {
		if walk(sh.Root, false) {
			out = append(out, sh.Rel)
		}
	}
	sort.Strings(out)
	return out
}

func TestDemoPicProgrammerMultiUnit(t *testing.T) {
	root := demoCopy(t, "pic_programmer")
	d := mustLoad(t, root)
	var part kicad.Part
	for _, p := range d.Model.Parts {
		if len(p.Units) > 1 {
			part = p
			break
		}
	}
	if part.Refdes == "" {
		t.Skip("pic_programmer has no multi-unit part")
	}
	ref, value := part.Refdes, part.Value+"_HC"
	before := demoKiCad(t, root)
	files0 := snapshot(t, root)

	p, err := SetField(d, ref, "Value", value, "")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Edits[d.SheetByRel(part.SheetFile).Path]); n != len(part.Units) {
		t.Errorf("%s has units %v but the plan edits %d values", ref, part.Units, n)
	}
	applyPlan(t, d, p)
	files1 := snapshot(t, root)
	changed, lines := changedFiles(files0, files1)
	if !slices.Equal(changed, []string{part.SheetFile}) || lines != 2*len(part.Units) {
		t.Errorf("set-field changed %v, %d lines; want only %s, %d lines", changed, lines, part.SheetFile, 2*len(part.Units))
	}
	d = mustLoad(t, root)
	units := 0
	for _, sh := range d.Sheets {
		for i := range sh.Root.Children {
			c := &sh.Root.Children[i]
			if c.Head() == "symbol" && slices.Contains(sh.placed(c).refs, ref) {
				units++
				if v := propertyValue(c, "Value"); v != value {
					t.Errorf("a unit of %s still has Value %q", ref, v)
				}
			}
		}
	}
	if units != len(part.Units) {
		t.Errorf("found %d units of %s, want %d", units, ref, len(part.Units))
	}
	after := demoKiCad(t, root)
	n := 0
	for _, c := range after.nl.Components {
		if c.Refdes == ref {
			n++
			if c.Value != value {
				t.Errorf("netlist %s value = %q, want %q", ref, c.Value, value)
			}
		}
	}
	if n != 1 {
		t.Errorf("netlist lists %s %d times, want once", ref, n)
	}
	if diff := netDiff(before.nl, after.nl); len(diff) > 0 {
		t.Errorf("set-field changed connectivity: %v", diff)
	}
	ercNoWorse(t, p.Op, before, after)
	if p2, err := SetField(d, ref, "Value", value, ""); err != nil || !p2.NoOp() {
		t.Errorf("set-field again: %v, %v; want no-op", p2, err)
	}

	// rename-net of a local label on the root sheet.
	const old, new = "VPP_ON", "VPP_ENABLE"
	before = after
	p, err = RenameNet(d, old, new, false)
	if err != nil {
		t.Fatal(err)
	}
	applyPlan(t, d, p)
	files2 := snapshot(t, root)
	changed, lines = changedFiles(files1, files2)
	if want := filesNaming(d, old); !slices.Equal(changed, want) || lines > 4*len(p.Summary) || lines == 0 {
		t.Errorf("rename changed %v (%d lines, %d labels); want %v", changed, lines, len(p.Summary), want)
	}
	after = demoKiCad(t, root)
	wantRenamedOnly(t, before.nl, after.nl, old, new)
	ercNoWorse(t, p.Op, before, after)
	if p2, err := RenameNet(mustLoad(t, root), old, new, false); err != nil || !p2.NoOp() {
		t.Errorf("rename again: %v, %v; want no-op", p2, err)
	}

	// Refusals: a pin of a unit that is wired, an unknown unit pin.
	d = mustLoad(t, root)
	if _, err := SetField(d, ref, "Reference", "U99", ""); !errors.Is(err, ErrRefused) {
		t.Errorf("set-field Reference: %v, want refusal", err)
	}
	if _, err := Connect(d, ref, "NOPE", "X"); !errors.Is(err, ErrRefused) {
		t.Errorf("connect to a missing pin: %v, want refusal", err)
	}
}

func TestDemoVideoCrossSheetRename(t *testing.T) {
	root := demoCopy(t, "video")
	d := mustLoad(t, root)
	// HD_PAL- runs from the root (label and sheet pins) into graphic and
	// pal-ntsc through hierarchical labels.
	const old, new = "HD_PAL-", "HD_PAL_N"
	carriers := filesNaming(d, old)
	if len(carriers) < 3 {
		t.Skipf("video names %s only in %v", old, carriers)
	}
	before := demoKiCad(t, root)
	d.Netlist = before.nl
	files0 := snapshot(t, root)
	p, err := RenameNet(d, old, new, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Expect.Renames) == 0 {
		t.Errorf("the plan expects no net renamed")
	}
	changed := applyPlan(t, d, p)
	if err := Verify(p.Expect, before.nl, netlist(t, root)); err != nil {
		t.Error(err)
	}
	edits := 0
	for _, es := range p.Edits {
		edits += len(es)
	}
	if !slices.Equal(changed, carriers) {
		t.Errorf("Apply reports %v, want %v", changed, carriers)
	}
	files1 := snapshot(t, root)
	got, lines := changedFiles(files0, files1)
	if !slices.Equal(got, carriers) {
		t.Errorf("changed files %v, want exactly %v", got, carriers)
	}
	if lines != 2*edits {
		t.Errorf("diff touches %d lines for %d renamed names", lines, edits)
	}
	after := demoKiCad(t, root)
	wantRenamedOnly(t, before.nl, after.nl, old, new)
	ercNoWorse(t, p.Op, before, after)
	if fn := filesNaming(mustLoad(t, root), old); len(fn) > 0 {
		t.Errorf("%s still named in %v", old, fn)
	}
	if p2, err := RenameNet(mustLoad(t, root), old, new, false); err != nil || !p2.NoOp() {
		t.Errorf("rename again: %v, %v; want no-op", p2, err)
	}
	// Renaming onto another existing cross-sheet net is refused.
	if _, err := RenameNet(mustLoad(t, root), new, "RED", false); !errors.Is(err, ErrRefused) {
		t.Errorf("rename onto RED: %v, want merge refusal", err)
	}
}

// TestDemoComplexHierarchyReusedSheet documents what pin edits do in a sheet
// used twice: the edit is to the one file, so it applies to both instances
// (R in one, its twin in the other), and set-field is refused unless
// --instance all is given.
func TestDemoComplexHierarchyReusedSheet(t *testing.T) {
	root := demoCopy(t, "complex_hierarchy")
	d := mustLoad(t, root)
	const file = "ampli_ht.kicad_sch"
	var reused []kicad.Part
	for _, p := range d.Model.Parts {
		if p.SheetFile == file {
			reused = append(reused, p)
		}
	}
	if len(reused) == 0 {
		t.Skip("complex_hierarchy has no parts in " + file)
	}
	ref := reused[0].Refdes
	if _, err := SetField(d, ref, "Value", "X", ""); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "--instance all") {
		t.Errorf("set-field in the reused sheet: %v, want a refusal naming --instance all", err)
	}
	if _, err := SetField(d, ref, "Value", "X", "/nope/"); !errors.Is(err, ErrRefused) {
		t.Errorf("set-field with a bad instance: %v, want refusal", err)
	}

	// Find a pin in the reused sheet that connect accepts (all wired pins
	// are refused, naming what they are connected to).
	before := demoKiCad(t, root)
	refused := 0
	for _, pp := range d.Model.Pins() {
		if pp.Power || !slices.ContainsFunc(reused, func(p kicad.Part) bool { return p.Refdes == pp.Refdes }) {
			continue
		}
		p, err := Connect(d, pp.Refdes, pp.Number, "PROBE")
		if errors.Is(err, ErrRefused) {
			refused++
			if !strings.Contains(err.Error(), "already connected") && !strings.Contains(err.Error(), "would run into") {
				t.Errorf("connect %s.%s: unexpected refusal %v", pp.Refdes, pp.Number, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if p.NoOp() {
			continue
		}
		t.Logf("connect %s.%s PROBE: %v", pp.Refdes, pp.Number, p.Summary)
		changed := applyPlan(t, d, p)
		if !slices.Equal(changed, []string{file}) {
			t.Errorf("connect changed %v, want only %s", changed, file)
		}
		after := demoKiCad(t, root)
		// Both instances of the pin reach a PROBE net.
		nets := map[string]bool{}
		for k, v := range netOf(after.nl) {
			if lastSeg(v) == "PROBE" {
				nets[k] = true
			}
		}
		if len(nets) < 2 {
			t.Errorf("PROBE reaches %v, want the pin in both instances", slices.Sorted(maps.Keys(nets)))
		}
		// Undo restores connectivity.
		dp, err := Disconnect(mustLoad(t, root), pp.Refdes, pp.Number)
		if err != nil {
			t.Fatal(err)
		}
		applyPlan(t, d, dp)
		final := demoKiCad(t, root)
		if diff := netDiff(before.nl, final.nl); len(diff) > 0 {
			t.Errorf("connect + disconnect changed %v", diff)
		}
		ercNoWorse(t, "connect+disconnect", before, final)
		return
	}
	t.Logf("every pin in %s is wired: connect refused %d times", file, refused)
	if refused == 0 {
		t.Error("no pin of the reused sheet was tried")
	}
}
