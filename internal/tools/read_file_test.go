package tools

import (
	"fmt"
	"os"
	"path/filepath"
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

// TestFileToolsSandboxed runs every file tool against escapes (AC-4.2).
func TestFileToolsSandboxed(t *testing.T) {
	s := toolSession(t, false)
	s.Validated = true
	outside := t.TempDir()
	target := filepath.Join(outside, "hosts")
	if err := os.WriteFile(target, []byte("127.0.0.1 localhost\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(s.Repo, "docs", "ext")); err != nil {
		t.Fatal(err)
	}
	writeRepo(t, s, ".env", "OPENAI_API_KEY=x\n")
	for _, p := range []string{"../../etc/hosts", target, "docs/ext/hosts", ".env", ".git/HEAD"} {
		mustFail(t, call(t, s, "read_file", map[string]any{"path": p}), "read_file")
		mustFail(t, call(t, s, "edit_file", map[string]any{"path": p, "old_string": "localhost", "new_string": "x"}), "edit_file")
		mustFail(t, call(t, s, "write_file", map[string]any{"path": p + ".new", "content": "x"}), "write_file")
	}
	mustFail(t, call(t, s, "write_file", map[string]any{"path": "docs/ext/new.txt", "content": "x"}), "outside the repository")
	if b, _ := os.ReadFile(target); string(b) != "127.0.0.1 localhost\n" {
		t.Fatal("a file outside the repository changed")
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Fatal("write_file created a file outside the repository")
	}
	// search never shows secrets.
	res := mustOK(t, call(t, s, "search", map[string]any{"pattern": "OPENAI_API_KEY"}))
	if strings.Contains(res.Text, ".env") {
		t.Errorf("search showed .env: %s", res.Text)
	}
}
