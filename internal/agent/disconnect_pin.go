package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/llm"
)

//go:embed disconnect_pin.md
var disconnectPinDoc string

type disconnectPinArgs struct {
	Ref string `json:"ref" desc:"reference designator, e.g. U1"`
	Pin string `json:"pin" desc:"pin number or name"`
}

var disconnectPinSpec = llm.ToolFor[disconnectPinArgs]("disconnect_pin", strings.TrimSpace(disconnectPinDoc))

type disconnectPinTool struct{}

func (disconnectPinTool) Spec() llm.Tool { return disconnectPinSpec }
func (disconnectPinTool) Mutating() bool { return true }

func (disconnectPinTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[disconnectPinArgs]("disconnect_pin", raw)
	if bad != nil {
		return *bad, nil
	}
	return runSchedit(ctx, s, "disconnect_pin", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.Disconnect(d, a.Ref, a.Pin)
	})
}
