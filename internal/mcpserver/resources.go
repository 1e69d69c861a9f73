package mcpserver

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"copperhead/internal/agent"
	"copperhead/internal/config"
	"copperhead/internal/runs"
)

// Resource URIs. The docs are copperhead://docs/<name>.md.
const (
	constraintsURI = "copperhead://constraints"
	configURI      = "copperhead://config"
	docsPrefix     = "copperhead://docs/"
	rulesPrompt    = "copperhead-rules"
)

// addResources serves the design docs (every *.md directly in the docs
// folder when the server starts), .copperhead/constraints.json and
// .copperhead/config.json. Each read goes through the tools' path gate
// (tool.Session.ResolvePath): a file it refuses (a link out of the
// repository, a secret-named file) is never read.
func (s *Server) addResources() {
	add := func(uri, name, rel, mime, desc string) {
		s.sdk.AddResource(&mcp.Resource{URI: uri, Name: name, MIMEType: mime, Description: desc},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				b, err := s.readGated(rel)
				if errors.Is(err, fs.ErrNotExist) {
					return nil, mcp.ResourceNotFoundError(req.Params.URI)
				}
				if err != nil {
					return nil, err
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: string(b)}}}, nil
			})
	}
	add(constraintsURI, "constraints.json", config.ConstraintsPath, "application/json",
		"the constraint registry: every constraint stated, assumed or discovered, with its source and the parts it affects")
	add(configURI, "config.json", config.ConfigPath, "application/json", "copperhead's configuration for this repository (budgets, schematic, board)")
	docs := s.opts.Config.DocsDir()
	ents, err := os.ReadDir(s.standalone().Repo + "/" + docs)
	if err != nil {
		return // no docs folder yet: nothing to serve
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() && strings.EqualFold(path.Ext(e.Name()), ".md") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	for _, n := range names {
		add(docsPrefix+n, n, docs+"/"+n, "text/markdown", "design doc "+docs+"/"+n)
	}
}

// readGated reads the repository file rel through the path gate.
func (s *Server) readGated(rel string) ([]byte, error) {
	abs, err := s.standalone().ResolvePath(rel)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(abs.Abs)
}

// addPrompt serves the system prompt copperhead's own loop sends its model
// (the spec's rules, the workflow, the budgets, the registry, the docs),
// built fresh for each request so it carries the docs as they are now.
func (s *Server) addPrompt() {
	s.sdk.AddPrompt(&mcp.Prompt{Name: rulesPrompt, Title: "copperhead's rules for changing this design",
		Description: "The rules and workflow copperhead's own agent follows (propose, validate, edit, ERC/DRC, drift, decisions, finish), with this repository's budgets, constraint registry and design docs."},
		func(_ context.Context, _ *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			turns, repair := runs.Budgets(0, s.opts.Config)
			sys, err := agent.SystemPrompt(agent.PromptInput{Repo: s.opts.Repo, Config: s.opts.Config, RunID: "(opened by your first session tool call)",
				MaxTurns: turns, MaxRepairCycles: repair})
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Description: "copperhead's rules",
				Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: sys}}}}, nil
		})
}
