package schedit

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/testkit"
)

// copyProject copies the KiCad project folder src into a temp dir and
// returns the path of the named root schematic inside the copy.
func copyProject(t *testing.T, src, root string) string {
	t.Helper()
	// CopyTree writes modes of its own: the demos are root-owned, read-only.
	dst := testkit.CopyFixture(t, src)
	return filepath.Join(dst, root)
}

func fixtureRoot(t *testing.T) string {
	return copyProject(t, "../../../examples/open-telegraph/hardware", "open-telegraph.kicad_sch")
}

func mustLoad(t *testing.T, root string) *Design {
	t.Helper()
	d, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// applyPlan applies p and reloads the design.
func applyPlan(t *testing.T, d *Design, p *Plan) []string {
	t.Helper()
	changed, err := p.Apply(d)
	if err != nil {
		t.Fatal(err)
	}
	return changed
}

// uncachedTool returns kicad-cli with its result cache off (every edit's
// export is fresh), skipping the test when it is absent.
func uncachedTool(t *testing.T) *kicadcli.Tool {
	t.Helper()
	tool, err := kicadcli.Find(context.Background())
	if err != nil {
		t.Skipf("kicad-cli: %v", err)
	}
	tool.NoCache = true
	return tool
}

// netlist exports root's connectivity with kicad-cli, skipping when absent.
func netlist(t *testing.T, root string) *kicad.Netlist {
	t.Helper()
	nl, err := uncachedTool(t).Netlist(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	return nl
}

// netOf maps "REF.PIN" to its net name.
func netOf(nl *kicad.Netlist) map[string]string {
	m := map[string]string{}
	for _, n := range nl.Nets {
		for _, nd := range n.Nodes {
			m[nd.Refdes+"."+nd.Pin] = n.Name
		}
	}
	return m
}

// netDiff lists the pins whose net changed, as "REF.PIN: old -> new", sorted.
func netDiff(before, after *kicad.Netlist) []string {
	a, b := netOf(before), netOf(after)
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k+": "+v+" -> "+b[k])
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k+": (none) -> "+v)
		}
	}
	sort.Strings(out)
	return out
}

// diffStat counts changed lines of a file against its original with git
// diff --no-index, the same measure a reviewer sees.
func diffStat(t *testing.T, before []byte, afterPath string) int {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	orig := filepath.Join(t.TempDir(), "orig")
	if err := os.WriteFile(orig, before, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command("git", "diff", "--no-index", "--numstat", orig, afterPath).Output()
	fields := strings.Fields(string(out))
	if len(fields) < 2 {
		return 0
	}
	return atoiOr0(fields[0]) + atoiOr0(fields[1])
}

func atoiOr0(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func TestRenameNetFixture(t *testing.T) {
	root := fixtureRoot(t)
	before := netlist(t, root)
	orig, _ := os.ReadFile(root)
	d := mustLoad(t, root)
	p, err := RenameNet(d, "KEY_DAH", "KEY_DASH", false)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Edits[root]); n != 4 || len(p.Edits) != 1 {
		t.Fatalf("edits = %v, want 4 label strings in the root sheet", p.Edits)
	}
	changed := applyPlan(t, d, p)
	if !slices.Equal(changed, []string{"open-telegraph.kicad_sch"}) {
		t.Fatalf("changed = %v", changed)
	}
	if n := diffStat(t, orig, root); n != 8 {
		t.Errorf("diff touches %d lines, want 8 (4 removed, 4 added)", n)
	}
	after := netlist(t, root)
	// Connectivity is unchanged: the same pins share nets; only the name differs.
	names := map[string]string{}
	a, b := netOf(before), netOf(after)
	for k, v := range a {
		if b[k] != v {
			names[v] = b[k]
		}
	}
	if len(names) != 1 || names["KEY_DAH"] != "KEY_DASH" {
		t.Fatalf("renamed nets = %v, want only KEY_DAH -> KEY_DASH", names)
	}
	if len(a) != len(b) {
		t.Fatalf("pin count changed: %d -> %d", len(a), len(b))
	}

	// Re-applying is a no-op.
	p2, err := RenameNet(mustLoad(t, root), "KEY_DAH", "KEY_DASH", false)
	if err != nil || !p2.NoOp() {
		t.Fatalf("re-apply: plan %v, err %v; want no-op", p2, err)
	}
}

func TestRenameNetHierarchicalFixture(t *testing.T) {
	root := fixtureRoot(t)
	before := netlist(t, root)
	d := mustLoad(t, root)
	p, err := RenameNet(d, "CHG_STAT", "CHARGE_STAT", false)
	if err != nil {
		t.Fatal(err)
	}
	changed := applyPlan(t, d, p)
	if !slices.Equal(changed, []string{"open-telegraph.kicad_sch", "power.kicad_sch"}) {
		t.Fatalf("changed = %v (both the sheet pin and the hierarchical label must change)", changed)
	}
	after := netlist(t, root)
	a, b := netOf(before), netOf(after)
	for k, v := range a {
		switch {
		case v == "CHG_STAT" && b[k] != "CHARGE_STAT":
			t.Errorf("%s: %s -> %s, want CHARGE_STAT", k, v, b[k])
		case v != "CHG_STAT" && b[k] != v && !strings.Contains(v, "CHG_STAT"):
			t.Errorf("%s changed net: %s -> %s", k, v, b[k])
		}
	}
}

func TestRenameNetComplexHierarchy(t *testing.T) {
	const demo = "/usr/share/kicad/demos/complex_hierarchy"
	if _, err := os.Stat(demo); err != nil {
		t.Skip("KiCad demos not installed")
	}
	root := copyProject(t, demo, "complex_hierarchy.kicad_sch")
	d := mustLoad(t, root)
	// The demo's reused sheet ampli_ht connects through power symbols: the
	// HT rail is written in both files and in both instances of the child.
	hier := "HT"
	if !slices.Contains(d.Model.PowerNets, hier) {
		t.Skip("the demo no longer has an HT power net")
	}
	before := netlist(t, root)
	p, err := RenameNet(d, hier, hier+"_X", false)
	if err != nil {
		t.Fatal(err)
	}
	applyPlan(t, d, p)
	after := netlist(t, root)
	a, b := netOf(before), netOf(after)
	if len(a) != len(b) {
		t.Fatalf("pin count changed: %d -> %d", len(a), len(b))
	}
	// Grouping is preserved: two pins share a net after iff they did before.
	group := func(m map[string]string) map[string]string {
		first := map[string]string{}
		out := map[string]string{}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, ok := first[m[k]]; !ok {
				first[m[k]] = k
			}
			out[k] = first[m[k]]
		}
		return out
	}
	ga, gb := group(a), group(b)
	for k := range ga {
		if ga[k] != gb[k] {
			t.Fatalf("%s changed net grouping after renaming %s", k, hier)
		}
	}
	renamed := false
	for _, v := range b {
		if strings.Contains(v, hier+"_X") {
			renamed = true
		}
	}
	if !renamed {
		t.Errorf("no net carries %s_X after the rename (%d edits)", hier, len(p.Summary))
	}
}

func TestRenameNetRefusals(t *testing.T) {
	d := mustLoad(t, fixtureRoot(t))
	cases := []struct {
		old, new string
		merge    bool
		want     string
	}{
		{"KEY_DAH", "KEY_DIT", false, "already exists"},
		{"KEY_DHA", "X", false, "did you mean KEY_DAH"},
		{"D[0..7]", "X", false, "is a bus"},
		{"KEY_DAH", "{A B}", false, "is a bus"},
		{"KEY_DAH", "Net-(R6-Pad2)", false, "name KiCad gives unlabelled nets"},
		{"KEY_DAH", "unconnected-(U1-IO17-Pad10)", true, "name KiCad gives unlabelled nets"},
	}
	for _, c := range cases {
		_, err := RenameNet(d, c.old, c.new, c.merge)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RenameNet(%s, %s) err = %v, want refusal containing %q", c.old, c.new, err, c.want)
		}
	}
	p, err := RenameNet(d, "KEY_DAH", "KEY_DIT", true)
	if err != nil || p.NoOp() {
		t.Errorf("--merge: plan %v, err %v", p, err)
	}
}

func TestBusHasMember(t *testing.T) {
	cases := []struct {
		bus, net string
		want     bool
	}{
		{"D[0..7]", "D3", true},
		{"D[0..7]", "D8", false},
		{"D[0..7]", "DX", false},
		{"{SDA SCL}", "SDA", true},
		{"I2C{SDA SCL}", "I2C.SDA", true},
		{"I2C{SDA SCL}", "SDA", true},
		{"KEY", "KEY", false},
	}
	for _, c := range cases {
		if got := busHasMember(c.bus, c.net); got != c.want {
			t.Errorf("busHasMember(%q, %q) = %v", c.bus, c.net, got)
		}
	}
}
