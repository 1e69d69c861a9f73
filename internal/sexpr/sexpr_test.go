package sexpr

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseShapes(t *testing.T) {
	tests := []struct {
		name string
		src  string
		head string
		args []string // Arg(0..) of the root
	}{
		{"atoms", `(at 1.27 -2.54 90)`, "at", []string{"1.27", "-2.54", "90"}},
		{"string", `(property "Reference" "R1")`, "property", []string{"Reference", "R1"}},
		{"escaped quote", `(text "say \"hi\"")`, "text", []string{`say "hi"`}},
		{"escaped backslash", `(text "a\\b")`, "text", []string{`a\b`}},
		{"newline escape", `(text "line1\nline2")`, "text", []string{"line1\nline2"}},
		{"hex and octal", `(text "\x41\101")`, "text", []string{"AA"}},
		{"unknown escape kept", `(text "\q")`, "text", []string{`\q`}},
		{"utf8", `(value "10 µF Ω")`, "value", []string{"10 µF Ω"}},
		{"empty string", `(value "")`, "value", []string{""}},
		{"leading space and crlf", " \r\n(kicad_sch\r\n (version 20250114))\r\n", "kicad_sch", []string{""}},
		{"trailing white space", "(kicad_pcb (a))\n\t \r\n", "kicad_pcb", []string{""}},
		{"trailing newline", "(kicad_pcb (a))\n", "kicad_pcb", []string{""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Parse("t", []byte(tc.src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if n.Head() != tc.head {
				t.Errorf("Head = %q, want %q", n.Head(), tc.head)
			}
			for i, want := range tc.args {
				if got := n.Arg(i); got != want {
					t.Errorf("Arg(%d) = %q, want %q", i, got, want)
				}
			}
		})
	}
}

// TestRootSpanEndsAtItsParen: white space after the top-level list is not
// part of it, so an insertion before the root's ")" lands inside the list.
func TestRootSpanEndsAtItsParen(t *testing.T) {
	src := []byte("(kicad_sch (a))\n\n  \n")
	n, err := Parse("t", src)
	if err != nil {
		t.Fatal(err)
	}
	if n.Start != 0 || n.End != len("(kicad_sch (a))") {
		t.Errorf("root span [%d,%d), want [0,%d)", n.Start, n.End, len("(kicad_sch (a))"))
	}
}

func TestSpansAreExact(t *testing.T) {
	src := []byte("(kicad_sch\n\t(symbol (lib_id \"Device:R\") (at 10 20 0))\n\t(label \"KEY_DAH\" (at 1 2 0))\n)")
	n, err := Parse("t", src)
	if err != nil {
		t.Fatal(err)
	}
	sym := n.Child("symbol")
	if got := string(sym.Text(src)); got != `(symbol (lib_id "Device:R") (at 10 20 0))` {
		t.Errorf("symbol span = %q", got)
	}
	lab := n.Child("label")
	if got := string(lab.Children[1].Text(src)); got != `"KEY_DAH"` {
		t.Errorf("string span = %q", got)
	}
	if sym.Value1("lib_id") != "Device:R" {
		t.Errorf("Value1(lib_id) = %q", sym.Value1("lib_id"))
	}
	x, ok := sym.Child("at").Float(0)
	if !ok || x != 10 {
		t.Errorf("Float(0) = %v, %v", x, ok)
	}
	if n.Child("nope") != nil || n.Child("nope").Arg(0) != "" {
		t.Error("missing child must be nil and safe to query")
	}
	var names []string
	for c := range n.All("label") {
		names = append(names, c.Arg(0))
	}
	if strings.Join(names, ",") != "KEY_DAH" {
		t.Errorf("All(label) = %v", names)
	}
}

func TestSpliceRenamesOnlyTheLabel(t *testing.T) {
	src := []byte("(kicad_sch\n\t(label \"KEY_DAH\" (at 1 2 0))\n\t(label \"KEY_DIT\" (at 3 4 0))\n)\n")
	n, err := Parse("t", src)
	if err != nil {
		t.Fatal(err)
	}
	var edits []Edit
	for l := range n.All("label") {
		if l.Arg(0) == "KEY_DAH" {
			s := l.Children[1]
			edits = append(edits, Edit{Start: s.Start, End: s.End, Text: Quote("KEY_DASH")})
		}
	}
	out, err := Splice(src, edits)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(src), `"KEY_DAH"`, `"KEY_DASH"`, 1)
	if string(out) != want {
		t.Errorf("splice:\n%s\nwant:\n%s", out, want)
	}
	if _, err := Splice(src, []Edit{{0, 5, ""}, {3, 6, ""}}); err == nil {
		t.Error("overlapping edits accepted")
	}
}

func TestQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote`, `back\slash`, "tab\tnew\nline\r", "µΩ"} {
		n, err := Parse("t", []byte("(v "+Quote(s)+")"))
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if n.Arg(0) != s {
			t.Errorf("round trip %q -> %q", s, n.Arg(0))
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		msg       string
	}{
		{"empty", "", 1, 1, "empty file"},
		{"only space", "  \n ", 2, 2, "empty file"},
		{"binary", "\x00\x01\x02", 1, 1, "expected '(' at start of file, found byte 0x00"},
		{"not a list", "kicad_sch", 1, 1, `found 'k'`},
		{"truncated", "(kicad_sch\n  (symbol (at 1 2", 2, 18, "unexpected end of file: list opened at 2:11 is not closed"},
		{"unterminated string", "(a\n \"abc)", 2, 2, "unterminated string"},
		{"escape at end", `(a "abc\`, 1, 4, "unterminated string"},
		// Content after the top-level list is the sign of half a file: a
		// stray ')' closed it early and the rest would silently vanish.
		{"stray close paren", "(kicad_sch\n  (symbol (at 1 2)))\n  (sheet (uuid \"x\"))\n)\n", 3, 3, "content after the end of the file's top-level list (opened at 1:1, closed at 2:20)"},
		{"extra close at end", "(kicad_sch (a))\n)", 2, 1, "an unmatched ')' after the end of the file's top-level list"},
		{"trailing expression", `(kicad_pcb (a)) (stray)`, 1, 17, "content after the end"},
		{"trailing garbage bytes", "(kicad_sch (a))\x00\xff", 1, 16, "content after the end"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("board.kicad_sch", []byte(tc.src))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *SyntaxError", err)
			}
			if se.Line != tc.line || se.Col != tc.col {
				t.Errorf("at %d:%d, want %d:%d (%v)", se.Line, se.Col, tc.line, tc.col, err)
			}
			if !strings.Contains(se.Error(), tc.msg) || !strings.HasPrefix(se.Error(), "board.kicad_sch:") {
				t.Errorf("message %q lacks %q or the file name", se.Error(), tc.msg)
			}
		})
	}
}

func TestDeepNestingIsBoundedNotFatal(t *testing.T) {
	src := strings.Repeat("(", maxDepth+10)
	if _, err := Parse("deep", []byte(src)); err == nil || !strings.Contains(err.Error(), "nesting deeper") {
		t.Fatalf("err = %v", err)
	}
}

// TestDemosParse reads every s-expression file of KiCad's demo projects, the
// real-world corpus this reader exists for.
func TestDemosParse(t *testing.T) {
	files := demoFiles(t)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n, err := Parse(f, src)
		if want, damaged := damagedDemos[strings.TrimPrefix(f, demoDir+"/")]; damaged {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v, want one containing %q", f, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if h := n.Head(); !strings.HasPrefix(h, "kicad_") && h != "fp_lib_table" && h != "sym_lib_table" && h != "footprint" {
			t.Errorf("%s: unexpected head %q", f, h)
		}
	}
}

func demoFiles(tb testing.TB) []string {
	tb.Helper()
	var files []string
	for _, pat := range []string{"*/*.kicad_sch", "*/*.kicad_pcb", "*/*/*.kicad_sch"} {
		m, _ := filepath.Glob(filepath.Join(demoDir, pat))
		files = append(files, m...)
	}
	if len(files) == 0 {
		tb.Skip("KiCad demo projects not installed (run scripts/setup.sh)")
	}
	return files
}

const demoDir = "/usr/share/kicad/demos"

// damagedDemos are demo files whose lists do not balance, with the error
// Parse must give. The royalblue54L_feather board writes "(curved_edges
// no)filter_ratio 0.9)" 349 times: each lacks the '(' before filter_ratio,
// which KiCad's loader tolerates, so the first footprint's extra ')' closes
// (kicad_pcb ..) at line 627 and 70 of its 71 footprints would come after
// the end of the file.
var damagedDemos = map[string]string{
	"royalblue54L_feather/RoyalBlue54L-Feather.kicad_pcb": "RoyalBlue54L-Feather.kicad_pcb:628:1: content after the end of the file's top-level list (opened at 1:1, closed at 627:1)",
}
