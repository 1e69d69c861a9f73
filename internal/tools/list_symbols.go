package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

type listSymbolsArgs struct{}

// symbolRow is one part as list_symbols shows it.
type symbolRow struct {
	Refdes    string `json:"refdes"`
	Value     string `json:"value"`
	Footprint string `json:"footprint"`
	Sheet     string `json:"sheet"`
	MPN       string `json:"mpn,omitempty"`
	DNP       bool   `json:"dnp,omitempty"`
}

var listSymbolsTool = newTool("list_symbols", listSymbols)

func listSymbols(ctx context.Context, s *tool.Session, _ listSymbolsArgs) (tool.Result, error) {
	abs, rel := s.DesignFile(false)
	if abs == "" {
		return tool.Result{Text: "list_symbols: not applicable yet: the repository has no schematic (.kicad_sch), so there are no parts"}, nil
	}
	sch, err := kicad.LoadSchematicWithin(abs, s.Repo)
	if err != nil {
		return tool.Errorf("list_symbols: %s", s.Scrub(err.Error())), nil
	}
	parts := design.Parts(sch)
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s (all sheets):\n", textfmt.CountForms(len(parts), "part", "parts"), rel)
	for _, p := range parts {
		writeJSONLine(&b, symbolRow{Refdes: p.Refdes, Value: p.Value, Footprint: p.Footprint, Sheet: p.SheetPath, MPN: p.MPN, DNP: p.DNP})
	}
	return tool.Result{Text: b.String()}, nil
}

// writeJSONLine appends v as one line of compact JSON (HTML characters left
// as they are, so "<" in a value reads as written).
func writeJSONLine(b *strings.Builder, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // plain structs of strings always encode
}
