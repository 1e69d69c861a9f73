package tools

import (
	"context"

	"copperhead/internal/tool"
)

type runDRCArgs struct{}

var runDRCTool = newTool("run_drc", runDRC)

func runDRC(ctx context.Context, s *tool.Session, _ runDRCArgs) (tool.Result, error) {
	return runCheck(ctx, s, true), nil
}
