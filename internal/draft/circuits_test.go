package draft

import (
	"bytes"
	"context"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
)

// circuits are the six test boards of testdata/circuits (issue 19): an
// ESP32-S3 module on USB-C with an LDO, an RP2040 with QSPI flash and a
// crystal, an NE555 blinker, an STM32F103 with SWD, a split-supply TL074
// filter and a 58-part relay board. The layout engine's tests draft the
// same files.
var circuits = []string{"esp32s3_usbc_ldo", "rp2040_min", "ne555_blinker", "stm32f103_swd", "opamp_filter", "relay_board"}

// circuitPaper is the paper each circuit must fit: A4 up to about thirty
// parts, A3 for the 58-part relay board.
var circuitPaper = map[string]string{"esp32s3_usbc_ldo": "A4", "rp2040_min": "A4", "ne555_blinker": "A4",
	"stm32f103_swd": "A4", "opamp_filter": "A4", "relay_board": "A3"}

// TestCircuits drafts each test circuit (twice: the same bytes) and holds
// the sheet to what KiCad says, ERC clean and kicad-cli's netlist exactly
// the intent's nets (no pin missing, none extra), and to what a reader
// needs: the legibility check passes on the sheet as written (rebuilt from
// the file, not the engine's state), it is on the smallest paper expected,
// and short nets are drawn as wires.
func TestCircuits(t *testing.T) {
	if testing.Short() {
		t.Skip("drafts six boards through kicad-cli")
	}
	needLibraries(t)
	tool, err := kicadcli.Find(context.Background())
	if err != nil {
		t.Skipf("kicad-cli: %v", err)
	}
	tool.CacheDir = t.TempDir()
	for _, name := range circuits {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join("testdata", "circuits", name+".json")
			path, rep := draftPath(t, file)
			t.Logf("%s: %d parts on %s, wired %v, %d junctions", name, rep.Parts, rep.Paper, rep.WiredNets, rep.Junctions)
			if !rep.Legible {
				t.Error("the report does not say the sheet is legible")
			}
			items, problems := sheetItems(t, path)
			if err := checkLegible(items); err != nil {
				t.Errorf("the written sheet: %v", err)
			}
			for _, p := range problems {
				t.Errorf("the written sheet: %s", p)
			}
			if rep.Paper != circuitPaper[name] {
				t.Errorf("paper %s, want %s", rep.Paper, circuitPaper[name])
			}
			if len(rep.WiredNets) == 0 {
				t.Error("no net is drawn as a wire")
			}
			ctx := context.Background()
			erc, err := tool.ERC(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range erc.Violations {
				t.Errorf("ERC: %s: %s", v.Type, v.Description)
			}
			nl, err := tool.Netlist(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			in, err := ReadIntent(file)
			if err != nil {
				t.Fatal(err)
			}
			exactNets(t, in, nl)
			svgs, err := tool.ExportSVG(ctx, path, t.TempDir())
			if err != nil || len(svgs) != 1 {
				t.Fatalf("export svg: %v %v", svgs, err)
			}
			textsCovered(t, svgs[0], path, rep.Groups)
		})
	}
}

// svgTextRE is the selectable text kicad-cli's SVG export lays under each
// drawn string, with the length KiCad measured for it.
var svgTextRE = regexp.MustCompile(`<text x="[^"]*" y="[^"]*"\s*textLength="([0-9.]+)" font-size="([0-9.]+)"[^>]*>([^<]*)</text>`)

// textsCovered holds the check's text estimates to KiCad's own measure:
// every text of the sheet that kicad-cli's SVG draws at the engine's two
// sizes (1.27 mm, and the 2.54 mm bold group titles) is no longer than the
// box the legibility check gave it.
func textsCovered(t *testing.T, svg, sheet string, groups []string) {
	t.Helper()
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(sheet)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range svgTextRE.FindAllStringSubmatch(string(data), -1) {
		length, _ := strconv.ParseFloat(m[1], 64)
		fs, _ := strconv.ParseFloat(m[2], 64)
		text := html.UnescapeString(m[3])
		if strings.TrimSpace(text) == "" || !bytes.Contains(src, []byte(strconv.Quote(text))) {
			continue // the drawing sheet's frame and title block
		}
		size := fs * 0.75 // the SVG font-size is 4/3 of the KiCad text size: 1.6933 for 1.27 mm
		var est float64
		switch {
		case math.Abs(size-1.27) < 0.01:
			est = textWidth(text, 1.27)
		case math.Abs(size-2.54) < 0.01 && slices.Contains(groups, text):
			est = titleWidth(text)
		default:
			continue
		}
		n++
		if length > est+1e-6 {
			t.Errorf("KiCad draws %q %.2f mm long, the check's box is %.2f", text, length, est)
		}
	}
	if n == 0 {
		t.Error("no text of the sheet found in its SVG")
	}
}

// exactNets compares kicad-cli's netlist with the intent net by net: each
// intent net exists under its name with exactly its pins, and every other
// net in the netlist is one pin KiCad names unconnected-(...) (a
// no-connect pin).
func exactNets(t *testing.T, in *Intent, nl *kicad.Netlist) {
	t.Helper()
	r, err := Validate(in, "intent", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := netPins(nl)
	want := map[string]bool{}
	for _, n := range r.nets {
		want[n.Name] = true
		g := slices.Sorted(slices.Values(got[n.Name]))
		w := slices.Sorted(slices.Values(n.Pins))
		if !slices.Equal(g, w) {
			t.Errorf("net %s:\n kicad-cli %v\n intent    %v", n.Name, g, w)
		}
	}
	for name, pins := range got {
		if want[name] {
			continue
		}
		if !strings.HasPrefix(name, "unconnected-(") || len(pins) != 1 {
			t.Errorf("kicad-cli has net %s %v the intent does not", name, pins)
		}
	}
}
