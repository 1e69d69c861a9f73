package kicadcli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"copperhead/internal/kicad"
	"copperhead/internal/textfmt"
)

// Severity is KiCad's severity of a violation: "error" or "warning" (KiCad
// also knows "info", "action", "exclusion" and "ignore"; the first two never
// fail a check, and exclusions are filed under Report.Excluded).
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// rank orders severities for failing and sorting; 0 never fails.
func (s Severity) rank() int {
	switch s {
	case SeverityError:
		return 2
	case SeverityWarning:
		return 1
	}
	return 0
}

// Violation is one ERC or DRC finding, normalized from kicad-cli's JSON.
// Positions are always millimetres in page/board coordinates.
type Violation struct {
	Severity    Severity       `json:"severity"`
	Type        string         `json:"type"`        // KiCad's rule key, e.g. "pin_not_connected", "clearance"
	Description string         `json:"description"` // KiCad's text for the rule
	Sheet       string         `json:"sheet"`       // ERC: sheet instance path ("/", "/Power/"); DRC: ""
	Pos         kicad.Point    `json:"pos_mm"`      // the marker: the first item's position
	Items       []AffectedItem `json:"items"`       // in KiCad's order (main item first)
	// BaselineState is "new" or "existing" when check compares against a
	// baseline revision (verify.ApplyBaseline); "" (left out) otherwise.
	BaselineState string `json:"baseline_state,omitempty"`
}

// AffectedItem is one schematic or board object a violation points at.
type AffectedItem struct {
	Description string      `json:"description"` // e.g. "Symbol J1 [DB9]", "Pad 2 [GND] of C3 on F.Cu"
	UUID        string      `json:"uuid"`
	Pos         kicad.Point `json:"pos_mm"`
}

// Report is one ERC or DRC run, its violations sorted into groups that mean
// different things to a check:
//
//   - Violations: design rule violations (ERC, or DRC's "violations").
//   - Unconnected: DRC ratsnest lines, connections the board still lacks.
//   - Parity: DRC schematic-parity issues (board and schematic disagree).
//   - Environment: violations caused by the host's libraries, not the design
//     (see environmentTypes); reported, never failing a check.
//   - Excluded: violations the project excludes in its .kicad_pro; reported,
//     never failing a check.
//
// Every group is sorted deterministically (KiCad's DRC order varies from run
// to run), and never nil, so the JSON is byte-identical for the same design.
type Report struct {
	Tool         string      `json:"tool"`          // "erc" or "drc"
	Source       string      `json:"source"`        // the checked file, as the caller named it
	KiCadVersion string      `json:"kicad_version"` // of the kicad-cli that made the report
	Violations   []Violation `json:"violations"`
	Unconnected  []Violation `json:"unconnected"`
	Parity       []Violation `json:"parity"`
	Environment  []Violation `json:"environment"`
	Excluded     []Violation `json:"excluded"`
	// Notes is what kicad-cli said on stderr while producing the report,
	// e.g. "Failed to fetch schematic netlist for parity tests." (DRC then
	// reports no parity issues because it checked none).
	Notes []string `json:"notes,omitempty"`
	// Cached says the report was reused from the cache instead of running
	// kicad-cli. It is run metadata, kept out of the JSON so that checking
	// the same design twice yields byte-identical output.
	Cached bool `json:"-"`
}

// Counts tallies a report by what it means for a check.
type Counts struct {
	Errors      int `json:"errors"`      // severity error in Violations, Unconnected and Parity
	Warnings    int `json:"warnings"`    // severity warning in the same groups
	Environment int `json:"environment"` // len(Environment)
	Excluded    int `json:"excluded"`    // len(Excluded)
}

// Counts tallies the report.
func (r *Report) Counts() Counts {
	c := Counts{Environment: len(r.Environment), Excluded: len(r.Excluded)}
	for _, v := range r.counted() {
		switch v.Severity {
		case SeverityError:
			c.Errors++
		case SeverityWarning:
			c.Warnings++
		}
	}
	return c
}

// Breakdown words the findings that can fail a check (the violations,
// unconnected items and parity issues of a report, or of a gate holding
// them) so that no count reads as adding to another: one count per
// severity, every group included, followed by the unconnected items and
// parity issues inside it: "3 errors (2 unconnected), 18 warnings (5
// parity)". Errors come first, then warnings, then any other severity KiCad
// used ("1 info"). Empty when there are none. The error and warning counts
// are Counts' own.
func Breakdown(violations, unconnected, parity []Violation) string {
	type tally struct{ all, unconnected, parity int }
	by := map[Severity]*tally{}
	add := func(vs []Violation, in func(*tally) *int) {
		for _, v := range vs {
			t := by[v.Severity]
			if t == nil {
				t = &tally{}
				by[v.Severity] = t
			}
			t.all++
			if in != nil {
				*in(t)++
			}
		}
	}
	add(violations, nil)
	add(unconnected, func(t *tally) *int { return &t.unconnected })
	add(parity, func(t *tally) *int { return &t.parity })
	sevs := slices.Collect(maps.Keys(by))
	slices.SortFunc(sevs, func(a, b Severity) int {
		return cmp.Or(cmp.Compare(b.rank(), a.rank()), strings.Compare(string(a), string(b)))
	})
	var parts []string
	for _, sev := range sevs {
		t := by[sev]
		var word string
		switch sev {
		case SeverityError, SeverityWarning:
			word = textfmt.Count(t.all, string(sev))
		default:
			word = fmt.Sprintf("%d %s", t.all, cmp.Or(string(sev), "unrated"))
		}
		var inside []string
		if t.unconnected > 0 {
			inside = append(inside, fmt.Sprintf("%d unconnected", t.unconnected))
		}
		if t.parity > 0 {
			inside = append(inside, fmt.Sprintf("%d parity", t.parity))
		}
		if len(inside) > 0 {
			word += " (" + strings.Join(inside, ", ") + ")"
		}
		parts = append(parts, word)
	}
	return strings.Join(parts, ", ")
}

// Failed reports whether the report fails a check at the default bar: any
// design violation, unconnected item or parity issue of severity error.
// Warnings are reported but do not fail; environment and excluded
// violations never do. Use FailedAt(SeverityWarning) for a strict check.
func (r *Report) Failed() bool { return r.FailedAt(SeverityError) }

// FailedAt reports whether any design violation, unconnected item or parity
// issue is at least as severe as bar; a bar below warning acts as warning,
// because severities other than error and warning never fail.
func (r *Report) FailedAt(bar Severity) bool {
	limit := max(bar.rank(), 1)
	for _, v := range r.counted() {
		if v.Severity.rank() >= limit {
			return true
		}
	}
	return false
}

// counted lists the violations that can fail a check.
func (r *Report) counted() []Violation {
	return slices.Concat(r.Violations, r.Unconnected, r.Parity)
}

// environmentTypes are the rules that fire when the host lacks (or has
// different versions of) the libraries a design was drawn with: the design
// did not change, the machine did. They never fail a check by themselves.
var environmentTypes = map[string]bool{
	"lib_symbol_issues":      true, // symbol's library not found in the library table
	"lib_symbol_mismatch":    true, // symbol differs from the library's copy
	"footprint_link_issues":  true, // assigned footprint not found in the libraries
	"lib_footprint_issues":   true, // footprint's library not found
	"lib_footprint_mismatch": true, // footprint differs from the library's copy
}

// ercScale converts kicad-cli's ERC JSON positions to millimetres. kicad-cli
// 9 (and 10, by public reports) writes them 100 times too small despite
// "coordinate_units": "mm": it converts schematic units (100 nm) with the
// board's scale (1 nm). TestERCPositions pins this against a symbol's known
// position, so a kicad-cli that fixes the bug fails loudly there.
const ercScale = 100

// rawReport is the union of kicad-cli's ERC (erc.v1.json) and DRC
// (drc.v1.json) report shapes.
type rawReport struct {
	KiCadVersion    string `json:"kicad_version"`
	CoordinateUnits string `json:"coordinate_units"`
	Sheets          []struct {
		Path       string         `json:"path"`
		Violations []rawViolation `json:"violations"`
	} `json:"sheets"`
	Violations      []rawViolation `json:"violations"`
	Unconnected     []rawViolation `json:"unconnected_items"`
	SchematicParity []rawViolation `json:"schematic_parity"`
}

type rawViolation struct {
	Type        string `json:"type"`
	Description string `json:"description"`
	Severity    string `json:"severity"`
	Excluded    bool   `json:"excluded"`
	Items       []struct {
		Description string `json:"description"`
		UUID        string `json:"uuid"`
		Pos         struct {
			X float64 `json:"x"`
			Y float64 `json:"y"`
		} `json:"pos"`
	} `json:"items"`
}

// parseERC normalizes a kicad-cli `sch erc --format json --units mm` report.
func parseERC(data []byte, source string) (*Report, error) {
	raw, err := decodeReport(data, "ERC")
	if err != nil {
		return nil, err
	}
	r := newReport("erc", source, raw.KiCadVersion)
	for _, sh := range raw.Sheets {
		for _, rv := range sh.Violations {
			r.file(rv.normalize(sh.Path, ercScale, 1e4), &r.Violations, rv.Excluded)
		}
	}
	r.sort()
	return r, nil
}

// parseDRC normalizes a kicad-cli `pcb drc --format json --units mm` report.
func parseDRC(data []byte, source string) (*Report, error) {
	raw, err := decodeReport(data, "DRC")
	if err != nil {
		return nil, err
	}
	r := newReport("drc", source, raw.KiCadVersion)
	for _, group := range []struct {
		raw  []rawViolation
		into *[]Violation
	}{
		{raw.Violations, &r.Violations},
		{raw.Unconnected, &r.Unconnected},
		{raw.SchematicParity, &r.Parity},
	} {
		for _, rv := range group.raw {
			r.file(rv.normalize("", 1, 1e6), group.into, rv.Excluded)
		}
	}
	r.sort()
	return r, nil
}

func decodeReport(data []byte, kind string) (*rawReport, error) {
	var raw rawReport
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("read %s report: %w", kind, err)
	}
	if raw.CoordinateUnits != "" && raw.CoordinateUnits != "mm" {
		return nil, fmt.Errorf("read %s report: coordinate_units is %q, want \"mm\"", kind, raw.CoordinateUnits)
	}
	return &raw, nil
}

func newReport(tool, source, version string) *Report {
	return &Report{
		Tool: tool, Source: source, KiCadVersion: version,
		Violations: []Violation{}, Unconnected: []Violation{}, Parity: []Violation{},
		Environment: []Violation{}, Excluded: []Violation{},
	}
}

// file puts v in its group: exclusions first (the user's decision wins),
// then host-library noise, then the section KiCad reported it in.
func (r *Report) file(v Violation, section *[]Violation, excluded bool) {
	switch {
	case excluded || v.Severity == "exclusion":
		r.Excluded = append(r.Excluded, v)
	case environmentTypes[v.Type]:
		r.Environment = append(r.Environment, v)
	default:
		*section = append(*section, v)
	}
}

// normalize converts positions with scale and rounds them to grid (units
// per mm: KiCad's schematic resolution is 1e4, the board's 1e6), which also
// removes float noise from the scaling (0.3175*100 = 31.750000000000004).
func (rv rawViolation) normalize(sheet string, scale, grid float64) Violation {
	v := Violation{
		Severity:    Severity(rv.Severity),
		Type:        rv.Type,
		Description: rv.Description,
		Sheet:       sheet,
		Items:       make([]AffectedItem, 0, len(rv.Items)),
	}
	for _, it := range rv.Items {
		v.Items = append(v.Items, AffectedItem{
			Description: it.Description,
			UUID:        it.UUID,
			Pos: kicad.Point{
				X: math.Round(it.Pos.X*scale*grid) / grid,
				Y: math.Round(it.Pos.Y*scale*grid) / grid,
			},
		})
	}
	if len(v.Items) > 0 {
		v.Pos = v.Items[0].Pos
	}
	return v
}

// PlaceSheets files each violation under the sheet instance its main item is
// on. kicad-cli 9 files some ERC violations under the root "/" whatever
// sheet their item is drawn on (label_dangling and lib_symbol_issues in a
// sub-sheet, and only once for a sheet used several times): "on sheet /"
// would send a reader to the wrong page. sheetsOf lists the instances of
// the file declaring a UUID (kicad.Schematic.SheetsDeclaring); a violation
// whose sheet is one of them, or whose item no file declares, keeps its
// sheet. Of a file used several times, the next instance not yet given to
// that item is taken, so KiCad's one report per instance stays one each.
func (r *Report) PlaceSheets(sheetsOf func(uuid string) []string) {
	given := map[string]int{}
	for _, g := range [][]Violation{r.Violations, r.Unconnected, r.Parity, r.Environment, r.Excluded} {
		for i := range g {
			v := &g[i]
			if len(v.Items) == 0 || v.Items[0].UUID == "" {
				continue
			}
			paths := sheetsOf(v.Items[0].UUID)
			if len(paths) == 0 || slices.Contains(paths, v.Sheet) {
				continue
			}
			u := v.Items[0].UUID
			v.Sheet = paths[given[u]%len(paths)]
			given[u]++
		}
	}
	r.sort()
}

func (r *Report) sort() {
	for _, g := range [][]Violation{r.Violations, r.Unconnected, r.Parity, r.Environment, r.Excluded} {
		slices.SortStableFunc(g, compareViolations)
	}
}

// compareViolations orders violations most severe first, then by rule,
// sheet, position and text, with the items' UUIDs as the last word so the
// order is total.
func compareViolations(a, b Violation) int {
	return cmp.Or(
		cmp.Compare(b.Severity.rank(), a.Severity.rank()),
		strings.Compare(string(a.Severity), string(b.Severity)),
		strings.Compare(a.Type, b.Type),
		strings.Compare(a.Sheet, b.Sheet),
		cmp.Compare(a.Pos.Y, b.Pos.Y),
		cmp.Compare(a.Pos.X, b.Pos.X),
		strings.Compare(a.Description, b.Description),
		slices.CompareFunc(a.Items, b.Items, compareItems),
	)
}

func compareItems(a, b AffectedItem) int {
	return cmp.Or(
		strings.Compare(a.UUID, b.UUID),
		cmp.Compare(a.Pos.Y, b.Pos.Y),
		cmp.Compare(a.Pos.X, b.Pos.X),
		strings.Compare(a.Description, b.Description),
	)
}
