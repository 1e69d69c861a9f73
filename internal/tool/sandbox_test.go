package tool_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/tools/toolstest"
)

func TestResolvePath(t *testing.T) {
	s := toolstest.EmptySession(t)
	outside := t.TempDir()
	toolstest.WriteRepo(t, s, "docs/SPEC.md", "spec\n")
	toolstest.WriteRepo(t, s, ".env", "KEY=x\n")
	toolstest.WriteRepo(t, s, ".git/config", "[core]\n")
	toolstest.WriteRepo(t, s, ".copperhead/runs/r1/transcript.jsonl", "{}\n")
	toolstest.WriteRepo(t, s, "docs/real.md", "real\n")
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
		p, err := s.ResolvePath(tc.path)
		if tc.wantRel == "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ResolvePath(%q) = %+v, %v; want refused with %q", tc.path, p, err, tc.wantErr)
			}
			continue
		}
		if err != nil || p.Rel != tc.wantRel || !strings.HasPrefix(p.Abs, s.Repo) {
			t.Errorf("ResolvePath(%q) = %+v, %v; want rel %q", tc.path, p, err, tc.wantRel)
		}
	}
}
