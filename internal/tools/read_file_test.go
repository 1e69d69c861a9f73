package tools

import (
	"fmt"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	s := emptySession(t)
	var big strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&big, "\t(line %d)\n", i)
	}
	writeRepo(t, s, "hardware/big.kicad_sch", big.String())
	writeRepo(t, s, "docs/SPEC.md", "# Spec\n\nbody\n")
	writeRepo(t, s, "bin.dat", "a\x00b")
	writeRepo(t, s, ".env", "x")

	res := mustOK(t, call(t, s, "read_file", map[string]any{"path": "docs/SPEC.md"}))
	if res.Text != "docs/SPEC.md: lines 1-3 of 3\n1\t# Spec\n2\t\n3\tbody\n" {
		t.Errorf("read SPEC.md = %q", res.Text)
	}
	res = mustOK(t, call(t, s, "read_file", map[string]any{"path": "hardware/big.kicad_sch"}))
	if !strings.HasPrefix(res.Text, "hardware/big.kicad_sch: lines 1-2000 of 2500 (more: read_file with start_line=2001)\n1\t\t(line 1)\n") {
		t.Errorf("first page header: %q", res.Text[:120])
	}
	res = mustOK(t, call(t, s, "read_file", map[string]any{"path": "hardware/big.kicad_sch", "start_line": 2001}))
	if !strings.HasPrefix(res.Text, "hardware/big.kicad_sch: lines 2001-2500 of 2500\n2001\t\t(line 2001)\n") {
		t.Errorf("second page: %q", res.Text[:80])
	}
	res = mustOK(t, call(t, s, "read_file", map[string]any{"path": "hardware/big.kicad_sch", "start_line": 10, "end_line": 12}))
	if res.Text != "hardware/big.kicad_sch: lines 10-12 of 2500 (more: read_file with start_line=13)\n10\t\t(line 10)\n11\t\t(line 11)\n12\t\t(line 12)\n" {
		t.Errorf("range = %q", res.Text)
	}
	res = mustOK(t, call(t, s, "read_file", map[string]any{"path": "docs/SPEC.md", "start_line": 9}))
	if !strings.Contains(res.Text, "past the end") {
		t.Errorf("past the end: %q", res.Text)
	}
	mustFail(t, call(t, s, "read_file", map[string]any{"path": "bin.dat"}), "binary")
	mustFail(t, call(t, s, "read_file", map[string]any{"path": "docs/NOPE.md"}), "does not exist")
	mustFail(t, call(t, s, "read_file", map[string]any{"path": ".env"}), "secrets")

	res = mustOK(t, call(t, s, "read_file", map[string]any{"path": "."}))
	if res.Text != "repository root (folder, 3 entries)\nbin.dat\ndocs/\nhardware/\n" {
		t.Errorf("root listing = %q (.env must not be listed)", res.Text)
	}
}

func TestReadFileByteCap(t *testing.T) {
	s := emptySession(t)
	line := strings.Repeat("x", 1000)
	var b strings.Builder
	for range 500 {
		b.WriteString(line + "\n")
	}
	writeRepo(t, s, "wide.txt", b.String())
	res := mustOK(t, call(t, s, "read_file", map[string]any{"path": "wide.txt"}))
	if len(res.Text) > maxReadBytes+200 || !strings.Contains(res.Text, "(more: read_file with start_line=") {
		t.Errorf("byte cap not applied: %d bytes, header %q", len(res.Text), res.Text[:80])
	}
}
