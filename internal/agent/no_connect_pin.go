package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/llm"
)

//go:embed no_connect_pin.md
var noConnectPinDoc string

type noConnectPinArgs struct {
	Ref string `json:"ref" desc:"reference designator, e.g. U1"`
	Pin string `json:"pin" desc:"pin number or name"`
}

var noConnectPinSpec = llm.ToolFor[noConnectPinArgs]("no_connect_pin", strings.TrimSpace(noConnectPinDoc))

type noConnectPinTool struct{}

func (noConnectPinTool) Spec() llm.Tool { return noConnectPinSpec }
func (noConnectPinTool) Mutating() bool { return true }

func (noConnectPinTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[noConnectPinArgs]("no_connect_pin", raw)
	if bad != nil {
		return *bad, nil
	}
	return runSchedit(ctx, s, "no_connect_pin", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.NoConnect(d, a.Ref, a.Pin)
	})
}
