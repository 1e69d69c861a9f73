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

//go:embed list_nets.md
var listNetsDoc string

// maxNetNodes caps the pins shown per net: a GND net touches most parts.
const maxNetNodes = 12

type listNetsArgs struct{}

var listNetsSpec = llm.ToolFor[listNetsArgs]("list_nets", strings.TrimSpace(listNetsDoc))

type listNetsTool struct{}

func (listNetsTool) Spec() llm.Tool { return listNetsSpec }
func (listNetsTool) Mutating() bool { return false }

func (listNetsTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	if _, bad := decodeArgs[listNetsArgs]("list_nets", raw); bad != nil {
		return *bad, nil
	}
	nl, rel, res := s.netlist(ctx, "list_nets")
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
	head := fmt.Sprintf("%s in %s", plural(listed, "net", "nets"), rel)
	if unconnected > 0 {
		head += fmt.Sprintf(" (plus %s for unconnected pins, not listed)", plural(unconnected, "single-pin net", "single-pin nets"))
	}
	return Result{Text: head + ":\n" + b.String()}, nil
}

// netlist exports the root schematic's netlist with kicad-cli. When there
// is none, it returns nil and the result to give the model: "not applicable
// yet" for a repository without a schematic, an IsError one for a failure.
func (s *Session) netlist(ctx context.Context, tool string) (*kicad.Netlist, string, Result) {
	abs, rel := s.designFile(false)
	if abs == "" {
		return nil, "", Result{Text: tool + ": not applicable yet: the repository has no schematic (.kicad_sch)"}
	}
	if s.KiCad == nil {
		return nil, rel, Errorf("%s: kicad-cli is not available on this machine, so the netlist cannot be exported", tool)
	}
	nl, err := s.KiCad.Netlist(ctx, abs)
	if err != nil {
		return nil, rel, Errorf("%s: %s", tool, s.scrub(err.Error()))
	}
	return nl, rel, Result{}
}
