package layout

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/draft"
)

// TestDraftCircuits drafts the six test circuits (internal/draft's
// testdata/circuits: schematic drawn by the schematic engine, as create
// does) into boards and holds each to the measure: DRC clean but
// for unrouted connections, schematic parity clean, at least 80% of the
// connections routed, the GND pour filled, every net left over named in
// LAYOUT.md, the same bytes on a second run. Per circuit it checks the
// placement property that circuit exercises.
func TestDraftCircuits(t *testing.T) {
	if testing.Short() {
		t.Skip("drafts six boards through kicad-cli")
	}
	tool := kicadTool(t)
	tests := []struct {
		name string
		// maxW x maxH bounds a computed outline (the NE555 board once came
		// out 132 x 101 mm); minUtil is the least area utilisation.
		maxW, maxH, minUtil float64
		check               func(t *testing.T, rep *Report, pr project)
	}{
		{name: "esp32s3_usbc_ldo", maxW: 60, maxH: 60, minUtil: 0.3, check: func(t *testing.T, rep *Report, pr project) {
			// The module's 0.2 mm thermal vias pass DRC with the jlcpcb
			// rules: minimum hole 0.2 mm in the .kicad_pro.
			board, _ := os.ReadFile(pr.board)
			if !bytes.Contains(board, []byte("(drill 0.2)")) {
				t.Error("the board lacks the ESP32-S3 module's 0.2 mm thermal vias")
			}
			pro, _ := os.ReadFile(strings.TrimSuffix(pr.board, ".kicad_pcb") + ".kicad_pro")
			var doc struct {
				Board struct {
					DesignSettings struct {
						Rules map[string]float64 `json:"rules"`
					} `json:"design_settings"`
				} `json:"board"`
			}
			if err := json.Unmarshal(pro, &doc); err != nil {
				t.Fatal(err)
			}
			if got := doc.Board.DesignSettings.Rules["min_through_hole_diameter"]; got != 0.2 {
				t.Errorf("min_through_hole_diameter %v, want JLCPCB's 0.2", got)
			}
		}},
		{name: "ne555_blinker", maxW: 100, maxH: 75, minUtil: 0.5, check: func(t *testing.T, rep *Report, _ project) {
			if rep.RoutedShare < 0.999 {
				t.Errorf("the NE555 board routes %d of %d connections, want all", rep.RoutedConnections, rep.Connections)
			}
		}},
		{name: "opamp_filter", maxW: 60, maxH: 50, minUtil: 0.3},
		{name: "relay_board", maxW: 140, maxH: 110, minUtil: 0.3},
		{name: "rp2040_min", maxW: 60, maxH: 50, minUtil: 0.3, check: func(t *testing.T, rep *Report, _ project) {
			// The RP2040's caps sit at its supply pins, not around the LDO.
			near := 0
			for _, r := range rep.Rules {
				if r.Rule == "decoupling next to its IC" && strings.Contains(r.Detail, "U1") && r.Met {
					near++
				}
			}
			if near < 5 {
				t.Errorf("%d decoupling caps next to U1 (RP2040), want at least 5: %+v", near, rep.Rules)
			}
		}},
		{name: "stm32f103_swd", maxW: 50, maxH: 40, minUtil: 0.3, check: func(t *testing.T, rep *Report, _ project) {
			for _, r := range rep.Rules {
				if (r.Refdes == "C1" || r.Refdes == "C2") && r.Rule != "load capacitor beside its crystal" {
					t.Errorf("%s is %q, want the crystal's load capacitor", r.Refdes, r.Rule)
				}
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr := draftCircuit(t, tc.name)
			ctx := context.Background()
			opts := Options{Schematic: pr.sch, Board: pr.board, LayoutDoc: pr.layout, MarkDraft: true}
			rep, err := Draft(ctx, tool, opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %v x %v mm, %.0f%% used; %d of %d connections (%.0f%%), %d vias; DRC %d violations, %d unconnected",
				tc.name, rep.Outline.WidthMM, rep.Outline.HeightMM, rep.Utilisation*100, rep.RoutedConnections, rep.Connections,
				rep.RoutedShare*100, rep.Vias, rep.DRC.Violations, rep.DRC.Unconnected)
			if !rep.OK() || rep.DRC.Violations != 0 || rep.DRC.Parity != 0 {
				t.Errorf("gate %v; DRC:\n%s", rep.Gate, strings.Join(rep.DRC.Details, "\n"))
			}
			if rep.RoutedShare < 0.8 || rep.Connections == 0 {
				t.Errorf("routed %d of %d connections, want at least 80%%", rep.RoutedConnections, rep.Connections)
			}
			if rep.Outline.WidthMM > tc.maxW || rep.Outline.HeightMM > tc.maxH || rep.Utilisation < tc.minUtil {
				t.Errorf("outline %v x %v mm at %.2f utilisation, want within %v x %v and at least %.2f",
					rep.Outline.WidthMM, rep.Outline.HeightMM, rep.Utilisation, tc.maxW, tc.maxH, tc.minUtil)
			}
			if rep.Pour.Net != "GND" || !rep.Pour.Filled {
				t.Errorf("pour %+v, want GND filled", rep.Pour)
			}
			board, err := os.ReadFile(pr.board)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(board, []byte("(filled_polygon")) || !bytes.Contains(board, []byte(`(net_name "GND")`)) {
				t.Error("the board has no filled GND zone")
			}
			md, err := os.ReadFile(pr.layout)
			if err != nil {
				t.Fatal(err)
			}
			section := string(md[bytes.Index(md, []byte("## "+DraftQualityHeading)):])
			for _, n := range rep.Unrouted {
				if !strings.Contains(section, n) {
					t.Errorf("Draft quality does not name unrouted net %s", n)
				}
			}
			for _, n := range rep.Partial {
				if !strings.Contains(section, n.Net) {
					t.Errorf("Draft quality does not name partly routed net %s", n.Net)
				}
			}
			if tc.check != nil {
				tc.check(t, rep, pr)
			}
			if _, err := Draft(ctx, tool, opts); err != nil {
				t.Fatal(err)
			}
			again, _ := os.ReadFile(pr.board)
			if !bytes.Equal(board, again) {
				t.Error("board differs on re-run")
			}
		})
	}
}

// draftCircuit draws internal/draft's test circuit name into a temporary
// project folder with the schematic engine.
func draftCircuit(t *testing.T, name string) project {
	t.Helper()
	file := filepath.Join("..", "testdata", "circuits", name+".json")
	in, err := draft.ReadIntent(file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := draft.Validate(in, filepath.Base(file), draft.Options{})
	if err != nil {
		t.Skipf("%s does not validate here (KiCad libraries?): %v", name, err)
	}
	out, rep, err := draft.Schematic(r, in.Project, draft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "hw")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sch := filepath.Join(dir, rep.File)
	if err := os.WriteFile(sch, out, 0o644); err != nil {
		t.Fatal(err)
	}
	stem := strings.TrimSuffix(sch, ".kicad_sch")
	return project{dir: dir, sch: sch, board: stem + ".kicad_pcb", layout: filepath.Join(filepath.Dir(dir), "docs", "LAYOUT.md")}
}

// TestDraftLargePartsFirst: the NE555 board's 56 x 32 mm 9 V battery
// holder is placed before the small parts, so it fits a stated 100 x 75 mm
// board, and on a 45 x 80 mm board (too narrow for it unturned) it is
// placed turned a quarter.
func TestDraftLargePartsFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("drafts boards through kicad-cli")
	}
	tool := kicadTool(t)
	for _, tc := range []struct {
		size      string
		quarter   bool // BT1 must be turned 90 or 270 degrees
		wantW, wH float64
	}{
		{"100 x 75", false, 100, 75},
		{"45 x 80", true, 45, 80},
	} {
		t.Run(tc.size, func(t *testing.T) {
			pr := draftCircuit(t, "ne555_blinker")
			if err := os.MkdirAll(filepath.Dir(pr.layout), 0o755); err != nil {
				t.Fatal(err)
			}
			md := "# ne555 — Layout intent\n\n## Board outline\n\n- Board: " + tc.size + " mm, 2 layers.\n"
			if err := os.WriteFile(pr.layout, []byte(md), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Draft(context.Background(), tool, Options{Schematic: pr.sch, Board: pr.board, LayoutDoc: pr.layout})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Outline.WidthMM != tc.wantW || rep.Outline.HeightMM != tc.wH || !rep.Outline.Stated {
				t.Errorf("outline %+v, want the stated %s", rep.Outline, tc.size)
			}
			for _, p := range rep.Parts {
				if p.Refdes != "BT1" {
					continue
				}
				turned := p.Rotation == 90 || p.Rotation == 270
				if turned != tc.quarter {
					t.Errorf("BT1 at %v degrees, want a quarter turn %v", p.Rotation, tc.quarter)
				}
			}
			if !rep.OK() || rep.RoutedShare < 0.8 {
				t.Errorf("gate %v, routed %.2f", rep.Gate, rep.RoutedShare)
			}
		})
	}
}
