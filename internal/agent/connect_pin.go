package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/llm"
)

//go:embed connect_pin.md
var connectPinDoc string

type connectPinArgs struct {
	Ref string `json:"ref" desc:"reference designator, e.g. U1"`
	Pin string `json:"pin" desc:"pin number or name"`
	Net string `json:"net" desc:"net to connect the pin to, as list_nets shows it (\"/PTT\", \"GND\") or a bare label name; a new name makes a new net (a label is placed on a short stub)"`
}

var connectPinSpec = llm.ToolFor[connectPinArgs]("connect_pin", strings.TrimSpace(connectPinDoc))

type connectPinTool struct{}

func (connectPinTool) Spec() llm.Tool { return connectPinSpec }
func (connectPinTool) Mutating() bool { return true }

func (connectPinTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[connectPinArgs]("connect_pin", raw)
	if bad != nil {
		return *bad, nil
	}
	return runSchedit(ctx, s, "connect_pin", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.Connect(d, a.Ref, a.Pin, a.Net)
	})
}
