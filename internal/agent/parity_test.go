package agent

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/kicadcli"
	"copperhead/internal/llm"
	"copperhead/internal/llm/llmtest"
	"copperhead/internal/project"
	"copperhead/internal/runmeta"
	"copperhead/internal/runs"
	"copperhead/internal/testkit"
	"copperhead/internal/transcript"
)

// TestMain lets this test binary play a saved-login CLI: the wrapper script
// llmtest.InstallFakeCLI writes runs it with the fake's variables set.
func TestMain(m *testing.M) {
	if os.Getenv(llmtest.FakeCLIKindEnv) != "" {
		os.Exit(llmtest.FakeCLIMain())
	}
	os.Exit(m.Run())
}

// TestProviderParity is AC-3.10: the AC-3.1 rename passes through every
// backend, each speaking its real protocol to a fake that plays the same
// model (Anthropic Messages and OpenAI Chat Completions on loopback servers,
// compat on the OpenAI wire, and the claude, codex and Cursor agent CLIs as
// fakes on PATH through the saved-login adapters), and every backend leaves
// the same edited design in exactly one commit.
func TestProviderParity(t *testing.T) {
	for _, bin := range []string{"kicad-cli", "openspec"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s not installed", bin)
		}
	}
	kc, err := kicadcli.Find(context.Background())
	if err != nil {
		t.Skip(err)
	}
	testkit.GitIdentity(t)
	script := renameScript()
	var replies []llmtest.Step
	var cliSteps []map[string]any
	for _, s := range script {
		replies = append(replies, llmtest.Reply{Text: s.turn.Text, ToolCalls: s.turn.ToolCalls, Usage: s.turn.Usage})
		var calls []map[string]any
		for _, c := range s.turn.ToolCalls {
			calls = append(calls, map[string]any{"id": c.ID, "name": c.Name, "args": c.Args})
		}
		cliSteps = append(cliSteps, map[string]any{"text": s.turn.Text, "tool_calls": calls})
	}
	cliScript, err := json.Marshal(cliSteps)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "COPPERHEAD_CURSOR_PATH"} {
		t.Setenv(k, "")
	}

	keyed := func(proto llmtest.Protocol, name string) func(t *testing.T) (llm.Provider, func() int) {
		return func(t *testing.T) (llm.Provider, func() int) {
			srv := llmtest.NewServer(t, proto, replies...)
			count := func() int { return len(srv.Requests()) }
			if proto == llmtest.Anthropic {
				return llm.NewAnthropic(llm.AnthropicConfig{APIKey: "test-anthropic-credential", BaseURL: srv.URL, Model: llm.DefaultAnthropicModel}), count
			}
			return llm.NewOpenAI(llm.OpenAIConfig{Name: name, APIKey: "test-openai-credential", BaseURL: srv.URL + "/v1", Model: "scripted"}), count
		}
	}
	savedLogin := func(spec, program, kind string) func(t *testing.T) (llm.Provider, func() int) {
		return func(t *testing.T) (llm.Provider, func() int) {
			state := t.TempDir()
			if _, err := llmtest.InstallFakeCLI(bin, program, kind, exe, state, cliScript); err != nil {
				t.Fatal(err)
			}
			sel, err := llm.Select(llm.Settings{Flag: spec})
			if err != nil {
				t.Fatal(err)
			}
			p, err := llm.Open(sel, llm.Settings{Flag: spec}, llm.OpenOptions{})
			if err != nil {
				t.Fatalf("open %s: %v", spec, err)
			}
			return p, func() int {
				calls, err := llmtest.FakeCLICalls(state)
				if err != nil {
					t.Fatal(err)
				}
				return len(llmtest.ChatCalls(calls))
			}
		}
	}
	backends := []struct {
		name string
		open func(t *testing.T) (llm.Provider, func() int)
	}{
		{"claude", keyed(llmtest.Anthropic, llm.BackendAnthropic)},
		{"gpt-5", keyed(llmtest.OpenAI, llm.BackendOpenAI)},
		{"compat", keyed(llmtest.OpenAI, llm.BackendCompat)},
		{"claude-code", savedLogin("claude-code", "claude", llmtest.FakeClaude)},
		{"codex", savedLogin("codex", "codex", llmtest.FakeCodex)},
		{"cursor", savedLogin("cursor", "agent", llmtest.FakeCursor)},
	}
	design := []string{"hardware/open-telegraph.kicad_sch", "hardware/power.kicad_sch", "hardware/open-telegraph.kicad_pcb", "docs/PINOUT.md"}
	var first map[string]string
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			p, requests := b.open(t)
			repo := fixtureRepo(t)
			head := git(t, repo, "rev-parse", "HEAD")
			cfg, _, err := config.LoadConfig(repo)
			if err != nil {
				t.Fatal(err)
			}
			rn, err := runs.Start(context.Background(), runs.Options{Repo: repo, Provider: p, MaxTurns: 10, Probes: &offlineProbes,
				Meta: runmeta.Input{Command: "do", Request: "rename net KEY_DAH to KEY_DASH", Config: cfg}})
			if err != nil {
				t.Fatal(err)
			}
			in := RunInput{Repo: repo, Config: cfg, KiCad: kc, Request: "rename net KEY_DAH to KEY_DASH"}
			if in.Project, err = project.Locate(repo, "", cfg.Schematic, cfg.Board); err != nil {
				t.Fatal(err)
			}
			out, err := Run(context.Background(), rn, in)
			if err != nil {
				t.Fatal(err)
			}
			if out.ExitPath != transcript.ExitDone {
				t.Fatalf("exit path %s (%s), want done", out.ExitPath, out.Error)
			}
			if n := requests(); n != len(script) {
				t.Errorf("the %s fake answered %d requests, the script has %d turns", b.name, n, len(script))
			}
			if git(t, repo, "rev-parse", "HEAD~1") != head || git(t, repo, "status", "--porcelain") != "" {
				t.Errorf("not exactly one commit on a clean tree")
			}
			got := map[string]string{}
			for _, f := range design {
				data, err := os.ReadFile(filepath.Join(repo, f))
				if err != nil {
					t.Fatal(err)
				}
				got[f] = string(data)
			}
			if !strings.Contains(got[design[0]], `(global_label "KEY_DASH"`) || strings.Contains(got[design[0]], `(global_label "KEY_DAH"`) {
				t.Fatalf("%s: the sheet was not renamed", b.name)
			}
			if first == nil {
				first = got
				return
			}
			for _, f := range design {
				if got[f] != first[f] {
					t.Errorf("%s: %s differs from the %s run's", b.name, f, backends[0].name)
				}
			}
		})
	}
}
