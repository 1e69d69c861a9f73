package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"copperhead/internal/atomicfile"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/kicad/schedit"
)

// applyEdit writes the plan and keeps BOM.md and PINOUT.md in step: the
// netlists before and after (from kicad-cli, when it is installed) and the
// schematics before and after go to design.UpdateRows, which rewrites only
// the cells the edit changed. It returns every written file, repo-relative.
func (a *app) applyEdit(ctx context.Context, w *workspace, d *schedit.Design, p *schedit.Plan) ([]string, error) {
	var nlBefore *kicad.Netlist
	tool, toolErr := findKiCad(ctx)
	if toolErr == nil {
		nl, err := w.netlist(ctx, tool)
		if err != nil {
			return nil, err
		}
		nlBefore = nl
	} else {
		fmt.Fprintf(a.io.Err, "copperhead: warning: %v; PINOUT.md is not updated\n", toolErr)
	}
	changed, err := p.Apply(d)
	if err != nil {
		return nil, failf("%v", w.relErr(err))
	}
	schDir := filepath.Dir(d.RootPath)
	var out []string
	for _, rel := range changed {
		out = append(out, repoPath(w.repo, filepath.Join(schDir, filepath.FromSlash(rel))))
	}
	schAfter, err := w.schematic()
	if err != nil {
		return out, err
	}
	var nlAfter *kicad.Netlist
	if nlBefore != nil {
		if nlAfter, err = w.netlist(ctx, tool); err != nil {
			return out, err
		}
	}
	files, err := design.ReadFiles(w.repo, w.cfg)
	if err != nil {
		return out, failf("%v", err)
	}
	for path, data := range design.UpdateRows(files, w.cfg, d.Model, schAfter, nlBefore, nlAfter) {
		if err := atomicfile.Write(filepath.Join(w.repo, filepath.FromSlash(path)), data, 0o644); err != nil {
			return out, failf("%v", w.relErr(err))
		}
		out = append(out, path)
	}
	return out, nil
}

// repoPath renders an absolute path relative to the repository, slash-separated.
func repoPath(repo, abs string) string {
	rel, err := filepath.Rel(repo, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}
