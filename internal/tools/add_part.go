package tools

import (
	"context"

	"copperhead/internal/kicad"
	"copperhead/internal/kicad/schedit"
	"copperhead/internal/tool"
)

type addPartArgs struct {
	LibID     string   `json:"lib_id" desc:"library symbol, Library:Symbol, e.g. Device:R"`
	Ref       string   `json:"ref,omitempty" desc:"reference designator; omit for the next free one with the symbol's prefix"`
	Value     string   `json:"value" desc:"the Value field, e.g. 10k"`
	Footprint string   `json:"footprint,omitempty" desc:"footprint, Library:Footprint"`
	Near      string   `json:"near,omitempty" desc:"place it in free space near this part (a refdes)"`
	AtX       *float64 `json:"at_x,omitempty" desc:"x position in mm on the root sheet (with at_y); omit both to place automatically"`
	AtY       *float64 `json:"at_y,omitempty" desc:"y position in mm (with at_x)"`
}

var addPartTool = newTool("add_part", addPart, tool.Mutating)

func addPart(ctx context.Context, s *tool.Session, a addPartArgs) (tool.Result, error) {
	var at *kicad.Point
	switch {
	case a.AtX != nil && a.AtY != nil:
		at = &kicad.Point{X: *a.AtX, Y: *a.AtY}
		if err := kicad.CheckPoint(*at); err != nil {
			return tool.Errorf("add_part refused, nothing changed: at_x/at_y: %v", err), nil
		}
	case a.AtX != nil || a.AtY != nil:
		return tool.Errorf("add_part: give both at_x and at_y, or neither to place the part automatically"), nil
	}
	return runSchedit(ctx, s, "add_part", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.AddPart(d, a.LibID, a.Ref, a.Value, a.Footprint, at, a.Near)
	})
}
