package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"copperhead/internal/design"
	"copperhead/internal/outputs"
	"copperhead/internal/textfmt"
)

// OutputsResult is `outputs --json`: the manifest plus the gate's verdict.
type OutputsResult struct {
	OK    bool   `json:"ok"`
	Dir   string `json:"dir"` // repo-relative when inside the repository
	Error string `json:"error,omitempty"`
	outputs.Manifest
}

func newOutputsCmd(a *app) *cobra.Command {
	var fab, supplier, out string
	var noStep, noRender, release bool
	cmd := &cobra.Command{
		Use:   "outputs",
		Short: "Produce the fab/output package: Gerbers + drill zip, DXF, STEP, SVGs, 3D render, ordering BOM",
		Long: `outputs produces the deliverable package of the project with kicad-cli, into
outputs/ (or --out):

  gerbers-<fab>.zip    Gerbers and Excellon drill files per fab profile:
                       jlcpcb (default) or pcbway, as their KiCad guides ask
  board-outline.dxf    the Edge.Cuts layer, in millimetres
  board.step           the board in 3D (parts whose 3D model is missing on
                       this machine are listed in the manifest)
  schematic/*.svg      one SVG per sheet
  board.svg            copper, silkscreen and outline
  board-3d.png         a ray-traced top view (kicad-cli pcb render)
  bom-<supplier>.csv   the ordering BOM (see 'copperhead export bom')
  cpl-<fab>.csv        pick-and-place: every placed part (not DNP, not
                       excluded from position files), both sides, mm, in the
                       fab's column names
  manifest.json        every file with its size and sha256, the kicad-cli
                       version, each artifact's status, the board's DRC
                       result and whether it is a copperhead layout draft

The board's DRC runs first. A board that is not DRC-clean or is a draft
gets a warning line: the package is for review, not an order. --release
refuses such a board (exit 1) before writing anything.

The new package is built in outputs/.staging-* and moved in only when
complete: Ctrl-C or a refusal keeps the previous package as it was, and
staging folders a killed run left are removed by the next run.

A failing artifact does not stop the others; its reason, in kicad-cli's
words, goes into the manifest. Files are written atomically and the manifest
last. No network, no model.

Exit codes: 0 every artifact was produced (or skipped by --no-step or
--no-render); 1 an artifact failed, or --release refused; 2 usage, or
kicad-cli missing.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			prof, err := outputs.Profile(fab)
			if err != nil {
				return withHint(usagef("--fab: %v", err), "see 'copperhead outputs --help'")
			}
			if supplier != "" {
				if _, err := outputs.LookupSupplier(supplier); err != nil {
					return withHint(usagef("--supplier: %v", err), "see 'copperhead outputs --help'")
				}
			}
			w, t, err := a.openKiCad(cmd.Context())
			if err != nil {
				return err
			}
			unlock, err := a.lockRepo(cmd.Context(), w.repo)
			if err != nil {
				return err
			}
			defer unlock()
			dir := resolveOut(w.repo, out, outputs.DefaultDir)
			in := outputs.Input{
				Name:      w.proj.Name,
				Schematic: w.proj.Schematic,
				Board:     w.proj.Board,
				BOMDoc:    filepath.Join(w.repo, filepath.FromSlash(w.cfg.DocPath(design.BOMDoc))),
				Repo:      w.repo,
			}
			res, gateErr := outputs.Generate(cmd.Context(), t, in, dir, outputs.Options{
				Fab: prof.Name, Supplier: supplier, SkipSTEP: noStep, SkipRender: noRender, Release: release,
			})
			if res == nil {
				return failf("outputs: %v", w.relErr(gateErr))
			}
			rel := w.proj.Rel(dir)
			if a.mode() == modeJSON {
				r := OutputsResult{OK: gateErr == nil, Dir: rel, Manifest: res.Manifest}
				if gateErr != nil {
					r.Error = gateErr.Error()
				}
				if err := writeJSON(a.io.Out, r); err != nil {
					return err
				}
			} else {
				renderOutputs(a, res, rel)
			}
			if gateErr != nil {
				return failf("outputs: %v", w.relErr(gateErr))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&fab, "fab", "jlcpcb", "fab profile for the Gerber zip: "+strings.Join(outputs.FabNames(), " or "))
	f.StringVar(&supplier, "supplier", "", "BOM supplier: "+strings.Join(outputs.SupplierNames(), ", ")+" (default: the fab's: jlcpcb for jlcpcb, digikey for pcbway)")
	f.StringVar(&out, "out", "", "output `folder` (default: outputs/ in the repository)")
	f.BoolVar(&noStep, "no-step", false, "skip the STEP export (recorded as skipped in the manifest)")
	f.BoolVar(&release, "release", false, "refuse (exit 1, nothing written) unless the board is DRC-clean and not a copperhead layout draft")
	f.BoolVar(&noRender, "no-render", false, "skip the 3D PNG render (recorded as skipped in the manifest)")
	return cmd
}

// resolveOut is an --out value made absolute against the working folder, or
// the repository's def folder when it is empty.
func resolveOut(repo, out, def string) string {
	if out == "" {
		return filepath.Join(repo, def)
	}
	if abs, err := filepath.Abs(out); err == nil {
		return abs
	}
	return out
}

// renderOutputs prints one line per artifact and a summary line.
func renderOutputs(a *app, res *outputs.Result, rel string) {
	w := a.io.Out
	// A project without a board skips every board artifact for the one
	// reason the error line gives once (Manifest.Gate), not once per
	// artifact, and its DRC did not run for the same reason.
	noBoard := len(res.Manifest.SkippedForNoBoard()) > 0
	for _, art := range res.Manifest.Artifacts {
		if art.Status == outputs.StatusSkipped && art.Reason == outputs.NoBoard {
			continue
		}
		mark := "✓"
		switch art.Status {
		case outputs.StatusFailed:
			mark = "✗"
		case outputs.StatusSkipped:
			mark = "-"
		}
		line := fmt.Sprintf("%s %s", art.Name, mark)
		switch {
		case art.Status == outputs.StatusOK && len(art.Files) == 1:
			line += " " + art.Files[0]
		case art.Status == outputs.StatusOK:
			line += fmt.Sprintf(" %s (%d files)", strings.Join(art.Files, ", "), len(art.Files))
		default:
			line += " " + art.Reason
		}
		if len(art.Contents) > 0 {
			line += fmt.Sprintf(" [%d Gerber and drill files]", len(art.Contents))
		}
		if d, ok := res.Took[art.Name]; ok && art.Status != outputs.StatusSkipped {
			line += fmt.Sprintf(" %.1fs", d.Round(100*time.Millisecond).Seconds())
		}
		fmt.Fprintln(w, line)
		for _, warn := range art.Warnings {
			fmt.Fprintf(w, "  warning: %s\n", warn)
		}
	}
	for _, p := range res.Manifest.ReleaseProblems() {
		if noBoard && res.Manifest.DRC != nil && res.Manifest.DRC.Reason == outputs.NoBoard {
			break
		}
		fmt.Fprintf(w, "warning: %s: this package is for review, not an order ('outputs --release' refuses it)\n", p)
	}
	fmt.Fprintf(w, "%s in %s/ · fab %s · supplier %s · kicad-cli %s · %s\n",
		textfmt.Count(len(res.Manifest.Files), "file"), rel, res.Manifest.Fab, res.Manifest.Supplier,
		res.Manifest.KiCadCLIVersion, filepath.ToSlash(filepath.Join(rel, outputs.ManifestName)))
}
