package tools

import (
	"context"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/tool"
)

type removePartArgs struct {
	Ref string `json:"ref" desc:"reference designator of the part to remove, e.g. C12"`
}

var removePartTool = newTool("remove_part", removePart, tool.Mutating)

func removePart(ctx context.Context, s *tool.Session, a removePartArgs) (tool.Result, error) {
	return runSchedit(ctx, s, "remove_part", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.RemovePart(d, a.Ref)
	})
}
