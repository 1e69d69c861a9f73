package terms

import (
	"strings"
	"testing"
)

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"overlaps": "overlap", "overlapping": "overlap", "overlapped": "overlap", "Footprints": "footprint",
		"libraries": "library", "classes": "class", "boxes": "box", "KiCad's": "kicad", "status": "status",
		"is": "is", "kicad-cli": "kicad-cli", "running": "run", "stored": "stor", "store": "stor", "handles": "handl",
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
	if got := strings.Join(words, "|"); got != "Use|kicad-cli|v9.0|naïve|quotes|e.g|0.2|mm" {
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
		{"in 2024 section 4.2 says", ""},
		{"1,5 mm", "1.5 mm"},
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
}
