package kicadcli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/sexpr"
	"copperhead/internal/testkit"
)

// These tests run the real kicad-cli on KiCad's demo projects, copied into
// t.TempDir() (never written in place).

const demosDir = "/usr/share/kicad/demos"

var realTool testkit.Shared[*Tool]

// kicadTool returns a Tool for the real kicad-cli with a fresh, empty cache,
// or skips the test when kicad-cli is not installed.
func kicadTool(t *testing.T) *Tool {
	t.Helper()
	testkit.NeedKiCadCLI(t)
	found, err := realTool.Get(func() (*Tool, error) { return Find(context.Background()) })
	if err != nil {
		t.Fatal(err)
	}
	tool := *found
	tool.CacheDir = t.TempDir()
	return &tool
}

// copyDemo copies KiCad's demo project name into a temporary folder and
// returns that folder, or skips the test when the demos are not installed.
func copyDemo(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join(demosDir, name)
	if _, err := os.Stat(src); err != nil {
		t.Skipf("KiCad demo %s not installed (package kicad-demos): %v", name, err)
	}
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestERCDemos(t *testing.T) {
	tests := []struct {
		demo, root  string
		violations  int
		environment map[string]int // by type
	}{
		// The one environment violation: the Connector_Dsub library KiCad 9
		// ships renamed the DSUB-9 "Female" footprint this demo uses.
		{"pic_programmer", "pic_programmer.kicad_sch", 0, map[string]int{"footprint_link_issues": 1}},
		{"complex_hierarchy", "complex_hierarchy.kicad_sch", 0, map[string]int{}},
		// video uses KiCad's standard symbol libraries: no lib_symbol_issues
		// proves the private sym-lib-table and KICAD9_SYMBOL_DIR reach kicad-cli.
		{"video", "video.kicad_sch", 0, map[string]int{"footprint_link_issues": 3}},
	}
	for _, tc := range tests {
		t.Run(tc.demo, func(t *testing.T) {
			tool := kicadTool(t)
			sch := filepath.Join(copyDemo(t, tc.demo), tc.root)
			r, err := tool.ERC(context.Background(), sch)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Violations) != tc.violations || r.Failed() {
				t.Errorf("violations = %+v, want %d and not failed", r.Violations, tc.violations)
			}
			env := map[string]int{}
			for _, v := range r.Environment {
				env[v.Type]++
			}
			if !mapsEqual(env, tc.environment) {
				t.Errorf("environment = %v, want %v", env, tc.environment)
			}
			if r.Tool != "erc" || r.Source != sch || r.KiCadVersion == "" || r.Cached || len(r.Notes) != 0 {
				t.Errorf("report header = %q %q %q cached=%v notes=%q", r.Tool, r.Source, r.KiCadVersion, r.Cached, r.Notes)
			}
		})
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestERCPositions verifies the ERC unit fix against the file itself: every
// symbol an ERC item points at is placed exactly where the normalized report
// says.
func TestERCPositions(t *testing.T) {
	tool := kicadTool(t)
	dir := copyDemo(t, "pic_programmer")
	sch := filepath.Join(dir, "pic_programmer.kicad_sch")
	r, err := tool.ERC(context.Background(), sch)
	if err != nil {
		t.Fatal(err)
	}
	root, _, err := sexpr.ParseFile(sch)
	if err != nil {
		t.Fatal(err)
	}
	placed := map[string]kicad.Point{}
	for sym := range root.All("symbol") {
		x, _ := sym.Child("at").Float(0)
		y, _ := sym.Child("at").Float(1)
		placed[sym.Value1("uuid")] = kicad.Point{X: x, Y: y}
	}
	checked := 0
	for _, v := range slicesConcat(r.Violations, r.Environment) {
		for _, it := range v.Items {
			if want, ok := placed[it.UUID]; ok {
				checked++
				if it.Pos != want {
					t.Errorf("%s: pos_mm = %+v, but the symbol is placed at %+v", it.Description, it.Pos, want)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no ERC item points at a symbol; nothing verified")
	}
}

func slicesConcat(a, b []Violation) []Violation { return append(append([]Violation{}, a...), b...) }

func TestDRCDemo(t *testing.T) {
	tool := kicadTool(t)
	pcb := filepath.Join(copyDemo(t, "pic_programmer"), "pic_programmer.kicad_pcb")
	r, err := tool.DRC(context.Background(), pcb)
	if err != nil {
		t.Fatal(err)
	}
	// pic_programmer's footprints name the project library "footprints" where
	// its symbols name KiCad's libraries: 61 parity warnings, no errors.
	if len(r.Violations) != 0 || len(r.Unconnected) != 0 || len(r.Parity) != 61 {
		t.Errorf("violations %d, unconnected %d, parity %d; want 0, 0, 61",
			len(r.Violations), len(r.Unconnected), len(r.Parity))
	}
	for _, v := range r.Parity {
		if v.Type != "footprint_symbol_mismatch" || v.Severity != SeverityWarning || v.Sheet != "" {
			t.Errorf("parity %+v", v)
			break
		}
	}
	if len(r.Environment) != 1 || r.Environment[0].Type != "lib_footprint_mismatch" ||
		r.Environment[0].Pos != (kicad.Point{X: 148.082, Y: 97.79}) {
		t.Errorf("environment = %+v", r.Environment)
	}
	if r.Failed() || !r.FailedAt(SeverityWarning) {
		t.Errorf("Failed() = %v, FailedAt(warning) = %v; want false, true", r.Failed(), r.FailedAt(SeverityWarning))
	}
	if r.Tool != "drc" || len(r.Notes) != 0 {
		t.Errorf("tool %q, notes %q", r.Tool, r.Notes)
	}
}

// TestDRCWithoutSchematic: kicad-cli skips parity when the board has no
// schematic beside it, saying so only on stderr; the report must carry that.
func TestDRCWithoutSchematic(t *testing.T) {
	tool := kicadTool(t)
	dir := copyDemo(t, "complex_hierarchy")
	for _, f := range []string{"complex_hierarchy.kicad_sch", "ampli_ht.kicad_sch"} {
		os.Remove(filepath.Join(dir, f))
	}
	r, err := tool.DRC(context.Background(), filepath.Join(dir, "complex_hierarchy.kicad_pcb"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Parity) != 0 || !strings.Contains(strings.Join(r.Notes, "\n"), "parity") {
		t.Errorf("parity %d, notes %q; want 0 and a note about parity", len(r.Parity), r.Notes)
	}
}

// TestNetlistComplexHierarchy: ampli_ht.kicad_sch is used twice, so its 29
// components appear once per sheet instance, with different references.
func TestNetlistComplexHierarchy(t *testing.T) {
	tool := kicadTool(t)
	sch := filepath.Join(copyDemo(t, "complex_hierarchy"), "complex_hierarchy.kicad_sch")
	nl, err := tool.Netlist(context.Background(), sch)
	if err != nil {
		t.Fatal(err)
	}
	bySheet := map[string][]string{}
	for _, c := range nl.Components {
		bySheet[c.SheetPath] = append(bySheet[c.SheetPath], c.Refdes)
	}
	if len(nl.Components) != 68 || len(bySheet["/"]) != 10 ||
		len(bySheet["/ampli_ht_vertical/"]) != 29 || len(bySheet["/ampli_ht_horizontal/"]) != 29 {
		t.Fatalf("%d components by sheet %v; want 68 = 10 + 29 + 29", len(nl.Components), bySheet)
	}
	// Same parts, numbered 2xx in one instance and 3xx in the other.
	for i, ref := range bySheet["/ampli_ht_vertical/"] {
		other := bySheet["/ampli_ht_horizontal/"][i]
		if strings.Replace(ref, "2", "3", 1) != other {
			t.Errorf("instance references differ: %s vs %s", ref, other)
		}
	}
	for i := 1; i < len(nl.Components); i++ {
		if kicad.CompareRefdes(nl.Components[i-1].Refdes, nl.Components[i].Refdes) > 0 {
			t.Errorf("components not sorted: %s before %s", nl.Components[i-1].Refdes, nl.Components[i].Refdes)
		}
	}
	var c101 *kicad.NetComponent
	for i := range nl.Components {
		if nl.Components[i].Refdes == "C101" {
			c101 = &nl.Components[i]
		}
	}
	if c101 == nil || c101.LibID != "complex_hierarchy:CP" || c101.Value != "47uF/63V" || c101.SheetPath != "/" ||
		c101.Fields["Footprint"] != c101.Footprint || c101.Footprint == "" {
		t.Errorf("C101 = %+v", c101)
	}
	unconnected := 0
	for _, n := range nl.Nets {
		if kicad.IsUnconnectedNet(n.Name) {
			unconnected++
			if len(n.Nodes) != 1 {
				t.Errorf("%s has %d nodes", n.Name, len(n.Nodes))
			}
		}
	}
	if unconnected == 0 {
		t.Error("no unconnected-(...) nets; U102's LV and OSC pins are unconnected")
	}
}

func TestMalformedSchematic(t *testing.T) {
	tool := kicadTool(t)
	dir := t.TempDir()
	sch := filepath.Join(dir, "broken.kicad_sch")
	os.WriteFile(sch, []byte(`(kicad_sch (version 20250114) (generator "eeschema") (lib_symbols (symbol "R"`), 0o644)
	for _, run := range []func() error{
		func() error { _, err := tool.ERC(context.Background(), sch); return err },
		func() error { _, err := tool.Netlist(context.Background(), sch); return err },
	} {
		err := run()
		if err == nil || !strings.Contains(err.Error(), ": exit status 3: \"Failed to load schematic\"") ||
			!strings.HasPrefix(err.Error(), "kicad-cli sch ") {
			t.Errorf("err = %v, want kicad-cli's own words", err)
		}
	}
}

func TestCache(t *testing.T) {
	tool := kicadTool(t)
	dir := copyDemo(t, "pic_programmer")
	sch := filepath.Join(dir, "pic_programmer.kicad_sch")
	ctx := context.Background()
	erc := func(step string, wantCached bool) *Report {
		t.Helper()
		r, err := tool.ERC(ctx, sch)
		if err != nil {
			t.Fatal(err)
		}
		if r.Cached != wantCached {
			t.Errorf("%s: Cached = %v, want %v", step, r.Cached, wantCached)
		}
		return r
	}
	first := erc("first run", false)
	second := erc("unchanged project", true)
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(second)
	if string(a) != string(b) {
		t.Errorf("cached report differs:\n%s\n%s", a, b)
	}

	// The board is no input of ERC.
	appendTo(t, filepath.Join(dir, "pic_programmer.kicad_pcb"), "\n")
	erc("board edited", true)

	// A sub-sheet is.
	sub := filepath.Join(dir, "pic_sockets.kicad_sch")
	data, _ := os.ReadFile(sub)
	os.WriteFile(sub, []byte(strings.Replace(string(data), `"Value" "`, `"Value" "X`, 1)), 0o644)
	erc("sub-sheet edited", false)
	erc("after the edit", true)

	tool.NoCache = true
	erc("NoCache", false)

	// A copy elsewhere hits: keys use paths relative to the project.
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.CopyFS(moved, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	tool.NoCache = false
	sch = filepath.Join(moved, "pic_programmer.kicad_sch")
	erc("project moved", true)
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentFirstRuns: two copperhead processes starting at once with no
// config folder yet both seed it and run kicad-cli side by side.
func TestConcurrentFirstRuns(t *testing.T) {
	kicadTool(t) // skip without kicad-cli
	t.Setenv("COPPERHEAD_KICAD_CONFIG", filepath.Join(t.TempDir(), "fresh"))
	sch := filepath.Join(copyDemo(t, "complex_hierarchy"), "complex_hierarchy.kicad_sch")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() {
			tool, err := Find(context.Background())
			if err != nil {
				errs[i] = err
				return
			}
			tool.CacheDir = ""
			r, err := tool.ERC(context.Background(), sch)
			if err == nil && len(r.Environment)+len(r.Violations) != 0 {
				t.Errorf("run %d: %+v", i, r)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// BenchmarkCacheKeyVMEWren hashes the largest demo (19 MB of schematics, a
// 69 MB board) in place: hashing only reads.
func BenchmarkCacheKeyVMEWren(b *testing.B) {
	pcb := filepath.Join(demosDir, "vme-wren", "vme-wren.kicad_pcb")
	if _, err := os.Stat(pcb); err != nil {
		b.Skip("vme-wren demo not installed")
	}
	tool := &Tool{version: "9.0.8"}
	for b.Loop() {
		set, err := collectInputs(pcb, true, "", nil)
		if err != nil {
			b.Fatal(err)
		}
		tool.cacheKey([]string{"pcb", "drc"}, pcb, set)
	}
}
