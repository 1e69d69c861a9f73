package layout

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

func installedFootprint(t testing.TB, lib, name string) *Footprint {
	t.Helper()
	fp, err := loadFootprint(FindLibraries(t.TempDir()), lib+":"+name)
	if err != nil {
		if _, serr := os.Stat(footprintDir()); serr != nil {
			t.Skipf("KiCad footprint libraries not installed: %v", serr)
		}
		t.Fatal(err)
	}
	return fp
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestParseFootprintInstalled(t *testing.T) {
	tests := []struct {
		lib, name string
		pads      int
		courtyard Rect
		keepouts  int
		antenna   bool
		connector bool // treat as a connector to test its mating side
		wantMate  int
	}{
		{"Capacitor_SMD", "C_0603_1608Metric", 2, Rect{X0: -1.48, Y0: -0.73, X1: 1.48, Y1: 0.73}, 0, false, false, -1},
		// The mouth of a USB-C receptacle faces +Y in KiCad's library.
		{"Connector_USB", "USB_C_Receptacle_HRO_TYPE-C-31-M-12", 0, Rect{X0: -5.32, Y0: -5.27, X1: 5.32, Y1: 4.15}, 0, false, true, sideBottom},
		// A right-angle header's pins point +X.
		{"Connector_PinHeader_2.54mm", "PinHeader_1x04_P2.54mm_Horizontal", 4, Rect{}, 0, false, true, sideRight},
		// A vertical header is symmetric: no mating side.
		{"Connector_PinHeader_2.54mm", "PinHeader_1x04_P2.54mm_Vertical", 4, Rect{}, 0, false, true, -1},
		// The ESP32 module's antenna keepout is above its body.
		{"RF_Module", "ESP32-S3-WROOM-1", 0, Rect{X0: -24, Y0: -27.75, X1: 24, Y1: 13.45}, 1, true, false, sideTop},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fp := installedFootprint(t, tc.lib, tc.name)
			if tc.pads > 0 && len(fp.Pads) != tc.pads {
				t.Errorf("pads = %d, want %d", len(fp.Pads), tc.pads)
			}
			if tc.courtyard != (Rect{}) {
				c := fp.Courtyard.Inflate(-0.025) // the courtyard's stroke
				if !near(c.X0, tc.courtyard.X0) || !near(c.Y0, tc.courtyard.Y0) || !near(c.X1, tc.courtyard.X1) || !near(c.Y1, tc.courtyard.Y1) {
					t.Errorf("courtyard = %+v, want %+v", c, tc.courtyard)
				}
			}
			if len(fp.Keepouts) != tc.keepouts {
				t.Errorf("keepouts = %d, want %d", len(fp.Keepouts), tc.keepouts)
			}
			p := &part{Refdes: "X1", FootprintID: tc.lib + ":" + tc.name, fp: fp}
			if tc.antenna {
				p.Refdes = "U1"
				if !isAntenna(p) {
					t.Error("not recognised as an antenna part")
				}
				p.role = roleAntenna
				own := fp.ownCourtyard()
				if own.X0 < -10 || own.Y0 < -7 {
					t.Errorf("own courtyard %+v still holds the keepout", own)
				}
			} else if tc.connector {
				p.role = roleConnector
			}
			if tc.antenna || tc.connector {
				if got := mateSide(p); got != tc.wantMate {
					t.Errorf("mateSide = %d, want %d", got, tc.wantMate)
				}
			}
		})
	}
}

func TestParseFootprintRejects(t *testing.T) {
	tests := []struct{ name, src string }{
		{"not a footprint", `(kicad_sch (version 1))`},
		{"syntax", `(footprint "x" (pad "1" smd rect (at 0 0)`},
		{"empty", ``},
	}
	for _, tc := range tests {
		if _, err := ParseFootprint(tc.name, []byte(tc.src)); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestParseFootprintSkipsBrokenItems(t *testing.T) {
	src := `(footprint "x"
	(pad "1" smd rect (at 0 0) (size 1 1) (layers "F.Cu"))
	(pad "2" smd rect (at a b) (size 1 1) (layers "F.Cu"))
	(pad "3" thru_hole circle (at 2 0) (size 1.5 1.5) (drill 0.8 (offset 0.1 0)) (layers "*.Cu" "*.Mask") (clearance 0.4))
	(fp_line (start 0 0) (layer "F.CrtYd"))
	(fp_arc (start -1 0) (mid 0 -1) (end 1 0) (stroke (width 0.1)) (layer "F.CrtYd"))
	(zone (keepout (tracks not_allowed)))
)`
	fp, err := ParseFootprint("x.kicad_mod", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(fp.Pads) != 2 {
		t.Fatalf("pads = %d, want 2 (the one with a bad position skipped)", len(fp.Pads))
	}
	p3 := fp.Pads[1]
	if !p3.Front || !p3.Back || p3.Drill.X != 0.8 || p3.Offset.X != 0.1 || p3.Clearance != 0.4 {
		t.Errorf("pad 3 = %+v", p3)
	}
	if !near(fp.Courtyard.Y0, -1.05) || !near(fp.Courtyard.X1, 1.05) {
		t.Errorf("arc courtyard = %+v, want the arc's top at -1 plus half the stroke", fp.Courtyard)
	}
	if len(fp.Keepouts) != 0 {
		t.Errorf("a keepout without a polygon was read: %+v", fp.Keepouts)
	}
}

func FuzzParseFootprint(f *testing.F) {
	for _, name := range []string{"Capacitor_SMD.pretty/C_0603_1608Metric.kicad_mod", "RF_Module.pretty/ESP32-S3-WROOM-1.kicad_mod"} {
		if data, err := os.ReadFile(filepath.Join(footprintDir(), name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`(footprint "x" (pad "1" custom (at 1 1 45) (size 1 1) (primitives (gr_poly (pts (xy 0 0) (xy 1 nan))))))`))
	f.Add([]byte(`(module x (fp_text reference R1 (at 0 0 90) (layer F.SilkS) (effects (font (size 1e300 1)))))`))
	f.Fuzz(func(t *testing.T, src []byte) {
		fp, err := ParseFootprint("fuzz.kicad_mod", src)
		if err != nil {
			return
		}
		p := &part{Refdes: "R1", fp: fp}
		for _, rot := range []float64{0, 90, 180, 270} {
			// Never empty: an empty box's infinite extent would size an
			// infinite board.
			if o := p.outline(rot); o.Empty() {
				t.Fatalf("outline at %v° is empty: %+v", rot, o)
			}
			p.keepClear(rot)
			p.padCenter(rot)
		}
		mateSide(p)
		for i := range fp.Pads {
			padShape(&fp.Pads[i], Pt{}, 90)
		}
	})
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestUUIDFor(t *testing.T) {
	a, b := uuidFor("p", "fp/U1"), uuidFor("p", "fp/U2")
	if !uuidRE.MatchString(a) || !uuidRE.MatchString(b) {
		t.Fatalf("not version 5 UUIDs: %s %s", a, b)
	}
	if a == b || a != uuidFor("p", "fp/U1") || a == uuidFor("q", "fp/U1") {
		t.Error("UUIDs must be stable per (project, purpose) and differ otherwise")
	}
}

func TestRotationFor(t *testing.T) {
	tests := []struct {
		side, edge int
		want       float64
	}{
		{sideBottom, sideBottom, 0},
		{sideBottom, sideRight, 90}, // turning CCW moves the bottom to the right
		{sideBottom, sideTop, 180},
		{sideBottom, sideLeft, 270},
		{sideRight, sideTop, 90},
		{-1, sideLeft, 0},
	}
	for _, tc := range tests {
		got := rotationFor(tc.side, tc.edge)
		if got != tc.want {
			t.Errorf("rotationFor(%d, %d) = %v, want %v", tc.side, tc.edge, got, tc.want)
		}
		if tc.side >= 0 {
			// The rotated side's outward direction must point at the edge.
			dir := [4]Pt{{X: 0, Y: -1}, {X: 1, Y: 0}, {X: 0, Y: 1}, {X: -1, Y: 0}}
			if sideOf(rotate(dir[tc.side], got)) != tc.edge {
				t.Errorf("side %d turned %v faces %d, want %d", tc.side, got, sideOf(rotate(dir[tc.side], got)), tc.edge)
			}
		}
	}
}

func TestReadDesignRules(t *testing.T) {
	dir := t.TempDir()
	pro := filepath.Join(dir, "p.kicad_pro")
	os.WriteFile(pro, []byte(`{"board":{"design_settings":{"rules":{"min_clearance":0.1,"min_track_width":0.3,"min_copper_edge_clearance":0.8}}},
"net_settings":{"classes":[{"name":"Default","clearance":0.2,"track_width":0.2},{"name":"HV","clearance":0.6,"track_width":1}]}}`), 0o644)
	tests := []struct {
		path string
		want designRules
	}{
		{filepath.Join(dir, "missing.kicad_pro"), designRules{Clearance: 0.2, HoleClearance: 0.25, EdgeClearance: 0.5, HoleToHole: 0.25, SignalWidth: 0.25, PowerWidth: 0.5, ViaDiameter: 0.6, ViaDrill: 0.3}},
		{pro, designRules{Clearance: 0.6, HoleClearance: 0.25, EdgeClearance: 0.8, HoleToHole: 0.25, SignalWidth: 0.3, PowerWidth: 0.5, ViaDiameter: 0.6, ViaDrill: 0.3}},
	}
	for _, tc := range tests {
		got, err := readDesignRules(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", filepath.Base(tc.path), got, tc.want)
		}
	}
}

func TestClassifyNets(t *testing.T) {
	nets := []netInfo{{Name: "GND"}, {Name: "/Power/VBUS"}, {Name: "+3V3"}, {Name: "3V3"}, {Name: "SDA"},
		{Name: "Net-(U1-VDD)"}, {Name: "unconnected-(U1-NC-Pad4)"}, {Name: "AGND"}, {Name: "MOTOR"}}
	k := classifyNets(nets, []string{"MOTOR"})
	for _, n := range []string{"GND", "AGND"} {
		if !k.ground[n] || !k.power[n] {
			t.Errorf("%s: want ground", n)
		}
	}
	for _, n := range []string{"/Power/VBUS", "+3V3", "3V3", "MOTOR"} {
		if !k.power[n] || k.ground[n] {
			t.Errorf("%s: want power", n)
		}
	}
	for _, n := range []string{"SDA", "Net-(U1-VDD)", "unconnected-(U1-NC-Pad4)"} {
		if k.power[n] {
			t.Errorf("%s: not a power net", n)
		}
	}
}

// TestAntennaKeepoutAdded: a module footprint that marks its antenna but
// carries no rule area gets one from the draft, at the board edge, with no
// other part inside it.
func TestAntennaKeepoutAdded(t *testing.T) {
	mod := installedFootprint(t, "RF_Module", "ESP32-C3-DevKitM-1")
	if len(mod.Keepouts) != 0 || !mod.HasAntennaText {
		t.Skip("the installed ESP32-C3-DevKitM-1 footprint changed: it no longer lacks a keepout")
	}
	capFP := installedFootprint(t, "Capacitor_SMD", "C_0603_1608Metric")
	u1 := &part{Refdes: "U1", FootprintID: "RF_Module:ESP32-C3-DevKitM-1", fp: mod, pins: map[string]netNode{}}
	parts := []*part{u1}
	for _, ref := range []string{"C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"} {
		parts = append(parts, &part{Refdes: ref, FootprintID: "Capacitor_SMD:C_0603_1608Metric", fp: capFP, pins: map[string]netNode{}})
	}
	assignRoles(parts, map[string][]*part{}, netKinds{})
	if u1.role != roleAntenna {
		t.Fatalf("U1 role = %v, want antenna", u1.role)
	}
	const w, h = 60.0, 60.0
	if unplaced := placeAll(parts, w, h, 0.5, map[string][]*part{}, netKinds{}); len(unplaced) > 0 {
		t.Fatalf("unplaced: %s", refList(unplaced))
	}
	if !u1.hasKeepout() {
		t.Fatal("no keepout added")
	}
	k := u1.keepout
	if k.Y0 != 0 || k.H() < minAntennaDepthMM {
		t.Errorf("keepout %+v should reach the top edge and be at least %v mm deep", k, minAntennaDepthMM)
	}
	for _, p := range parts[1:] {
		for _, r := range p.keepClear(p.rot) {
			if r.Shift(p.pos).Overlaps(k) {
				t.Errorf("%s at %+v lies in the antenna keepout %+v", p.Refdes, p.pos, k)
			}
		}
	}
}
