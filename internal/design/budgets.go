package design

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// BudgetsHeading is the SPEC.md section holding the budget lines.
const BudgetsHeading = "Budgets"

// SpecBudgets is what the ## Budgets section of SPEC.md declares.
type SpecBudgets struct {
	Section   bool               // the doc has a "## Budgets" heading
	Values    map[string]float64 // key -> number, from lines "- <key>: <number>"
	Malformed []string           // list items that do not follow the format, or repeat a key
}

// budgetLine is the one accepted budget line format: a list item whose first
// line is <key>: <number>, optionally followed by a space and a comment.
// <key> is [A-Za-z0-9_.-]+ (backslash escapes allowed) or any text in
// backticks; <number> is a decimal literal that strconv.ParseFloat reads.
var budgetLine = regexp.MustCompile("^(?:`([^`]+)`|([A-Za-z0-9_.\\\\-]+))[ \t]*:[ \t]*([-+]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?)(?:[ \t]+.*)?$")

var plainBudgetKey = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// ParseBudgets reads every "## Budgets" section of a SPEC.md. A section runs to
// the next heading of level 1 or 2; only list items directly in it count
// (nested bullets and prose are free). See budgetLine for the item format.
func ParseBudgets(spec []byte) SpecBudgets {
	out := SpecBudgets{Values: map[string]float64{}}
	root := parseMarkdown(spec)
	in := false
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			if h.Level <= 2 {
				in = h.Level == 2 && strings.EqualFold(cellText(h, spec), BudgetsHeading)
				out.Section = out.Section || in
			}
			continue
		}
		list, ok := n.(*ast.List)
		if !in || !ok {
			continue
		}
		for item := list.FirstChild(); item != nil; item = item.NextSibling() {
			first := item.FirstChild()
			if first == nil || first.Lines().Len() == 0 {
				continue
			}
			seg := first.Lines().At(0)
			line := strings.TrimSpace(string(seg.Value(spec)))
			m := budgetLine.FindStringSubmatch(line)
			if m == nil {
				out.Malformed = append(out.Malformed, line)
				continue
			}
			key := m[1]
			if key == "" {
				key = string(unescapeInline([]byte(m[2])))
			}
			v, err := strconv.ParseFloat(m[3], 64)
			if _, dup := out.Values[key]; dup || err != nil {
				out.Malformed = append(out.Malformed, line)
				continue
			}
			out.Values[key] = v
		}
	}
	return out
}

// BudgetLine renders one budget as SPEC.md writes it: "- sleep_current_uA: 25".
// Keys outside [A-Za-z0-9_.-] are wrapped in backticks so they read back.
func BudgetLine(key string, value float64) string {
	if !plainBudgetKey.MatchString(key) {
		key = "`" + key + "`"
	}
	return "- " + key + ": " + formatNumber(value)
}

// formatNumber writes the shortest decimal that reads back as v, without an
// exponent for everyday magnitudes (25, 0.5, 3300000).
func formatNumber(v float64) string {
	if v != 0 && (v < 1e-6 && v > -1e-6 || v >= 1e21 || v <= -1e21) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
