package tools

import (
	"context"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/tool"
)

type setFieldArgs struct {
	Ref      string `json:"ref" desc:"reference designator, e.g. R7"`
	Field    string `json:"field" desc:"field name: Value, Footprint, Datasheet, MPN or any other property"`
	Value    string `json:"value" desc:"the new value"`
	Instance string `json:"instance,omitempty" desc:"\"all\" to change every instance of a part on a reused sheet, or the instance path (\"/Power/\")"`
}

var setFieldTool = newTool("set_field", setField, tool.Mutating)

func setField(ctx context.Context, s *tool.Session, a setFieldArgs) (tool.Result, error) {
	return runSchedit(ctx, s, "set_field", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.SetField(d, a.Ref, a.Field, a.Value, a.Instance)
	})
}
