package llmtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A fake saved-login CLI (claude, codex or Cursor's agent) for tests: a tiny
// shell script on PATH that runs a Go binary whose main calls FakeCLIMain
// (a test binary re-executed through TestMain, or testscript's "fakecli"
// program). It records each call's argv, working folder (and what is in
// it), environment and stdin, and answers in the real CLI's output format
// (claude -p --output-format json's result object, codex exec --json's JSONL
// events, agent -p --output-format json's result object) with the next step
// of a script.

// The fake's own variables, set by the wrapper script after the adapter has
// scrubbed the environment (so they never count as what the adapter passed).
const (
	FakeCLIDirEnv  = "COPPERHEAD_FAKECLI_DIR"
	FakeCLIKindEnv = "COPPERHEAD_FAKECLI_KIND"
)

// The kinds of CLI the fake speaks, by their program names.
const (
	FakeClaude = "claude"
	FakeCodex  = "codex"
	FakeCursor = "agent"
)

// CLIStep is one scripted answer. With none of Raw, Exit and Sleep set the
// fake answers with the protocol object {"text", "tool_calls"} (claude
// wraps it in a ```json fence after a line of prose, cursor puts prose
// before it, codex sends it bare: the adapter's parser must take all three).
// The same JSON as a fakemodel script step works here.
type CLIStep struct {
	Text      string          `json:"text,omitempty"`
	ToolCalls json.RawMessage `json:"tool_calls,omitempty"`
	Raw       *string         `json:"raw,omitempty"`    // the model's reply verbatim
	Exit      int             `json:"exit,omitempty"`   // fail with this status, Stderr on stderr
	Stderr    string          `json:"stderr,omitempty"` // printed to stderr
	Sleep     string          `json:"sleep,omitempty"`  // a time.Duration to sleep before answering
}

// CLICall is one recorded invocation of the fake.
type CLICall struct {
	Kind       string   `json:"kind"` // chat, version, status
	Argv       []string `json:"argv"`
	Dir        string   `json:"dir"`
	DirEntries []string `json:"dir_entries"`
	Env        []string `json:"env"`
	Stdin      string   `json:"stdin"`
}

// InstallFakeCLI writes binDir/name, a script running exe as the fake CLI
// kind (FakeClaude, FakeCodex, FakeCursor) with its state in stateDir, and
// stateDir/script.json holding steps (a JSON array of CLIStep); installing
// again starts the new script at its first step.
func InstallFakeCLI(binDir, name, kind, exe, stateDir string, steps []byte) (string, error) {
	if !json.Valid(steps) {
		return "", fmt.Errorf("fake %s script is not JSON", kind)
	}
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return "", err
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(stateDir, "script.json"), steps, 0o644); err != nil {
		return "", err
	}
	// A new script starts at its first step (the calls recorded so far stay).
	if err := os.Remove(filepath.Join(stateDir, "count")); err != nil && !os.IsNotExist(err) {
		return "", err
	}
	script := fmt.Sprintf("#!/bin/sh\n%s=%s %s=%s exec %s \"$@\"\n", FakeCLIDirEnv, shellQuote(stateDir), FakeCLIKindEnv, shellQuote(kind), shellQuote(exe))
	path := filepath.Join(binDir, name)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		return "", err
	}
	return path, nil
}

// SetFakeCLILoggedOut makes the fake in stateDir report no login.
func SetFakeCLILoggedOut(stateDir string) error {
	return os.WriteFile(filepath.Join(stateDir, "logged-out"), nil, 0o644)
}

// FakeCLICalls reads every call the fake in stateDir recorded.
func FakeCLICalls(stateDir string) ([]CLICall, error) {
	f, err := os.Open(filepath.Join(stateDir, "calls.jsonl"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var calls []CLICall
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var c CLICall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("read %s: %w", f.Name(), err)
		}
		calls = append(calls, c)
	}
	return calls, sc.Err()
}

// ChatCalls are the calls that asked the model (not --version or status).
func ChatCalls(calls []CLICall) []CLICall {
	var out []CLICall
	for _, c := range calls {
		if c.Kind == "chat" {
			out = append(out, c)
		}
	}
	return out
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// FakeCLIMain is the fake CLI's main; it returns the exit status.
func FakeCLIMain() int {
	dir, kind := os.Getenv(FakeCLIDirEnv), os.Getenv(FakeCLIKindEnv)
	args := os.Args[1:]
	call := CLICall{Kind: "chat", Argv: args}
	call.Dir, _ = os.Getwd()
	if ents, err := os.ReadDir(call.Dir); err == nil {
		call.DirEntries = []string{}
		for _, e := range ents {
			call.DirEntries = append(call.DirEntries, e.Name())
		}
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, FakeCLIDirEnv+"=") && !strings.HasPrefix(kv, FakeCLIKindEnv+"=") {
			call.Env = append(call.Env, kv)
		}
	}
	_, loggedOutErr := os.Stat(filepath.Join(dir, "logged-out"))
	loggedOut := loggedOutErr == nil
	switch {
	case slices.Equal(args, []string{"--version"}):
		call.Kind = "version"
	case kind == FakeClaude && len(args) >= 2 && args[0] == "auth" && args[1] == "status",
		kind == FakeCodex && len(args) >= 2 && args[0] == "login" && args[1] == "status":
		call.Kind = "status"
	default:
		if b, err := io.ReadAll(os.Stdin); err == nil {
			call.Stdin = string(b)
		}
	}
	if err := appendCall(dir, call); err != nil {
		fmt.Fprintln(os.Stderr, "fakecli:", err)
		return 70
	}
	switch call.Kind {
	case "version":
		fmt.Println(map[string]string{FakeClaude: "2.1.328 (Claude Code)", FakeCodex: "codex-cli 0.169.0", FakeCursor: "2026.01.01-fake"}[kind])
		return 0
	case "status":
		return fakeStatus(kind, loggedOut)
	}
	if loggedOut {
		return fakeLoggedOut(kind)
	}
	step, n, err := nextStep(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakecli:", err)
		return 70
	}
	if step.Sleep != "" {
		d, err := time.ParseDuration(step.Sleep)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakecli: bad sleep:", err)
			return 70
		}
		time.Sleep(d)
	}
	if step.Stderr != "" {
		fmt.Fprintln(os.Stderr, step.Stderr)
	}
	if step.Exit != 0 {
		return step.Exit
	}
	reply := protocolText(kind, step)
	switch kind {
	case FakeClaude:
		return printJSON(map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": reply,
			"session_id": fmt.Sprintf("00000000-0000-4000-8000-%012d", n), "num_turns": 1, "duration_ms": 10, "total_cost_usd": 0,
			"usage":      map[string]any{"input_tokens": 100, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 50, "output_tokens": 20},
			"modelUsage": map[string]any{"claude-fake-model": map[string]any{"inputTokens": 100, "outputTokens": 20}}})
	case FakeCodex:
		thread := fmt.Sprintf("0199a000-0000-7000-8000-%012d", n)
		for _, ev := range []map[string]any{
			{"type": "thread.started", "thread_id": thread},
			{"type": "turn.started"},
			{"type": "item.completed", "item": map[string]any{"id": "item_0", "type": "reasoning", "text": "thinking"}},
			{"type": "item.completed", "item": map[string]any{"id": "item_1", "type": "agent_message", "text": reply}},
			{"type": "turn.completed", "usage": map[string]any{"input_tokens": 120, "cached_input_tokens": 40, "output_tokens": 15}},
		} {
			if code := printJSON(ev); code != 0 {
				return code
			}
		}
		return 0
	}
	session := fmt.Sprintf("chat-%d", n)
	if i := slices.Index(args, "--resume"); i >= 0 && i+1 < len(args) {
		session = args[i+1]
	}
	return printJSON(map[string]any{"type": "result", "subtype": "success", "is_error": false, "duration_ms": 10,
		"duration_api_ms": 10, "result": reply, "session_id": session, "request_id": fmt.Sprintf("req-%d", n)})
}

func protocolText(kind string, s CLIStep) string {
	if s.Raw != nil {
		return *s.Raw
	}
	calls := s.ToolCalls
	if len(calls) == 0 {
		calls = json.RawMessage(`[]`)
	}
	obj, _ := json.Marshal(struct {
		Text      string          `json:"text"`
		ToolCalls json.RawMessage `json:"tool_calls"`
	}{s.Text, calls})
	switch kind {
	case FakeClaude:
		return "Here is my answer.\n```json\n" + string(obj) + "\n```"
	case FakeCursor:
		return "I will request the next tools. " + string(obj)
	}
	return string(obj)
}

func fakeStatus(kind string, loggedOut bool) int {
	if kind == FakeClaude {
		printJSON(map[string]any{"loggedIn": !loggedOut, "authMethod": map[bool]string{true: "none", false: "claude.ai"}[loggedOut], "apiProvider": "firstParty"})
		if loggedOut {
			return 1
		}
		return 0
	}
	if loggedOut {
		fmt.Fprintln(os.Stderr, "Not logged in")
		return 1
	}
	fmt.Fprintln(os.Stderr, "Logged in using ChatGPT")
	return 0
}

// fakeLoggedOut answers a chat as each real CLI does without a login.
func fakeLoggedOut(kind string) int {
	switch kind {
	case FakeClaude:
		printJSON(map[string]any{"type": "result", "subtype": "success", "is_error": true, "result": "Not logged in · Please run /login",
			"terminal_reason": "api_error", "api_error_status": nil, "usage": map[string]any{}})
	case FakeCodex:
		printJSON(map[string]any{"type": "thread.started", "thread_id": "t"})
		printJSON(map[string]any{"type": "turn.failed", "error": map[string]any{"message": "unexpected status 401 Unauthorized"}})
	default:
		fmt.Fprintln(os.Stderr, "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY.")
	}
	return 1
}

func printJSON(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakecli:", err)
		return 70
	}
	fmt.Println(string(b))
	return 0
}

func appendCall(dir string, c CLICall) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, "calls.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// nextStep takes the next step of the script and returns it with its
// 1-based number.
func nextStep(dir string) (CLIStep, int, error) {
	var steps []CLIStep
	b, err := os.ReadFile(filepath.Join(dir, "script.json"))
	if err != nil {
		return CLIStep{}, 0, err
	}
	if err := json.Unmarshal(b, &steps); err != nil {
		return CLIStep{}, 0, fmt.Errorf("script.json: %w", err)
	}
	countFile := filepath.Join(dir, "count")
	n := 0
	if c, err := os.ReadFile(countFile); err == nil {
		n, _ = strconv.Atoi(strings.TrimSpace(string(c)))
	}
	if n >= len(steps) {
		return CLIStep{}, 0, fmt.Errorf("call %d is past the end of the script (%d steps)", n+1, len(steps))
	}
	if err := os.WriteFile(countFile, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
		return CLIStep{}, 0, err
	}
	return steps[n], n + 1, nil
}
