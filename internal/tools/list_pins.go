package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"copperhead/internal/kicad"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

type listPinsArgs struct {
	Refdes string `json:"refdes" desc:"reference designator of the part, e.g. U1"`
}

// pinRow is one pin as list_pins shows it.
type pinRow struct {
	Pin  string `json:"pin"`
	Name string `json:"name"`
	Type string `json:"type"`
	Net  string `json:"net"`
}

var listPinsTool = newTool("list_pins", listPins)

func listPins(ctx context.Context, s *tool.Session, a listPinsArgs) (tool.Result, error) {
	ref := strings.TrimSpace(a.Refdes)
	if ref == "" {
		return tool.Errorf("list_pins needs a refdes, e.g. U1; list_symbols lists the parts"), nil
	}
	nl, rel, res := s.Netlist(ctx, "list_pins")
	if nl == nil {
		return res, nil
	}
	known := slices.ContainsFunc(nl.Components, func(c kicad.NetComponent) bool { return c.Refdes == ref })
	if !known {
		return tool.Errorf("list_pins: %s has no part %s; list_symbols lists the parts", rel, ref), nil
	}
	var pins []pinRow
	for _, n := range nl.Nets {
		for _, nd := range n.Nodes {
			if nd.Refdes != ref {
				continue
			}
			net := n.Name
			if kicad.IsUnconnectedNet(net) {
				net = "(unconnected)"
			}
			pins = append(pins, pinRow{Pin: nd.Pin, Name: nd.PinFunction, Type: nd.PinType, Net: net})
		}
	}
	slices.SortStableFunc(pins, func(a, b pinRow) int { return kicad.CompareRefdes(a.Pin, b.Pin) })
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s:\n", ref, textfmt.CountForms(len(pins), "pin", "pins"))
	for _, p := range pins {
		writeJSONLine(&b, p)
	}
	return tool.Result{Text: b.String()}, nil
}
