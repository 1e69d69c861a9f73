package kicadcli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// boardSVGLayers are the layers a board SVG shows: copper, silkscreen and the
// outline are what a reviewer needs to see where parts went; fab and
// courtyard layers would only add clutter to a before/after comparison.
const boardSVGLayers = "F.Cu,B.Cu,F.Silkscreen,B.Silkscreen,Edge.Cuts"

// Load reports whether kicad-cli can load the schematic or board at path,
// with kicad-cli's own words ("Failed to load board") when it cannot. It runs
// the cheapest command that loads the whole file: a kicadxml netlist export
// for a .kicad_sch (the same job as Netlist, so a successful probe also warms
// its cache) and a footprint position export for a .kicad_pcb (about 0.4 s on
// the fixture, as fast as any board command). Any other extension is an error.
func (t *Tool) Load(ctx context.Context, path string) error {
	var j job
	switch filepath.Ext(path) {
	case ".kicad_sch":
		j = job{args: []string{"sch", "export", "netlist", "--format", "kicadxml"}, input: path, out: "netlist.xml"}
	case ".kicad_pcb":
		j = job{args: []string{"pcb", "export", "pos"}, input: path, out: "board.pos", board: true}
	default:
		return fmt.Errorf("kicad-cli load %s: not a .kicad_sch or .kicad_pcb", path)
	}
	_, err := t.produce(ctx, j, nil)
	return err
}

// plottedRE finds the files kicad-cli names as it writes SVGs:
// "Plotted to '/out/open-telegraph-power.svg'."
var plottedRE = regexp.MustCompile(`Plotted to '([^']+)'`)

// ExportSVG plots the schematic (every sheet, one SVG each) or the board (one
// SVG of copper, silkscreen and outline, cropped to the board) at input into
// outDir, creating it, and returns the files written, sorted. The export is
// never cached: its output is a file the caller keeps, not a result to reuse.
func (t *Tool) ExportSVG(ctx context.Context, input, outDir string) ([]string, error) {
	abs, err := filepath.Abs(input)
	if err != nil {
		return nil, err
	}
	outAbs, err := filepath.Abs(outDir)
	if err != nil {
		return nil, err
	}
	var args []string
	var want string // the board's single output file
	switch filepath.Ext(input) {
	case ".kicad_sch":
		args = []string{"sch", "export", "svg", "-o", outAbs, abs}
	case ".kicad_pcb":
		want = filepath.Join(outAbs, strings.TrimSuffix(filepath.Base(input), ".kicad_pcb")+".svg")
		args = []string{"pcb", "export", "svg", "-o", want, "--layers", boardSVGLayers,
			"--mode-single", "--exclude-drawing-sheet", "--page-size-mode", "2", abs}
	default:
		return nil, fmt.Errorf("kicad-cli export svg %s: not a .kicad_sch or .kicad_pcb", input)
	}
	label := strings.Join(append([]string{"kicad-cli"}, args[:3]...), " ") + " " + input
	if fi, err := os.Stat(input); err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	} else if fi.IsDir() {
		return nil, fmt.Errorf("%s: is a folder, not a KiCad file", label)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: is not a regular file (%s), not a KiCad file", label, fi.Mode().Type())
	}
	if err := os.MkdirAll(outAbs, 0o755); err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	out, err := t.execute(ctx, t.Timeout, label, args...)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, m := range plottedRE.FindAllStringSubmatch(string(out.stdout)+"\n"+string(out.stderr), -1) {
		if _, err := os.Stat(m[1]); err == nil && !slices.Contains(files, m[1]) {
			files = append(files, m[1])
		}
	}
	if want != "" && len(files) == 0 {
		if _, err := os.Stat(want); err == nil {
			files = append(files, want)
		}
	}
	if len(files) == 0 {
		// Like ERC, kicad-cli may exit 0 having written nothing.
		return nil, fmt.Errorf("%s: kicad-cli wrote no SVG (it probably could not load the file): %s",
			label, quoteOutput(out.stdout, out.stderr))
	}
	slices.Sort(files)
	return files, nil
}
