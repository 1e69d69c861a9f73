package kicad

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"copperhead/internal/repofs"
	"copperhead/internal/sexpr"
	"copperhead/internal/testkit"
)

// demoDir is where Debian's kicad-demos package installs KiCad's own example projects.
const demoDir = "/usr/share/kicad/demos"

// demoPath returns a demo file's path, skipping the test when it is not installed.
func demoPath(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(demoDir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not installed", rel)
	}
	return p
}

func mustLoadSchematic(t testing.TB, path string) *Schematic {
	t.Helper()
	s, err := LoadSchematic(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// demoSchematics are the demo projects' root sheets with the numbers of
// distinct references and sheet instances that kicad-cli 9.0.8 reports:
//
//	kicad-cli sch export netlist --format kicadxml -o x.xml <root>.kicad_sch
//
// counting <comp> elements and <sheet> elements. TestSchematicMatchesKiCadNetlist
// re-derives the references themselves whenever kicad-cli is installed.
var demoSchematics = []struct {
	root   string
	parts  int
	sheets int
}{
	{"complex_hierarchy/complex_hierarchy.kicad_sch", 68, 3}, // one sheet file used twice
	{"pic_programmer/pic_programmer.kicad_sch", 63, 2},
	{"video/video.kicad_sch", 189, 8},
	{"kit-dev-coldfire-xilinx_5213/kit-dev-coldfire-xilinx_5213.kicad_sch", 160, 3},
	{"flat_hierarchy/flat_hierarchy.kicad_sch", 64, 3},
	{"multichannel/multichannel_mixer.kicad_sch", 114, 5},
	{"tiny_tapeout/tinytapeout-demo.kicad_sch", 150, 2},
	{"royalblue54L_feather/RoyalBlue54L-Feather.kicad_sch", 71, 5},
	{"stickhub/StickHub.kicad_sch", 94, 1},
	{"ecc83/ecc83-pp.kicad_sch", 15, 1},
	{"interf_u/interf_u.kicad_sch", 24, 1},
	{"sonde xilinx/sonde xilinx.kicad_sch", 25, 1},
	{"test_xil_95108/carte_test.kicad_sch", 42, 1},
	{"vme-wren/vme-wren.kicad_sch", 1507, 73}, // 36 files, nested and repeated sheets
}

func TestLoadSchematicDemoCounts(t *testing.T) {
	for _, tc := range demoSchematics {
		t.Run(tc.root, func(t *testing.T) {
			s := mustLoadSchematic(t, demoPath(t, tc.root))
			if len(s.Parts) != tc.parts {
				t.Errorf("%d parts, kicad-cli counts %d", len(s.Parts), tc.parts)
			}
			if len(s.Sheets) != tc.sheets {
				t.Errorf("%d sheet instances, kicad-cli counts %d", len(s.Sheets), tc.sheets)
			}
			for _, p := range s.Parts {
				if strings.HasPrefix(p.Refdes, "#") {
					t.Errorf("power symbol %s listed as a part", p.Refdes)
				}
			}
			if !slices.IsSortedFunc(s.Parts, func(a, b Part) int { return CompareRefdes(a.Refdes, b.Refdes) }) {
				t.Error("parts are not in natural refdes order")
			}
		})
	}
}

// TestComplexHierarchyInstances pins down the failure this loader exists to
// avoid: ampli_ht.kicad_sch is used twice, and each use has its own references.
func TestComplexHierarchyInstances(t *testing.T) {
	s := mustLoadSchematic(t, demoPath(t, "complex_hierarchy/complex_hierarchy.kicad_sch"))
	want := map[string]string{
		"C101":  "/",
		"RV201": "/ampli_ht_vertical/",
		"RV301": "/ampli_ht_horizontal/",
		"U201":  "/ampli_ht_vertical/",
		"U301":  "/ampli_ht_horizontal/",
	}
	got := map[string]Part{}
	for _, p := range s.Parts {
		got[p.Refdes] = p
	}
	for ref, path := range want {
		p, ok := got[ref]
		if !ok {
			t.Errorf("%s missing", ref)
			continue
		}
		if p.SheetPath != path {
			t.Errorf("%s on %q, want %q", ref, p.SheetPath, path)
		}
	}
	if f := got["RV301"].SheetFile; f != "ampli_ht.kicad_sch" {
		t.Errorf("RV301 sheet file %q", f)
	}
	wantSheets := []SheetInstance{
		{Path: "/", UUIDPath: "/", File: "complex_hierarchy.kicad_sch"},
		{Path: "/ampli_ht_vertical/", UUIDPath: "/00000000-0000-0000-0000-00004b3a1333", Name: "ampli_ht_vertical", File: "ampli_ht.kicad_sch"},
		{Path: "/ampli_ht_horizontal/", UUIDPath: "/00000000-0000-0000-0000-00004b3a13a4", Name: "ampli_ht_horizontal", File: "ampli_ht.kicad_sch"},
	}
	for i := range s.Sheets {
		s.Sheets[i].Pins = nil
	}
	if !reflect.DeepEqual(s.Sheets, wantSheets) {
		t.Errorf("sheets:\n got %+v\nwant %+v", s.Sheets, wantSheets)
	}
	if want := []string{"+12V", "-VAA", "GND", "HT", "VCC"}; !reflect.DeepEqual(s.PowerNets, want) {
		t.Errorf("power nets %q, want %q", s.PowerNets, want)
	}
}

// TestLoadSchematicHierarchy covers, on a hand-written KiCad 9 hierarchy
// (testdata/hier: a sheet used twice, with a nested sheet in a subfolder),
// instance references, multi-unit aggregation, power symbols, unannotated
// symbols, DNP and exclusion flags, field aliases, labels and no-connects.
// kicad-cli 9.0.8 loads these files; its netlist agrees with the parts below
// except that it folds the two "R?" into one.
func TestLoadSchematicHierarchy(t *testing.T) {
	s := mustLoadSchematic(t, "testdata/hier/root.kicad_sch")
	type row struct {
		ref, value, path, file string
		units                  []int
	}
	var got []row
	for _, p := range s.Parts {
		got = append(got, row{p.Refdes, p.Value, p.SheetPath, p.SheetFile, p.Units})
	}
	want := []row{
		{"R1", "10k", "/", "root.kicad_sch", []int{1}},
		{"R2", "DNP 0R", "/", "root.kicad_sch", []int{1}},
		{"R3", "fiducial", "/", "root.kicad_sch", []int{1}},
		{"R101", "4k7", "/Left/", "chan.kicad_sch", []int{1}},
		{"R102", "100k", "/Left/Bias/", "sub/bias.kicad_sch", []int{1}},
		{"R201", "4k7", "/Right/", "chan.kicad_sch", []int{1}},
		{"R202", "100k", "/Right/Bias/", "sub/bias.kicad_sch", []int{1}},
		{"R?", "1k", "/", "root.kicad_sch", []int{1}}, // unannotated: never merged
		{"R?", "2k", "/", "root.kicad_sch", []int{1}},
		{"U1", "DUAL", "/", "root.kicad_sch", []int{1, 2, 3}}, // three units, one part
		{"U2", "MCU", "/", "root.kicad_sch", []int{1}},
		{"U3", "DUAL", "/", "root.kicad_sch", []int{1}},
		{"U101", "DUAL", "/Left/", "chan.kicad_sch", []int{1, 2}},
		{"U201", "DUAL", "/Right/", "chan.kicad_sch", []int{1, 2}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parts:\n got %v\nwant %v", got, want)
	}

	byRef := map[string]Part{}
	for _, p := range s.Parts {
		byRef[p.Refdes] = p
	}
	r1 := byRef["R1"]
	if r1.MPN != "RC0603FR-0710KL" || r1.Manufacturer != "Yageo" {
		t.Errorf("R1 MPN %q manufacturer %q: want the \"Mfr. Part #\" and \"MFR\" fields", r1.MPN, r1.Manufacturer)
	}
	if r1.Fields["Mfr. Part #"] != "RC0603FR-0710KL" || r1.Fields["Reference"] != "R1" {
		t.Errorf("R1 fields %v", r1.Fields)
	}
	if r1.LibID != "Device:R" || r1.Description != "R from the test library" || !r1.InBOM || !r1.OnBoard || r1.DNP {
		t.Errorf("R1 %+v", r1)
	}
	if !byRef["R2"].DNP {
		t.Error("R2 is (dnp yes)")
	}
	if r3 := byRef["R3"]; r3.InBOM || r3.OnBoard {
		t.Errorf("R3 is (in_bom no) (on_board no): got in_bom %v on_board %v", r3.InBOM, r3.OnBoard)
	}
	// PWR_FLAG is a power symbol but names no net: its pin is a power output.
	if want := []string{"+3V3", "GND"}; !reflect.DeepEqual(s.PowerNets, want) {
		t.Errorf("power nets %q, want %q", s.PowerNets, want)
	}

	wantSheets := []string{"/", "/Left/", "/Left/Bias/", "/Right/", "/Right/Bias/"}
	var sheets []string
	for _, si := range s.Sheets {
		sheets = append(sheets, si.Path)
	}
	if !reflect.DeepEqual(sheets, wantSheets) {
		t.Errorf("sheets %q, want %q", sheets, wantSheets)
	}
	left := s.Sheets[1]
	if left.UUIDPath != "/22222222-0000-4000-8000-00000000000a" || left.File != "chan.kicad_sch" ||
		!reflect.DeepEqual(left.Pins, []SheetPin{{Name: "IN", Type: "input", Pos: Point{177.8, 53.34}}}) {
		t.Errorf("Left sheet %+v", left)
	}
	if bias := s.Sheets[2]; bias.UUIDPath != "/22222222-0000-4000-8000-00000000000a/33333333-0000-4000-8000-000000000001" {
		t.Errorf("Left/Bias uuid path %q", bias.UUIDPath)
	}

	wantLabels := []Label{
		{Name: "SDA", Kind: LabelGlobal, SheetPath: "/", Pos: Point{152.4, 101.6}},
		{Name: "MID", Kind: LabelLocal, SheetPath: "/", Pos: Point{50.8, 54.61}},
		{Name: "IN", Kind: LabelHierarchical, SheetPath: "/Left/", Pos: Point{25.4, 50.8}},
		{Name: "VBIAS", Kind: LabelLocal, SheetPath: "/Left/Bias/", Pos: Point{50.8, 46.99}},
		{Name: "IN", Kind: LabelHierarchical, SheetPath: "/Right/", Pos: Point{25.4, 50.8}},
		{Name: "VBIAS", Kind: LabelLocal, SheetPath: "/Right/Bias/", Pos: Point{50.8, 46.99}},
	}
	if !reflect.DeepEqual(s.Labels, wantLabels) {
		t.Errorf("labels:\n got %+v\nwant %+v", s.Labels, wantLabels)
	}
	wantNC := []NoConnect{
		{SheetPath: "/", Pos: Point{93.98, 53.34}},
		{SheetPath: "/Left/", Pos: Point{93.98, 48.26}},
		{SheetPath: "/Right/", Pos: Point{93.98, 48.26}},
	}
	if !reflect.DeepEqual(s.NoConnects, wantNC) {
		t.Errorf("no-connects %+v, want %+v", s.NoConnects, wantNC)
	}
}

// TestLoadSchematicKiCad6 reads a KiCad 6 hierarchy: references of the
// shared sheet live only in the root's (symbol_instances ..), sheet fields are
// "Sheet name"/"Sheet file", and pins are hidden with a bare hide atom.
func TestLoadSchematicKiCad6(t *testing.T) {
	s := mustLoadSchematic(t, "testdata/kicad6/kicad6.kicad_sch")
	type row struct{ ref, value, footprint, mpn, path string }
	var got []row
	for _, p := range s.Parts {
		got = append(got, row{p.Refdes, p.Value, p.Footprint, p.MPN, p.SheetPath})
	}
	want := []row{
		{"R1", "10k", "Resistor_SMD:R_0603_1608Metric", "RC0603FR-0710KL", "/"},
		{"R10", "1k", "", "", "/Filter A/"},
		{"R20", "1k", "", "", "/Filter B/"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parts:\n got %v\nwant %v", got, want)
	}
	if s.Parts[0].Datasheet != "" || s.Parts[0].Description != "Resistor" {
		t.Errorf("R1 datasheet %q (\"~\" means none), description %q (from ki_description)", s.Parts[0].Datasheet, s.Parts[0].Description)
	}
	if !reflect.DeepEqual(s.PowerNets, []string{"GND"}) {
		t.Errorf("power nets %q", s.PowerNets)
	}
	assertNoConnectsOnPins(t, s)
	var gnd *PlacedPin
	for _, p := range s.Pins() {
		if p.Refdes == "#PWR01" {
			gnd = &p
		}
	}
	if gnd == nil || !gnd.Hidden || !gnd.Power || gnd.Type != "power_in" {
		t.Errorf("#PWR01 pin %+v: want a hidden power_in pin of a power symbol", gnd)
	}
}

func TestLoadSchematicErrors(t *testing.T) {
	dir := t.TempDir()
	write := testkit.FileWriter(t, dir)
	good, err := os.ReadFile("testdata/hier/root.kicad_sch")
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, 4096)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(r.Uint32())
	}
	sheet := func(name, file string) string {
		return `(sheet (at 0 0) (uuid "u-` + name + `") (property "Sheetname" "` + name + `") (property "Sheetfile" "` + file + `"))`
	}
	write("loop_a.kicad_sch", `(kicad_sch (uuid "a") `+sheet("B", "loop_b.kicad_sch")+`)`)
	write("loop_b.kicad_sch", `(kicad_sch (uuid "b") `+sheet("A", "./loop_a.kicad_sch")+`)`)
	// here/ links back to its own folder: here/here/here/... is one file.
	if err := os.Symlink(".", filepath.Join(dir, "here")); err != nil {
		t.Fatal(err)
	}
	write("linked.kicad_sch", `(kicad_sch (uuid "l") `+sheet("Again", "here/linked.kicad_sch")+`)`)
	write("stray.kicad_sch", "(kicad_sch (uuid \"t\") (symbol (lib_id \"Device:R\")))\n(symbol (lib_id \"Device:C\")))\n")
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.kicad_sch"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		path   string
		want   string // substring of the message
		syntax bool   // wraps a *sexpr.SyntaxError
		nofile bool   // wraps fs.ErrNotExist
	}{
		{"truncated", write("truncated.kicad_sch", string(good[:len(good)/2])), "unexpected end of file", true, false},
		{"binary garbage", write("garbage.kicad_sch", string(garbage)), "expected '(' at start of file", true, false},
		{"garbage in a list", write("paren.kicad_sch", "(\x00\x01\xff \"unterminated"), "paren.kicad_sch:1:6: unterminated string", true, false},
		{"empty", write("empty.kicad_sch", ""), "empty file", true, false},
		{"a board", write("board.kicad_pcb", "(kicad_pcb (version 20241229))"), "board.kicad_pcb:1:1: not a schematic: it holds (kicad_pcb ...)", false, false},
		{"absent root", filepath.Join(dir, "absent.kicad_sch"), "absent.kicad_sch: no such file", false, true},
		{"missing sheet", write("missing.kicad_sch", `(kicad_sch (uuid "m") `+sheet("Power", "power.kicad_sch")+`)`),
			`missing.kicad_sch: sheet "Power" uses power.kicad_sch: file does not exist`, false, true},
		{"sheet without file", write("nofile.kicad_sch", `(kicad_sch (uuid "n") `+sheet("Power", "")+`)`), `sheet "Power" names no file`, false, false},
		{"recursive", filepath.Join(dir, "loop_a.kicad_sch"), `loop_b.kicad_sch: sheet "A" uses ./loop_a.kicad_sch, which contains this sheet`, false, false},
		{"recursive through a link", filepath.Join(dir, "linked.kicad_sch"), `sheet "Again" uses here/linked.kicad_sch, which contains this sheet`, false, false},
		{"bad sub-sheet", write("badsub.kicad_sch", `(kicad_sch (uuid "b") `+sheet("T", "truncated.kicad_sch")+`)`), "truncated.kicad_sch:", true, false},
		// One stray ')' in a sub-sheet closed its list early: the sheet's
		// remaining symbols would have vanished from the design.
		{"stray paren in a sub-sheet", write("straysub.kicad_sch", `(kicad_sch (uuid "s") `+sheet("S", "stray.kicad_sch")+`)`), "stray.kicad_sch:2:1: content after the end of the file's top-level list", true, false},
		{"fifo sub-sheet", write("fifosub.kicad_sch", `(kicad_sch (uuid "f") `+sheet("F", "fifo.kicad_sch")+`)`), `sheet "F" uses fifo.kicad_sch, which is not a regular file (a named pipe)`, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := LoadSchematic(tc.path)
			if err == nil {
				t.Fatalf("loaded %d parts, want an error", len(s.Parts))
			}
			checkLoadError(t, err, "load schematic: ", tc.want, tc.syntax)
			if errors.Is(err, fs.ErrNotExist) != tc.nofile {
				t.Errorf("wraps fs.ErrNotExist: %v, want %v", !tc.nofile, tc.nofile)
			}
		})
	}
}

// TestLoadSchematicWithin holds every sheet file to the repository: a
// Sheetfile of ../../victim/power.kicad_sch, /etc/passwd or a link leading
// out is refused naming the sheet and the path, while the same hierarchy
// loads when the files stay inside (also through a link that does).
func TestLoadSchematicWithin(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	for _, d := range []string{repo + "/hw/sheets", dir + "/victim"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	power := `(kicad_sch (uuid "p") (symbol (lib_id "Device:R") (uuid "r1") (property "Reference" "R1") (property "Value" "10k")))`
	for _, p := range []string{dir + "/victim/power.kicad_sch", repo + "/hw/sheets/power.kicad_sch"} {
		if err := os.WriteFile(p, []byte(power), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../../victim", repo+"/hw/out"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sheets", repo+"/hw/in"); err != nil {
		t.Fatal(err)
	}
	top := func(file string) string {
		p := repo + "/hw/top.kicad_sch"
		text := `(kicad_sch (uuid "t") (sheet (at 0 0) (uuid "s") (property "Sheetname" "Power") (property "Sheetfile" "` + file + `")))`
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct{ file, want string }{
		{"../../victim/power.kicad_sch", `load schematic: ` + repo + `/hw/top.kicad_sch: sheet "Power" uses ../../victim/power.kicad_sch, which is outside the repository`},
		{"/etc/passwd", `sheet "Power" uses /etc/passwd, which is outside the repository`},
		{"out/power.kicad_sch", `sheet "Power" uses out/power.kicad_sch, which is outside the repository (it resolves to ` + dir + `/victim/power.kicad_sch)`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			root := top(tc.file)
			_, err := LoadSchematicWithin(root, repo)
			if err == nil || err.Error() != tc.want && !strings.Contains(err.Error(), tc.want) || !errors.Is(err, repofs.ErrOutside) {
				t.Fatalf("err = %v, want %q wrapping repofs.ErrOutside", err, tc.want)
			}
			// Without a boundary the same design loads (the sheet exists).
			if tc.file != "/etc/passwd" {
				if _, err := LoadSchematic(root); err != nil {
					t.Errorf("LoadSchematic: %v", err)
				}
			}
		})
	}
	for _, file := range []string{"sheets/power.kicad_sch", "in/power.kicad_sch", "sheets/../sheets/power.kicad_sch"} {
		s, err := LoadSchematicWithin(top(file), repo)
		if err != nil || len(s.Parts) != 1 || s.Parts[0].Refdes != "R1" {
			t.Errorf("%s: %v", file, err)
		}
	}
	if _, err := LoadSchematicWithin(dir+"/victim/power.kicad_sch", repo); !errors.Is(err, repofs.ErrOutside) {
		t.Errorf("root outside: %v", err)
	}
}

// TestLoadSchematicExponentialHierarchy: each level uses the next twice, so
// 30 levels would be a billion instances; the loader stops with an error.
func TestLoadSchematicExponentialHierarchy(t *testing.T) {
	dir := t.TempDir()
	const levels = 30
	for i := range levels {
		text := `(kicad_sch (uuid "l` + string(rune('a'+i)) + `")`
		if i+1 < levels {
			next := "l" + string(rune('a'+i+1)) + ".kicad_sch"
			text += `(sheet (uuid "x") (property "Sheetname" "X") (property "Sheetfile" "` + next + `"))`
			text += `(sheet (uuid "y") (property "Sheetname" "Y") (property "Sheetfile" "` + next + `"))`
		}
		if err := os.WriteFile(filepath.Join(dir, "l"+string(rune('a'+i))+".kicad_sch"), []byte(text+")"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadSchematic(filepath.Join(dir, "la.kicad_sch"))
	if err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("error %v, want the instance bound", err)
	}
}

// TestNoConnectsSitOnPins is the real-data check of the pin transform: in
// KiCad's own demos every no-connect flag sits on a pin, a sheet pin or a
// wire end. Most sit on symbol pins, so a wrong rotation or mirror shows up
// as flags that hit nothing.
func TestNoConnectsSitOnPins(t *testing.T) {
	for _, root := range []string{
		"pic_programmer/pic_programmer.kicad_sch",
		"video/video.kicad_sch",
		"kit-dev-coldfire-xilinx_5213/kit-dev-coldfire-xilinx_5213.kicad_sch",
		"flat_hierarchy/flat_hierarchy.kicad_sch",
		"royalblue54L_feather/RoyalBlue54L-Feather.kicad_sch",
		"tiny_tapeout/tinytapeout-demo.kicad_sch",
		"vme-wren/vme-wren.kicad_sch",
	} {
		t.Run(root, func(t *testing.T) {
			path := demoPath(t, root)
			s := mustLoadSchematic(t, path)
			if len(s.NoConnects) == 0 {
				t.Fatal("no no-connect flags: pick another demo")
			}
			assertNoConnectsOnPins(t, s)
		})
	}
}

// assertNoConnectsOnPins checks that every no-connect lies within 0.001 mm
// of a symbol pin, a sheet pin or a wire end on its sheet instance, and that
// symbol pins account for most of them.
func assertNoConnectsOnPins(t *testing.T, s *Schematic) {
	t.Helper()
	onPin := map[string][]Point{}
	for _, p := range s.Pins() {
		onPin[p.SheetPath] = append(onPin[p.SheetPath], p.Pos)
	}
	other := map[string][]Point{} // sheet pins and wire ends
	files := map[string][]Point{}
	for i, si := range s.Sheets {
		if i > 0 {
			parent := si.Path[:strings.LastIndex(strings.TrimSuffix(si.Path, "/"), "/")+1]
			for _, sp := range si.Pins {
				other[parent] = append(other[parent], sp.Pos)
			}
		}
		ends, ok := files[si.File]
		if !ok {
			ends = wireEnds(t, filepath.Join(filepath.Dir(s.Root), si.File))
			files[si.File] = ends
		}
		other[si.Path] = append(other[si.Path], ends...)
	}
	near := func(pts []Point, q Point) bool {
		for _, p := range pts {
			if math.Abs(p.X-q.X) < 0.001 && math.Abs(p.Y-q.Y) < 0.001 {
				return true
			}
		}
		return false
	}
	hits := 0
	for _, nc := range s.NoConnects {
		switch {
		case near(onPin[nc.SheetPath], nc.Pos):
			hits++
		case near(other[nc.SheetPath], nc.Pos):
		default:
			t.Errorf("no-connect at %v on %s touches no pin", nc.Pos, nc.SheetPath)
		}
	}
	if hits*4 < len(s.NoConnects)*3 {
		t.Errorf("only %d of %d no-connects sit on symbol pins", hits, len(s.NoConnects))
	}
}

// wireEnds reads the end points of a sheet file's wires and bus entries.
func wireEnds(t *testing.T, path string) []Point {
	t.Helper()
	n, _, err := sexpr.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []Point
	for _, kind := range []string{"wire", "bus_entry"} {
		for w := range n.All(kind) {
			for xy := range w.Child("pts").All("xy") {
				x, _ := xy.Float(0)
				y, _ := xy.Float(1)
				out = append(out, Point{x, y})
			}
		}
	}
	return out
}

func BenchmarkLoadSchematicVMEWren(b *testing.B) {
	path := demoPath(b, "vme-wren/vme-wren.kicad_sch")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadSchematic(path); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSchematicMatchesKiCadNetlist compares the loader with kicad-cli's own
// netlist, component by component and pin by pin: references, values,
// footprints, library ids and sheet paths of every part, and the number,
// name and electrical type of every pin. Unannotated references are left out
// (KiCad folds them all into one).
func TestSchematicMatchesKiCadNetlist(t *testing.T) {
	cli := kicadCLI(t)
	roots := []string{"testdata/hier/root.kicad_sch", "testdata/kicad6/kicad6.kicad_sch"}
	for _, tc := range demoSchematics {
		if p := filepath.Join(demoDir, tc.root); fileExists(p) && (!strings.HasPrefix(tc.root, "vme-wren/") || !testing.Short()) {
			roots = append(roots, p)
		}
	}
	for _, root := range roots {
		t.Run(strings.TrimPrefix(root, demoDir+"/"), func(t *testing.T) {
			s := mustLoadSchematic(t, root)
			out := filepath.Join(t.TempDir(), "net.xml")
			runKiCadCLI(t, cli, "sch", "export", "netlist", "--format", "kicadxml", "-o", out, root)
			want := readOracleNetlist(t, out)
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if nl, err := ParseNetlistXML(data); err != nil || CheckNetlistCovers(s, nl) != nil {
				t.Errorf("KiCad's own netlist of a whole design: %v, %v", err, CheckNetlistCovers(s, nl))
			}

			// A multi-unit part spread over several sheets belongs to the
			// sheet of its lowest unit here; KiCad names whichever unit it
			// met first. Either is one of the part's sheets.
			sheets := map[string][]string{}
			for _, p := range s.Pins() {
				if !slices.Contains(sheets[p.Refdes], p.SheetPath) {
					sheets[p.Refdes] = append(sheets[p.Refdes], p.SheetPath)
				}
			}
			got := map[string]string{}
			for _, p := range s.Parts {
				if strings.HasSuffix(p.Refdes, "?") {
					continue
				}
				sheet, lib := p.SheetPath, p.LibID
				if w := want.parts[p.Refdes]; slices.Contains(sheets[p.Refdes], w.sheet) {
					sheet = w.sheet
				}
				// For a symbol whose embedded copy was renamed (lib_name),
				// KiCad's netlist names the copy, not the library symbol.
				if w := want.parts[p.Refdes]; strings.HasPrefix(w.lib, ":") {
					lib = w.lib
				}
				got[p.Refdes] = fmt.Sprintf("value=%q footprint=%q lib=%q sheet=%q", p.Value, p.Footprint, lib, sheet)
			}
			wantParts := map[string]string{}
			for ref, w := range want.parts {
				wantParts[ref] = fmt.Sprintf("value=%q footprint=%q lib=%q sheet=%q", w.value, w.footprint, w.lib, w.sheet)
			}
			compareSets(t, "part", got, wantParts)

			gotPins := map[string]string{}
			for _, p := range s.Pins() {
				if p.Power || strings.HasSuffix(p.Refdes, "?") {
					continue
				}
				gotPins[p.Refdes+" pin "+p.Number] = fmt.Sprintf("name=%q type=%s", p.Name, p.Type)
			}
			compareSets(t, "pin", gotPins, want.pins)
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// compareSets reports keys missing on either side and values that differ,
// at most ten of each so a wholesale failure stays readable.
func compareSets(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	var problems []string
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s %s missing (KiCad: %s)", what, k, w))
		case g != w:
			problems = append(problems, fmt.Sprintf("%s %s: got %s, KiCad says %s", what, k, g, w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			problems = append(problems, fmt.Sprintf("%s %s (%s) is not in KiCad's netlist", what, k, g))
		}
	}
	slices.Sort(problems)
	if len(problems) > 10 {
		problems = append(problems[:10], fmt.Sprintf("... and %d more", len(problems)-10))
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// oracleNetlist is the part of kicad-cli's kicadxml export these tests
// compare against, keyed and formatted like the loader's side.
type oracleNetlist struct {
	parts map[string]oraclePart
	pins  map[string]string // "<refdes> pin <number>" -> name, type
}

type oraclePart struct{ value, footprint, lib, sheet string }

func readOracleNetlist(t *testing.T, path string) oracleNetlist {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Comps []struct {
			Ref       string `xml:"ref,attr"`
			Value     string `xml:"value"`
			Footprint string `xml:"footprint"`
			Lib       struct {
				Lib  string `xml:"lib,attr"`
				Part string `xml:"part,attr"`
			} `xml:"libsource"`
			Sheet struct {
				Names string `xml:"names,attr"`
			} `xml:"sheetpath"`
		} `xml:"components>comp"`
		Nets []struct {
			Nodes []struct {
				Ref      string `xml:"ref,attr"`
				Pin      string `xml:"pin,attr"`
				Function string `xml:"pinfunction,attr"`
				Type     string `xml:"pintype,attr"`
			} `xml:"node"`
		} `xml:"nets>net"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	o := oracleNetlist{parts: map[string]oraclePart{}, pins: map[string]string{}}
	for _, c := range doc.Comps {
		if strings.HasSuffix(c.Ref, "?") {
			continue
		}
		o.parts[c.Ref] = oraclePart{c.Value, c.Footprint, c.Lib.Lib + ":" + c.Lib.Part, c.Sheet.Names}
	}
	for _, n := range doc.Nets {
		for _, nd := range n.Nodes {
			if strings.HasSuffix(nd.Ref, "?") {
				continue
			}
			// "+no_connect" marks a pin carrying a no-connect flag.
			o.pins[nd.Ref+" pin "+nd.Pin] = fmt.Sprintf("name=%q type=%s", nd.Function, strings.TrimSuffix(nd.Type, "+no_connect"))
		}
	}
	return o
}

// FuzzLoadSchematic: any bytes either load or fail with an error; nothing
// panics. Every file in the root's folder holds the same bytes, so sheets
// exercise hierarchy, recursion and sharing; files elsewhere do not exist.
func FuzzLoadSchematic(f *testing.F) {
	for _, name := range []string{"testdata/extends.kicad_sch", "testdata/kicad6/filter.kicad_sch"} {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`(kicad_sch (symbol (lib_id "x") (at 1) (mirror z) (unit -1) (instances (project (path)))) (lib_symbols (symbol "x" (extends "x") (symbol "x_a_b" (pin)))))`))
	f.Add([]byte(`(kicad_sch (sheet (property "Sheetfile" "a.kicad_sch")) (sheet (property "Sheetfile" "b.kicad_sch")) (symbol_instances (path "/" (unit 99999999999))))`))
	f.Fuzz(func(t *testing.T, data []byte) {
		const root = "/fuzz/root.kicad_sch"
		read := func(p string) ([]byte, error) {
			if filepath.Dir(p) == "/fuzz" {
				return data, nil
			}
			return nil, fs.ErrNotExist
		}
		s, err := loadSchematic(root, "", read)
		if err != nil {
			return
		}
		_ = s.Pins()
	})
}

// TestSheetAttributesPropagate: a sheet marked (in_bom no) or (dnp yes)
// passes that to every symbol below it, nested sheets included. kicad-cli
// 9.0.8's BOM export of the same edit drops R101, R102 and U101 and marks
// R201, R202 and U201 DNP.
func TestSheetAttributesPropagate(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"root.kicad_sch", "chan.kicad_sch", "sub/bias.kicad_sch"} {
		data, err := os.ReadFile(filepath.Join("testdata/hier", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "root.kicad_sch" {
			text := string(data)
			left := `(sheet (at 177.8 50.8) (size 20.32 15.24) (exclude_from_sim no) (in_bom yes) (on_board yes) (dnp no)`
			right := `(sheet (at 177.8 101.6) (size 20.32 15.24) (exclude_from_sim no) (in_bom yes) (on_board yes) (dnp no)`
			if !strings.Contains(text, left) || !strings.Contains(text, right) {
				t.Fatal("testdata/hier/root.kicad_sch changed: update this test")
			}
			text = strings.Replace(text, left, strings.Replace(left, "(in_bom yes) (on_board yes)", "(in_bom no) (on_board no)", 1), 1)
			text = strings.Replace(text, right, strings.Replace(right, "(dnp no)", "(dnp yes)", 1), 1)
			data = []byte(text)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := mustLoadSchematic(t, filepath.Join(dir, "root.kicad_sch"))
	got := map[string]string{}
	for _, p := range s.Parts {
		got[p.Refdes] = fmt.Sprintf("bom=%v board=%v dnp=%v", p.InBOM, p.OnBoard, p.DNP)
	}
	for ref, want := range map[string]string{
		"R1":   "bom=true board=true dnp=false",
		"R101": "bom=false board=false dnp=false",
		"R102": "bom=false board=false dnp=false",
		"U101": "bom=false board=false dnp=false",
		"R201": "bom=true board=true dnp=true",
		"R202": "bom=true board=true dnp=true",
		"U201": "bom=true board=true dnp=true",
	} {
		if got[ref] != want {
			t.Errorf("%s: %s, want %s", ref, got[ref], want)
		}
	}
}
