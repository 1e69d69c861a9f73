package tools

import (
	"copperhead/internal/kicad/schedit"
)

type swapPinsArgs struct {
	Ref  string `json:"ref" desc:"reference designator, e.g. U1"`
	PinA string `json:"pin_a" desc:"first pin, by number or name"`
	PinB string `json:"pin_b" desc:"second pin, by number or name"`
	Net  string `json:"net,omitempty" desc:"the net that must end up on pin_b; makes a repeated call a no-op instead of swapping back"`
}

var swapPinsTool = scheditTool("swap_pins", func(d *schedit.Design, a swapPinsArgs) (*schedit.Plan, error) {
	return schedit.SwapPins(d, a.Ref, a.PinA, a.PinB, a.Net)
})
