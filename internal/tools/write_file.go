package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

type writeFileArgs struct {
	Path    string `json:"path" desc:"new file to create, relative to the repository root, e.g. docs/POWER.md"`
	Content string `json:"content" desc:"the whole content of the file"`
}

var writeFileTool = newTool("write_file", writeFile, tool.Mutating)

func writeFile(ctx context.Context, s *tool.Session, a writeFileArgs) (tool.Result, error) {
	p, err := s.ResolvePath(a.Path)
	if err != nil {
		return tool.Errorf("write_file: %v", err), nil
	}
	if why := writeRefusal(p.Rel); why != "" {
		return tool.Errorf("write_file: %s", why), nil
	}
	if why := s.KiCadFileRefusal("write_file", p.Rel); why != "" {
		return tool.Errorf("%s", why), nil
	}
	if strings.HasPrefix(path.Ext(p.Rel), ".kicad_") {
		return tool.Errorf("write_file: refuses KiCad files (%s): schematics and boards are edited surgically with edit_file, never written whole", p.Rel), nil
	}
	if _, err := os.Lstat(p.Abs); err == nil {
		return tool.Errorf("write_file: %s already exists and write_file never overwrites; change it with edit_file", p.Rel), nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return tool.Errorf("write_file: %s", s.Scrub(err.Error())), nil
	}
	if err := s.WriteFile(p.Abs, []byte(a.Content)); err != nil {
		return tool.Errorf("write_file: %s", s.Scrub(err.Error())), nil
	}
	lines := strings.Count(a.Content, "\n")
	if a.Content != "" && !strings.HasSuffix(a.Content, "\n") {
		lines++
	}
	return tool.Result{Text: fmt.Sprintf("created %s (%s, %d bytes).", p.Rel, textfmt.CountForms(lines, "line", "lines"), len(a.Content)), Changed: []string{p.Rel}}, nil
}
