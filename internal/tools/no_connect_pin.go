package tools

import (
	"copperhead/internal/kicad/schedit"
)

type noConnectPinArgs struct {
	Ref string `json:"ref" desc:"reference designator, e.g. U1"`
	Pin string `json:"pin" desc:"pin number or name"`
}

var noConnectPinTool = scheditTool("no_connect_pin", func(d *schedit.Design, a noConnectPinArgs) (*schedit.Plan, error) {
	return schedit.NoConnect(d, a.Ref, a.Pin)
})
