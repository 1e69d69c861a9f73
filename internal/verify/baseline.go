package verify

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"

	"copperhead/internal/design"
	"copperhead/internal/kicadcli"
	"copperhead/internal/textfmt"
)

// Baseline states of a finding under check --baseline.
const (
	StateNew      = "new"      // not present at the baseline revision: it fails its gate
	StateExisting = "existing" // present at the baseline revision: reported, never failing
)

// BaselineInfo names the revision a check was compared against.
type BaselineInfo struct {
	Rev    string `json:"rev"`    // as the user named it ("HEAD", "main")
	Commit string `json:"commit"` // the full hash it resolved to
	// Cached says the revision's kicad-cli results all came from the cache.
	Cached bool `json:"cached"`
	// BoardUnchanged says the board, its design rules (.kicad_dru) and its
	// project file are byte for byte the revision's: DRC's design rule
	// violations and unconnected items cannot be new then, whatever KiCad
	// reports (its DRC leaves out one of several clearance violations
	// between the same items now and then). Parity issues, which depend on
	// the schematic, are still matched.
	BoardUnchanged bool `json:"board_unchanged"`
	// RenamedNets are the nets the working tree holds under a new name with
	// the very same pins as at the revision (netdiff's exact renames, set by
	// ApplyBaseline): an ERC/DRC violation naming one matches across the
	// rename.
	RenamedNets []NetRename `json:"renamed_nets,omitempty"`
}

// ApplyBaseline marks every ERC/DRC violation, drift mismatch and constraint
// violation of cur "new" or "existing" against base (the same checks run on
// the baseline revision) and recomputes the gates: only new findings fail.
// Sourcing and OpenSpec are left as they are: a part going obsolete or a spec
// that no longer validates is news whatever the baseline says.
//
// Matching is a multiset match: a finding is keyed by its kind (gate, rule),
// the items it names (references, pads, nets; numbers with a unit, such as a
// track's length or a clearance, removed) and its normalised description,
// never by position. Within one key, current and baseline findings are paired
// nearest first (same sheet, same item UUIDs, then distance), so a moved
// board still matches and 3 identical findings at the baseline against 4 now
// leaves exactly 1 new, the one farthest from any baseline one. bar is the
// severity at which a new ERC/DRC finding fails (warning under --strict).
//
// A net renamed since the baseline with the very same pins (the two sides'
// netlists, cur.Netlist and base.Netlist, compared by netdiff) is one net
// under two names: in ERC/DRC text its old name reads as its new one on both
// sides (netAliases), so renaming a net makes none of its violations new.
// A net whose pins changed too is not renamed: its violations are matched
// by name as before.
func ApplyBaseline(cur, base *Result, info BaselineInfo, bar kicadcli.Severity) {
	info.RenamedNets = exactRenames(base.Netlist, cur.Netlist)
	cur.Baseline = &info
	alias := newNetAliases(info.RenamedNets)
	markTool(&cur.ERC, &base.ERC, bar, false, alias)
	markTool(&cur.DRC, &base.DRC, bar, info.BoardUnchanged, alias)

	dk := func(m design.Mismatch) finding { return finding{key: MismatchKey(m)} }
	states := matchStates(mapSlice(cur.Drift.Mismatches, dk), mapSlice(base.Drift.Mismatches, dk))
	cur.Drift.OK = true
	for i := range cur.Drift.Mismatches {
		cur.Drift.Mismatches[i].BaselineState = states[i]
		if states[i] == StateNew {
			cur.Drift.OK = false
		}
	}

	ck := func(v design.ConstraintViolation) finding { return finding{key: ConstraintKey(v)} }
	states = matchStates(mapSlice(cur.Constraints.Violations, ck), mapSlice(base.Constraints.Violations, ck))
	cur.Constraints.OK = true
	for i := range cur.Constraints.Violations {
		cur.Constraints.Violations[i].BaselineState = states[i]
		if states[i] == StateNew {
			cur.Constraints.OK = false
		}
	}
	cur.OK = cur.ERC.OK && cur.DRC.OK && cur.Drift.OK && cur.Constraints.OK && cur.OpenSpec.OK && cur.Sourcing.OK
}

// markTool marks one ERC or DRC gate group by group (a violation never
// matches an unconnected item or a parity issue) and recomputes its OK.
// With boardSame, violations and unconnected items are all existing; alias
// rewrites renamed nets in both sides' keys.
func markTool(cur, base *ToolGate, bar kicadcli.Severity, boardSame bool, alias *netAliases) {
	if cur.Skipped != "" {
		return
	}
	limit := max(rank(bar), 1)
	cur.OK = true
	for _, g := range []struct {
		cur, base []kicadcli.Violation
		same      bool
	}{
		{cur.Violations, base.Violations, boardSame},
		{cur.Unconnected, base.Unconnected, boardSame},
		{cur.Parity, base.Parity, false},
	} {
		key := func(v kicadcli.Violation) finding { return violationFinding(v, alias) }
		states := matchStates(mapSlice(g.cur, key), mapSlice(g.base, key))
		if g.same {
			for i := range states {
				states[i] = StateExisting
			}
		}
		for i := range g.cur {
			g.cur[i].BaselineState = states[i]
			if states[i] == StateNew && rank(g.cur[i].Severity) >= limit {
				cur.OK = false
			}
		}
	}
}

// rank orders severities as kicadcli does: error 2, warning 1, others 0.
func rank(s kicadcli.Severity) int {
	switch s {
	case kicadcli.SeverityError:
		return 2
	case kicadcli.SeverityWarning:
		return 1
	}
	return 0
}

// BaselineCounts tallies a gate's counted findings (violations, unconnected
// items, parity issues) by baseline state.
func (g ToolGate) BaselineCounts() (newCount, existing int) {
	for _, group := range [][]kicadcli.Violation{g.Violations, g.Unconnected, g.Parity} {
		for _, v := range group {
			switch v.BaselineState {
			case StateNew:
				newCount++
			case StateExisting:
				existing++
			}
		}
	}
	return newCount, existing
}

// ViolationKey is what an ERC/DRC violation is matched by across
// revisions: its rule, normalised description and the normalised, sorted
// descriptions of its items (references, pads, nets). Positions and UUIDs
// are not in it.
func ViolationKey(v kicadcli.Violation) string { return violationFinding(v, nil).key }

// MismatchKey is what a drift mismatch is matched by: kind, doc, refdes,
// pin, field, cause, and the claim and actual values.
func MismatchKey(m design.Mismatch) string {
	return strings.Join([]string{string(m.Kind), m.Doc, m.Refdes, m.Pin, m.Field, m.Cause,
		normText(m.Claim), normText(m.Actual)}, "\x00")
}

// ConstraintKey is what a constraint violation is matched by: kind, key,
// source and the normalised message.
func ConstraintKey(v design.ConstraintViolation) string {
	return strings.Join([]string{v.Kind, v.Key, v.Source, normText(v.Message)}, "\x00")
}

// finding is what matching compares: the key must be equal; the rest only
// chooses between equal keys.
type finding struct {
	key   string
	sheet string
	uuids string
	x, y  float64
}

// violationFinding is v's finding, its net names rewritten by alias (nil
// for none).
func violationFinding(v kicadcli.Violation, alias *netAliases) finding {
	items := make([]string, 0, len(v.Items))
	uuids := make([]string, 0, len(v.Items))
	for _, it := range v.Items {
		items = append(items, normText(alias.rewrite(it.Description, v.Sheet)))
		uuids = append(uuids, it.UUID)
	}
	// KiCad names the two sides of a clearance in either order.
	slices.Sort(items)
	slices.Sort(uuids)
	return finding{
		key:   v.Type + "\x00" + normText(alias.rewrite(v.Description, v.Sheet)) + "\x00" + strings.Join(items, "\x00"),
		sheet: v.Sheet,
		uuids: strings.Join(uuids, " "),
		x:     v.Pos.X, y: v.Pos.Y,
	}
}

// measure is a number with a unit in KiCad's text ("length 1.0607 mm",
// "actual 0.4528 mm", "12.5 mil", "45°"): it changes when a track or part
// moves, which must not make an old violation new. Reference designators
// and pad numbers carry no unit and stay.
var measure = regexp.MustCompile(`-?\d+(?:\.\d+)?\s*(?:mm|mils?|in|µm|um|nm|deg|°)`)

// normText is s with measures replaced and whitespace collapsed.
func normText(s string) string {
	return textfmt.OneLine(measure.ReplaceAllString(s, "#"))
}

// matchStates pairs cur with base, key by key, nearest pairs first, and
// says for each cur whether it was paired ("existing") or not ("new").
func matchStates(cur, base []finding) []string {
	states := make([]string, len(cur))
	for i := range states {
		states[i] = StateNew
	}
	byKey := map[string][]int{}
	for j, b := range base {
		byKey[b.key] = append(byKey[b.key], j)
	}
	type pair struct {
		i, j int
		cost float64
	}
	groups := map[string][]int{}
	for i, c := range cur {
		if len(byKey[c.key]) > 0 {
			groups[c.key] = append(groups[c.key], i)
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		is, js := groups[k], byKey[k]
		var pairs []pair
		for _, i := range is {
			for _, j := range js {
				pairs = append(pairs, pair{i, j, pairCost(cur[i], base[j])})
			}
		}
		slices.SortStableFunc(pairs, func(a, b pair) int {
			return cmp.Or(cmp.Compare(a.cost, b.cost), cmp.Compare(a.i, b.i), cmp.Compare(a.j, b.j))
		})
		usedBase := map[int]bool{}
		for _, p := range pairs {
			if states[p.i] == StateExisting || usedBase[p.j] {
				continue
			}
			states[p.i] = StateExisting
			usedBase[p.j] = true
		}
	}
	return states
}

// pairCost prefers the same sheet, then the same items, then the nearest.
func pairCost(a, b finding) float64 {
	c := math.Hypot(a.x-b.x, a.y-b.y)
	if a.sheet != b.sheet {
		c += 1e9
	}
	if a.uuids != b.uuids {
		c += 1e6
	}
	return c
}

func mapSlice[T, U any](s []T, f func(T) U) []U {
	out := make([]U, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}
