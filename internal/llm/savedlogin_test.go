package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"copperhead/internal/llm"
	"copperhead/internal/llm/llmtest"
)

// TestMain re-executes this test binary as a fake saved-login CLI when the
// wrapper script InstallFakeCLI writes runs it.
func TestMain(m *testing.M) {
	if os.Getenv(llmtest.FakeCLIDirEnv) != "" {
		os.Exit(llmtest.FakeCLIMain())
	}
	os.Exit(m.Run())
}

const (
	plantedOpenAI    = "sk-" + "planted-openai-0123456789abcdef"
	plantedAnthropic = "sk-ant-" + "planted-0123456789abcdef"
	plantedOther     = "gsk_planted_groq_0123456789"
	plantedOAuth     = "sk-ant-oat01-" + "planted-oauth-0123456789"
)

// fakeCLI installs a fake CLI of kind as program in a fresh bin folder and
// returns Settings whose PATH finds it, and the fake's state folder.
func fakeCLI(t *testing.T, kind, program string, steps string) (llm.Settings, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, state := t.TempDir(), t.TempDir()
	if _, err := llmtest.InstallFakeCLI(bin, program, kind, exe, state, []byte(steps)); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": bin + string(os.PathListSeparator) + "/usr/bin:/bin"}
	return llm.Settings{Getenv: func(k string) string { return env[k] }}, state
}

// plantKeys puts model keys in this process's environment: the adapters
// must not pass them on.
func plantKeys(t *testing.T) {
	t.Setenv(llm.EnvOpenAIKey, plantedOpenAI)
	t.Setenv(llm.EnvAnthropicKey, plantedAnthropic)
	t.Setenv("GROQ_API_KEY", plantedOther)
	t.Setenv(llm.EnvClaudeCodeToken, plantedOAuth)
	t.Setenv("COPPERHEAD_MODEL", "gpt-5")
}

var noRetry = llm.RetryPolicy{MaxRetries: -1}

var tools = []llm.Tool{
	{Name: "read_file", Description: "Read a file of the repository.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
	{Name: "finish", Description: "End the run.", Schema: json.RawMessage(`{"type":"object","properties":{"outcome":{"type":"string"}}}`)},
}

const twoSteps = `[
 {"text": "Reading the spec.", "tool_calls": [{"name": "read_file", "args": {"path": "docs/SPEC.md"}}]},
 {"text": "", "tool_calls": [{"name": "finish", "args": {"outcome": "done"}}, {"name": "no_such_tool", "args": {}}]}
]`

// TestSavedLoginConversation runs two turns through each fake CLI and
// checks what the adapter sent (argv, an empty isolated folder, a scrubbed
// environment, the prompt) and what it made of the answers.
func TestSavedLoginConversation(t *testing.T) {
	tests := []struct {
		backend, kind, program, model string
		argv                          []string // flags every chat call carries
		wantModel                     string
		wantUsage                     llm.Usage
		keptEnv, droppedEnv           []string
	}{
		{llm.BackendClaudeCode, llmtest.FakeClaude, "claude", "sonnet",
			[]string{"-p", "--output-format", "json", "--tools", "", "--strict-mcp-config", "--no-session-persistence", "--safe-mode", "--model", "sonnet"},
			"claude-fake-model", llm.Usage{Input: 160, Output: 20, CacheRead: 50, CacheWrite: 10},
			[]string{llm.EnvClaudeCodeToken}, []string{llm.EnvOpenAIKey, llm.EnvAnthropicKey, "GROQ_API_KEY", "COPPERHEAD_MODEL"}},
		{llm.BackendCodex, llmtest.FakeCodex, "codex", "gpt-5-codex",
			[]string{"exec", "--json", "--sandbox", "read-only", "--skip-git-repo-check", "--ephemeral", "--disable", "shell_tool", "--model", "gpt-5-codex", "-"},
			"gpt-5-codex", llm.Usage{Input: 120, Output: 15, CacheRead: 40},
			nil, []string{llm.EnvOpenAIKey, llm.EnvAnthropicKey, "GROQ_API_KEY", llm.EnvClaudeCodeToken, "COPPERHEAD_MODEL"}},
		{llm.BackendCursor, llmtest.FakeCursor, "agent", "",
			[]string{"-p", "--output-format", "json", "--mode", "plan", "--trust", "--workspace"},
			"default", llm.Usage{},
			nil, []string{llm.EnvOpenAIKey, llm.EnvAnthropicKey, "GROQ_API_KEY", llm.EnvClaudeCodeToken, "COPPERHEAD_MODEL"}},
	}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			plantKeys(t)
			s, state := fakeCLI(t, tt.kind, tt.program, twoSteps)
			repo, _ := os.Getwd()
			p, err := llm.Open(llm.Selection{Backend: tt.backend, ModelID: tt.model}, s, llm.OpenOptions{Retry: noRetry})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if p.Name() != tt.backend {
				t.Errorf("Name = %q", p.Name())
			}
			opts := llm.Options{System: "You are copperhead's agent. SYSTEM-MARKER."}
			msgs := []llm.Message{{Role: llm.RoleUser, Text: "rename net KEY_DAH to KEY_DASH"}}
			t1, err := p.Chat(context.Background(), msgs, tools, opts)
			if err != nil {
				t.Fatalf("turn 1: %v", err)
			}
			if t1.Text != "Reading the spec." || len(t1.ToolCalls) != 1 || t1.ToolCalls[0].Name != "read_file" ||
				string(t1.ToolCalls[0].Args) != `{"path":"docs/SPEC.md"}` || t1.Stop != llm.StopToolUse || t1.ToolCalls[0].ID == "" {
				t.Fatalf("turn 1 = %+v", t1)
			}
			if t1.Model != tt.wantModel || t1.Usage != tt.wantUsage {
				t.Errorf("turn 1 model %q usage %+v, want %q %+v", t1.Model, t1.Usage, tt.wantModel, tt.wantUsage)
			}
			msgs = append(msgs, t1.Message(), llm.Message{Role: llm.RoleUser,
				ToolResults: []llm.ToolResult{{CallID: t1.ToolCalls[0].ID, Content: "RESULT-MARKER: the spec text"}}})
			t2, err := p.Chat(context.Background(), msgs, tools, opts)
			if err != nil {
				t.Fatalf("turn 2: %v", err)
			}
			// An unknown tool name passes through: the loop refuses it.
			if len(t2.ToolCalls) != 2 || t2.ToolCalls[0].Name != "finish" || t2.ToolCalls[1].Name != "no_such_tool" || t2.ToolCalls[0].ID == t1.ToolCalls[0].ID {
				t.Fatalf("turn 2 = %+v", t2)
			}

			calls, err := llmtest.FakeCLICalls(state)
			if err != nil {
				t.Fatal(err)
			}
			chats := llmtest.ChatCalls(calls)
			if len(chats) != 2 {
				t.Fatalf("%d chat calls, want 2: %+v", len(chats), calls)
			}
			for i, c := range chats {
				for _, a := range tt.argv {
					if !slices.Contains(c.Argv, a) {
						t.Errorf("call %d argv %q lacks %q", i+1, c.Argv, a)
					}
				}
				if len(c.DirEntries) != 0 || c.Dir == "" || strings.HasPrefix(c.Dir, repo) {
					t.Errorf("call %d ran in %s holding %v: want a fresh empty folder outside the repo", i+1, c.Dir, c.DirEntries)
				}
				if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
					t.Errorf("call %d's folder %s was not removed", i+1, c.Dir)
				}
				if tt.backend == llm.BackendCodex && !slices.Contains(c.Argv, c.Dir) {
					t.Errorf("codex --cd is not its working folder: %q", c.Argv)
				}
				envNames := map[string]bool{}
				for _, kv := range c.Env {
					name, _, _ := strings.Cut(kv, "=")
					envNames[name] = true
				}
				for _, k := range tt.keptEnv {
					if !envNames[k] {
						t.Errorf("call %d lost %s", i+1, k)
					}
				}
				for _, k := range tt.droppedEnv {
					if envNames[k] {
						t.Errorf("call %d was given %s", i+1, k)
					}
				}
				if !envNames["PATH"] || !envNames["HOME"] {
					t.Errorf("call %d lost PATH or HOME", i+1)
				}
				all := strings.Join(c.Env, "\n") + strings.Join(c.Argv, "\n") + c.Stdin
				for _, key := range []string{plantedOpenAI, plantedAnthropic, plantedOther} {
					if strings.Contains(all, key) {
						t.Errorf("call %d saw a planted key", i+1)
					}
				}
			}
			prompt := func(c llmtest.CLICall) string {
				if tt.backend == llm.BackendCursor {
					return c.Argv[len(c.Argv)-1]
				}
				return c.Stdin
			}
			first, second := prompt(chats[0]), prompt(chats[1])
			for _, want := range []string{"SYSTEM-MARKER", "## read_file", `"required":["path"]`, "rename net KEY_DAH", "exactly one JSON object"} {
				if !strings.Contains(first, want) {
					t.Errorf("first prompt lacks %q", want)
				}
			}
			if !strings.Contains(second, "RESULT-MARKER") {
				t.Errorf("second prompt lacks the tool result")
			}
			if tt.backend == llm.BackendCursor {
				// The session resumes: the second call names it and sends
				// only what the session has not seen.
				if i := slices.Index(chats[1].Argv, "--resume"); i < 0 || chats[1].Argv[i+1] != "chat-1" {
					t.Errorf("second cursor call does not resume chat-1: %q", chats[1].Argv)
				}
				if slices.Contains(chats[0].Argv, "--resume") {
					t.Errorf("first cursor call resumes: %q", chats[0].Argv)
				}
				if strings.Contains(second, "SYSTEM-MARKER") || strings.Contains(second, "rename net KEY_DAH") {
					t.Errorf("resumed prompt resends the conversation:\n%s", second)
				}
			} else if !strings.Contains(second, "SYSTEM-MARKER") || !strings.Contains(second, "rename net KEY_DAH") {
				t.Errorf("a stateless CLI's second prompt lacks the whole conversation")
			}
		})
	}
}

// TestCursorResumeStartsOverWhenToolsChange: new tools are sent again in a
// resumed session; a changed history (the cache served a turn) starts anew.
func TestCursorResumeStartsOver(t *testing.T) {
	s, state := fakeCLI(t, llmtest.FakeCursor, "agent", `[{"text":"a"},{"text":"b"},{"text":"c"}]`)
	p, err := llm.Open(llm.Selection{Backend: llm.BackendCursor}, s, llm.OpenOptions{Retry: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{{Role: llm.RoleUser, Text: "hello"}}
	t1, err := p.Chat(context.Background(), msgs, tools[:1], llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, t1.Message(), llm.Message{Role: llm.RoleUser, Text: "go on"})
	if _, err := p.Chat(context.Background(), msgs, tools, llm.Options{}); err != nil {
		t.Fatal(err)
	}
	other := []llm.Message{{Role: llm.RoleUser, Text: "a different run"}, {Role: llm.RoleAssistant, Text: "x"}, {Role: llm.RoleUser, Text: "y"}}
	if _, err := p.Chat(context.Background(), other, tools, llm.Options{}); err != nil {
		t.Fatal(err)
	}
	calls, _ := llmtest.FakeCLICalls(state)
	chats := llmtest.ChatCalls(calls)
	if len(chats) != 3 {
		t.Fatalf("%d chats", len(chats))
	}
	second := chats[1].Argv[len(chats[1].Argv)-1]
	if !slices.Contains(chats[1].Argv, "--resume") || !strings.Contains(second, "## finish") || !strings.Contains(second, "have changed") {
		t.Errorf("second call does not resume with the new tool list: %q", chats[1].Argv)
	}
	if slices.Contains(chats[2].Argv, "--resume") {
		t.Errorf("a different history resumed the session: %q", chats[2].Argv)
	}
}

// TestSavedLoginFailures: each way a CLI call can fail is an *llm.Error of
// the right kind, quoting what the CLI said (redacted) and never a planted key.
func TestSavedLoginFailures(t *testing.T) {
	tests := []struct {
		name, backend, kind, program, steps string
		timeout                             time.Duration
		want                                llm.ErrorKind
		contains                            []string
	}{
		{"prose instead of the protocol", llm.BackendCodex, llmtest.FakeCodex, "codex", `[{"raw": "I would rather just explain the change in words."}]`, 0,
			llm.ErrTransient, []string{"not one JSON object", "I would rather just explain"}},
		{"a JSON object of another shape", llm.BackendClaudeCode, llmtest.FakeClaude, "claude", `[{"raw": "{\"answer\": 42}"}]`, 0,
			llm.ErrTransient, []string{"neither \"text\" nor \"tool_calls\""}},
		{"a tool call without a name", llm.BackendCursor, llmtest.FakeCursor, "agent", `[{"raw": "{\"tool_calls\": [{\"args\": {}}]}"}]`, 0,
			llm.ErrTransient, []string{"has no name"}},
		{"a crash with stderr, redacted", llm.BackendClaudeCode, llmtest.FakeClaude, "claude", `[{"exit": 3, "stderr": "fatal: config broken near ` + plantedAnthropic + `"}]`, 0,
			llm.ErrTransient, []string{"exited with status 3", "fatal: config broken near", "[REDACTED]"}},
		{"cursor logged out mid-run", llm.BackendCursor, llmtest.FakeCursor, "agent", `[{"exit": 1, "stderr": "Error: Authentication required. Please run 'agent login' first."}]`, 0,
			llm.ErrNotLoggedIn, []string{"Authentication required", "agent login"}},
		{"a CLI that never answers", llm.BackendCodex, llmtest.FakeCodex, "codex", `[{"sleep": "30s"}]`, 300 * time.Millisecond,
			llm.ErrTransient, []string{"did not answer within 300ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plantKeys(t)
			s, _ := fakeCLI(t, tt.kind, tt.program, tt.steps)
			p, err := llm.Open(llm.Selection{Backend: tt.backend}, s, llm.OpenOptions{Retry: noRetry, CLITimeout: tt.timeout})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			_, err = p.Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "hi"}}, tools, llm.Options{})
			text := errorText(t, err, tt.want, tt.contains...)
			if strings.Contains(text, plantedAnthropic) || strings.Contains(text, "\n") {
				t.Errorf("error leaks a key or spans lines: %q", text)
			}
		})
	}
}

// TestSavedLoginLoggedOut: a CLI whose own offline status says logged out
// is refused by Open, before any model call, with its login command.
func TestSavedLoginLoggedOut(t *testing.T) {
	for _, tt := range []struct{ backend, kind, program, hint string }{
		{llm.BackendClaudeCode, llmtest.FakeClaude, "claude", "claude /login"},
		{llm.BackendCodex, llmtest.FakeCodex, "codex", "codex login"},
	} {
		t.Run(tt.backend, func(t *testing.T) {
			s, state := fakeCLI(t, tt.kind, tt.program, `[]`)
			if err := llmtest.SetFakeCLILoggedOut(state); err != nil {
				t.Fatal(err)
			}
			_, err := llm.Open(llm.Selection{Backend: tt.backend}, s, llm.OpenOptions{Retry: noRetry})
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != llm.ErrNotLoggedIn || !strings.Contains(e.Hint, tt.hint) {
				t.Fatalf("err = %v (hint %v), want not-logged-in naming %q", err, e, tt.hint)
			}
			calls, _ := llmtest.FakeCLICalls(state)
			if n := len(llmtest.ChatCalls(calls)); n != 0 {
				t.Errorf("%d chat calls before refusing", n)
			}
			rows := llm.Backends(s)
			for _, r := range rows {
				if r.Backend == tt.backend && (r.Ready || !strings.Contains(r.Detail, "not logged in") || !strings.Contains(r.Hint, tt.hint)) {
					t.Errorf("models row %+v", r)
				}
			}
		})
	}
}

// TestBackendsSavedLogin: models shows each CLI found with its path,
// version and login state, and the install hint for one that is missing.
func TestBackendsSavedLogin(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, k := range []struct{ kind, program string }{{llmtest.FakeClaude, "claude"}, {llmtest.FakeCodex, "codex"}} {
		if _, err := llmtest.InstallFakeCLI(bin, k.program, k.kind, exe, t.TempDir(), []byte(`[]`)); err != nil {
			t.Fatal(err)
		}
	}
	cursorBin := t.TempDir()
	cursorPath, err := llmtest.InstallFakeCLI(cursorBin, "my-cursor-agent", llmtest.FakeCursor, exe, t.TempDir(), []byte(`[]`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": bin}
	s := llm.Settings{Getenv: func(k string) string { return env[k] }}
	want := map[string][]string{
		llm.BackendClaudeCode: {"claude at " + filepath.Join(bin, "claude"), "2.1.328 (Claude Code)", "logged in"},
		llm.BackendCodex:      {"codex at " + filepath.Join(bin, "codex"), "codex-cli 0.169.0", "logged in"},
		llm.BackendCursor:     {"not on PATH", "cursor.com/install"},
	}
	check := func(rows []llm.BackendStatus, want map[string][]string, ready map[string]bool) {
		t.Helper()
		for _, r := range rows {
			w, ok := want[r.Backend]
			if !ok {
				continue
			}
			for _, c := range w {
				if !strings.Contains(r.Detail+" "+r.Hint, c) {
					t.Errorf("%s row %q lacks %q", r.Backend, r.Detail+" "+r.Hint, c)
				}
			}
			if r.Ready != ready[r.Backend] {
				t.Errorf("%s ready = %v", r.Backend, r.Ready)
			}
		}
	}
	rows := llm.Backends(s)
	check(rows, want, map[string]bool{llm.BackendClaudeCode: true, llm.BackendCodex: true})
	for _, r := range rows {
		if r.Backend == llm.BackendCodex && (r.Path != filepath.Join(bin, "codex") || r.Version != "codex-cli 0.169.0" || r.Login != "logged-in") {
			t.Errorf("codex row fields %+v", r)
		}
	}
	env[llm.EnvCursorPath] = cursorPath
	check(llm.Backends(s), map[string][]string{llm.BackendCursor: {llm.EnvCursorPath + " " + cursorPath, "2026.01.01-fake", "login state unknown", "agent login"}},
		map[string]bool{llm.BackendCursor: true})
}
