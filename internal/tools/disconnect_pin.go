package tools

import (
	"context"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/tool"
)

type disconnectPinArgs struct {
	Ref string `json:"ref" desc:"reference designator, e.g. U1"`
	Pin string `json:"pin" desc:"pin number or name"`
}

var disconnectPinTool = newTool("disconnect_pin", disconnectPin, tool.Mutating)

func disconnectPin(ctx context.Context, s *tool.Session, a disconnectPinArgs) (tool.Result, error) {
	return runSchedit(ctx, s, "disconnect_pin", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.Disconnect(d, a.Ref, a.Pin)
	})
}
