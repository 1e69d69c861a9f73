package tools

import (
	"context"
	"copperhead/internal/tool"
	_ "embed"
)

//go:embed run_drc.md
var runDRCDoc string

type runDRCArgs struct{}

var runDRCTool = tool.New("run_drc", runDRCDoc, runDRC)

func runDRC(ctx context.Context, s *tool.Session, _ runDRCArgs) (tool.Result, error) {
	return runCheck(ctx, s, true), nil
}
