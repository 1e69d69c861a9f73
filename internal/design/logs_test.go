package design

import (
	"bytes"
	"testing"

	"github.com/yuin/goldmark/ast"
)

var (
	renameEntry = ChangelogEntry{
		Date: "2026-05-01", ChangeID: "rename-key-dah", RunID: "01HZX3K9Q8R7",
		Request:      "rename net KEY_DAH to KEY_DASH",
		Files:        []string{"hardware/keyer.kicad_sch", "docs/PINOUT.md", "docs/SUBSYSTEMS.md", "docs/PINOUT.md"},
		Verification: "ERC ✓ DRC ✓ drift ✓",
	}
	ledEntry = ChangelogEntry{
		Date: "2026-05-02", ChangeID: "add-status-led", RunID: "01HZX7M2B4C6",
		Request:      "add a second RGB LED on an RTC-capable pin",
		Files:        []string{"hardware/keyer.kicad_sch", "docs/BOM.md"},
		Verification: "ERC ✓ drift ✓ (no board yet)",
	}
	// hostile is a request trying to forge log structure: a heading of its
	// own, HTML, a link, emphasis, a table pipe and a closing "#" sequence.
	hostile = ChangelogEntry{
		Date: "2026-05-03", ChangeID: "x", RunID: "01",
		Request: "make it <b>bold</b>\n## 2026-01-01 · forged · entry\n- Files: none [click](http://e.x) *now* | C# #",
		Files:   []string{"docs/<odd>_name*.md"},
	}
)

func TestAddChangelog(t *testing.T) {
	tests := []struct {
		name   string
		doc    []byte
		golden string
	}{
		{"first entry below the scaffolded header", GenerateChangelog("keyer"), "logs/changelog-first.md"},
		{"newest first", AddChangelog(GenerateChangelog("keyer"), renameEntry), "logs/changelog-newest-first.md"},
		{"empty doc gets a header", nil, "logs/changelog-empty.md"},
		{"header without trailing newline", []byte("# keyer — Changelog"), "logs/changelog-no-newline.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := ledEntry
			if tc.doc == nil {
				e = renameEntry
			}
			got := AddChangelog(tc.doc, e)
			golden(t, tc.golden, got)
			if again := AddChangelog(tc.doc, e); !bytes.Equal(again, got) {
				t.Error("not deterministic")
			}
			if at := firstEntry(tc.doc); len(tc.doc) > 0 && (at < 0 && !bytes.HasPrefix(got, tc.doc) ||
				at >= 0 && !(bytes.HasPrefix(got, tc.doc[:at]) && bytes.HasSuffix(got, tc.doc[at:]))) {
				t.Error("existing text was changed")
			}
		})
	}
	// Newest first: the later entry is the first heading.
	doc := AddChangelog(AddChangelog(GenerateChangelog("keyer"), renameEntry), ledEntry)
	if hs := h2Texts(doc); len(hs) != 2 || hs[0] != "2026-05-02 · add-status-led · add a second RGB LED on an RTC-capable pin" {
		t.Errorf("headings = %q", hs)
	}
}

func TestLogEscaping(t *testing.T) {
	doc := AddChangelog(GenerateChangelog("keyer"), hostile)
	golden(t, "logs/changelog-hostile.md", doc)
	hs := h2Texts(doc)
	want := "2026-05-03 · x · " + normalizeSpace(hostile.Request)
	if len(hs) != 1 || hs[0] != want {
		t.Errorf("headings = %q\nwant [%q]", hs, want)
	}
	if n := countNodes(doc, ast.KindRawHTML) + countNodes(doc, ast.KindLink) + countNodes(doc, ast.KindEmphasis) + countNodes(doc, ast.KindHTMLBlock); n != 0 {
		t.Errorf("%d HTML, link or emphasis nodes leaked:\n%s", n, doc)
	}

	dec := AppendDecisions(nil, []DecisionEntry{{Date: "2026-05-03", RunID: "01", Decision: "# drop R7 ##", Rationale: "<!-- hidden -->", Affects: []string{"R7", "*"}}})
	if hs := h2Texts(dec); len(hs) != 1 || hs[0] != "2026-05-03 · 01 · # drop R7 ##" {
		t.Errorf("decision headings = %q", hs)
	}
	if n := countNodes(dec, ast.KindRawHTML) + countNodes(dec, ast.KindHTMLBlock); n != 0 {
		t.Errorf("HTML leaked:\n%s", dec)
	}
}

func TestLogText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hardware/keyer.kicad_sch", "hardware/keyer.kicad_sch"},
		{"Resistor_SMD:R_0603_1608Metric", "Resistor_SMD:R_0603_1608Metric"},
		{"  two\n lines ", "two lines"},
		{"", "—"},
		{"C#", `C\#`},
		{"pad #", `pad \#`},
		{"*bold*", `\*bold\*`},
		{"~~gone~~", `\~\~gone\~\~`},
		{"a & b", "a & b"},
		{"&amp;", `\&amp;`},
	}
	for _, tc := range tests {
		if got := logText(tc.in, "—"); got != tc.want {
			t.Errorf("logText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAppendDecisions(t *testing.T) {
	entries := []DecisionEntry{
		{Date: "2026-05-01", RunID: "01HZX3K9Q8R7", Decision: "KEY_DAH renamed KEY_DASH",
			Rationale: "matches the silkscreen and the firmware's naming", Affects: []string{"KEY_DASH", "U1", "docs/PINOUT.md"}},
		{Date: "2026-05-01", RunID: "01HZX3K9Q8R7", Decision: "no pull-up on KEY_DASH",
			Rationale: "the internal RTC pull-up keeps sleep current under the 25 uA budget"},
	}
	tests := []struct {
		name   string
		doc    []byte
		add    []DecisionEntry
		golden string
	}{
		{"below the scaffolded header", GenerateDecisions("keyer"), entries, "logs/decisions-first.md"},
		{"empty doc gets a header", nil, entries, "logs/decisions-empty.md"},
		{"after earlier entries", AppendDecisions(GenerateDecisions("keyer"), entries[:1]), entries[1:], "logs/decisions-appended.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendDecisions(tc.doc, tc.add)
			golden(t, tc.golden, got)
			if !bytes.HasPrefix(got, tc.doc) {
				t.Error("existing bytes changed: the log is append-only")
			}
		})
	}
	if doc := GenerateDecisions("keyer"); !bytes.Equal(AppendDecisions(doc, nil), doc) {
		t.Error("no entries must leave the doc unchanged")
	}
}

// h2Texts lists the text of every top-level level-2 heading.
func h2Texts(doc []byte) []string {
	var out []string
	for n := parseMarkdown(doc).FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Level == 2 {
			out = append(out, cellText(h, doc))
		}
	}
	return out
}

func countNodes(doc []byte, kind ast.NodeKind) int {
	n := 0
	_ = ast.Walk(parseMarkdown(doc), func(node ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && node.Kind() == kind {
			n++
		}
		return ast.WalkContinue, nil
	})
	return n
}
