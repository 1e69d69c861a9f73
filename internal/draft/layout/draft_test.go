package layout

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/testkit"
)

// These tests run the real kicad-cli on copies of the open-telegraph fixture
// and KiCad's demo projects in t.TempDir(): the board must load, pass DRC
// but for unconnected items, match the schematic (parity), and come out byte
// for byte the same when drafted again.

const demosDir = "/usr/share/kicad/demos"

var realTool testkit.Shared[*kicadcli.Tool]

// kicadTool returns the real kicad-cli with a private cache, or skips.
func kicadTool(t testing.TB) *kicadcli.Tool {
	t.Helper()
	testkit.NeedKiCadCLI(t)
	found, err := realTool.Get(func() (*kicadcli.Tool, error) {
		if os.Getenv("COPPERHEAD_KICAD_CONFIG") == "" {
			dir, err := os.MkdirTemp("", "layout-kicadcfg-*")
			if err != nil {
				return nil, err
			}
			os.Setenv("COPPERHEAD_KICAD_CONFIG", dir)
		}
		return kicadcli.Find(context.Background())
	})
	if err != nil {
		t.Fatal(err)
	}
	tool := *found
	tool.CacheDir = ""
	return &tool
}

// project is a KiCad project copied into a temporary folder without its
// board, with a docs/LAYOUT.md.
type project struct {
	dir, sch, board, layout string
}

// copyProject copies the .kicad_sch, .kicad_pro, library tables and
// project-local libraries of src (never its boards) into a temp folder.
func copyProject(t testing.TB, src, root string) project {
	t.Helper()
	if _, err := os.Stat(filepath.Join(src, root)); err != nil {
		t.Skipf("%s not installed: %v", src, err)
	}
	dst := filepath.Join(t.TempDir(), "hw")
	err := testkit.CopyTree(dst, src, func(p string) bool {
		switch filepath.Ext(p) {
		case ".kicad_pcb", ".kicad_prl", ".step", ".wrl", ".pdf", ".png", ".bmp":
			return true
		}
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	stem := strings.TrimSuffix(root, ".kicad_sch")
	return project{
		dir:    dst,
		sch:    filepath.Join(dst, root),
		board:  filepath.Join(dst, stem+".kicad_pcb"),
		layout: filepath.Join(filepath.Dir(dst), "docs", "LAYOUT.md"),
	}
}

// openTelegraphLayout is the fixture's LAYOUT.md with a stated outline.
const statedLayout = "# t — Layout intent\n\n## Board outline\n\n- Board: 90 x 70 mm, 2 layers.\n\n## Draft quality\n\n" + draftQualityPlaceholder + "\n"

func TestDraftProjects(t *testing.T) {
	fixtureLayout, err := os.ReadFile("../../../examples/open-telegraph/docs/LAYOUT.md")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, src, root string
		layout          string // LAYOUT.md to start from; "" for none
		wantW, wantH    float64
		wantKeepout     string // refdes of an antenna whose keepout must be honoured
		wantEdge        []string
		minRouted       int
		minShare        float64 // routed connections over connections
		wantVias        bool
	}{
		{name: "open-telegraph", src: "../../../examples/open-telegraph/hardware", root: "open-telegraph.kicad_sch",
			layout: string(fixtureLayout), wantKeepout: "U1", wantEdge: []string{"J1", "J2", "J3"}, minRouted: 3, minShare: 0.8, wantVias: true},
		{name: "open-telegraph stated outline", src: "../../../examples/open-telegraph/hardware", root: "open-telegraph.kicad_sch",
			layout: statedLayout, wantW: 90, wantH: 70, wantKeepout: "U1"},
		// A hierarchy with one sheet used twice: references per instance path.
		{name: "complex_hierarchy", src: demosDir + "/complex_hierarchy", root: "complex_hierarchy.kicad_sch",
			wantEdge: []string{"P101", "P102", "P201", "P202", "P301", "P302"}, minRouted: 10, minShare: 0.8},
		// Through-hole valves from the project's own footprint library: long
		// nets between big parts, so rule-based routing finds little to do.
		{name: "ecc83", src: demosDir + "/ecc83", root: "ecc83-pp.kicad_sch", wantEdge: []string{"P1", "P2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tool := kicadTool(t)
			pr := copyProject(t, tc.src, tc.root)
			if tc.layout != "" {
				if err := os.MkdirAll(filepath.Dir(pr.layout), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(pr.layout, []byte(tc.layout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ctx := context.Background()
			opts := Options{Schematic: pr.sch, Board: pr.board, LayoutDoc: pr.layout}
			rep, err := Draft(ctx, tool, opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("outline %s; %d parts; %d of %d connections routed; nets routed %d, partly %d, unrouted %d; DRC %d violations, %d unconnected, %d parity",
				rep.Outline.Source, len(rep.Parts), rep.RoutedConnections, rep.Connections, len(rep.Routed), len(rep.Partial), len(rep.Unrouted),
				rep.DRC.Violations, rep.DRC.Unconnected, rep.DRC.Parity)
			if !rep.OK() {
				t.Errorf("gate: %v\n%s", rep.Gate, strings.Join(rep.DRC.Details, "\n"))
			}
			if rep.RoutedConnections > rep.Connections || rep.RoutedShare < tc.minShare {
				t.Errorf("routed %d of %d connections (%.2f), want a share of at least %.2f", rep.RoutedConnections, rep.Connections, rep.RoutedShare, tc.minShare)
			}
			if tc.wantVias && rep.Vias == 0 {
				t.Error("the two-layer router laid no via")
			}
			if len(rep.Routed) < tc.minRouted {
				t.Errorf("%d nets routed, want at least %d", len(rep.Routed), tc.minRouted)
			}
			if tc.wantW > 0 && (rep.Outline.WidthMM != tc.wantW || rep.Outline.HeightMM != tc.wantH || !rep.Outline.Stated) {
				t.Errorf("outline %+v, want the stated %v x %v", rep.Outline, tc.wantW, tc.wantH)
			}

			// Every netlist component is on the board, once.
			nl, err := tool.Netlist(ctx, pr.sch)
			if err != nil {
				t.Fatal(err)
			}
			b, err := kicad.LoadBoard(pr.board)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Footprints) != len(nl.Components) {
				t.Errorf("board has %d footprints, netlist %d components", len(b.Footprints), len(nl.Components))
			}
			for i := range min(len(b.Footprints), len(nl.Components)) {
				if fp, c := b.Footprints[i], nl.Components[i]; fp.Refdes != c.Refdes || fp.LibID != c.Footprint || fp.SymbolPath == "" {
					t.Errorf("footprint %d: %s %s (path %q), netlist %s %s", i, fp.Refdes, fp.LibID, fp.SymbolPath, c.Refdes, c.Footprint)
				}
			}

			for _, ref := range tc.wantEdge {
				if !ruleMet(rep, ref) {
					t.Errorf("%s: edge rule not met", ref)
				}
			}
			if tc.wantKeepout != "" {
				found := false
				for _, k := range rep.Keepouts {
					found = found || k.Refdes == tc.wantKeepout && !strings.HasPrefix(k.Source, "none")
				}
				if !found || !ruleMet(rep, tc.wantKeepout) {
					t.Errorf("antenna keepout of %s not honoured: %+v", tc.wantKeepout, rep.Keepouts)
				}
			}

			// The Draft quality section names every unrouted net.
			md, err := os.ReadFile(pr.layout)
			if err != nil {
				t.Fatal(err)
			}
			if !HasDraftQuality(md) {
				t.Fatalf("LAYOUT.md has no Draft quality section:\n%s", md)
			}
			section := string(md[bytes.Index(md, []byte("## "+DraftQualityHeading)):])
			for _, n := range rep.Unrouted {
				if !strings.Contains(section, n) {
					t.Errorf("Draft quality does not name unrouted net %s", n)
				}
			}
			if tc.layout != "" && !strings.Contains(string(md), "## Placement") && strings.Contains(tc.layout, "## Placement") {
				t.Error("the rest of LAYOUT.md was lost")
			}

			// Same input, same bytes.
			first, err := os.ReadFile(pr.board)
			if err != nil {
				t.Fatal(err)
			}
			rep2, err := Draft(ctx, tool, opts)
			if err != nil {
				t.Fatal(err)
			}
			second, _ := os.ReadFile(pr.board)
			secondMD, _ := os.ReadFile(pr.layout)
			if !bytes.Equal(first, second) {
				t.Error("board differs on re-run")
			}
			if !bytes.Equal(md, secondMD) {
				t.Error("LAYOUT.md differs on re-run")
			}
			if !rep2.OK() {
				t.Errorf("re-run gate: %v", rep2.Gate)
			}
			problems, err := Gate(ctx, tool, pr.board, pr.layout)
			if err != nil || len(problems) > 0 {
				t.Errorf("Gate = %v, %v", problems, err)
			}
		})
	}
}

func ruleMet(rep *Report, ref string) bool {
	for _, r := range rep.Rules {
		if r.Refdes == ref {
			return r.Met
		}
	}
	return false
}

// TestDraftRefusesForeignBoard: any existing board copperhead did not draft
// (no DraftMarker in its title block) may be somebody's work, whatever it
// holds; only Force overwrites it.
func TestDraftRefusesForeignBoard(t *testing.T) {
	dir := t.TempDir()
	board := filepath.Join(dir, "x.kicad_pcb")
	tests := []struct {
		name, content string
		force         bool
		refused       bool
	}{
		{"hand layout", "(kicad_pcb (footprint \"R:R\"))", false, true},
		{"hand layout forced", "(kicad_pcb (footprint \"R:R\"))", true, false},
		{"earlier draft", "(kicad_pcb (title_block (comment 1 \"" + DraftMarker + "\")) (footprint \"R:R\"))", false, false},
		{"board without footprints", "(kicad_pcb (version 20241229))", false, true},
		{"empty file", "", false, true},
		{"blank file", " \n\t", false, true},
		{"random bytes", "\x00\x9f\xffGIF89a(((", false, true},
		{"KiCad 5 module syntax", "(kicad_pcb (version 20171130) (host pcbnew 5.1.9) (module Resistor_SMD:R_0603 (layer F.Cu)))", false, true},
		{"marker outside the title block", "(kicad_pcb (gr_text \"" + DraftMarker + "\") (footprint \"R:R\"))", false, true},
		{"random bytes forced", "\x00\x9f", true, false},
	}
	for _, tc := range tests {
		if err := os.WriteFile(board, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		err := checkOverwrite(Options{Board: board, Force: tc.force})
		if refused := errors.Is(err, ErrNotDraft); refused != tc.refused {
			t.Errorf("%s: err = %v, want refused %v", tc.name, err, tc.refused)
		}
		if why := map[string]string{
			"empty file": "the file is empty", "random bytes": "the file is not a KiCad board",
			"KiCad 5 module syntax": "it holds a layout (1 footprint)", "board without footprints": "its title block has no copperhead draft mark",
		}[tc.name]; why != "" && (err == nil || !strings.HasSuffix(err.Error(), ": "+why)) {
			t.Errorf("%s: err = %v, want the reason %q", tc.name, err, why)
		}
	}
}

// BenchmarkBuild measures the engine alone (placement, routing, emitting)
// on the open-telegraph fixture, kicad-cli's netlist fetched once.
func BenchmarkBuild(b *testing.B) {
	tool := kicadTool(b)
	pr := copyProject(b, "../../../examples/open-telegraph/hardware", "open-telegraph.kicad_sch")
	in, err := loadInput(context.Background(), tool, Options{Schematic: pr.sch, Board: pr.board})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := build(in); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBoardNetName: a '/' inside a net name is written as {slash}, the
// sheet path's separators are kept.
func TestBoardNetName(t *testing.T) {
	bw := &boardWriter{sheets: sheetPaths(&kicad.Schematic{Sheets: []kicad.SheetInstance{{Path: "/"}, {Path: "/Power/"}, {Path: "/Power/LDO/"}}})}
	for _, c := range []struct{ in, want string }{
		{"GND", "GND"},
		{"+3V3", "+3V3"},
		{"/SDA", "/SDA"},
		{"/VOUT/AB", "/VOUT{slash}AB"},
		{"/Power/EN", "/Power/EN"},
		{"/Power/A/B", "/Power/A{slash}B"},
		{"/Power/LDO/SENSE/ADJ", "/Power/LDO/SENSE{slash}ADJ"},
		{"unconnected-(U1-SENSE/ADJ-Pad2)", "unconnected-(U1-SENSE{slash}ADJ-Pad2)"},
		{"/Power/Net-(U1-SENSE/ADJ)", "/Power/Net-(U1-SENSE{slash}ADJ)"},
		{"A/B", "A{slash}B"},
	} {
		if got := bw.netName(c.in); got != c.want {
			t.Errorf("netName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestDraftSlashNets: testdata/slashy (drafted from intent.json, then its
// VOUTAB labels renamed VOUT/AB by hand) has a '/' in a label and in the
// name of a no-connect pin (SENSE/ADJ). kicad-cli's XML netlist gives both
// unescaped; the drafted board must carry KiCad's {slash} form so DRC's
// schematic parity passes.
func TestDraftSlashNets(t *testing.T) {
	tool := kicadTool(t)
	pr := copyProject(t, "testdata/slashy", "slashy.kicad_sch")
	rep, err := Draft(context.Background(), tool, Options{Schematic: pr.sch, Board: pr.board})
	if err != nil {
		t.Fatal(err)
	}
	if rep.DRC.Parity != 0 || rep.DRC.Violations != 0 {
		t.Errorf("DRC: %d violations, %d parity issues:\n%s", rep.DRC.Violations, rep.DRC.Parity, strings.Join(rep.DRC.Details, "\n"))
	}
	data, err := os.ReadFile(pr.board)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"/VOUT{slash}AB"`, `"unconnected-(U1-SENSE{slash}ADJ-Pad2)"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the board lacks net %s", want)
		}
	}
}
