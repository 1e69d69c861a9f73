package tools

import (
	"context"
	"embed"

	"copperhead/internal/tool"
)

// docs are the tools' model-facing descriptions, one Markdown file per
// tool beside its Go file, named for the tool.
//
//go:embed *.md
var docs embed.FS

// newTool is tool.New with the tool's description read from name.md: a
// tool file is then its arguments and its function. A missing description
// is an empty one, which TestEveryToolDescribed refuses.
func newTool[A any](name string, run func(ctx context.Context, s *tool.Session, args A) (tool.Result, error), opts ...tool.Option) tool.Tool {
	b, _ := docs.ReadFile(name + ".md")
	return tool.New(name, string(b), run, opts...)
}
