package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"path/filepath"
	"strings"

	"copperhead/internal/design"
	"copperhead/internal/llm"
)

//go:embed export_svg.md
var exportSVGDoc string

type exportSVGArgs struct {
	Target string `json:"target" enum:"sch,pcb" desc:"sch for the schematic, pcb for the board"`
}

var exportSVGSpec = llm.ToolFor[exportSVGArgs]("export_svg", strings.TrimSpace(exportSVGDoc))

type exportSVGTool struct{}

func (exportSVGTool) Spec() llm.Tool { return exportSVGSpec }
func (exportSVGTool) Mutating() bool { return false }

func (exportSVGTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[exportSVGArgs]("export_svg", raw)
	if bad != nil {
		return *bad, nil
	}
	var board bool
	switch a.Target {
	case "sch":
	case "pcb":
		board = true
	default:
		return Errorf("export_svg: target must be sch or pcb, got %q", a.Target), nil
	}
	abs, rel := s.designFile(board)
	if abs == "" {
		what := map[bool]string{false: "schematic (.kicad_sch)", true: "board (.kicad_pcb)"}[board]
		return Result{Text: "export_svg: not applicable yet: the repository has no " + what}, nil
	}
	if s.KiCad == nil {
		return Errorf("export_svg: kicad-cli is not available on this machine"), nil
	}
	runID := s.RunID
	if runID == "" || strings.ContainsAny(runID, `/\`) || runID == "." || runID == ".." {
		runID = "no-run-id"
	}
	// Written by copperhead itself into the run's own folder, which the
	// model's file tools cannot reach: the export is not an edit of the repo.
	out := filepath.Join(s.Repo, filepath.FromSlash(design.RunsDir), runID, "svg", a.Target)
	files, err := s.KiCad.ExportSVG(ctx, abs, out)
	if err != nil {
		return Errorf("export_svg: %s", s.scrub(err.Error())), nil
	}
	var b strings.Builder
	b.WriteString("exported " + rel + " to:\n")
	for _, f := range files {
		r, ok := inside(filepath.Clean(s.Repo), f)
		if !ok {
			r = f
		}
		b.WriteString(r + "\n")
	}
	return Result{Text: b.String()}, nil
}
