package schedit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/sexpr"
)

const fixtureDir = "../../../examples/open-telegraph/hardware"

// fuzzOp is one planner operation with its parameters.
type fuzzOp struct {
	kind       string // rename-net, set-field, connect, no-connect, disconnect, swap-pins, remove-part, add-part
	a, b, c, d string
}

func (o fuzzOp) String() string {
	return strings.TrimSpace(strings.Join([]string{o.kind, o.a, o.b, o.c, o.d}, " "))
}

// plan runs the planner for o against d.
func (o fuzzOp) plan(d *Design) (*Plan, error) {
	switch o.kind {
	case "rename-net":
		return RenameNet(d, o.a, o.b, false)
	case "set-field":
		return SetField(d, o.a, o.b, o.c, "")
	case "connect":
		return Connect(d, o.a, o.b, o.c)
	case "no-connect":
		return NoConnect(d, o.a, o.b)
	case "disconnect":
		return Disconnect(d, o.a, o.b)
	case "swap-pins":
		return SwapPins(d, o.a, o.b, o.c, "")
	case "remove-part":
		return RemovePart(d, o.a)
	case "add-part":
		return AddPart(d, "Device:R", o.a, o.b, "", nil, o.c)
	}
	return nil, fmt.Errorf("unknown op %s", o.kind)
}

// expect checks the read model's expectation after o was applied (with a
// plan that changed something), d being the design reloaded afterwards.
func (o fuzzOp) expect(d *Design) error {
	part := func(ref string) *kicad.Part {
		for i := range d.Model.Parts {
			if d.Model.Parts[i].Refdes == ref {
				return &d.Model.Parts[i]
			}
		}
		return nil
	}
	again := func() error {
		p, err := o.plan(d)
		if err != nil {
			return fmt.Errorf("%s again: %v", o, err)
		}
		if !p.NoOp() {
			return fmt.Errorf("%s again is not a no-op: %v", o, p.Summary)
		}
		return nil
	}
	switch o.kind {
	case "rename-net":
		for _, l := range d.Model.Labels {
			if l.Name == o.a {
				return fmt.Errorf("%s: a %s label %s remains on %s", o, l.Kind, o.a, l.SheetPath)
			}
		}
		names := d.netNames()
		if names[o.a] || !names[o.b] {
			return fmt.Errorf("%s: net names after: %s=%v %s=%v", o, o.a, names[o.a], o.b, names[o.b])
		}
		return again()
	case "set-field":
		p := part(o.a)
		if p == nil {
			return fmt.Errorf("%s: %s is gone", o, o.a)
		}
		switch o.b {
		case "Value":
			if p.Value != o.c {
				return fmt.Errorf("%s: Value = %q", o, p.Value)
			}
		case "dnp":
			if p.DNP != (o.c == "yes") {
				return fmt.Errorf("%s: DNP = %v", o, p.DNP)
			}
		default:
			if p.Fields[o.b] != o.c {
				return fmt.Errorf("%s: %s = %q", o, o.b, p.Fields[o.b])
			}
		}
		return again()
	case "connect":
		if !slices.ContainsFunc(d.Model.Labels, func(l kicad.Label) bool { return l.Name == o.c }) {
			return fmt.Errorf("%s: no label %s after", o, o.c)
		}
		return again()
	case "no-connect", "disconnect":
		return again()
	case "remove-part":
		if part(o.a) != nil {
			return fmt.Errorf("%s: still among the parts", o)
		}
	case "add-part":
		p := part(o.a)
		if p == nil || p.LibID != "Device:R" || p.Value != o.b {
			return fmt.Errorf("%s: part after = %+v", o, p)
		}
		return again()
	}
	return nil
}

// fuzzFixtures are the projects FuzzPlanner edits: the bundled board and
// the hand-built fixtures of the patterns real projects showed (a converted
// library's power pin, a bus alias and overbar names; another project's
// instance entries; a sheet used three times; a KiCad 6 root).
var fuzzFixtures = []struct{ dir, root string }{
	{fixtureDir, "open-telegraph.kicad_sch"},
	{"testdata/nets", "nets.kicad_sch"},
	{"../testdata/foreign", "foreign.kicad_sch"},
	{"../testdata/reused3", "reused3.kicad_sch"},
	{"../testdata/kicad6", "kicad6.kicad_sch"},
}

// fuzzBase is one fixture held in memory and loaded once per fuzz process.
type fuzzBase struct {
	root   string            // the root schematic's file name
	files  map[string][]byte // relative name -> bytes: the schematics and project tables
	design *Design           // loaded from a copy of files; never written
	err    error
}

var (
	fuzzOnce  sync.Once
	fuzzState []fuzzBase
)

func loadFuzzBase(tb testing.TB) []fuzzBase {
	fuzzOnce.Do(func() {
		for _, fx := range fuzzFixtures {
			fuzzState = append(fuzzState, readFuzzBase(tb, fx.dir, fx.root))
		}
	})
	return fuzzState
}

func readFuzzBase(tb testing.TB, dir, rootName string) fuzzBase {
	b := fuzzBase{root: rootName, files: map[string][]byte{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.err = err
		return b
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".kicad_pcb") || e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			b.err = err
			return b
		}
		b.files[e.Name()] = data
	}
	root := writeFiles(tb, tb.TempDir(), b.files, rootName)
	if b.design, b.err = Load(root); b.err == nil {
		b.design.Netlist, b.err = fuzzNetlist(root)
	}
	return b
}

// fuzzNetlist exports root's netlist with kicad-cli, or returns nil (and
// no error) where kicad-cli is not installed: the planner is then fuzzed
// against the read model alone.
func fuzzNetlist(root string) (*kicad.Netlist, error) {
	tool, err := kicadcli.Find(context.Background())
	if err != nil {
		return nil, nil
	}
	return tool.Netlist(context.Background(), root)
}

// writeFiles writes files into dir and returns the root schematic's path.
func writeFiles(tb testing.TB, dir string, files map[string][]byte, root string) string {
	tb.Helper()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return filepath.Join(dir, root)
}

// byteChooser draws choices from fuzz input; exhausted input reads as zeros.
type byteChooser struct{ b []byte }

func (c *byteChooser) next() int {
	if len(c.b) == 0 {
		return 0
	}
	v := int(c.b[0])
	c.b = c.b[1:]
	return v
}

func (c *byteChooser) pick(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[c.next()%len(list)]
}

var fuzzNewNets = []string{"FZ_NET", "FZ_B", "KEY_DASH", "3V3", "GND"}

// chooseOp draws one operation with parameters from the design d.
func chooseOp(c *byteChooser, d *Design) fuzzOp {
	var refs []string
	for _, p := range d.Model.Parts {
		refs = append(refs, p.Refdes)
	}
	nets := slices.Sorted(func(yield func(string) bool) {
		for n := range d.netNames() {
			if !yield(n) {
				return
			}
		}
	})
	ref := c.pick(refs)
	var pins []string
	for _, p := range d.Model.Pins() {
		if p.Refdes == ref && !p.Power {
			pins = append(pins, p.Number)
			if p.Name != "" && p.Name != "~" {
				pins = append(pins, p.Name)
			}
		}
	}
	sort.Strings(pins)
	pins = slices.Compact(pins)
	switch c.next() % 8 {
	case 0:
		return fuzzOp{kind: "rename-net", a: c.pick(nets), b: c.pick(append(slices.Clone(fuzzNewNets), nets...))}
	case 1:
		field := c.pick([]string{"Value", "MPN", "dnp", "Footprint"})
		val := c.pick([]string{"1k", "4.7k", "yes", "no", "FZ \"q\""})
		return fuzzOp{kind: "set-field", a: ref, b: field, c: val}
	case 2:
		return fuzzOp{kind: "connect", a: ref, b: c.pick(pins), c: c.pick(append(slices.Clone(fuzzNewNets), nets...))}
	case 3:
		return fuzzOp{kind: "no-connect", a: ref, b: c.pick(pins)}
	case 4:
		return fuzzOp{kind: "disconnect", a: ref, b: c.pick(pins)}
	case 5:
		return fuzzOp{kind: "swap-pins", a: ref, b: c.pick(pins), c: c.pick(pins)}
	case 6:
		return fuzzOp{kind: "remove-part", a: ref}
	default:
		return fuzzOp{kind: "add-part", a: c.pick([]string{"R20", "R21", "R6"}), b: c.pick([]string{"10k", "1k"}), c: c.pick(append([]string{""}, refs...))}
	}
}

// step plans o against d, previews it, writes the previewed files into dir
// (which holds the same files as d's folder) and reloads from there: the
// previewed files must parse and load, and the model's expectation must
// hold. It returns the design to continue with.
func step(tb testing.TB, d *Design, o fuzzOp, dir string) *Design {
	tb.Helper()
	p, err := o.plan(d)
	if errors.Is(err, ErrRefused) {
		return d
	}
	if err != nil {
		tb.Fatalf("%s: error that is not a refusal: %v", o, err)
	}
	next, err := p.Preview(d)
	if err != nil {
		tb.Fatalf("%s: preview: %v", o, err)
	}
	if len(next) == 0 {
		return d
	}
	for path, b := range next {
		if _, err := sexpr.Parse(path, b); err != nil {
			tb.Fatalf("%s: %s no longer parses: %v", o, path, err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(d.Sheets[path].Rel)), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	// Load parses every file with sexpr and reads the model with
	// kicad.LoadSchematic.
	nd, err := Load(filepath.Join(dir, filepath.Base(d.RootPath)))
	if err != nil {
		tb.Fatalf("%s: the result does not load: %v", o, err)
	}
	// KiCad's own netlist of the written files must show exactly what the
	// plan said it would: the check every writer makes before it writes.
	if d.Netlist != nil {
		after, err := fuzzNetlist(nd.RootPath)
		if err != nil {
			tb.Fatalf("%s: kicad-cli cannot read the result: %v", o, err)
		}
		if err := Verify(p.Expect, d.Netlist, after); err != nil {
			tb.Fatalf("%s: %v", o, err)
		}
		nd.Netlist = after
	}
	if err := o.expect(nd); err != nil {
		tb.Fatal(err)
	}
	return nd
}

func FuzzPlanner(f *testing.F) {
	bases := loadFuzzBase(f)
	for _, b := range bases {
		if b.err != nil {
			f.Fatalf("%s: %v", b.root, b.err)
		}
	}
	// The first byte picks the fixture, the rest the operations.
	seqs := [][]byte{
		{0, 0, 0},
		{7, 7, 1, 0, 3, 2, 0},
		{12, 6},
		{5, 2, 3, 0, 5, 1, 4},
		{40, 1, 0, 1},
		{40, 5, 9, 10, 40, 5, 10, 9},
		{3, 0, 5, 1, 4},
	}
	for _, seq := range seqs {
		f.Add(append([]byte{0}, seq...))
	}
	for i := 1; i < len(bases); i++ {
		for _, seq := range seqs[:4] {
			f.Add(append([]byte{byte(i)}, seq...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &byteChooser{b: data}
		base := bases[c.next()%len(bases)]
		dir := t.TempDir()
		writeFiles(t, dir, base.files, base.root)
		d := base.design
		start, budgeted := time.Now(), fuzzing()
		for range min(4, 1+len(data)/3) {
			if budgeted && time.Since(start) > fuzzInputBudget {
				break
			}
			d = step(t, d, chooseOp(c, d), dir)
		}
	})
}

// fuzzInputBudget is how long one input may go on starting steps while
// fuzzing. Go's fuzzing worker ends itself, with exit status 2 and nothing
// said, on an input that runs 10 s ("fuzzing process hung or terminated
// unexpectedly"), and each step here runs kicad-cli: a CI run ended so on
// a seed of three steps that takes 0.7 s here. An input that has used its
// budget stops taking steps; the steps it took are checked in full, so a
// failure it finds still reproduces from its bytes. A plain go test runs
// every seed's steps, whatever the time.
const fuzzInputBudget = 3 * time.Second

// fuzzing is whether this process fuzzes (go test -fuzz, the coordinator
// and its workers) rather than running the seeds as tests. It reads the
// parsed flags, so it is asked inside a test, never at init.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// TestPlannerSequencesAgainstKiCad applies fixed operation sequences to
// copies of the fixture and checks kicad-cli's netlist of the result.
func TestPlannerSequencesAgainstKiCad(t *testing.T) {
	seqs := []struct {
		name  string
		ops   []fuzzOp
		check func(t *testing.T, before, after map[string]string, comps map[string]string)
	}{
		{
			name: "add connect",
			ops: []fuzzOp{
				{kind: "add-part", a: "R20", b: "10k", c: "R6"},
				{kind: "connect", a: "R20", b: "1", c: "FZ_NET"},
				{kind: "connect", a: "R20", b: "2", c: "KEY_DIT"},
			},
			check: func(t *testing.T, before, after, comps map[string]string) {
				if lastSeg(after["R20.1"]) != "FZ_NET" || lastSeg(after["R20.2"]) != "KEY_DIT" {
					t.Errorf("R20 pins: %s, %s", after["R20.1"], after["R20.2"])
				}
				if comps["R20"] != "10k" {
					t.Errorf("R20 value %q", comps["R20"])
				}
			},
		},
		{
			name: "rename set remove",
			ops: []fuzzOp{
				{kind: "rename-net", a: "KEY_DAH", b: "KEY_DASH"},
				{kind: "set-field", a: "R6", b: "Value", c: "4.7k"},
				{kind: "remove-part", a: "R8"},
			},
			check: func(t *testing.T, before, after, comps map[string]string) {
				if _, ok := comps["R8"]; ok {
					t.Error("R8 still in the netlist")
				}
				if comps["R6"] != "4.7k" {
					t.Errorf("R6 value %q", comps["R6"])
				}
				for k, v := range before {
					if strings.HasPrefix(k, "R8.") {
						continue
					}
					want := v
					if lastSeg(v) == "KEY_DAH" {
						want = strings.TrimSuffix(v, "KEY_DAH") + "KEY_DASH"
					}
					if lastSeg(v) == "LED_R" || lastSeg(v) == "LED_RK" {
						continue // R8's nets lose their labels at R8
					}
					if after[k] != want {
						t.Errorf("%s: %s -> %s, want %s", k, v, after[k], want)
					}
				}
			},
		},
		{
			name: "swap and back",
			ops: []fuzzOp{
				{kind: "swap-pins", a: "U1", b: "IO5", c: "6"},
				{kind: "swap-pins", a: "U1", b: "5", c: "6"},
			},
			check: func(t *testing.T, before, after, comps map[string]string) {
				for k, v := range before {
					if after[k] != v {
						t.Errorf("%s: %s -> %s after swapping back", k, v, after[k])
					}
				}
			},
		},
	}
	for _, sq := range seqs {
		t.Run(sq.name, func(t *testing.T) {
			root := fixtureRoot(t)
			before := netOf(netlist(t, root))
			d := mustLoad(t, root)
			for _, o := range sq.ops {
				p, err := o.plan(d)
				if err != nil {
					t.Fatalf("%s: %v", o, err)
				}
				if p.NoOp() {
					t.Fatalf("%s: no-op", o)
				}
				applyPlan(t, d, p)
				d = mustLoad(t, root)
				if err := o.expect(d); err != nil {
					t.Fatal(err)
				}
			}
			nl := netlist(t, root)
			comps := map[string]string{}
			for _, c := range nl.Components {
				comps[c.Refdes] = c.Value
			}
			sq.check(t, before, netOf(nl), comps)
		})
	}
}
