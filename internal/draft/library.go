package draft

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"copperhead/internal/kicad/kigen"
)

// SymbolHit is one library symbol a search found.
type SymbolHit struct {
	LibID       string `json:"lib_id"`
	Description string `json:"description,omitempty"`
	Keywords    string `json:"keywords,omitempty"`
	Footprint   string `json:"footprint,omitempty"`
}

var (
	symHeadRE = regexp.MustCompile(`(?m)^\t\(symbol "([^"]+)"`)
	propRE    = regexp.MustCompile(`\(property "(Description|ki_keywords|Footprint)"\s+"((?:[^"\\]|\\.)*)"`)
)

// symbolText is one top-level symbol of a .kicad_sym: its name and its text
// up to the next top-level symbol.
type symbolText struct {
	name string
	body []byte
}

// topSymbols splits a KiCad-written .kicad_sym at its top-level symbols
// (one tab deep; unit sub-symbols are deeper), reading text, not parsing:
// a library file can be megabytes and only names and a few properties are
// wanted.
func topSymbols(data []byte) []symbolText {
	heads := symHeadRE.FindAllSubmatchIndex(data, -1)
	out := make([]symbolText, 0, len(heads))
	for i, h := range heads {
		end := len(data)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		out = append(out, symbolText{name: string(data[h[2]:h[3]]), body: data[h[1]:end]})
	}
	return out
}

// SearchSymbols finds installed library symbols whose library id,
// description or keywords contain every word of query (case-insensitive),
// best first: id matches before description matches, shorter ids first. It
// scans the library files' text, so it costs one read of each file.
func SearchSymbols(lib *kigen.Library, query string, limit int) ([]SymbolHit, error) {
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 0 {
		return nil, fmt.Errorf("search_symbols needs a query, e.g. \"LDO 3.3V SOT-23\"")
	}
	files, err := filepath.Glob(filepath.Join(lib.SymDir, "*.kicad_sym"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no symbol libraries in %s", lib.SymDir)
	}
	sort.Strings(files)
	type scored struct {
		hit   SymbolHit
		score int
	}
	var hits []scored
	for _, f := range files {
		nick := strings.TrimSuffix(filepath.Base(f), ".kicad_sym")
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, t := range topSymbols(data) {
			hit := SymbolHit{LibID: nick + ":" + t.name}
			for _, m := range propRE.FindAllSubmatch(t.body, -1) {
				switch string(m[1]) {
				case "Description":
					hit.Description = string(m[2])
				case "ki_keywords":
					hit.Keywords = string(m[2])
				case "Footprint":
					hit.Footprint = string(m[2])
				}
			}
			id := strings.ToLower(hit.LibID)
			text := id + " " + strings.ToLower(hit.Description+" "+hit.Keywords)
			score := 0
			all := true
			for _, w := range words {
				switch {
				case strings.Contains(id, w):
					score += 2
				case strings.Contains(text, w):
					score++
				default:
					all = false
				}
			}
			if all {
				hits = append(hits, scored{hit, score})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return len(hits[i].hit.LibID) < len(hits[j].hit.LibID)
	})
	out := make([]SymbolHit, 0, min(len(hits), limit))
	for i := 0; i < len(hits) && i < limit; i++ {
		out = append(out, hits[i].hit)
	}
	return out, nil
}

// SymbolPin is one pin as symbol_pins reports it.
type SymbolPin struct {
	Number string `json:"number"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	Unit   int    `json:"unit,omitempty"` // 0: common to every unit
	Hidden bool   `json:"hidden,omitempty"`
}

// SymbolInfo is a library symbol's pins and defaults, what an intent needs.
type SymbolInfo struct {
	LibID       string      `json:"lib_id"`
	Description string      `json:"description,omitempty"`
	Reference   string      `json:"reference_prefix"`
	Value       string      `json:"value"`
	Footprint   string      `json:"footprint,omitempty"`
	Units       int         `json:"units"`
	Power       bool        `json:"power,omitempty"`
	Pins        []SymbolPin `json:"pins"`
}

// LookupSymbol loads one library symbol's pins (extends resolved); a miss
// names the closest libraries or symbols.
func LookupSymbol(lib *kigen.Library, libID string) (*SymbolInfo, error) {
	s, err := lookupSymbol(lib, libID)
	if err != nil {
		return nil, err
	}
	info := &SymbolInfo{LibID: libID, Description: propValue(s, "Description"), Reference: strings.TrimRight(propValue(s, "Reference"), "?"),
		Value: propValue(s, "Value"), Footprint: propValue(s, "Footprint"), Units: len(symbolUnits(s)), Power: s.Power}
	seen := map[string]bool{}
	for _, p := range s.Pins {
		if seen[p.Number] {
			continue
		}
		seen[p.Number] = true
		info.Pins = append(info.Pins, SymbolPin{Number: p.Number, Name: p.Name, Type: p.Type, Unit: p.Unit, Hidden: p.Hidden})
	}
	slices.SortStableFunc(info.Pins, func(a, b SymbolPin) int { return a.Unit - b.Unit })
	return info, nil
}
