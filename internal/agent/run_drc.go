package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"copperhead/internal/llm"
)

//go:embed run_drc.md
var runDRCDoc string

type runDRCArgs struct{}

var runDRCSpec = llm.ToolFor[runDRCArgs]("run_drc", strings.TrimSpace(runDRCDoc))

type runDRCTool struct{}

func (runDRCTool) Spec() llm.Tool { return runDRCSpec }
func (runDRCTool) Mutating() bool { return false }

func (runDRCTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	if _, bad := decodeArgs[runDRCArgs]("run_drc", raw); bad != nil {
		return *bad, nil
	}
	return runCheck(ctx, s, true), nil
}
