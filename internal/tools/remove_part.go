package tools

import (
	"context"
	_ "embed"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/tool"
)

//go:embed remove_part.md
var removePartDoc string

type removePartArgs struct {
	Ref string `json:"ref" desc:"reference designator of the part to remove, e.g. C12"`
}

var removePartTool = tool.New("remove_part", removePartDoc, removePart, tool.Mutating)

func removePart(ctx context.Context, s *tool.Session, a removePartArgs) (tool.Result, error) {
	return runSchedit(ctx, s, "remove_part", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.RemovePart(d, a.Ref)
	})
}
