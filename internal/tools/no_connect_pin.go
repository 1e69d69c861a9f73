package tools

import (
	"context"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/tool"
)

type noConnectPinArgs struct {
	Ref string `json:"ref" desc:"reference designator, e.g. U1"`
	Pin string `json:"pin" desc:"pin number or name"`
}

var noConnectPinTool = newTool("no_connect_pin", noConnectPin, tool.Mutating)

func noConnectPin(ctx context.Context, s *tool.Session, a noConnectPinArgs) (tool.Result, error) {
	return runSchedit(ctx, s, "no_connect_pin", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.NoConnect(d, a.Ref, a.Pin)
	})
}
