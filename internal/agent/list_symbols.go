package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/llm"
)

//go:embed list_symbols.md
var listSymbolsDoc string

type listSymbolsArgs struct{}

var listSymbolsSpec = llm.ToolFor[listSymbolsArgs]("list_symbols", strings.TrimSpace(listSymbolsDoc))

type listSymbolsTool struct{}

func (listSymbolsTool) Spec() llm.Tool { return listSymbolsSpec }
func (listSymbolsTool) Mutating() bool { return false }

// symbolRow is one part as list_symbols shows it.
type symbolRow struct {
	Refdes    string `json:"refdes"`
	Value     string `json:"value"`
	Footprint string `json:"footprint"`
	Sheet     string `json:"sheet"`
	MPN       string `json:"mpn,omitempty"`
	DNP       bool   `json:"dnp,omitempty"`
}

func (listSymbolsTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	if _, bad := decodeArgs[listSymbolsArgs]("list_symbols", raw); bad != nil {
		return *bad, nil
	}
	abs, rel := s.designFile(false)
	if abs == "" {
		return Result{Text: "list_symbols: not applicable yet: the repository has no schematic (.kicad_sch), so there are no parts"}, nil
	}
	sch, err := kicad.LoadSchematicWithin(abs, s.Repo)
	if err != nil {
		return Errorf("list_symbols: %s", s.scrub(err.Error())), nil
	}
	parts := design.Parts(sch)
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s (all sheets):\n", plural(len(parts), "part", "parts"), rel)
	for _, p := range parts {
		writeJSONLine(&b, symbolRow{Refdes: p.Refdes, Value: p.Value, Footprint: p.Footprint, Sheet: p.SheetPath, MPN: p.MPN, DNP: p.DNP})
	}
	return Result{Text: b.String()}, nil
}

// writeJSONLine appends v as one line of compact JSON (HTML characters left
// as they are, so "<" in a value reads as written).
func writeJSONLine(b *strings.Builder, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // plain structs of strings always encode
}
