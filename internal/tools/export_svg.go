package tools

import (
	"context"
	"path/filepath"
	"strings"

	"copperhead/internal/config"
	"copperhead/internal/tool"
)

type exportSVGArgs struct {
	Target string `json:"target" enum:"sch,pcb" desc:"sch for the schematic, pcb for the board"`
}

var exportSVGTool = newTool("export_svg", exportSVG)

func exportSVG(ctx context.Context, s *tool.Session, a exportSVGArgs) (tool.Result, error) {
	var board bool
	switch a.Target {
	case "sch":
	case "pcb":
		board = true
	default:
		return tool.Errorf("export_svg: target must be sch or pcb, got %q", a.Target), nil
	}
	abs, rel := s.DesignFile(board)
	if abs == "" {
		what := map[bool]string{false: "schematic (.kicad_sch)", true: "board (.kicad_pcb)"}[board]
		return tool.Result{Text: "export_svg: not applicable yet: the repository has no " + what}, nil
	}
	if s.KiCad == nil {
		return tool.Errorf("export_svg: kicad-cli is not available on this machine"), nil
	}
	runID := s.RunID
	if runID == "" || strings.ContainsAny(runID, `/\`) || runID == "." || runID == ".." {
		runID = "no-run-id"
	}
	// Written by copperhead itself into the run's own folder, which the
	// model's file tools cannot reach: the export is not an edit of the repo.
	out := filepath.Join(s.Repo, filepath.FromSlash(config.RunsDir), runID, "svg", a.Target)
	files, err := s.KiCad.ExportSVG(ctx, abs, out)
	if err != nil {
		return tool.Errorf("export_svg: %s", s.Scrub(err.Error())), nil
	}
	var b strings.Builder
	b.WriteString("exported " + rel + " to:\n")
	for _, f := range files {
		r, ok := tool.Inside(filepath.Clean(s.Repo), f)
		if !ok {
			r = f
		}
		b.WriteString(r + "\n")
	}
	return tool.Result{Text: b.String()}, nil
}
