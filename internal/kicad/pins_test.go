package kicad

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPinTransform places one asymmetric two-pin symbol at every rotation,
// plain and mirrored about each axis (testdata/pins/pins.kicad_sch). The
// expected positions are KiCad's own: the pin_not_connected markers of
//
//	kicad-cli sch erc --format json pins.kicad_sch   (kicad-cli 9.0.8)
//
// whose coordinates are in units of 100 mm. TestPinsMatchKiCadERC repeats
// the comparison live when kicad-cli is installed.
func TestPinTransform(t *testing.T) {
	s := mustLoadSchematic(t, "testdata/pins/pins.kicad_sch")
	type at struct{ pin1, pin2 Point }
	want := map[string]at{
		"U1":  {Point{25.4, 27.94}, Point{38.1, 31.75}},       // 0°
		"U2":  {Point{68.58, 35.56}, Point{72.39, 22.86}},     // 90°
		"U3":  {Point{116.84, 33.02}, Point{104.14, 29.21}},   // 180°
		"U4":  {Point{154.94, 25.4}, Point{151.13, 38.1}},     // 270°
		"U5":  {Point{25.4, 83.82}, Point{38.1, 80.01}},       // 0°, mirror x
		"U6":  {Point{68.58, 76.2}, Point{72.39, 88.9}},       // 90°, mirror x
		"U7":  {Point{116.84, 78.74}, Point{104.14, 82.55}},   // 180°, mirror x
		"U8":  {Point{154.94, 86.36}, Point{151.13, 73.66}},   // 270°, mirror x
		"U9":  {Point{35.56, 129.54}, Point{22.86, 133.35}},   // 0°, mirror y
		"U10": {Point{73.66, 137.16}, Point{69.85, 124.46}},   // 90°, mirror y
		"U11": {Point{106.68, 134.62}, Point{119.38, 130.81}}, // 180°, mirror y
		"U12": {Point{149.86, 127}, Point{153.67, 139.7}},     // 270°, mirror y
	}
	got := map[string]at{}
	for _, p := range s.Pins() {
		a := got[p.Refdes]
		switch p.Number {
		case "1":
			a.pin1 = p.Pos
		case "2":
			a.pin2 = p.Pos
		}
		got[p.Refdes] = a
	}
	for ref, w := range want {
		if g := got[ref]; !nearPoint(g.pin1, w.pin1) || !nearPoint(g.pin2, w.pin2) {
			t.Errorf("%s: pins at %v %v, KiCad puts them at %v %v", ref, g.pin1, g.pin2, w.pin1, w.pin2)
		}
	}
	if len(got) != len(want) {
		t.Errorf("pins for %d symbols, want %d", len(got), len(want))
	}
}

// TestPinsUnitsStylesAlternates checks which library pins a placed unit
// gets: its own unit's, the common unit 0's, the selected body style's, and
// the alternate function chosen on the placed pin.
func TestPinsUnitsStylesAlternates(t *testing.T) {
	s := mustLoadSchematic(t, "testdata/hier/root.kicad_sch")
	type key struct{ ref, sheet, num string }
	pins := map[key]PlacedPin{}
	count := map[string]int{}
	for _, p := range s.Pins() {
		pins[key{p.Refdes, p.SheetPath, p.Number}] = p
		count[p.Refdes+" "+p.SheetPath]++
	}
	for _, tc := range []struct {
		ref, sheet string
		pins       int
	}{
		{"U1", "/", 8},        // units 1, 2 and 3 of a 3-unit symbol
		{"U3", "/", 3},        // unit 1 only, De Morgan style
		{"U101", "/Left/", 6}, // units 1 and 2 in each instance of a shared sheet
		{"U201", "/Right/", 6},
		{"#PWR01", "/", 1},
	} {
		if n := count[tc.ref+" "+tc.sheet]; n != tc.pins {
			t.Errorf("%s on %s: %d pins, want %d", tc.ref, tc.sheet, n, tc.pins)
		}
	}
	// Positions below are from kicad-cli 9.0.8's ERC of these files (see TestPinTransform).
	for _, tc := range []struct {
		k          key
		unit       int
		name, typ  string
		pos        Point
		hidden, pw bool
	}{
		{key{"U1", "/", "8"}, 3, "V+", "power_in", Point{124.46, 43.18}, false, false},
		{key{"U1", "/", "6"}, 2, "-", "input", Point{93.98, 78.74}, false, false},
		{key{"U3", "/", "3"}, 1, "+", "input", Point{119.38, 71.12}, false, false}, // body style 2 draws it elsewhere
		{key{"U3", "/", "1"}, 1, "", "output", Point{137.16, 76.2}, false, false},
		{key{"U2", "/", "1"}, 1, "UART_TX", "output", Point{142.24, 50.8}, false, false}, // alternate of PA0
		{key{"U2", "/", "2"}, 1, "VDD", "power_in", Point{152.4, 43.18}, true, false},
		{key{"#PWR01", "/", "1"}, 1, "GND", "power_in", Point{50.8, 127}, true, true},
		{key{"U201", "/Right/", "5"}, 2, "+", "input", Point{93.98, 78.74}, false, false},
		{key{"R202", "/Right/Bias/", "1"}, 1, "", "passive", Point{54.61, 50.8}, false, false},
	} {
		p, ok := pins[tc.k]
		if !ok {
			t.Errorf("%v: no such pin", tc.k)
			continue
		}
		if p.Unit != tc.unit || p.Name != tc.name || p.Type != tc.typ || !nearPoint(p.Pos, tc.pos) || p.Hidden != tc.hidden || p.Power != tc.pw {
			t.Errorf("%v: got %+v, want unit %d %q %s at %v hidden %v power %v", tc.k, p, tc.unit, tc.name, tc.typ, tc.pos, tc.hidden, tc.pw)
		}
	}
}

func TestLibSymbolExtendsAndUnitNames(t *testing.T) {
	for _, tc := range []struct {
		name        string
		unit, style int
	}{
		{"R_1_1", 1, 1}, {"+12V_0_1", 0, 1}, {"74LS00_5_0", 5, 0}, {"ADC_A_B_2_2", 2, 2},
		{"R", 0, 0}, {"R_x_1", 0, 0}, {"_1", 0, 0},
	} {
		if u, st := unitStyle(tc.name); u != tc.unit || st != tc.style {
			t.Errorf("unitStyle(%q) = %d, %d; want %d, %d", tc.name, u, st, tc.unit, tc.style)
		}
	}
	s := mustLoadSchematic(t, "testdata/extends.kicad_sch")
	var got []string
	for _, p := range s.Pins() {
		got = append(got, fmt.Sprintf("%s.%s@%v", p.Refdes, p.Number, p.Pos))
	}
	want := []string{"U1.1@{92.38 50.8}", "U1.2@{107.62 50.8}", "U2.1@{142.24 40.64}", "U2.2@{142.24 55.88}"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("pins %q, want %q", got, want)
	}
}

// TestPinsLandOnWires is a second real-data check of the transform: in the
// demos nearly every visible pin ends on a wire end, a label, a no-connect or
// another pin. The exceptions are pins of electrical type no_connect and a
// handful the designers left open.
func TestPinsLandOnWires(t *testing.T) {
	for _, root := range []string{
		"complex_hierarchy/complex_hierarchy.kicad_sch",
		"kit-dev-coldfire-xilinx_5213/kit-dev-coldfire-xilinx_5213.kicad_sch",
		"royalblue54L_feather/RoyalBlue54L-Feather.kicad_sch",
		"stickhub/StickHub.kicad_sch",
		"video/video.kicad_sch",
		"vme-wren/vme-wren.kicad_sch",
	} {
		t.Run(root, func(t *testing.T) {
			s := mustLoadSchematic(t, demoPath(t, root))
			targets := map[string]map[Point]int{} // sheet path -> connectable points
			add := func(sheet string, p Point) {
				if targets[sheet] == nil {
					targets[sheet] = map[Point]int{}
				}
				targets[sheet][roundPoint(p)]++
			}
			ends := map[string][]Point{}
			for _, si := range s.Sheets {
				e, ok := ends[si.File]
				if !ok {
					e = wireEnds(t, filepath.Join(filepath.Dir(s.Root), si.File))
					ends[si.File] = e
				}
				for _, p := range e {
					add(si.Path, p)
				}
			}
			for _, lb := range s.Labels {
				add(lb.SheetPath, lb.Pos)
			}
			for _, nc := range s.NoConnects {
				add(nc.SheetPath, nc.Pos)
			}
			pins := s.Pins()
			for _, p := range pins {
				add(p.SheetPath, p.Pos)
			}
			visible, open := 0, 0
			for _, p := range pins {
				if p.Hidden || p.Type == "no_connect" {
					continue
				}
				visible++
				// The pin itself is one target; it needs one more.
				if targets[p.SheetPath][roundPoint(p.Pos)] < 2 {
					open++
				}
			}
			if open*100 > visible {
				t.Errorf("%d of %d visible pins touch nothing: the transform is wrong", open, visible)
			}
		})
	}
}

// TestPinsMatchKiCadERC runs kicad-cli's ERC on the test schematics and
// checks that every pin it reports unconnected is one of ours, at the same
// place. ERC names instance pins by the wrong instance's reference on shared
// sheets, so pins match by sheet, number and position.
func TestPinsMatchKiCadERC(t *testing.T) {
	cli := kicadCLI(t)
	for _, root := range []string{"testdata/pins/pins.kicad_sch", "testdata/hier/root.kicad_sch"} {
		t.Run(root, func(t *testing.T) {
			s := mustLoadSchematic(t, root)
			out := filepath.Join(t.TempDir(), "erc.json")
			runKiCadCLI(t, cli, "sch", "erc", "--format", "json", "-o", out, root)
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var report struct {
				Sheets []struct {
					Path       string `json:"path"`
					Violations []struct {
						Type  string `json:"type"`
						Items []struct {
							Description string `json:"description"`
							Pos         Point  `json:"pos"`
						} `json:"items"`
					} `json:"violations"`
				} `json:"sheets"`
			}
			if err := json.Unmarshal(data, &report); err != nil {
				t.Fatal(err)
			}
			ours := map[string]bool{}
			for _, p := range s.Pins() {
				ours[fmt.Sprintf("%s %s %v", p.SheetPath, p.Number, roundPoint(p.Pos))] = true
			}
			symbolPin := regexp.MustCompile(`^Symbol \S+ (?:Hidden )?[Pp]in (\S+) `)
			checked := 0
			for _, sh := range report.Sheets {
				for _, v := range sh.Violations {
					if v.Type != "pin_not_connected" {
						continue
					}
					for _, it := range v.Items {
						m := symbolPin.FindStringSubmatch(it.Description)
						if m == nil {
							continue // a sheet pin
						}
						pos := Point{it.Pos.X * 100, it.Pos.Y * 100} // ERC reports units of 100 mm
						k := fmt.Sprintf("%s %s %v", sh.Path, m[1], roundPoint(pos))
						if !ours[k] {
							t.Errorf("ERC reports %q on %s at %v; we have no such pin", it.Description, sh.Path, pos)
						}
						checked++
					}
				}
			}
			if checked == 0 {
				t.Fatal("ERC reported no unconnected pins to compare")
			}
		})
	}
}

// kicadCLI returns kicad-cli's path, skipping the test when it is absent or
// in -short mode (each run takes a second or more).
func kicadCLI(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs kicad-cli; skipped in -short mode")
	}
	cli, err := exec.LookPath("kicad-cli")
	if err != nil {
		t.Skip("kicad-cli not installed")
	}
	return cli
}

// runKiCadCLI runs kicad-cli as a test oracle, with a private HOME so it
// neither reads nor writes the user's KiCad settings.
func runKiCadCLI(t *testing.T, cli string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	out, err := cmd.CombinedOutput()
	// ERC exits non-zero when it finds violations; the report is what counts.
	if err != nil && ctx.Err() != nil {
		t.Fatalf("kicad-cli %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func nearPoint(a, b Point) bool {
	return math.Abs(a.X-b.X) < 0.001 && math.Abs(a.Y-b.Y) < 0.001
}

// roundPoint snaps a point to 0.001 mm so it can key a map.
func roundPoint(p Point) Point {
	return Point{math.Round(p.X*1000) / 1000, math.Round(p.Y*1000) / 1000}
}
