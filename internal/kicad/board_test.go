package kicad

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/sexpr"
	"copperhead/internal/testkit"
)

func TestLoadBoardLegacyFormats(t *testing.T) {
	b, err := LoadBoard("testdata/board/legacy.kicad_pcb")
	if err != nil {
		t.Fatal(err)
	}
	want := []Footprint{
		{Refdes: "C10", Value: "100n", LibID: "Capacitor_SMD:C_0603_1608Metric", Layer: "B.Cu", Pos: Point{120.5, 60.25}, Rotation: 180, SymbolPath: "/5C1E5A17"}, // KiCad 5 (module ..)
		{Refdes: "H1", Value: "MountingHole", LibID: "MountingHole:MountingHole_3.2mm_M3", Layer: "B.Cu", Pos: Point{10, 10}, DNP: true, ExcludeFromBOM: true, BoardOnly: true},
		{Refdes: "R1", Value: "10k", LibID: "Resistor_SMD:R_0603_1608Metric", Layer: "F.Cu", Pos: Point{100, 50}, Rotation: 90, SymbolPath: "/9c1d7a3e-4b5f-4c6d-8e7f-0a1b2c3d4e01"},
	}
	if !reflect.DeepEqual(b.Footprints, want) {
		t.Errorf("footprints:\n got %+v\nwant %+v", b.Footprints, want)
	}
}

// demoBoards are the demo boards with their footprint counts, from
// grep -c '^\t(footprint' <board>.kicad_pcb; TestLoadBoardMatchesFullParse
// re-derives every footprint with a full sexpr parse.
var demoBoards = []struct {
	path       string
	footprints int
}{
	{"complex_hierarchy/complex_hierarchy.kicad_pcb", 68},
	{"pic_programmer/pic_programmer.kicad_pcb", 63},
	{"video/video.kicad_pcb", 189},
	{"kit-dev-coldfire-xilinx_5213/kit-dev-coldfire-xilinx_5213.kicad_pcb", 160},
	{"tiny_tapeout/tinytapeout-demo.kicad_pcb", 309},
	{"vme-wren/vme-wren.kicad_pcb", 1508},
}

func TestLoadBoardDemos(t *testing.T) {
	for _, tc := range demoBoards {
		t.Run(tc.path, func(t *testing.T) {
			b, err := LoadBoard(demoPath(t, tc.path))
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Footprints) != tc.footprints {
				t.Errorf("%d footprints, want %d", len(b.Footprints), tc.footprints)
			}
			if !slices.IsSortedFunc(b.Footprints, func(x, y Footprint) int { return CompareRefdes(x.Refdes, y.Refdes) }) {
				t.Error("footprints are not in natural refdes order")
			}
			for _, fp := range b.Footprints {
				if fp.Refdes == "" || fp.LibID == "" || (fp.Layer != "F.Cu" && fp.Layer != "B.Cu") {
					t.Errorf("incomplete footprint %+v", fp)
					break
				}
			}
		})
	}
	b, err := LoadBoard(demoPath(t, "complex_hierarchy/complex_hierarchy.kicad_pcb"))
	if err != nil {
		t.Fatal(err)
	}
	want := Footprint{
		Refdes: "C101", Value: "47uF/63V", LibID: "complex_hierarchy:CP_Axial_L11.0mm_D6.0mm_P18.00mm_Horizontal",
		Layer: "F.Cu", Pos: Point{121.793, 60.579}, Rotation: 180, SymbolPath: "/00000000-0000-0000-0000-00004b3a1558",
	}
	if got := b.Footprints[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("first footprint %+v, want %+v", got, want)
	}
}

// TestLoadBoardMatchesFullParse checks the skim against the one real parser:
// every demo board, parsed whole by sexpr, has the same footprints in the
// same order.
func TestLoadBoardMatchesFullParse(t *testing.T) {
	boards, _ := filepath.Glob(filepath.Join(demoDir, "*", "*.kicad_pcb"))
	if len(boards) == 0 {
		t.Skip("KiCad demos not installed")
	}
	boards = append(boards, "testdata/board/legacy.kicad_pcb")
	for _, path := range boards {
		if testing.Short() && strings.Contains(path, "vme-wren") {
			continue // a full parse of its 69 MB takes seconds
		}
		t.Run(strings.TrimPrefix(path, demoDir+"/"), func(t *testing.T) {
			b, err := LoadBoard(path)
			if strings.HasSuffix(path, "RoyalBlue54L-Feather.kicad_pcb") {
				// Its lists do not balance (see sexpr's damagedDemos): both
				// readers refuse it at the same place rather than read one
				// footprint of 71.
				_, _, perr := sexpr.ParseFile(path)
				if err == nil || perr == nil || !strings.Contains(err.Error(), perr.Error()) || !strings.Contains(err.Error(), ":628:1: content after the end") {
					t.Errorf("damaged board: LoadBoard %v, Parse %v", err, perr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			root, _, err := sexpr.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var want []Footprint
			for i := range root.Children {
				if c := &root.Children[i]; c.Head() == "footprint" || c.Head() == "module" {
					want = append(want, readFootprint(c))
				}
			}
			slices.SortStableFunc(want, func(x, y Footprint) int { return CompareRefdes(x.Refdes, y.Refdes) })
			if !reflect.DeepEqual(b.Footprints, want) {
				t.Errorf("skim found %d footprints, a full parse %d, or they differ", len(b.Footprints), len(want))
			}
		})
	}
}

func TestLoadBoardErrors(t *testing.T) {
	dir := t.TempDir()
	write := testkit.FileWriter(t, dir)
	good, err := os.ReadFile("testdata/board/legacy.kicad_pcb")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		path   string
		want   string
		syntax bool
	}{
		{"truncated", write("truncated.kicad_pcb", string(good[:len(good)*2/3])), "truncated.kicad_pcb:", true},
		{"garbage", write("garbage.kicad_pcb", "\x89PNG\r\n\x1a\n\x00\x00"), "expected '(' at start of file", true},
		{"stray close paren", write("stray.kicad_pcb", "(kicad_pcb (footprint \"R1\"))\n(footprint \"R2\"))\n"), "stray.kicad_pcb:2:1: content after the end of the file's top-level list", true},
		{"unterminated string", write("string.kicad_pcb", `(kicad_pcb (footprint "R_0603`), "string.kicad_pcb:1:23: unterminated string", true},
		{"a schematic", write("sch.kicad_sch", "(kicad_sch (version 20250114))"), "sch.kicad_sch:1:1: not a board: it holds (kicad_sch ...)", false},
		{"absent", filepath.Join(dir, "absent.kicad_pcb"), "no such file", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := LoadBoard(tc.path)
			if err == nil {
				t.Fatalf("loaded %d footprints, want an error", len(b.Footprints))
			}
			checkLoadError(t, err, "load board: ", tc.want, tc.syntax)
		})
	}
	if _, err := LoadBoard(filepath.Join(dir, "absent.kicad_pcb")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent board: %v does not wrap fs.ErrNotExist", err)
	}
}

// FuzzSkimTopLevel holds the skim to sexpr: whenever sexpr parses a file,
// the skim must find the same head and exactly the spans of the same child
// lists; whenever the skim accepts a file, sexpr must parse it too, unless
// the file nests deeper than sexpr allows.
func FuzzSkimTopLevel(f *testing.F) {
	for _, s := range []string{
		`(kicad_pcb (footprint "R" (at 1 2)) (segment) (module C1 (layer F.Cu)))`,
		`(kicad_pcb (gr_text "(footprint \"x\")") ( footprint "y"))`,
		`(kicad_pcb (footprint "a\\") (footprint "b"))`,
		`(kicad_pcb (footprint "unterminated`,
		`  (kicad_pcb) trailing (footprint)`,
		`(kicad_pcb (footprint"glued"(at 1 2)))`,
		`((footprint))`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		head, spans, ok := skimTopLevel(src, "footprint", "module")
		root, err := sexpr.Parse("fuzz", src)
		if err != nil {
			var se *sexpr.SyntaxError
			if ok && errors.As(err, &se) && !strings.Contains(se.Msg, "nesting deeper") {
				t.Fatalf("skim accepted what sexpr rejects: %v", err)
			}
			return
		}
		if !ok {
			t.Fatal("skim rejected what sexpr parses")
		}
		if head != root.Head() {
			t.Fatalf("skim head %q, sexpr head %q", head, root.Head())
		}
		var want []span
		for i := range root.Children {
			c := &root.Children[i]
			if c.Kind == sexpr.List && (c.Head() == "footprint" || c.Head() == "module") {
				want = append(want, span{c.Start, c.End})
			}
		}
		if !slices.Equal(spans, want) {
			t.Fatalf("skim spans %v, sexpr spans %v", spans, want)
		}
	})
}

func BenchmarkLoadBoardVMEWren(b *testing.B) {
	path := demoPath(b, "vme-wren/vme-wren.kicad_pcb")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadBoard(path); err != nil {
			b.Fatal(err)
		}
	}
}

// checkLoadError holds a load error to the loaders' contract: one line,
// starting with prefix ("load board: "), containing want, wrapping a
// *sexpr.SyntaxError exactly when syntax says so.
func checkLoadError(t *testing.T, err error, prefix, want string, syntax bool) {
	t.Helper()
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
		t.Errorf("error %q: want one line starting %q containing %q", msg, prefix, want)
	}
	var se *sexpr.SyntaxError
	if errors.As(err, &se) != syntax {
		t.Errorf("wraps *sexpr.SyntaxError: %v, want %v", !syntax, syntax)
	}
}
