package layout

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"copperhead/internal/fab"
)

// testRouter is a 20 x 10 mm board with the JLCPCB draft rules.
func testRouter() *router {
	r := fab.Houses["jlcpcb"].Rules
	return &router{
		rules: designRules{Clearance: r.Clearance, HoleClearance: r.MinHoleClearance, EdgeClearance: r.EdgeClearance,
			HoleToHole: r.MinHoleToHole, SignalWidth: r.TrackWidth, PowerWidth: r.PowerWidth, ViaDiameter: r.ViaDiam, ViaDrill: r.ViaDrill},
		w: 20, h: 10,
	}
}

func smdPad(x, y float64) routePad {
	at := Pt{X: x, Y: y}
	return routePad{at: at, layers: [2]bool{true, false}, sh: shape{kind: shapeRect, box: Rect{X0: x - 0.4, Y0: y - 0.4, X1: x + 0.4, Y1: y + 0.4}}}
}

// TestMazeRouteClearsEverything: each case routes A to B on F.Cu pads
// past obstacles; the tracks and vias it lays must pass the exact checks
// against the obstacles (clearance, hole-to-hole), stay on the board, and
// a wall across both layers must make it fail rather than cut through.
func TestMazeRouteClearsEverything(t *testing.T) {
	frontWall := obstacle{sh: shape{kind: shapeRect, box: Rect{X0: 9.5, Y0: 0, X1: 10.5, Y1: 10}}, net: "OTHER", layers: [2]bool{true, false}}
	bothWall := frontWall
	bothWall.layers = [2]bool{true, true}
	tests := []struct {
		name      string
		obstacles []obstacle
		want      bool
		wantVias  bool
	}{
		{"open board: a straight track", nil, true, false},
		{"a wall on F.Cu: under it on B.Cu", []obstacle{frontWall}, true, true},
		{"a wall on both layers: no way", []obstacle{bothWall}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := testRouter()
			r.obstacles = append(r.obstacles, tc.obstacles...)
			r.maxTrackWidth = r.rules.PowerWidth
			r.buildIndex()
			m, err := r.newMaze()
			if err != nil {
				t.Fatal(err)
			}
			a, b := smdPad(3, 5.1), smdPad(17, 5.1)
			got := r.mazeRoute(m, a, b, "SIG", r.rules.SignalWidth)
			if got != tc.want {
				t.Fatalf("routed %v, want %v", got, tc.want)
			}
			if !got {
				if len(r.tracks) != 0 || len(r.vias) != 0 {
					t.Errorf("a failed route laid %d tracks, %d vias", len(r.tracks), len(r.vias))
				}
				return
			}
			if (len(r.vias) > 0) != tc.wantVias {
				t.Errorf("%d vias, want some: %v", len(r.vias), tc.wantVias)
			}
			// Exact checks against the obstacles alone (the route's own vias
			// are its net's).
			check := testRouter()
			check.obstacles = tc.obstacles
			check.maxTrackWidth = r.maxTrackWidth
			check.buildIndex()
			for _, tr := range r.tracks {
				if !check.segFree(tr.a, tr.b, tr.layer, tr.net, tr.width) {
					t.Errorf("track %v-%v on %s does not clear the obstacles", tr.a, tr.b, layerNames[tr.layer])
				}
			}
			for i, v := range r.vias {
				if !check.viaFree(v.at, v.net) {
					t.Errorf("via at %v does not clear the obstacles", v.at)
				}
				for _, w := range r.vias[i+1:] {
					if d := v.at.Dist(w.at) - r.rules.ViaDrill; d < r.rules.HoleToHole {
						t.Errorf("vias at %v and %v: holes %.3f mm apart", v.at, w.at, d)
					}
				}
			}
			// The path joins A to B: its ends are the pads' centres.
			var ends []Pt
			for _, tr := range r.tracks {
				ends = append(ends, tr.a, tr.b)
			}
			if !slices.ContainsFunc(ends, func(p Pt) bool { return p.Dist(a.at) < eps }) || !slices.ContainsFunc(ends, func(p Pt) bool { return p.Dist(b.at) < eps }) {
				t.Errorf("tracks %v do not reach both pads", r.tracks)
			}
		})
	}
}

// TestPadExitsSquare: a track leaving a pad's centre runs horizontally,
// vertically or at 45° (an L when the grid point needs both), never at
// another angle, which would leave a copper sliver beside the pad.
func TestPadExitsSquare(t *testing.T) {
	r := testRouter()
	r.maxTrackWidth = r.rules.PowerWidth
	r.buildIndex()
	c := Pt{X: 5.13, Y: 5.07}
	for _, q := range []Pt{{X: 6, Y: 5.07}, {X: 6, Y: 6}, {X: 5.88, Y: 5.82}, {X: 4.5, Y: 4}} {
		e, ok := r.exit(c, q, 0, "SIG", 0.2)
		if !ok {
			t.Fatalf("no exit to %v", q)
		}
		for _, seg := range [][2]Pt{{c, e.corner}, {e.corner, q}} {
			d := seg[1].Sub(seg[0])
			if math.Hypot(d.X, d.Y) < eps {
				continue
			}
			ax, ay := math.Abs(d.X), math.Abs(d.Y)
			if ax > eps && ay > eps && math.Abs(ax-ay) > eps {
				t.Errorf("exit to %v runs %v -> %v at an angle", q, seg[0], seg[1])
			}
		}
	}
}

// TestProjectFileRules: the drafted .kicad_pro carries the house's
// constraints, the Default class the draft routes with, a Power class
// holding the power nets, the draft severity; a user's own net class and
// settings are kept.
func TestProjectFileRules(t *testing.T) {
	dir := t.TempDir()
	pro := filepath.Join(dir, "p.kicad_pro")
	os.WriteFile(pro, []byte(`{"meta":{"version":3},"net_settings":{"classes":[{"name":"Default","clearance":0.2,"track_width":0.25,"bus_width":12},{"name":"HV","clearance":0.6}],
"netclass_patterns":[{"netclass":"HV","pattern":"MAINS*"},{"netclass":"Power","pattern":"OLD"}]}}`), 0o644)
	data, err := projectFile(pro, fab.Houses["jlcpcb"], true, []string{"GND", "+3V3"})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	rules := doc["board"].(map[string]any)["design_settings"].(map[string]any)["rules"].(map[string]any)
	for k, want := range map[string]float64{"min_clearance": 0.127, "min_track_width": 0.127, "min_via_diameter": 0.6,
		"min_through_hole_diameter": 0.2, "min_via_annular_width": 0.1, "min_hole_to_hole": 0.45} {
		if rules[k] != want {
			t.Errorf("%s = %v, want %v", k, rules[k], want)
		}
	}
	if sev := doc["board"].(map[string]any)["design_settings"].(map[string]any)["rule_severities"].(map[string]any)["unconnected_items"]; sev != "warning" {
		t.Errorf("unconnected_items %v, want warning", sev)
	}
	ns := doc["net_settings"].(map[string]any)
	byName := map[string]map[string]any{}
	for _, c := range ns["classes"].([]any) {
		m := c.(map[string]any)
		byName[m["name"].(string)] = m
	}
	if d := byName["Default"]; d["clearance"] != 0.15 || d["track_width"] != 0.2 || d["via_drill"] != 0.3 || d["bus_width"] != 12.0 {
		t.Errorf("Default class %v", d)
	}
	if p := byName["Power"]; p["track_width"] != 0.5 || p["clearance"] != 0.15 {
		t.Errorf("Power class %v", p)
	}
	if byName["HV"]["clearance"] != 0.6 || doc["meta"] == nil {
		t.Error("the user's HV class or settings were lost")
	}
	var pats []string
	for _, p := range ns["netclass_patterns"].([]any) {
		m := p.(map[string]any)
		pats = append(pats, m["netclass"].(string)+":"+m["pattern"].(string))
	}
	if want := []string{"HV:MAINS*", "Power:+3V3", "Power:GND"}; !slices.Equal(pats, want) {
		t.Errorf("patterns %v, want %v", pats, want)
	}
	got, err := parseDesignRules(data)
	if err != nil {
		t.Fatal(err)
	}
	want := designRules{Clearance: 0.6, HoleClearance: 0.25, EdgeClearance: 0.5, HoleToHole: 0.45, SignalWidth: 0.2, PowerWidth: 0.5, ViaDiameter: 0.6, ViaDrill: 0.3}
	if got != want {
		t.Errorf("rules read back %+v, want %+v", got, want)
	}
}

// TestRipUpReroutes: on one layer (no via fits), net A is routed first,
// straight from the top edge to the bottom, cutting the board in two, so
// net B, whose pads lie on both sides, finds no way. ripUp routes B
// through A's track, rips A up and routes it again around B's right pad:
// both end routed, clear of each other. When B's right pad is walled in by
// footprint copper nothing can help, and ripUp leaves the board exactly as
// it was.
func TestRipUpReroutes(t *testing.T) {
	for _, tc := range []struct {
		name string
		wall bool
	}{
		{"rip-up helps", false},
		{"rip-up cannot help", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := testRouter()
			r.rules.ViaDiameter = 50 // no via fits: one layer
			if tc.wall {
				for _, b := range []Rect{{X0: 14.9, Y0: 3.6, X1: 17.1, Y1: 3.9}, {X0: 14.9, Y0: 6.1, X1: 17.1, Y1: 6.4},
					{X0: 14.6, Y0: 3.6, X1: 14.9, Y1: 6.4}, {X0: 17.1, Y0: 3.6, X1: 17.4, Y1: 6.4}} {
					r.obstacles = append(r.obstacles, obstacle{sh: shape{kind: shapeRect, box: b}, net: "WALL", layers: [2]bool{true, true}})
				}
			}
			r.routedFrom = len(r.obstacles)
			r.maxTrackWidth = r.rules.PowerWidth
			r.buildIndex()
			m, err := r.newMaze()
			if err != nil {
				t.Fatal(err)
			}
			jobs := []connJob{
				{net: "A", a: smdPad(10, 1), b: smdPad(10, 9)},
				{net: "B", a: smdPad(4, 5), b: smdPad(16, 5)},
			}
			ok := []bool{r.routeJob(m, jobs[0]), r.routeJob(m, jobs[1])}
			if !ok[0] || ok[1] {
				t.Fatalf("before rip-up: routed %v, want A only", ok)
			}
			before := slices.Clone(r.tracks)
			r.ripUp(m, jobs, ok, r.routedFrom)
			if tc.wall {
				if !ok[0] || ok[1] || !slices.Equal(r.tracks, before) {
					t.Errorf("a rip-up that cannot help changed the board: routed %v, tracks %v, were %v", ok, r.tracks, before)
				}
				return
			}
			if !ok[0] || !ok[1] {
				t.Fatalf("after rip-up: routed %v, want both", ok)
			}
			check := testRouter()
			check.rules.ViaDiameter = 50
			check.obstacles = r.obstacles[:r.routedFrom]
			check.tracks = r.tracks
			check.maxTrackWidth = r.maxTrackWidth
			check.buildIndex()
			for _, tr := range r.tracks {
				if !check.segFree(tr.a, tr.b, tr.layer, tr.net, tr.width) {
					t.Errorf("track %s %v-%v does not clear the rest", tr.net, tr.a, tr.b)
				}
			}
			if len(r.vias) != 0 {
				t.Errorf("%d vias on a board where none fits", len(r.vias))
			}
		})
	}
}
