package tools

import (
	"copperhead/internal/kicad/schedit"
)

type setFieldArgs struct {
	Ref      string `json:"ref" desc:"reference designator, e.g. R7"`
	Field    string `json:"field" desc:"field name: Value, Footprint, Datasheet, MPN or any other property"`
	Value    string `json:"value" desc:"the new value"`
	Instance string `json:"instance,omitempty" desc:"\"all\" to change every instance of a part on a reused sheet, or the instance path (\"/Power/\")"`
}

var setFieldTool = scheditTool("set_field", func(d *schedit.Design, a setFieldArgs) (*schedit.Plan, error) {
	return schedit.SetField(d, a.Ref, a.Field, a.Value, a.Instance)
})
