package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
