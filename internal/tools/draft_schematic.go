package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"copperhead/internal/design"
	"copperhead/internal/draft"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

type draftSchematicArgs struct {
	Intent string `json:"intent" desc:"the intent file, relative to the repository root, e.g. hardware/intent.json"`
	Force  bool   `json:"force,omitempty" desc:"replace an existing sheet that differs from this draft"`
}

var draftSchematicTool = newTool("draft_schematic", draftSchematic, tool.Mutating)

func draftSchematic(ctx context.Context, s *tool.Session, a draftSchematicArgs) (tool.Result, error) {
	p, err := s.ResolvePath(a.Intent)
	if err != nil {
		return tool.Errorf("draft_schematic: %v", err), nil
	}
	in, err := draft.ReadIntent(p.Abs)
	if err != nil {
		return tool.Errorf("draft_schematic: %s", s.Scrub(err.Error())), nil
	}
	w, err := draft.WriteSchematic(in, p.Rel, draft.SheetDir(s.Repo, s.Config), a.Force, draft.Options{BOM: draft.BOMValues(s.Repo, s.Config)})
	if err != nil {
		var fe *draft.FindingsError
		if errors.As(err, &fe) {
			var b strings.Builder
			fmt.Fprintf(&b, "draft_schematic: %s in %s; nothing written. Fix the intent (edit_file) and call again:\n", textfmt.CountForms(len(fe.Findings), "problem", "problems"), p.Rel)
			for _, f := range fe.Findings {
				b.WriteString("- " + f.String() + "\n")
			}
			return tool.Result{Text: b.String(), IsError: true}, nil
		}
		return tool.Errorf("draft_schematic: %s", s.Scrub(err.Error())), nil
	}
	rel := func(abs string) string { r, _ := tool.Inside(filepath.Clean(s.Repo), filepath.Clean(abs)); return r }
	if w.Unchanged {
		return tool.Result{Text: fmt.Sprintf("draft_schematic: %s already holds exactly this draft; nothing changed.", rel(w.Path))}, nil
	}
	changed := []string{rel(w.Path)}
	if w.Project != "" {
		changed = append(changed, rel(w.Project))
	}
	// PINOUT.md is as-built fact: when the repo has none yet, it is
	// generated from KiCad's netlist of the new sheet, as init would.
	pinout := s.Config.DocPath(design.PinoutDoc)
	pinoutAbs := filepath.Join(s.Repo, filepath.FromSlash(pinout))
	wrotePinout := false
	if _, err := os.Stat(pinoutAbs); errors.Is(err, fs.ErrNotExist) && s.KiCad != nil {
		nl, err := s.KiCad.Netlist(ctx, w.Path)
		if err != nil {
			return tool.Result{Text: fmt.Sprintf("draft_schematic: drew %s, but kicad-cli could not export its netlist: %s", changed[0], s.Scrub(err.Error())), IsError: true, Changed: changed}, nil
		}
		if err := os.MkdirAll(filepath.Dir(pinoutAbs), 0o755); err == nil {
			if err := s.WriteFile(pinoutAbs, design.GeneratePinout(in.Project, nl)); err != nil {
				return tool.Result{Text: fmt.Sprintf("draft_schematic: drew %s, but could not write %s: %s", changed[0], pinout, s.Scrub(err.Error())), IsError: true, Changed: changed}, nil
			}
			changed = append(changed, pinout)
			wrotePinout = true
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "draft_schematic: drew %s: %d parts (%d units), %d nets on %s; %d labels, %d power ports, %d no-connects",
		changed[0], w.Parts, w.Units, w.Nets, w.Paper, w.Labels, w.PowerPorts, w.NoConnects)
	if len(w.PowerFlags) > 0 {
		fmt.Fprintf(&b, "; PWR_FLAG on %s", strings.Join(w.PowerFlags, ", "))
	}
	b.WriteString(".")
	if wrotePinout {
		fmt.Fprintf(&b, " Wrote %s from KiCad's netlist of the new sheet (edit its Notes column freely).", pinout)
	}
	if _, err := os.Stat(w.Path); err != nil {
		return tool.Errorf("draft_schematic: %s", s.Scrub(err.Error())), nil
	}
	return tool.Result{Text: b.String(), Changed: changed}, nil
}
