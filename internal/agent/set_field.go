package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/llm"
)

//go:embed set_field.md
var setFieldDoc string

type setFieldArgs struct {
	Ref      string `json:"ref" desc:"reference designator, e.g. R7"`
	Field    string `json:"field" desc:"field name: Value, Footprint, Datasheet, MPN or any other property"`
	Value    string `json:"value" desc:"the new value"`
	Instance string `json:"instance,omitempty" desc:"\"all\" to change every instance of a part on a reused sheet, or the instance path (\"/Power/\")"`
}

var setFieldSpec = llm.ToolFor[setFieldArgs]("set_field", strings.TrimSpace(setFieldDoc))

type setFieldTool struct{}

func (setFieldTool) Spec() llm.Tool { return setFieldSpec }
func (setFieldTool) Mutating() bool { return true }

func (setFieldTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[setFieldArgs]("set_field", raw)
	if bad != nil {
		return *bad, nil
	}
	return runSchedit(ctx, s, "set_field", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.SetField(d, a.Ref, a.Field, a.Value, a.Instance)
	})
}
