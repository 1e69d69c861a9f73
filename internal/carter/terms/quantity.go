package terms

import (
	"regexp"
	"strings"
)

// Quantity is a number with its unit as written ("0.2 mm", "25 µA", "50%").
type Quantity struct {
	Value string // the digits as written, decimal comma turned into a point
	Unit  string
	Text  string // the matched text
}

// quantityRE matches a number followed by a unit. The unit list covers the
// electronics and computing units briefs quote; a number without a unit
// (a year, a section number) is not a quantity.
var quantityRE = regexp.MustCompile(`(\d+(?:[.,]\d+)?)\s?(%|°C|°F|[kMGTmuµnp]?(?:V|A|W|Hz|Ω|F|H|B|g|m|s)\b|mm\b|mils?\b|KiB\b|MiB\b|GiB\b|kB\b|ppm\b|dB\b|dBm\b|oz\b|days?\b|hours?\b|minutes?\b|seconds?\b|layers?\b|bits?\b|ohms?\b)`)

// Quantities returns every number-with-unit in s, in order.
func Quantities(s string) []Quantity {
	var out []Quantity
	for _, m := range quantityRE.FindAllStringSubmatch(s, -1) {
		out = append(out, Quantity{Value: strings.ReplaceAll(m[1], ",", "."), Unit: m[2], Text: m[0]})
	}
	return out
}

// HasQuantity reports whether s states q: the same value and unit, with or
// without a space between them.
func HasQuantity(s string, q Quantity) bool {
	for _, got := range Quantities(s) {
		if got.Value == q.Value && got.Unit == q.Unit {
			return true
		}
	}
	return false
}
