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

// maxNetNodes caps the pins shown per net: a GND net touches most parts.
const maxNetNodes = 12

type listNetsArgs struct{}

var listNetsTool = newTool("list_nets", listNets)

func listNets(ctx context.Context, s *tool.Session, _ listNetsArgs) (tool.Result, error) {
	nl, rel, res := s.Netlist(ctx, "list_nets")
	if nl == nil {
		return res, nil
	}
	nets := slices.Clone(nl.Nets)
	slices.SortStableFunc(nets, func(a, b kicad.Net) int { return kicad.CompareRefdes(a.Name, b.Name) })
	var b strings.Builder
	unconnected := 0
	listed := 0
	for _, n := range nets {
		if kicad.IsUnconnectedNet(n.Name) {
			unconnected++
			continue
		}
		listed++
		var pins []string
		for i, nd := range n.Nodes {
			if i == maxNetNodes {
				pins = append(pins, fmt.Sprintf("… %d more", len(n.Nodes)-maxNetNodes))
				break
			}
			pins = append(pins, nd.Refdes+"."+nd.Pin)
		}
		fmt.Fprintf(&b, "%s: %s\n", n.Name, strings.Join(pins, " "))
	}
	head := fmt.Sprintf("%s in %s", textfmt.CountForms(listed, "net", "nets"), rel)
	if unconnected > 0 {
		head += fmt.Sprintf(" (plus %s for unconnected pins, not listed)", textfmt.CountForms(unconnected, "single-pin net", "single-pin nets"))
	}
	return tool.Result{Text: head + ":\n" + b.String()}, nil
}
