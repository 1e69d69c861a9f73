package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/config"
)

// TestSystemPromptGate: what enters the system prompt passes the same path
// gate as read_file (AC-4.2). A doc or registry that is a symlink out of the
// repository, a dangling link, a doc named like a secret and a docs folder
// that is itself a link out are left out, each with a warning naming it;
// the run's prompt still builds.
func TestSystemPromptGate(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "notes.md")
	if err := os.WriteFile(secret, []byte("OUTSIDE-FILE-CONTENT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := filepath.Join(outside, "constraints.json")
	if err := os.WriteFile(reg, []byte(`{"outside.registry": {"value": "OUTSIDE-REGISTRY"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, repo string)
		warn  []string // substrings, one warning each
		keep  string   // a doc the prompt still holds
		lose  string   // a doc the prompt must not hold
	}{
		{"doc symlink out", func(t *testing.T, repo string) {
			link(t, secret, filepath.Join(repo, "docs", "notes.md"))
		}, []string{"docs/notes.md left out of the prompt: it is a symlink"}, "docs/SPEC.md", "docs/notes.md"},
		{"dangling doc", func(t *testing.T, repo string) {
			link(t, filepath.Join(repo, "docs", "gone-target.md"), filepath.Join(repo, "docs", "gone.md"))
		}, []string{"docs/gone.md left out of the prompt: it is a dangling symbolic link"}, "docs/BOM.md", "docs/gone.md"},
		{"registry symlink out", func(t *testing.T, repo string) {
			p := filepath.Join(repo, filepath.FromSlash(config.ConstraintsPath))
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			link(t, reg, p)
		}, []string{config.ConstraintsPath + " left out of the prompt"}, "docs/SPEC.md", ""},
		{"docs folder out", func(t *testing.T, repo string) {
			docs := filepath.Join(repo, "docs")
			if err := os.Rename(docs, filepath.Join(outside, "docs")); err != nil {
				t.Fatal(err)
			}
			link(t, filepath.Join(outside, "docs"), docs)
		}, []string{"docs left out of the prompt"}, "", "docs/SPEC.md"},
		{"both", func(t *testing.T, repo string) {
			link(t, secret, filepath.Join(repo, "docs", "a-notes.md"))
			link(t, filepath.Join(outside, "nothing.md"), filepath.Join(repo, "docs", "z-gone.md"))
		}, []string{"docs/a-notes.md", "docs/z-gone.md"}, "docs/PINOUT.md", "docs/a-notes.md"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo := fixtureRepo(t)
			c.setup(t, repo)
			cfg, _, err := config.LoadConfig(repo)
			if err != nil {
				t.Fatal(err)
			}
			sys, warns, err := systemPrompt(PromptInput{Repo: repo, Config: cfg, RunID: "r", MaxTurns: 5, MaxRepairCycles: 2})
			if err != nil {
				t.Fatalf("prompt did not build: %v", err)
			}
			for _, bad := range []string{"OUTSIDE-FILE-CONTENT", "OUTSIDE-REGISTRY", "SPEC.md of the outside"} {
				if strings.Contains(sys, bad) {
					t.Errorf("prompt holds %q from outside the repository", bad)
				}
			}
			if len(warns) != len(c.warn) {
				t.Fatalf("warnings %q, want %d", warns, len(c.warn))
			}
			for i, w := range c.warn {
				if !strings.Contains(warns[i], w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, warns[i], w)
				}
			}
			if c.keep != "" && !strings.Contains(sys, "### "+c.keep+"\n") {
				t.Errorf("prompt lost %s", c.keep)
			}
			if c.lose != "" && strings.Contains(sys, "### "+c.lose+"\n") {
				t.Errorf("prompt holds %s", c.lose)
			}
		})
	}
}

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}
