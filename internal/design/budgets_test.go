package design

import (
	"math"
	"reflect"
	"testing"
)

func TestParseBudgets(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want SpecBudgets
	}{
		{
			name: "generated format",
			doc:  "# S\n\n## Budgets\n\nProse with - dashes: 5.\n\n- sleep_current_uA: 25\n- battery_life_days: 365.5\n",
			want: SpecBudgets{Section: true, Values: map[string]float64{"sleep_current_uA": 25, "battery_life_days": 365.5}},
		},
		{
			name: "comments, backticks, star bullets, exponent, sign",
			doc:  "## budgets\n\n* `sleep current uA`: 25 uA (ASSUMED)\n* leak_nA:1e3\n* offset_mV: -0.5 — trimmed\n* v: .5\n",
			want: SpecBudgets{Section: true, Values: map[string]float64{"sleep current uA": 25, "leak_nA": 1000, "offset_mV": -0.5, "v": 0.5}},
		},
		{
			name: "section ends at next h2, h3 stays inside, nested bullets ignored",
			doc:  "## Budgets\n\n- a: 1\n  - nested: 9\n\n### Power\n\n- b: 2\n\n## Other\n\n- c: 3\n",
			want: SpecBudgets{Section: true, Values: map[string]float64{"a": 1, "b": 2}},
		},
		{
			name: "malformed and duplicate lines",
			doc:  "## Budgets\n\n- a: 1\n- a: 2\n- b: lots\n- c: 1,000\n- just words\n- d:25uA\n",
			want: SpecBudgets{Section: true, Values: map[string]float64{"a": 1}, Malformed: []string{"a: 2", "b: lots", "c: 1,000", "just words", "d:25uA"}},
		},
		{
			name: "escaped underscore key",
			doc:  "## Budgets\n\n- sleep\\_current\\_uA: 25\n",
			want: SpecBudgets{Section: true, Values: map[string]float64{"sleep_current_uA": 25}},
		},
		{
			name: "no section",
			doc:  "# S\n\n- a: 1\n",
			want: SpecBudgets{Values: map[string]float64{}},
		},
		{
			name: "h1 budgets is not the section",
			doc:  "# Budgets\n\n- a: 1\n",
			want: SpecBudgets{Values: map[string]float64{}},
		},
		{
			name: "empty section",
			doc:  "## Budgets\n\nNone yet.\n",
			want: SpecBudgets{Section: true, Values: map[string]float64{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseBudgets([]byte(tt.doc)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestBudgetLineRoundTrip(t *testing.T) {
	tests := []struct {
		key   string
		value float64
		line  string
	}{
		{"sleep_current_uA", 25, "- sleep_current_uA: 25"},
		{"ratio", 0.125, "- ratio: 0.125"},
		{"big", 3.3e6, "- big: 3300000"},
		{"tiny", 1e-9, "- tiny: 1e-09"},
		{"neg", -5, "- neg: -5"},
		{"with space", 1, "- `with space`: 1"},
		{"power.sleep_uA", 2, "- power.sleep_uA: 2"},
		{"huge", math.MaxFloat64, "- huge: 1.7976931348623157e+308"},
	}
	for _, tt := range tests {
		line := BudgetLine(tt.key, tt.value)
		if line != tt.line {
			t.Errorf("BudgetLine(%q, %v) = %q, want %q", tt.key, tt.value, line, tt.line)
		}
		got := ParseBudgets([]byte("## Budgets\n\n" + line + "\n"))
		if v, ok := got.Values[tt.key]; !ok || v != tt.value {
			t.Errorf("%q reads back as %v", line, got)
		}
	}
}
