package tools

import (
	"strings"
	"testing"

	"copperhead/internal/textfmt"
)

func TestSearch(t *testing.T) {
	s := toolSession(t, false)
	tests := []struct {
		args    map[string]any
		want    []string
		notWant []string
		isErr   bool
	}{
		{args: map[string]any{"pattern": ""}, isErr: true, want: []string{"non-empty pattern", "KEY_DAH"}},
		{args: map[string]any{"pattern": "(unclosed"}, isErr: true, want: []string{"not a valid RE2", "escape"}},
		{args: map[string]any{"pattern": "KEY_DAH", "glob": "*.md"}, want: []string{"docs/PINOUT.md:", "KEY_DAH"}, notWant: []string{".kicad_sch:"}},
		{args: map[string]any{"pattern": "KEY_DAH", "glob": "hardware/**"}, want: []string{"hardware/open-telegraph.kicad_sch:"}, notWant: []string{"docs/"}},
		{args: map[string]any{"pattern": "KEY_DAH", "glob": "*.{kicad_sch,kicad_pcb}"}, want: []string{".kicad_sch:"}, notWant: []string{".md:"}},
		{args: map[string]any{"pattern": "no-such-text-anywhere-42"}, want: []string{"no matches"}},
		{args: map[string]any{"pattern": `\(uuid`, "glob": "*.kicad_pcb"}, want: []string{"at most 50 per file", "narrow"}},
		{args: map[string]any{"pattern": "x", "glob": "{a"}, isErr: true, want: []string{"unbalanced"}},
	}
	for _, tc := range tests {
		res := call(t, s, "search", tc.args)
		if res.IsError != tc.isErr {
			t.Errorf("search %v: IsError = %v: %s", tc.args, res.IsError, res.Text)
		}
		for _, w := range tc.want {
			if !strings.Contains(res.Text, w) {
				t.Errorf("search %v: missing %q in:\n%s", tc.args, w, textfmt.ClipBytes(res.Text, 2000))
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(res.Text, w) {
				t.Errorf("search %v: unexpected %q in:\n%s", tc.args, w, textfmt.ClipBytes(res.Text, 2000))
			}
		}
	}
}

func TestSearchLineFormat(t *testing.T) {
	s := emptySession(t)
	writeRepo(t, s, "docs/A.md", "one\n  two KEY\nthree KEY\n")
	writeRepo(t, s, ".copperhead/runs/r/t.jsonl", "KEY\n")
	writeRepo(t, s, ".git/KEY", "KEY\n")
	res := mustOK(t, call(t, s, "search", map[string]any{"pattern": "KEY$"}))
	want := "2 matches in 1 file\ndocs/A.md:2: two KEY\ndocs/A.md:3: three KEY\n"
	if res.Text != want {
		t.Errorf("search = %q, want %q", res.Text, want)
	}
}

func TestGlobRegexp(t *testing.T) {
	tests := []struct {
		glob, path string
		match      bool
	}{
		{"*.md", "docs/SPEC.md", true},
		{"docs/*.md", "docs/SPEC.md", true},
		{"docs/*.md", "docs/sub/SPEC.md", false},
		{"docs/**", "docs/sub/SPEC.md", true},
		{"**/*.kicad_sch", "hardware/power.kicad_sch", true},
		{"**/*.kicad_sch", "top.kicad_sch", true},
		{"*.kicad_?ch", "x.kicad_sch", true},
		{"*.{md,txt}", "a.txt", true},
	}
	for _, tc := range tests {
		re, err := globRegexp(tc.glob)
		if err != nil {
			t.Fatal(err)
		}
		if got := globMatch(re, tc.glob, tc.path); got != tc.match {
			t.Errorf("glob %q on %q = %v, want %v", tc.glob, tc.path, got, tc.match)
		}
	}
}
