package tools

import (
	"copperhead/internal/kicad/schedit"
)

type disconnectPinArgs struct {
	Ref string `json:"ref" desc:"reference designator, e.g. U1"`
	Pin string `json:"pin" desc:"pin number or name"`
}

var disconnectPinTool = scheditTool("disconnect_pin", func(d *schedit.Design, a disconnectPinArgs) (*schedit.Plan, error) {
	return schedit.Disconnect(d, a.Ref, a.Pin)
})
