package kicadcli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"copperhead/internal/kicad"
)

// GerberOptions are the `kicad-cli pcb export gerbers` settings a fab profile
// chooses. Layers the board does not have are skipped by kicad-cli (verified
// with 9.0.8: In1.Cu on a two-layer board plots nothing and exits 0), so a
// profile may list every inner layer a fab accepts.
type GerberOptions struct {
	Layers             []string // untranslated layer names, e.g. F.Cu, Edge.Cuts
	SubtractSoldermask bool     // no silkscreen on exposed copper
	NoX2               bool     // plain RS-274X: some fab CAM tools choke on X2 attributes
	NoNetlist          bool     // no X2 netlist attributes
	Precision          int      // coordinate digits after the point, 5 or 6; 0: kicad-cli's default (6)
}

// DrillOptions are the `kicad-cli pcb export drill` settings a fab profile
// chooses (always Excellon).
type DrillOptions struct {
	Units         string // "mm" or "in"
	Zeros         string // decimal, suppressleading, suppresstrailing, keep
	OvalFormat    string // route or alternate
	SeparateTH    bool   // PTH and NPTH holes in separate files
	MinimalHeader bool
	MapFormat     string // "" for no drill map; else pdf, gerberx2, ps, dxf, svg
}

// RenderOptions are the `kicad-cli pcb render` settings copperhead uses.
type RenderOptions struct {
	Side          string // top, bottom, left, right, front, back; "" is top
	Width, Height int    // pixels; 0 is kicad-cli's default (1600x900)
	Quality       string // basic, high; "" is basic
}

// STEPResult is what a STEP export reports beside the file itself.
type STEPResult struct {
	// MissingModels lists the references whose 3D model file kicad-cli could
	// not find ("Could not add 3D model for J1."): the STEP still holds the
	// board, but those parts are absent from it. Sorted, unique.
	MissingModels []string
	// BoardOnly says a model kicad-cli could not convert stopped the export
	// with models, so the STEP holds the board body and no parts at all.
	BoardOnly bool
}

// PosOptions are the `kicad-cli pcb export pos` settings: always CSV in
// millimetres, both sides.
type PosOptions struct {
	ExcludeDNP bool // leave out footprints marked Do Not Populate
}

// ExportPos writes the board's placement (pick-and-place) file as CSV in
// millimetres, both sides, at outFile. kicad-cli leaves out footprints
// excluded from position files by their attributes; with ExcludeDNP it also
// leaves out DNP ones. Its columns are Ref,Val,Package,PosX,PosY,Rot,Side.
func (t *Tool) ExportPos(ctx context.Context, board, outFile string, o PosOptions) error {
	args := []string{"pcb", "export", "pos", "--format", "csv", "--units", "mm", "--side", "both"}
	if o.ExcludeDNP {
		args = append(args, "--exclude-dnp")
	}
	_, err := t.exportToFile(ctx, board, outFile, args)
	return err
}

// ExportGerbers plots the board's Gerbers into outDir, which must not exist
// yet or be empty (every file in it afterwards is kicad-cli's), and returns
// the files written, sorted.
func (t *Tool) ExportGerbers(ctx context.Context, board, outDir string, o GerberOptions) ([]string, error) {
	args := []string{"pcb", "export", "gerbers"}
	if len(o.Layers) > 0 {
		args = append(args, "--layers", strings.Join(o.Layers, ","))
	}
	if o.SubtractSoldermask {
		args = append(args, "--subtract-soldermask")
	}
	if o.NoX2 {
		args = append(args, "--no-x2")
	}
	if o.NoNetlist {
		args = append(args, "--no-netlist")
	}
	if o.Precision != 0 {
		args = append(args, "--precision", strconv.Itoa(o.Precision))
	}
	return t.exportToDir(ctx, board, outDir, args)
}

// ExportDrill writes the board's Excellon drill files (and drill maps, when
// asked) into outDir, which must not exist yet or be empty, and returns the
// files written, sorted.
func (t *Tool) ExportDrill(ctx context.Context, board, outDir string, o DrillOptions) ([]string, error) {
	args := []string{"pcb", "export", "drill", "--format", "excellon", "--drill-origin", "absolute"}
	if o.Units != "" {
		args = append(args, "--excellon-units", o.Units)
	}
	if o.Zeros != "" {
		args = append(args, "--excellon-zeros-format", o.Zeros)
	}
	if o.OvalFormat != "" {
		args = append(args, "--excellon-oval-format", o.OvalFormat)
	}
	if o.SeparateTH {
		args = append(args, "--excellon-separate-th")
	}
	if o.MinimalHeader {
		args = append(args, "--excellon-min-header")
	}
	if o.MapFormat != "" {
		args = append(args, "--generate-map", "--map-format", o.MapFormat)
	}
	return t.exportToDir(ctx, board, outDir, args)
}

// ExportDXF plots the given board layers (Edge.Cuts for a board outline) into
// one DXF file at outFile, in millimetres.
func (t *Tool) ExportDXF(ctx context.Context, board, outFile string, layers []string) error {
	args := []string{"pcb", "export", "dxf", "--mode-single", "--output-units", "mm", "--layers", strings.Join(layers, ",")}
	_, err := t.exportToFile(ctx, board, outFile, args)
	return err
}

// ExportSTEP writes the board as a STEP model at outFile. Parts whose 3D
// model file is missing on this machine are listed in the result, not
// treated as a failure: the board body is still a valid enclosure reference.
// STEP models replace VRML ones of the same name (--subst-models, KiCad's
// own default): kicad-cli 9 cannot put a VRML model into a STEP and exits 2
// with "Cannot load any VRML model for this export." on a board such as the
// pic_programmer demo. When that still happens (a VRML model with no STEP
// twin), the export is retried without any component models and
// STEPResult.BoardOnly says so.
func (t *Tool) ExportSTEP(ctx context.Context, board, outFile string) (STEPResult, error) {
	out, err := t.exportToFile(ctx, board, outFile, []string{"pcb", "export", "step", "--force", "--subst-models"})
	var res STEPResult
	if err != nil {
		if ctx.Err() != nil || !strings.Contains(err.Error(), vrmlFailure) {
			return STEPResult{}, err
		}
		first := err.Error()
		out, err = t.exportToFile(ctx, board, outFile, []string{"pcb", "export", "step", "--force", "--no-components"})
		if err != nil {
			return STEPResult{}, err
		}
		res.BoardOnly = true
		out.stderr = append(out.stderr, "\n"+first...)
	}
	for _, m := range missingModelRE.FindAllStringSubmatch(string(out.stdout)+"\n"+string(out.stderr), -1) {
		if !slices.Contains(res.MissingModels, m[1]) {
			res.MissingModels = append(res.MissingModels, m[1])
		}
	}
	slices.SortFunc(res.MissingModels, kicad.CompareRefdes)
	return res, nil
}

// vrmlFailure is kicad-cli 9's words when a VRML model stops a STEP export.
const vrmlFailure = "Cannot load any VRML model"

// missingModelRE finds kicad-cli's report of a 3D model it could not load:
// "Could not add 3D model for J1."
var missingModelRE = regexp.MustCompile(`Could not add 3D model for ([^\s.]+)\.`)

// RenderPNG ray-traces a 3D view of the board into a PNG at outFile. It needs
// no display: kicad-cli 9 renders off-screen.
func (t *Tool) RenderPNG(ctx context.Context, board, outFile string, o RenderOptions) error {
	args := []string{"pcb", "render"}
	if o.Side != "" {
		args = append(args, "--side", o.Side)
	}
	if o.Width > 0 {
		args = append(args, "--width", strconv.Itoa(o.Width))
	}
	if o.Height > 0 {
		args = append(args, "--height", strconv.Itoa(o.Height))
	}
	if o.Quality != "" {
		args = append(args, "--quality", o.Quality)
	}
	_, err := t.exportToFile(ctx, board, outFile, args)
	return err
}

// exportLabel names an export run in errors: "kicad-cli pcb export gerbers hardware/x.kicad_pcb".
func exportLabel(args []string, input string) string {
	n := 3
	if len(args) > 1 && args[1] != "export" {
		n = 2 // "pcb render"
	}
	return "kicad-cli " + strings.Join(args[:min(n, len(args))], " ") + " " + input
}

// checkBoardInput refuses an input that is not an existing .kicad_pcb before
// kicad-cli gets to print something vaguer.
func checkBoardInput(label, board string) (string, error) {
	if filepath.Ext(board) != ".kicad_pcb" {
		return "", fmt.Errorf("%s: not a .kicad_pcb", label)
	}
	fi, err := os.Stat(board)
	if err != nil {
		return "", fmt.Errorf("%s: %w", label, err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("%s: is a folder, not a board", label)
	}
	if !fi.Mode().IsRegular() {
		// A named pipe would hold kicad-cli until the run's timeout.
		return "", fmt.Errorf("%s: is not a regular file (%s), not a board", label, fi.Mode().Type())
	}
	return filepath.Abs(board)
}

// exportToDir runs an export whose output is a folder and returns every file
// in it afterwards, sorted. The folder must be new or empty, so that list is
// exactly what kicad-cli wrote.
func (t *Tool) exportToDir(ctx context.Context, board, outDir string, args []string) ([]string, error) {
	label := exportLabel(args, board)
	abs, err := checkBoardInput(label, board)
	if err != nil {
		return nil, err
	}
	outAbs, err := filepath.Abs(outDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	if entries, err := os.ReadDir(outAbs); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s: output folder %s is not empty", label, outDir)
	}
	if err := os.MkdirAll(outAbs, 0o755); err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	// kicad-cli treats -o as a folder only with a trailing separator.
	argv := append(slices.Clone(args), "--output", outAbs+string(filepath.Separator), abs)
	out, err := t.execute(ctx, t.Timeout, label, argv...)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(outAbs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			files = append(files, filepath.Join(outAbs, e.Name()))
		}
	}
	if len(files) == 0 {
		// Like ERC, kicad-cli may exit 0 having written nothing.
		return nil, fmt.Errorf("%s: kicad-cli wrote no files (it probably could not load the board): %s",
			label, quoteOutput(out.stdout, out.stderr))
	}
	return files, nil
}

// exportToFile runs an export whose output is one file and checks that
// kicad-cli wrote it, non-empty.
func (t *Tool) exportToFile(ctx context.Context, board, outFile string, args []string) (output, error) {
	label := exportLabel(args, board)
	abs, err := checkBoardInput(label, board)
	if err != nil {
		return output{}, err
	}
	outAbs, err := filepath.Abs(outFile)
	if err != nil {
		return output{}, fmt.Errorf("%s: %w", label, err)
	}
	if err := os.MkdirAll(filepath.Dir(outAbs), 0o755); err != nil {
		return output{}, fmt.Errorf("%s: %w", label, err)
	}
	argv := append(slices.Clone(args), "--output", outAbs, abs)
	out, err := t.execute(ctx, t.Timeout, label, argv...)
	if err != nil {
		return out, err
	}
	if fi, err := os.Stat(outAbs); err != nil || fi.Size() == 0 {
		return out, fmt.Errorf("%s: kicad-cli wrote no %s (it probably could not load the board): %s",
			label, filepath.Base(outFile), quoteOutput(out.stdout, out.stderr))
	}
	return out, nil
}
