package tools

import (
	"copperhead/internal/kicad/schedit"
)

type removePartArgs struct {
	Ref string `json:"ref" desc:"reference designator of the part to remove, e.g. C12"`
}

var removePartTool = scheditTool("remove_part", func(d *schedit.Design, a removePartArgs) (*schedit.Plan, error) {
	return schedit.RemovePart(d, a.Ref)
})
