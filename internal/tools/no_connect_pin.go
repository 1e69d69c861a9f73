package tools

import (
	"context"
	_ "embed"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/tool"
)

//go:embed no_connect_pin.md
var noConnectPinDoc string

type noConnectPinArgs struct {
	Ref string `json:"ref" desc:"reference designator, e.g. U1"`
	Pin string `json:"pin" desc:"pin number or name"`
}

var noConnectPinTool = tool.New("no_connect_pin", noConnectPinDoc, noConnectPin, tool.Mutating)

func noConnectPin(ctx context.Context, s *tool.Session, a noConnectPinArgs) (tool.Result, error) {
	return runSchedit(ctx, s, "no_connect_pin", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.NoConnect(d, a.Ref, a.Pin)
	})
}
