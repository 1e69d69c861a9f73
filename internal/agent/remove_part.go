package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/llm"
)

//go:embed remove_part.md
var removePartDoc string

type removePartArgs struct {
	Ref string `json:"ref" desc:"reference designator of the part to remove, e.g. C12"`
}

var removePartSpec = llm.ToolFor[removePartArgs]("remove_part", strings.TrimSpace(removePartDoc))

type removePartTool struct{}

func (removePartTool) Spec() llm.Tool { return removePartSpec }
func (removePartTool) Mutating() bool { return true }

func (removePartTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[removePartArgs]("remove_part", raw)
	if bad != nil {
		return *bad, nil
	}
	return runSchedit(ctx, s, "remove_part", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.RemovePart(d, a.Ref)
	})
}
