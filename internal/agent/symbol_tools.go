package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"copperhead/internal/design"
	"copperhead/internal/draft"
	"copperhead/internal/llm"
)

//go:embed search_symbols.md
var searchSymbolsDoc string

//go:embed symbol_pins.md
var symbolPinsDoc string

//go:embed draft_schematic.md
var draftSchematicDoc string

type searchSymbolsArgs struct {
	Query string `json:"query" desc:"words that must all appear, e.g. \"LDO 3.3V\" or \"ATmega32U4\""`
	Limit int    `json:"limit,omitempty" desc:"most hits to return (default 20, at most 50)"`
}

type symbolPinsArgs struct {
	LibID string `json:"lib_id" desc:"LIBRARY:SYMBOL, e.g. Regulator_Linear:AP2112K-3.3"`
}

type draftSchematicArgs struct {
	Intent string `json:"intent" desc:"the intent file, relative to the repository root, e.g. hardware/intent.json"`
	Force  bool   `json:"force,omitempty" desc:"replace an existing sheet that differs from this draft"`
}

var (
	searchSymbolsSpec  = llm.ToolFor[searchSymbolsArgs]("search_symbols", strings.TrimSpace(searchSymbolsDoc))
	symbolPinsSpec     = llm.ToolFor[symbolPinsArgs]("symbol_pins", strings.TrimSpace(symbolPinsDoc))
	draftSchematicSpec = llm.ToolFor[draftSchematicArgs]("draft_schematic", strings.TrimSpace(draftSchematicDoc))
)

type searchSymbolsTool struct{}

func (searchSymbolsTool) Spec() llm.Tool { return searchSymbolsSpec }
func (searchSymbolsTool) Mutating() bool { return false }

func (searchSymbolsTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[searchSymbolsArgs]("search_symbols", raw)
	if bad != nil {
		return *bad, nil
	}
	limit := a.Limit
	if limit <= 0 {
		limit = 20
	}
	hits, err := draft.SearchSymbols(draft.InstalledLibrary(), a.Query, min(limit, 50))
	if err != nil {
		return Errorf("search_symbols: %v", err), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s for %q:\n", plural(len(hits), "symbol", "symbols"), a.Query)
	for _, h := range hits {
		writeJSONLine(&b, h)
	}
	if len(hits) == 0 {
		b.WriteString("no installed symbol matches every word: try fewer or more general words (a package, a function, a part family)\n")
	}
	return Result{Text: b.String()}, nil
}

type symbolPinsTool struct{}

func (symbolPinsTool) Spec() llm.Tool { return symbolPinsSpec }
func (symbolPinsTool) Mutating() bool { return false }

func (symbolPinsTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[symbolPinsArgs]("symbol_pins", raw)
	if bad != nil {
		return *bad, nil
	}
	info, err := draft.LookupSymbol(draft.InstalledLibrary(), a.LibID)
	if err != nil {
		return Errorf("symbol_pins: %v", err), nil
	}
	pins := info.Pins
	info.Pins = nil
	var b strings.Builder
	writeJSONLine(&b, info)
	for _, p := range pins {
		writeJSONLine(&b, p)
	}
	return Result{Text: b.String()}, nil
}

type draftSchematicTool struct{}

func (draftSchematicTool) Spec() llm.Tool { return draftSchematicSpec }
func (draftSchematicTool) Mutating() bool { return true }

func (draftSchematicTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[draftSchematicArgs]("draft_schematic", raw)
	if bad != nil {
		return *bad, nil
	}
	p, err := s.resolvePath(a.Intent)
	if err != nil {
		return Errorf("draft_schematic: %v", err), nil
	}
	in, err := draft.ReadIntent(p.Abs)
	if err != nil {
		return Errorf("draft_schematic: %s", s.scrub(err.Error())), nil
	}
	w, err := draft.WriteSchematic(in, p.Rel, draft.SheetDir(s.Repo, s.Config), a.Force, draft.Options{BOM: draft.BOMValues(s.Repo, s.Config)})
	if err != nil {
		var fe *draft.FindingsError
		if errors.As(err, &fe) {
			var b strings.Builder
			fmt.Fprintf(&b, "draft_schematic: %s in %s; nothing written. Fix the intent (edit_file) and call again:\n", plural(len(fe.Findings), "problem", "problems"), p.Rel)
			for _, f := range fe.Findings {
				b.WriteString("- " + f.String() + "\n")
			}
			return Result{Text: b.String(), IsError: true}, nil
		}
		return Errorf("draft_schematic: %s", s.scrub(err.Error())), nil
	}
	rel := func(abs string) string { r, _ := inside(filepath.Clean(s.Repo), filepath.Clean(abs)); return r }
	if w.Unchanged {
		return Result{Text: fmt.Sprintf("draft_schematic: %s already holds exactly this draft; nothing changed.", rel(w.Path))}, nil
	}
	changed := []string{rel(w.Path)}
	if w.Project != "" {
		changed = append(changed, rel(w.Project))
	}
	// PINOUT.md is as-built fact: when the repo has none yet, it is
	// generated from KiCad's netlist of the new sheet, as init would.
	pinout := s.Config.DocPath(design.PinoutDoc)
	pinoutAbs := filepath.Join(s.Repo, filepath.FromSlash(pinout))
	wrotePinout := false
	if _, err := os.Stat(pinoutAbs); errors.Is(err, fs.ErrNotExist) && s.KiCad != nil {
		nl, err := s.KiCad.Netlist(ctx, w.Path)
		if err != nil {
			return Result{Text: fmt.Sprintf("draft_schematic: drew %s, but kicad-cli could not export its netlist: %s", changed[0], s.scrub(err.Error())), IsError: true, Changed: changed}, nil
		}
		if err := os.MkdirAll(filepath.Dir(pinoutAbs), 0o755); err == nil {
			if err := s.writeFile(pinoutAbs, design.GeneratePinout(in.Project, nl)); err != nil {
				return Result{Text: fmt.Sprintf("draft_schematic: drew %s, but could not write %s: %s", changed[0], pinout, s.scrub(err.Error())), IsError: true, Changed: changed}, nil
			}
			changed = append(changed, pinout)
			wrotePinout = true
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "draft_schematic: drew %s: %d parts (%d units), %d nets on %s; %d labels, %d power ports, %d no-connects",
		changed[0], w.Parts, w.Units, w.Nets, w.Paper, w.Labels, w.PowerPorts, w.NoConnects)
	if len(w.PowerFlags) > 0 {
		fmt.Fprintf(&b, "; PWR_FLAG on %s", strings.Join(w.PowerFlags, ", "))
	}
	b.WriteString(".")
	if wrotePinout {
		fmt.Fprintf(&b, " Wrote %s from KiCad's netlist of the new sheet (edit its Notes column freely).", pinout)
	}
	if _, err := os.Stat(w.Path); err != nil {
		return Errorf("draft_schematic: %s", s.scrub(err.Error())), nil
	}
	return Result{Text: b.String(), Changed: changed}, nil
}
