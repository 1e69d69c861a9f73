package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"copperhead/internal/llm"
)

//go:embed write_file.md
var writeFileDoc string

type writeFileArgs struct {
	Path    string `json:"path" desc:"new file to create, relative to the repository root, e.g. docs/POWER.md"`
	Content string `json:"content" desc:"the whole content of the file"`
}

var writeFileSpec = llm.ToolFor[writeFileArgs]("write_file", strings.TrimSpace(writeFileDoc))

type writeFileTool struct{}

func (writeFileTool) Spec() llm.Tool { return writeFileSpec }
func (writeFileTool) Mutating() bool { return true }

func (writeFileTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[writeFileArgs]("write_file", raw)
	if bad != nil {
		return *bad, nil
	}
	p, err := s.resolvePath(a.Path)
	if err != nil {
		return Errorf("write_file: %v", err), nil
	}
	if why := writeRefusal(p.Rel); why != "" {
		return Errorf("write_file: %s", why), nil
	}
	if why := s.kicadFileRefusal("write_file", p.Rel); why != "" {
		return Errorf("%s", why), nil
	}
	if strings.HasPrefix(path.Ext(p.Rel), ".kicad_") {
		return Errorf("write_file: refuses KiCad files (%s): schematics and boards are edited surgically with edit_file, never written whole", p.Rel), nil
	}
	if _, err := os.Lstat(p.Abs); err == nil {
		return Errorf("write_file: %s already exists and write_file never overwrites; change it with edit_file", p.Rel), nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Errorf("write_file: %s", s.scrub(err.Error())), nil
	}
	if err := s.writeFile(p.Abs, []byte(a.Content)); err != nil {
		return Errorf("write_file: %s", s.scrub(err.Error())), nil
	}
	lines := strings.Count(a.Content, "\n")
	if a.Content != "" && !strings.HasSuffix(a.Content, "\n") {
		lines++
	}
	return Result{Text: fmt.Sprintf("created %s (%s, %d bytes).", p.Rel, plural(lines, "line", "lines"), len(a.Content)), Changed: []string{p.Rel}}, nil
}
