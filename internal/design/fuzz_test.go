package design

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParseTables feeds arbitrary Markdown to every doc reader: none may
// panic, and every table they return must be rectangular.
func FuzzParseTables(f *testing.F) {
	for _, doc := range GenerateDocs(keyerProject()) {
		f.Add(doc)
	}
	seeds := []string{
		"",
		"|",
		"| a |\n| - |\n| \\| |\n",
		"| a | b |\n|---|---|\n| `x\\|y` | **z** |\n| 1 |\n| 1 | 2 | 3 |\n",
		"- | a |\n  | - |\n  | b |\n",
		"> | a |\n> | - |\n> | &amp; |\n",
		"## Budgets\n\n- a: 1\n- `b c`: 2e3 x\n- \\\n",
		"| a |\n|:-:|\n| <b>x</b> ![i](u) [l][r] |\n\n[r]: http://x\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, tbl := range ParseTables(doc) {
			for _, row := range tbl.Rows {
				if len(row) != len(tbl.Header) {
					t.Fatalf("row %q has %d cells, header %d", row, len(row), len(tbl.Header))
				}
			}
		}
		_, _ = ParseBOM(doc)
		_, _ = ParsePinout(doc)
		_ = ParseBudgets(doc)
		_ = ContentHash(doc)
		if s := string(doc); len(s) < 200 {
			cell := escapeCell(s)
			if !readsBackAs(cell, normalizeSpace(s)) && validCellText(s) {
				t.Fatalf("escapeCell(%q) = %q does not read back", s, cell)
			}
		}
	})
}

// validCellText is text a cell can hold at all: no NUL (CommonMark replaces
// it) and valid UTF-8 (invalid bytes become U+FFFD).
func validCellText(s string) bool {
	for _, r := range s {
		if r == 0 || r == '\uFFFD' {
			return false
		}
	}
	return true
}

// FuzzSetSourcingLine: whatever BOM.md holds, recording a sourcing line
// keeps every table row the doc had, puts the line in the doc exactly once,
// and recording it again changes nothing.
func FuzzSetSourcingLine(f *testing.F) {
	f.Add([]byte(bomDoc), "U1")
	f.Add([]byte("## Sourcing\n- `sourcing.U1`: old\n## Next\n"), "U1")
	f.Add([]byte("## Sourcing\r\n\r\n- `sourcing.C1`: c"), "R10")
	f.Add([]byte("text"), "J1")
	f.Fuzz(func(t *testing.T, doc []byte, refdes string) {
		if !sourcingRefdes(refdes) {
			return // RecordSourcing refuses these
		}
		line := "- `" + SourcingKey(refdes) + "`: X1: 1 in stock (nexar, retrieved never)"
		next, _ := setSourcingLine(doc, refdes, line)
		before, errBefore := ParseBOM(doc)
		after, errAfter := ParseBOM(next)
		if errBefore == nil && (errAfter != nil || len(after) < len(before)) {
			t.Fatalf("BOM rows lost: %d -> %d (%v)\n%q\n%q", len(before), len(after), errAfter, doc, next)
		}
		if n := strings.Count(string(next), line+"\n") + strings.Count(string(next), line+"\r\n"); n < 1 {
			t.Fatalf("line not in the doc:\n%q", next)
		}
		again, changed := setSourcingLine(next, refdes, line)
		if changed || !bytes.Equal(again, next) {
			t.Fatalf("not idempotent:\n%q\n%q", next, again)
		}
	})
}
