package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"copperhead/internal/kicad"
	"copperhead/internal/llm"
)

//go:embed list_pins.md
var listPinsDoc string

type listPinsArgs struct {
	Refdes string `json:"refdes" desc:"reference designator of the part, e.g. U1"`
}

var listPinsSpec = llm.ToolFor[listPinsArgs]("list_pins", strings.TrimSpace(listPinsDoc))

type listPinsTool struct{}

func (listPinsTool) Spec() llm.Tool { return listPinsSpec }
func (listPinsTool) Mutating() bool { return false }

// pinRow is one pin as list_pins shows it.
type pinRow struct {
	Pin  string `json:"pin"`
	Name string `json:"name"`
	Type string `json:"type"`
	Net  string `json:"net"`
}

func (listPinsTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[listPinsArgs]("list_pins", raw)
	if bad != nil {
		return *bad, nil
	}
	ref := strings.TrimSpace(a.Refdes)
	if ref == "" {
		return Errorf("list_pins needs a refdes, e.g. U1; list_symbols lists the parts"), nil
	}
	nl, rel, res := s.netlist(ctx, "list_pins")
	if nl == nil {
		return res, nil
	}
	known := slices.ContainsFunc(nl.Components, func(c kicad.NetComponent) bool { return c.Refdes == ref })
	if !known {
		return Errorf("list_pins: %s has no part %s; list_symbols lists the parts", rel, ref), nil
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
	fmt.Fprintf(&b, "%s: %s:\n", ref, plural(len(pins), "pin", "pins"))
	for _, p := range pins {
		writeJSONLine(&b, p)
	}
	return Result{Text: b.String()}, nil
}
