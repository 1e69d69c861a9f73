package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"copperhead/internal/verify"
)

// The read tools write nothing and call no model. Their input and output
// schemas are the SDK's, derived from the types below.

type checkIn struct {
	Strict bool `json:"strict,omitempty" jsonschema:"fail ERC/DRC on warnings too, not only on errors (check --strict)"`
}

type noIn struct{}

// ConstraintsOut is the constraints tool's answer: the registry's check.
type ConstraintsOut struct {
	OK         bool                   `json:"ok" jsonschema:"the constraints gate passed"`
	Gate       verify.ConstraintsGate `json:"gate" jsonschema:"the constraints gate of check: forbidden pins, budgets vs SPEC.md, sleep leakage"`
	Registry   string                 `json:"registry" jsonschema:"the registry file, repository-relative; read it as the resource copperhead://constraints"`
	Violations int                    `json:"violations"`
}

type netsIn struct {
	Unconnected bool `json:"unconnected,omitempty" jsonschema:"also list KiCad's unconnected-(...) single-pin nets"`
}

type explainIn struct {
	Subject string `json:"subject" jsonschema:"a refdes (U1), a net (KEY_DAH) or a pin (U1.5)"`
}

type diffIn struct {
	Base string `json:"base,omitempty" jsonschema:"the git revision to compare from (default HEAD)"`
	Head string `json:"head,omitempty" jsonschema:"the git revision to compare to (default: the working tree)"`
}

// CheckOut is the check tool's answer: check --json's object, the gates'
// result with the "error" line a failing check adds.
type CheckOut struct {
	*verify.Result
	Error string `json:"error,omitempty" jsonschema:"which gates failed, as check --json says it: check failed: drift"`
}

// JSONObject is a command's --json object, passed through unchanged.
type JSONObject map[string]any

func (s *Server) addReadTools() {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	if s.opts.Check != nil {
		mcp.AddTool(s.sdk, &mcp.Tool{Name: "check", Annotations: ro,
			Description: "Run every gate `copperhead check` runs (ERC, DRC, doc drift, constraints, OpenSpec, sourcing) and return the same JSON as `check --json`. Changes nothing."},
			func(ctx context.Context, _ *mcp.CallToolRequest, in checkIn) (*mcp.CallToolResult, *CheckOut, error) {
				res, err := s.opts.Check(ctx, in.Strict)
				if err != nil {
					return nil, nil, fmt.Errorf("check: %w", err)
				}
				out := &CheckOut{Result: res}
				if !res.OK {
					out.Error = checkLine(res) // as check --json says it
				}
				return textOf(out, checkLine(res)), out, nil
			})
		mcp.AddTool(s.sdk, &mcp.Tool{Name: "drift", Annotations: ro,
			Description: "The drift gate of `copperhead check`: docs/BOM.md and docs/PINOUT.md against the schematic and KiCad's netlist, and the datasheet citations of VERIFIED(datasheet) rows. Changes nothing."},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, *verify.DriftGate, error) {
				res, err := s.opts.Check(ctx, false)
				if err != nil {
					return nil, nil, fmt.Errorf("drift: %w", err)
				}
				return textOf(res.Drift, fmt.Sprintf("drift: ok=%t, %d mismatches", res.Drift.OK, len(res.Drift.Mismatches))), &res.Drift, nil
			})
		mcp.AddTool(s.sdk, &mcp.Tool{Name: "constraints", Annotations: ro,
			Description: "The constraints gate of `copperhead check`: the registry .copperhead/constraints.json (forbidden pins, sleep-current budget) and config budgets against SPEC.md, on KiCad's netlist. Changes nothing."},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, *ConstraintsOut, error) {
				res, err := s.opts.Check(ctx, false)
				if err != nil {
					return nil, nil, fmt.Errorf("constraints: %w", err)
				}
				out := &ConstraintsOut{OK: res.Constraints.OK, Gate: res.Constraints, Registry: ".copperhead/constraints.json", Violations: len(res.Constraints.Violations)}
				return textOf(out, fmt.Sprintf("constraints: ok=%t, %d violations", out.OK, out.Violations)), out, nil
			})
	}
	if s.opts.Command == nil {
		return
	}
	addCommandTool(s, "parts", "Every part of the schematic (refdes, value, footprint, MPN), as `copperhead parts --json`. Changes nothing.",
		func(noIn) ([]string, error) { return []string{"parts"}, nil })
	addCommandTool(s, "nets", "Every net with its pins, from KiCad's own netlist, as `copperhead nets --json`. Changes nothing.",
		func(in netsIn) ([]string, error) {
			if in.Unconnected {
				return []string{"nets", "--unconnected"}, nil
			}
			return []string{"nets"}, nil
		})
	addCommandTool(s, "explain", "Deterministic facts about a part, net or pin (what it connects to, its constraints, its docs rows), as `copperhead explain <subject> --json`. Changes nothing; no model is called.",
		func(in explainIn) ([]string, error) {
			subj := strings.TrimSpace(in.Subject)
			if subj == "" || strings.HasPrefix(subj, "-") {
				return nil, errors.New("explain: subject must be a refdes, net or pin, e.g. U1, KEY_DAH, U1.5")
			}
			return []string{"explain", "--", subj}, nil
		})
	addCommandTool(s, "diff", "The electrical diff between two revisions (net renames by pin overlap, moved pins, field changes, BOM rows), as `copperhead diff --json`. Changes nothing.",
		func(in diffIn) ([]string, error) {
			args := []string{"diff"}
			if in.Base != "" {
				args = append(args, "--base", in.Base)
			}
			if in.Head != "" {
				args = append(args, "--head", in.Head)
			}
			return args, nil
		})
}

// addCommandTool adds a read tool answered by one copperhead command in
// JSON mode (Options.Command): its input schema from In, its answer the
// command's JSON object.
func addCommandTool[In any](s *Server, name, desc string, args func(In) ([]string, error)) {
	mcp.AddTool(s.sdk, &mcp.Tool{Name: name, Description: desc, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, JSONObject, error) {
			argv, err := args(in)
			if err != nil {
				return nil, nil, err
			}
			raw, err := s.opts.Command(ctx, argv...)
			if err != nil {
				return nil, nil, err // the command's own error line, which names it
			}
			var obj JSONObject
			if err := json.Unmarshal(raw, &obj); err != nil {
				return nil, nil, fmt.Errorf("%s: the command's output is not one JSON object: %w", name, err)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}, obj, nil
		})
}

// textOf is a read tool's text content: a one-line verdict, then the JSON.
func textOf(v any, line string) *mcp.CallToolResult {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		b = []byte(err.Error())
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: line + "\n" + string(b)}}}
}

func checkLine(r *verify.Result) string {
	var failed []string
	for _, g := range []struct {
		name string
		ok   bool
	}{{"erc", r.ERC.OK}, {"drc", r.DRC.OK}, {"drift", r.Drift.OK}, {"constraints", r.Constraints.OK}, {"openspec", r.OpenSpec.OK}, {"sourcing", r.Sourcing.OK}} {
		if !g.ok {
			failed = append(failed, g.name)
		}
	}
	if r.OK {
		return "check passed"
	}
	return "check failed: " + strings.Join(failed, ", ")
}
