package terms

import (
	"strings"
	"testing"
)

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"overlaps": "overlap", "overlapping": "overlap", "overlapped": "overlap", "Footprints": "footprint",
		"libraries": "librari", "library": "librari", "classes": "class", "boxes": "box", "KiCad's": "kicad", "status": "status",
		"is": "is", "kicad-cli": "kicad-cli", "running": "run", "stored": "store", "store": "store", "handles": "handl",
		// Porter2 (Snowball) merges what the old light stemmer missed.
		"numerically": "numer", "numeric": "numer", "guarantees": "guarante", "guaranteed": "guarante",
		// British spellings fold to American before stemming.
		"behaviour": "behavior", "behaviours": "behavior", "behavioural": "behavior", "colour": "color", "coloured": "color",
		"initialise": "initi", "initialize": "initi", "analyse": "analyz", "analyzed": "analyz", "centre": "center",
		"metres": "meter", "cancelled": "cancel", "canceled": "cancel", "licence": "licens", "license": "licens",
		"optimisation": "optim", "optimization": "optim",
		// Folding leaves look-alikes alone.
		"four": "four", "your": "your", "hour": "hour", "rise": "rise",
	} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTokenizeOffsets(t *testing.T) {
	text := "Use kicad-cli v9.0 — naïve “quotes”, e.g. 0.2 mm."
	toks := Tokenize(text)
	var words []string
	for _, tok := range toks {
		words = append(words, text[tok.Start:tok.End])
	}
	if got := strings.Join(words, "|"); got != "Use|kicad-cli|kicad|cli|v9.0|naïve|quotes|e.g|0.2|mm" {
		t.Errorf("words = %s", got)
	}
}

func TestContentDropsStopWords(t *testing.T) {
	if got := strings.Join(Content("How does the DRC handle courtyard overlaps between footprints?"), ","); got != "drc,courtyard,overlap,footprint" {
		t.Errorf("Content = %s", got)
	}
}

func TestQuantities(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"a 0.2 mm track and 25 µA at 3.3V", "0.2 mm|25 µA|3.3 V"},
		{"peak 245 °C, 50% duty, 10 MiB", "245 °C|50 %|10 MiB"},
		{"in 2024 section 4.2 says", "2024 |4.2 "},
		{"1,5 mm", "1.5 mm"},
		// Sizes, bit widths, durations, percentages, bare numbers, ranges.
		{"256 bytes in an 8 KB page", "256 B|8 kB"},
		{"a 64-bit word and 8-bit integers", "64 bit|8 bit"},
		{"kept for 3 years, 20 percent of 10 days", "3 year|20 %|10 day"},
		{"the maximum priority is 255", "255 "},
		{"signed 8-bit integers (-128 to 127)", "8 bit|-128 |127 "},
		{"4,294,967,295 and 0.50", "4294967295 |0.5 "},
		// Digits inside identifiers are not quantities.
		{"int8, go1.21, RS-274X, sha256 and 2K", ""},
	}
	for _, tt := range tests {
		var got []string
		for _, q := range Quantities(tt.in) {
			got = append(got, q.Value+" "+q.Unit)
		}
		if strings.Join(got, "|") != tt.want {
			t.Errorf("Quantities(%q) = %v, want %s", tt.in, got, tt.want)
		}
	}
	if !HasQuantity("clearance of 0.2mm", Quantity{Value: "0.2", Unit: "mm"}) || HasQuantity("0.25 mm", Quantity{Value: "0.2", Unit: "mm"}) {
		t.Error("HasQuantity")
	}
	for _, tt := range []struct {
		quote, claim string
		want         bool
	}{
		{"pages of 8KB each", "8 kB", true},
		{"uses 20% of the budget", "20 percent", true},
		{"the priority is a number from 0 to 100", "255", false},
		{"the limit is 255 bytes", "255", true},
		{"the limit is 255", "255 bytes", false},
		{"integers (-128 to 127)", "-128", true},
	} {
		q := Quantities(tt.claim)
		if len(q) != 1 || HasQuantity(tt.quote, q[0]) != tt.want {
			t.Errorf("HasQuantity(%q, %q) = %v, want %v (%v)", tt.quote, tt.claim, !tt.want, tt.want, q)
		}
	}
}

func TestTokenizeNewWordKinds(t *testing.T) {
	tests := []struct{ in, want string }{
		// One-letter options are words, case kept; "x-axis" is not an option.
		{"bash set -e and grep -E, (-r)", "bash|set|-e|and|grep|-E|-r"},
		{"the x-axis e-mail", "the|x-axis|x|axi|e-mail|e|mail"},
		// Hyphenated and underscored words: the joined form, then each part.
		{"data-race-free programs", "data-race-free|data|race|free|program"},
		{"courtyard_clearance", "courtyard_clearance|courtyard|clearanc"},
		// CJK without spaces: character bigrams; Latin words inside stay whole.
		{"gzipの終了ステータス", "gzip|の終|終了|了ス|ステ|テー|ータ|タス"},
		{"圧", "圧"},
	}
	for _, tt := range tests {
		var got []string
		for _, tok := range Tokenize(tt.in) {
			got = append(got, tok.Stem)
			if tok.Start < 0 || tok.End > len(tt.in) || tok.Start >= tok.End {
				t.Errorf("%q: bad span %+v", tt.in, tok)
			}
		}
		if g := strings.Join(got, "|"); g != tt.want {
			t.Errorf("Tokenize(%q) = %s, want %s", tt.in, g, tt.want)
		}
	}
	if got := strings.Join(Content("What does bash set -e do?"), ","); got != "bash,set,-e" {
		t.Errorf("Content keeps -e: %s", got)
	}
	if got := Content("gzipの終了ステータスは？"); len(got) < 3 || got[0] != "gzip" {
		t.Errorf("Content of a Japanese question = %v", got)
	}
}
