package layout

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"copperhead/internal/fab"
	"copperhead/internal/kicad"
)

// padlessInput is a two-resistor circuit (one net between them, one
// between their second pads) plus one part of footprint padless:extra,
// from the footprints in testdata/padless.pretty, on a board of the size
// LAYOUT.md would state (0 x 0: computed).
func padlessInput(t *testing.T, extra string, w, h float64) input {
	t.Helper()
	lib, err := filepath.Abs(filepath.Join("testdata", "padless.pretty"))
	if err != nil {
		t.Fatal(err)
	}
	comps := []kicad.NetComponent{
		{Refdes: "R1", Value: "10k", Footprint: "padless:R_2pad"},
		{Refdes: "R2", Value: "10k", Footprint: "padless:R_2pad"},
	}
	if extra != "" {
		comps = append(comps, kicad.NetComponent{Refdes: "G1", Value: "logo", Footprint: "padless:" + extra})
	}
	nl := &kicad.Netlist{Components: comps, Nets: []kicad.Net{
		{Code: "1", Name: "/A", Nodes: []kicad.NetNode{{Refdes: "R1", Pin: "1", PinType: "passive"}, {Refdes: "R2", Pin: "1", PinType: "passive"}}},
		{Code: "2", Name: "/B", Nodes: []kicad.NetNode{{Refdes: "R1", Pin: "2", PinType: "passive"}, {Refdes: "R2", Pin: "2", PinType: "passive"}}},
	}}
	return input{
		project: "padless", sch: &kicad.Schematic{Root: "padless.kicad_sch"}, netlist: nl,
		libs: Libraries{"padless": lib}, intent: Intent{Width: w, Height: h, Source: "test"},
		rules: testRouter().rules, house: fab.Houses["jlcpcb"],
	}
}

// TestPadlessFootprintsSizeTheBoard: a footprint without pads (a logo) is
// sized by what it draws, or is a point when it draws nothing: never the
// infinite extent of an empty box, which made the computed board infinite
// and the placer's and router's grids exhaust memory. Each draft ends
// with a finite board holding every part, a copper logo kept clear by the
// router.
func TestPadlessFootprintsSizeTheBoard(t *testing.T) {
	tests := []struct {
		footprint string
		want      Rect // the outline at rotation 0
		copper    bool // an obstacle for the router
	}{
		{"Logo_Mask", Rect{X0: -4, Y0: -3, X1: 4, Y1: 3}, false},
		{"Logo_Copper", Rect{X0: -3, Y0: -2, X1: 3, Y1: 2}, true},
		{"Logo_Silk", Rect{X0: -2.5, Y0: -1.5, X1: 2.5, Y1: 1.5}, false},
		{"Nothing", Rect{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.footprint, func(t *testing.T) {
			in := padlessInput(t, tc.footprint, 0, 0)
			fp, err := loadFootprint(in.libs, "padless:"+tc.footprint)
			if err != nil {
				t.Fatal(err)
			}
			if len(fp.Pads) != 0 {
				t.Fatalf("fixture %s has %d pads", tc.footprint, len(fp.Pads))
			}
			p := &part{Refdes: "G1", fp: fp}
			for _, rot := range rotations {
				o := p.outline(rot)
				want := rotateRect(tc.want, rot)
				if !near(o.X0, want.X0) || !near(o.Y0, want.Y0) || !near(o.X1, want.X1) || !near(o.Y1, want.Y1) {
					t.Fatalf("outline at %v° = %+v, want %+v", rot, o, want)
				}
			}
			// Placed at (10, 5) turned a quarter, its copper is an obstacle
			// of no net on F.Cu exactly where it lies.
			p.pos, p.rot = Pt{X: 10, Y: 5}, 90
			obs := copperArtObstacles(p)
			if !tc.copper {
				if len(obs) != 0 {
					t.Errorf("obstacles %+v for a logo without copper", obs)
				}
			} else if len(obs) != 1 || obs[0].net != "" || obs[0].layers != [2]bool{true, false} || obs[0].sh.box != rotateRect(tc.want, 90).Shift(p.pos) {
				t.Errorf("obstacles %+v, want the logo's box on F.Cu at %+v", obs, rotateRect(tc.want, 90).Shift(p.pos))
			}

			done := make(chan struct{})
			var res *draftResult
			go func() {
				defer close(done)
				res, err = build(in)
			}()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("build did not finish in a minute (an unbounded placement grid?)")
			}
			if err != nil {
				t.Fatal(err)
			}
			if math.IsInf(res.w, 0) || math.IsNaN(res.w) || math.IsInf(res.h, 0) || math.IsNaN(res.h) || res.w > 40 || res.h > 40 {
				t.Fatalf("board %v x %v mm for two resistors and an 8 x 6 mm logo at most", res.w, res.h)
			}
			board := Rect{X1: res.w, Y1: res.h}
			var g1 *part
			for _, q := range res.parts {
				if !q.placed {
					t.Errorf("%s not placed", q.Refdes)
				}
				o := q.outline(q.rot).Shift(q.pos)
				if o.X0 < board.X0-eps || o.Y0 < board.Y0-eps || o.X1 > board.X1+eps || o.Y1 > board.Y1+eps {
					t.Errorf("%s's outline %+v leaves the %v x %v board", q.Refdes, o, res.w, res.h)
				}
				if q.Refdes == "G1" {
					g1 = q
				}
			}
			if g1 == nil {
				t.Fatal("G1 is not on the board")
			}
			if !strings.Contains(string(res.board), `(footprint "padless:`+tc.footprint+`"`) {
				t.Errorf("the board does not hold padless:%s", tc.footprint)
			}
			// The router kept its tracks off a copper logo: no F.Cu track
			// comes within the clearance of its box.
			if tc.copper {
				logo := rotateRect(tc.want, g1.rot).Shift(g1.pos)
				for _, tr := range res.tracks {
					if tr.layer == 0 && segRectDist(tr.a, tr.b, logo) < in.rules.Clearance+tr.width/2-eps {
						t.Errorf("track %+v of %s crosses the copper logo %+v", tr, tr.net, logo)
					}
				}
			}
		})
	}
}

// TestPadlessInstalledLogo: KiCad's own copper OSHW logo (graphics on
// F.Cu, its reference hidden) has an outline the size of the logo.
func TestPadlessInstalledLogo(t *testing.T) {
	fp := installedFootprint(t, "Symbol", "OSHW-Logo_5.7x6mm_Copper")
	o := (&part{Refdes: "G1", fp: fp}).outline(0)
	if o.Empty() || math.Abs(o.W()-5.7) > 0.5 || math.Abs(o.H()-6) > 0.5 {
		t.Errorf("outline %+v (%v x %v), want about 5.7 x 6 mm", o, o.W(), o.H())
	}
}

// TestSearchRefusesNonFiniteBoard: the router and the placer refuse a
// board whose size is not finite, or absurdly large, with the reason,
// before allocating anything for it; a sane board passes.
func TestSearchRefusesNonFiniteBoard(t *testing.T) {
	tests := []struct {
		name    string
		w, h    float64
		wantErr string // "" for a board that is fine
	}{
		{"infinite width", math.Inf(1), 10, "is not a finite size"},
		{"infinite height", 10, math.Inf(1), "is not a finite size"},
		{"minus infinity", math.Inf(-1), math.Inf(-1), "is not a finite size"},
		{"not a number", math.NaN(), 10, "is not a finite size"},
		{"zero", 0, 10, "is not a finite size"},
		{"over a metre", 1200, 10, "the board outline 1200 x 10 mm is over 1000 mm a side"},
		{"astronomic", 1e300, 1e300, "over 1000 mm a side"},
		{"a small board", 20, 10, ""},
		{"the largest board", maxBoardMM, 10, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkBoardSize(tc.w, tc.h)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("checkBoardSize = %v, want %q", err, tc.wantErr)
			}
			r := testRouter()
			r.w, r.h = tc.w, tc.h
			routes, err := r.routeNets(map[string][]routePad{"SIG": {smdPad(3, 5), smdPad(17, 5)}}, netKinds{}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || routes != nil {
				t.Errorf("routeNets = %v, %v, want the error %q", routes, err, tc.wantErr)
			}
			if _, err := r.newMaze(); err == nil || !strings.HasPrefix(err.Error(), "route: ") {
				t.Errorf("newMaze err = %v, want a route error", err)
			}
			// The placer finds no position on such a board, at once.
			in := padlessInput(t, "", 0, 0)
			fp, err := loadFootprint(in.libs, "padless:R_2pad")
			if err != nil {
				t.Fatal(err)
			}
			pl := &placer{w: tc.w, h: tc.h, inset: 0.5}
			if _, ok := pl.search(&part{Refdes: "R1", fp: fp}, 0, Pt{X: 5, Y: 5}, -1); ok {
				t.Errorf("placer found a position on a %v x %v board", tc.w, tc.h)
			}
		})
	}
}

// TestDraftRefusesOversizedBoard: a stated size past the limit, and a
// part too large for any board, are refused with the reason rather than
// placed and routed.
func TestDraftRefusesOversizedBoard(t *testing.T) {
	tests := []struct {
		name    string
		in      input
		wantErr string
	}{
		{"a part 1.5 m long", padlessInput(t, "Huge", 0, 0), "computed from the footprints' area, the board outline 1504 x 62 mm is over 1000 mm a side: too large to place and route (the largest part, G1 (padless:Huge), is 1501 x 1 mm)"},
		{"a stated size not finite", padlessInput(t, "", math.Inf(1), 20), `LAYOUT.md states "test": the board outline +Inf x 20 mm is not a finite size`},
		{"a stated size over a metre", padlessInput(t, "", 4000, 20), "over 1000 mm a side"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := build(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("build err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}
