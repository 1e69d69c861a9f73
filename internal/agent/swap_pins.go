package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/llm"
)

//go:embed swap_pins.md
var swapPinsDoc string

type swapPinsArgs struct {
	Ref  string `json:"ref" desc:"reference designator, e.g. U1"`
	PinA string `json:"pin_a" desc:"first pin, by number or name"`
	PinB string `json:"pin_b" desc:"second pin, by number or name"`
	Net  string `json:"net,omitempty" desc:"the net that must end up on pin_b; makes a repeated call a no-op instead of swapping back"`
}

var swapPinsSpec = llm.ToolFor[swapPinsArgs]("swap_pins", strings.TrimSpace(swapPinsDoc))

type swapPinsTool struct{}

func (swapPinsTool) Spec() llm.Tool { return swapPinsSpec }
func (swapPinsTool) Mutating() bool { return true }

func (swapPinsTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[swapPinsArgs]("swap_pins", raw)
	if bad != nil {
		return *bad, nil
	}
	return runSchedit(ctx, s, "swap_pins", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.SwapPins(d, a.Ref, a.PinA, a.PinB, a.Net)
	})
}
