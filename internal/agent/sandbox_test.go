package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolvePath(t *testing.T) {
	s := emptySession(t)
	outside := t.TempDir()
	writeRepo(t, s, "docs/SPEC.md", "spec\n")
	writeRepo(t, s, ".env", "KEY=x\n")
	writeRepo(t, s, ".git/config", "[core]\n")
	writeRepo(t, s, ".copperhead/runs/r1/transcript.jsonl", "{}\n")
	writeRepo(t, s, "docs/real.md", "real\n")
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct{ name, target string }{
		{"out-link", filepath.Join(outside, "secret.txt")}, // file symlink pointing out
		{"out-dir", outside}, // folder symlink pointing out
		{"docs/alias.md", filepath.Join(s.Repo, "docs/real.md")}, // in-repo link: fine
		{"innocent.md", filepath.Join(s.Repo, ".env")},           // in-repo link to a secret
		{"dangling", filepath.Join(outside, "nope", "x")},        // dangling, pointing out
	} {
		if err := os.Symlink(l.target, filepath.Join(s.Repo, l.name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		path    string
		wantRel string // "" means refused
		wantErr string
	}{
		{"docs/SPEC.md", "docs/SPEC.md", ""},
		{"./docs/../docs/SPEC.md", "docs/SPEC.md", ""},
		{filepath.Join(s.Repo, "docs/SPEC.md"), "docs/SPEC.md", ""},
		{"docs/new/NEW.md", "docs/new/NEW.md", ""},
		{".", ".", ""},
		{"docs/alias.md", "docs/real.md", ""},
		{"../../etc/hosts", "", "outside the repository"},
		{"docs/../../x", "", "outside the repository"},
		{"/etc/hosts", "", "outside the repository"},
		{outside + "/secret.txt", "", "outside the repository"},
		{"out-link", "", "points outside the repository"},
		{"out-dir/secret.txt", "", "points outside the repository"},
		{"out-dir/new.txt", "", "points outside the repository"},
		{"dangling", "", "cannot be resolved"},
		{".env", "", "secrets"},
		{"config/.env.production", "", "secrets"},
		{"keys/deploy.pem", "", "secrets"},
		{"home/id_rsa.pub", "", "secrets"},
		{"innocent.md", "", "secrets"},
		{".git/config", "", ".git"},
		{"sub/.git/HEAD", "", ".git"},
		{".copperhead/runs/r1/transcript.jsonl", "", "run records"},
		{".copperhead/runs", "", "run records"},
		{"", "", "path is empty"},
	}
	for _, tc := range tests {
		p, err := s.resolvePath(tc.path)
		if tc.wantRel == "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("resolvePath(%q) = %+v, %v; want refused with %q", tc.path, p, err, tc.wantErr)
			}
			continue
		}
		if err != nil || p.Rel != tc.wantRel || !strings.HasPrefix(p.Abs, s.Repo) {
			t.Errorf("resolvePath(%q) = %+v, %v; want rel %q", tc.path, p, err, tc.wantRel)
		}
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
