package cli

import (
	"context"
	"fmt"

	"copperhead/internal/editdocs"
	"copperhead/internal/kicad/schedit"
)

// applyEdit writes the plan and keeps BOM.md and PINOUT.md in step through
// editdocs.Apply. Without kicad-cli it warns and leaves PINOUT.md as it is.
// It returns every written file, repo-relative.
func (a *app) applyEdit(ctx context.Context, w *workspace, d *schedit.Design, p *schedit.Plan) ([]string, error) {
	tool, toolErr := findKiCad(ctx)
	if toolErr != nil {
		tool = nil
		fmt.Fprintf(a.io.Err, "copperhead: warning: %v; PINOUT.md is not updated\n", toolErr)
	} else {
		tool.Boundary = w.repo
	}
	changed, err := editdocs.Apply(ctx, editdocs.Input{Repo: w.repo, Config: w.cfg, Design: d, Plan: p, KiCad: tool, Board: w.proj.Board})
	if err != nil {
		return changed, failf("%v", w.relErr(err))
	}
	return changed, nil
}
