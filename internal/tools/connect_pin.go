package tools

import (
	"copperhead/internal/kicad/schedit"
)

type connectPinArgs struct {
	Ref string `json:"ref" desc:"reference designator, e.g. U1"`
	Pin string `json:"pin" desc:"pin number or name"`
	Net string `json:"net" desc:"net to connect the pin to, as list_nets shows it (\"/PTT\", \"GND\") or a bare label name; a new name makes a new net (a label is placed on a short stub)"`
}

var connectPinTool = scheditTool("connect_pin", func(d *schedit.Design, a connectPinArgs) (*schedit.Plan, error) {
	return schedit.Connect(d, a.Ref, a.Pin, a.Net)
})
