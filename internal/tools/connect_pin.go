package tools

import (
	"context"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/tool"
)

type connectPinArgs struct {
	Ref string `json:"ref" desc:"reference designator, e.g. U1"`
	Pin string `json:"pin" desc:"pin number or name"`
	Net string `json:"net" desc:"net to connect the pin to, as list_nets shows it (\"/PTT\", \"GND\") or a bare label name; a new name makes a new net (a label is placed on a short stub)"`
}

var connectPinTool = newTool("connect_pin", connectPin, tool.Mutating)

func connectPin(ctx context.Context, s *tool.Session, a connectPinArgs) (tool.Result, error) {
	return runSchedit(ctx, s, "connect_pin", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.Connect(d, a.Ref, a.Pin, a.Net)
	})
}
