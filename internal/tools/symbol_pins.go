package tools

import (
	"context"
	"strings"

	"copperhead/internal/draft"
	"copperhead/internal/tool"
)

type symbolPinsArgs struct {
	LibID string `json:"lib_id" desc:"LIBRARY:SYMBOL, e.g. Regulator_Linear:AP2112K-3.3"`
}

var symbolPinsTool = newTool("symbol_pins", symbolPins)

func symbolPins(ctx context.Context, s *tool.Session, a symbolPinsArgs) (tool.Result, error) {
	info, err := draft.LookupSymbol(draft.InstalledLibrary(), a.LibID)
	if err != nil {
		return tool.Errorf("symbol_pins: %v", err), nil
	}
	pins := info.Pins
	info.Pins = nil
	var b strings.Builder
	writeJSONLine(&b, info)
	for _, p := range pins {
		writeJSONLine(&b, p)
	}
	return tool.Result{Text: b.String()}, nil
}
