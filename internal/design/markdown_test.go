package design

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseTables(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []Table
	}{
		{
			name: "plain",
			doc:  "| A | B |\n| --- | --- |\n| 1 | 2 |\n",
			want: []Table{{Header: []string{"A", "B"}, Rows: [][]string{{"1", "2"}}}},
		},
		{
			name: "extra whitespace and alignment",
			doc:  "|   A    |B|\n|:---|---:|\n|   1    |   2   |\n",
			want: []Table{{Header: []string{"A", "B"}, Rows: [][]string{{"1", "2"}}}},
		},
		{
			name: "no outer pipes",
			doc:  "A | B\n--- | ---\n1 | 2\n",
			want: []Table{{Header: []string{"A", "B"}, Rows: [][]string{{"1", "2"}}}},
		},
		{
			name: "escaped pipe",
			doc:  "| A | B |\n| --- | --- |\n| 4k7 \\| 1% | x |\n",
			want: []Table{{Header: []string{"A", "B"}, Rows: [][]string{{"4k7 | 1%", "x"}}}},
		},
		{
			name: "escaped pipe in code span",
			doc:  "| A |\n| --- |\n| `a\\|b` |\n",
			want: []Table{{Header: []string{"A"}, Rows: [][]string{{"a|b"}}}},
		},
		{
			name: "emphasis and code are plain text",
			doc:  "| A | B | C |\n| --- | --- | --- |\n| **10k** | `GPIO0` | [U1](x.md) |\n",
			want: []Table{{Header: []string{"A", "B", "C"}, Rows: [][]string{{"10k", "GPIO0", "U1"}}}},
		},
		{
			name: "backslash escapes and entities",
			doc:  "| A | B |\n| --- | --- |\n| \\*x\\* | a &amp; b |\n",
			want: []Table{{Header: []string{"A", "B"}, Rows: [][]string{{"*x*", "a & b"}}}},
		},
		{
			name: "short and long rows are squared to the header",
			doc:  "| A | B |\n| --- | --- |\n| 1 |\n| 1 | 2 | 3 |\n",
			want: []Table{{Header: []string{"A", "B"}, Rows: [][]string{{"1", ""}, {"1", "2"}}}},
		},
		{
			name: "two tables and prose",
			doc:  "# T\n\n| A |\n| --- |\n| 1 |\n\ntext\n\n| B |\n| --- |\n| 2 |\n",
			want: []Table{
				{Header: []string{"A"}, Rows: [][]string{{"1"}}},
				{Header: []string{"B"}, Rows: [][]string{{"2"}}},
			},
		},
		{name: "no table", doc: "just | some | pipes\n", want: nil},
		{name: "empty", doc: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseTables([]byte(tt.doc))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseTables:\n got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestEscapeCellRoundTrip(t *testing.T) {
	tests := []struct {
		in, want string // want: the escaped form, "" to only check the round trip
	}{
		{"10k", "10k"},
		{"Resistor_SMD:R_0603_1608Metric", "Resistor_SMD:R_0603_1608Metric"},
		{"4k7 | 1%", `4k7 \| 1%`},
		{"*bold*", `\*bold\*`},
		{"_x_", `\_x\_`},
		{"a & b", "a & b"},
		{"&amp;", `\&amp;`},
		{`back\slash`, `back\slash`},
		{`\*`, ""},
		{"[link](x)", ""},
		{"<b>html</b>", ""},
		{"`code`", ""},
		{"100µF ±10%", "100µF ±10%"},
		{"  spaced   out ", "spaced out"},
		{"line\nbreak", "line break"},
		{"trailing\\", ""},
		{"![img](x)", ""},
		{"&#35;", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got := escapeCell(tt.in)
		if tt.want != "" && got != tt.want {
			t.Errorf("escapeCell(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !readsBackAs(got, normalizeSpace(tt.in)) {
			t.Errorf("escapeCell(%q) = %q does not read back", tt.in, got)
		}
	}
}

func TestContentHash(t *testing.T) {
	base := "# BOM\n\nSome text here.\n\n| Refdes | Value |\n| --- | --- |\n| R1 | 10k |\n| R2 | 100k |\n\n- a\n- b\n"
	same := []struct{ name, doc string }{
		{"identical", base},
		{"padded table", "# BOM\n\nSome text here.\n\n|Refdes|Value   |\n|:------|------:|\n|  R1   | 10k   |\n|R2|100k|\n\n- a\n- b\n"},
		{"reflowed paragraph", "# BOM\n\nSome   text\nhere.\n\n| Refdes | Value |\n| --- | --- |\n| R1 | 10k |\n| R2 | 100k |\n\n- a\n- b\n"},
		{"other bullets", "# BOM\n\nSome text here.\n\n| Refdes | Value |\n| --- | --- |\n| R1 | 10k |\n| R2 | 100k |\n\n* a\n* b\n"},
		{"setext heading", "BOM\n===\n\nSome text here.\n\n| Refdes | Value |\n| --- | --- |\n| R1 | 10k |\n| R2 | 100k |\n\n- a\n- b\n"},
		{"trailing blank lines", base + "\n\n\n"},
		{"no outer pipes", "# BOM\n\nSome text here.\n\nRefdes | Value\n--- | ---\nR1 | 10k\nR2 | 100k\n\n- a\n- b\n"},
	}
	different := []struct{ name, doc string }{
		{"value changed", strings.Replace(base, "| 10k |", "| 4k7 |", 1)},
		{"row added", strings.Replace(base, "| R2 | 100k |\n", "| R2 | 100k |\n| R3 | 1k |\n", 1)},
		{"row order", strings.Replace(base, "| R1 | 10k |\n| R2 | 100k |", "| R2 | 100k |\n| R1 | 10k |", 1)},
		{"text edited", strings.Replace(base, "Some text", "Other text", 1)},
		{"heading level", strings.Replace(base, "# BOM", "## BOM", 1)},
		{"list item added", base + "- c\n"},
		{"cell moved between columns", strings.Replace(base, "| R1 | 10k |", "| R1 10k |  |", 1)},
	}
	want := ContentHash([]byte(base))
	if !strings.HasPrefix(want, "sha256:") || len(want) != len("sha256:")+64 {
		t.Fatalf("ContentHash = %q, want sha256:<64 hex>", want)
	}
	for _, tt := range same {
		if got := ContentHash([]byte(tt.doc)); got != want {
			t.Errorf("%s: hash changed, want unchanged", tt.name)
		}
	}
	for _, tt := range different {
		if got := ContentHash([]byte(tt.doc)); got == want {
			t.Errorf("%s: hash unchanged, want changed", tt.name)
		}
	}
}

func TestContentHashGeneratedDocsStable(t *testing.T) {
	// Re-padding every table of a generated doc keeps its hash.
	for p, doc := range GenerateDocs(keyerProject()) {
		padded := strings.ReplaceAll(string(doc), " | ", "   |   ")
		if ContentHash(doc) != ContentHash([]byte(padded)) {
			t.Errorf("%s: padding the tables changed the content hash", p)
		}
	}
}
