package terms

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Quantity is a number as a text states it: with its unit ("0.2 mm",
// "25 µA", "50%", "8 KB", "64-bit", "3 years") or bare ("255", "-128").
type Quantity struct {
	Value string // the number, normalized: decimal comma to point, thousands separators and leading zeros dropped
	Unit  string // canonical unit ("%", "kB", "bit", "year", ...); "" for a bare number
	Text  string // the matched text
}

// numberRE finds a number; quantityAt decides whether it is one (not part of
// an identifier such as int8, go1.21 or RS-274X) and reads its unit.
var numberRE = regexp.MustCompile(`-?\d+(?:,\d{3})+(?:\.\d+)?|-?\d+(?:[.,]\d+)?`)

// unitRE matches a unit right after a number (optionally after one space
// or a hyphen: "8 KB", "64-bit", "3 years", "20 percent").
var unitRE = regexp.MustCompile(`^(?:\s|-)?(%|percent\b|per cent\b|°C|°F|(?i:KiB|MiB|GiB|TiB|kB|KB|MB|GB|TB|PB)\b|bytes?\b|bits?\b|[kMGTmuµnp]?(?:V|A|W|Hz|Ω|F|H|B|g|m|s)\b|mm\b|cm\b|km\b|mils?\b|ppm\b|dBm?\b|oz\b|ms\b|µs\b|us\b|ns\b|(?:year|month|week|day|hour|minute|second|millisecond|microsecond|nanosecond|layer|core|thread|page|line|character|file|time|step|level|digit|column|row|entrie|item|argument|goroutine)s?\b|entry\b)`)

// canonicalUnit folds a unit's spellings together ("percent" is "%",
// "bytes" is "B", "KB" is "kB", "years" is "year").
func canonicalUnit(u string) string {
	u = strings.TrimLeft(u, " -\t\n")
	switch lu := strings.ToLower(u); lu {
	case "percent", "per cent", "%":
		return "%"
	case "byte", "bytes":
		return "B"
	case "bit", "bits":
		return "bit"
	case "kib", "mib", "gib", "tib":
		return strings.ToUpper(lu[:1]) + "iB"
	case "kb":
		return "kB"
	case "mb", "gb", "tb", "pb":
		return strings.ToUpper(lu)
	case "us":
		return "µs"
	case "entry", "entries":
		return "entry"
	}
	if strings.HasSuffix(u, "s") && len(u) > 3 && unicode.IsLower(rune(u[0])) && u != "ms" && u != "µs" && u != "ns" {
		return strings.TrimSuffix(u, "s")
	}
	return u
}

// Quantities returns every quantity in s, in order: numbers with or
// without a unit, each end of a range ("0 to 255", "-128 to 127") on its
// own. Digits inside a word (int8, go1.21, RS-274X, sha256) are not
// quantities.
func Quantities(s string) []Quantity {
	var out []Quantity
	for _, m := range numberRE.FindAllStringIndex(s, -1) {
		start, end := m[0], m[1]
		if s[start] == '-' && start > 0 {
			// A hyphen after a word or digit joins ("RS-274", "2024-03"),
			// it is not a minus sign.
			if r, _ := utf8.DecodeLastRuneInString(s[:start]); unicode.IsLetter(r) || unicode.IsDigit(r) {
				start++
			}
		}
		if start > 0 {
			r, _ := utf8.DecodeLastRuneInString(s[:start])
			if unicode.IsLetter(r) || r == '_' || (r == '.' && start > 1 && isDigitBefore(s, start-1)) {
				continue
			}
		}
		unit := ""
		text := s[start:end]
		if u := unitRE.FindString(s[end:]); u != "" {
			unit = canonicalUnit(u)
			text = s[start : end+len(u)]
		} else if end < len(s) {
			if r, _ := utf8.DecodeRuneInString(s[end:]); unicode.IsLetter(r) || r == '_' {
				continue // "274X", "2K", "3x": an identifier or a size we do not parse
			}
		}
		out = append(out, Quantity{Value: normalizeNumber(s[start:end]), Unit: unit, Text: text})
	}
	return out
}

func isDigitBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsDigit(r)
}

var thousands = regexp.MustCompile(`^\d{1,3}(,\d{3})+(\.\d+)?$`)

// normalizeNumber makes "1,5" and "1.5", "4,294,967,295" and "4294967295",
// "0.50" and "0.5" the same value.
func normalizeNumber(n string) string {
	neg := strings.HasPrefix(n, "-")
	n = strings.TrimPrefix(n, "-")
	if thousands.MatchString(n) {
		n = strings.ReplaceAll(n, ",", "")
	} else {
		n = strings.ReplaceAll(n, ",", ".")
	}
	if f, err := strconv.ParseFloat(n, 64); err == nil && len(n) < 16 {
		n = strconv.FormatFloat(f, 'f', -1, 64)
	} else {
		n = strings.TrimLeft(n, "0")
		if n == "" || n[0] == '.' {
			n = "0" + n
		}
	}
	if neg && n != "0" {
		n = "-" + n
	}
	return n
}

// HasQuantity reports whether s states q: the same value with the same
// unit (spacing and spelling aside: "8KB" states "8 kB", "20%" states "20
// percent"); a bare number is stated by the same value with any unit.
func HasQuantity(s string, q Quantity) bool {
	for _, got := range Quantities(s) {
		if got.Value == q.Value && (q.Unit == "" || got.Unit == q.Unit) {
			return true
		}
	}
	return false
}
