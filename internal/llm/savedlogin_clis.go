package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"copperhead/internal/redact"
	"copperhead/internal/textfmt"
)

// The three CLIs, each with the flags its own --help documents (claude
// 2.1.328, codex-cli 0.169.0; Cursor Agent from its CLI reference).

// The login hints, one line each.
const (
	claudeLoginHint = "log in with `claude /login`, or export " + EnvClaudeCodeToken + " from `claude setup-token`"
	codexLoginHint  = "log in with `codex login`"
	cursorLoginHint = "log in with `agent login`"
)

// claudeCode is `claude -p` (npm @anthropic-ai/claude-code): print mode, one
// JSON result object, no built-in tools, no MCP servers, no slash commands,
// no session written to disk, safe mode (no CLAUDE.md, hooks, skills or
// plugins of the user's), copperhead's protocol as the system prompt.
// The prompt goes on stdin.
var claudeCode = &savedLogin{
	backend: BackendClaudeCode,
	program: "claude",
	install: "install it: npm install -g @anthropic-ai/claude-code",
	login:   claudeLoginHint,
	ownAuth: []string{EnvClaudeCodeToken},
	// Claude Code's documented switch for its telemetry, error reports and
	// update checks; without it even `claude auth status` resolves
	// api.anthropic.com.
	setEnv: []string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"},
	args: func(model, _, _ string) []string {
		a := []string{"-p", "--output-format", "json", "--tools", "", "--strict-mcp-config", "--disable-slash-commands",
			"--no-session-persistence", "--safe-mode", "--system-prompt", protocolRules}
		if model != "" {
			a = append(a, "--model", model)
		}
		return a
	},
	parse:  parseClaudeResult,
	status: []string{"auth", "status", "--json"},
	readStatus: func(out []byte, _ int) loginState {
		var st struct {
			LoggedIn *bool `json:"loggedIn"`
		}
		if obj := lastJSONObject(out); obj == nil || json.Unmarshal(obj, &st) != nil || st.LoggedIn == nil {
			return loginUnknown
		}
		if *st.LoggedIn {
			return loginYes
		}
		return loginNo
	},
}

// codexCLI is `codex exec` (npm @openai/codex): JSONL events, the read-only
// sandbox, no git repository needed, nothing persisted, no user config
// (its MCP servers and rules stay out), its shell, exec, browser and
// computer-use tools disabled, the prompt on stdin ("-").
var codexCLI = &savedLogin{
	backend: BackendCodex,
	program: "codex",
	install: "install it: npm install -g @openai/codex",
	login:   codexLoginHint,
	args: func(model, dir, _ string) []string {
		a := []string{"exec", "--json", "--color", "never", "--sandbox", "read-only", "--skip-git-repo-check",
			"--ephemeral", "--ignore-user-config", "--ignore-rules", "--cd", dir}
		// Its tools that act (features listed by `codex features list`).
		for _, f := range []string{"shell_tool", "unified_exec", "browser_use", "computer_use"} {
			a = append(a, "--disable", f)
		}
		if model != "" {
			a = append(a, "--model", model)
		}
		return append(a, "-")
	},
	parse:  parseCodexEvents,
	status: []string{"login", "status"},
	readStatus: func(out []byte, code int) loginState {
		switch {
		case code == 0:
			return loginYes
		case strings.Contains(strings.ToLower(string(out)), "not logged in"):
			return loginNo
		}
		return loginUnknown
	},
}

// cursorCLI is the Cursor Agent CLI (`agent`, or COPPERHEAD_CURSOR_PATH):
// print mode, one JSON result, plan mode (read-only) in its sandbox, the
// empty folder as its trusted workspace, and --resume with the previous
// turn's session id (flags from Cursor's CLI parameter reference; the CLI
// is not in a registry, so only the fake has run them here).
// Its `status` asks Cursor's servers, so its login state is unknown offline.
var cursorCLI = &savedLogin{
	backend:   BackendCursor,
	program:   "agent",
	pathEnv:   EnvCursorPath,
	install:   "install it: curl https://cursor.com/install -fsS | bash; or set " + EnvCursorPath + " to it",
	login:     cursorLoginHint,
	ownAuth:   []string{"CURSOR_API_KEY"},
	promptArg: true,
	resumes:   true,
	args: func(model, dir, session string) []string {
		a := []string{"-p", "--output-format", "json", "--mode", "plan", "--sandbox", "enabled", "--trust", "--workspace", dir}
		if model != "" {
			a = append(a, "--model", model)
		}
		if session != "" {
			a = append(a, "--resume", session)
		}
		return a
	},
	parse: parseCursorResult,
}

// parseClaudeResult reads `claude -p --output-format json`: one result
// object with the reply in "result", usage, and the models used.
func parseClaudeResult(stdout []byte) (cliReply, *Error) {
	var r struct {
		resultObject
		APIErrorStatus *int `json:"api_error_status"`
		Usage          struct {
			Input       int `json:"input_tokens"`
			CacheCreate int `json:"cache_creation_input_tokens"`
			CacheRead   int `json:"cache_read_input_tokens"`
			Output      int `json:"output_tokens"`
		} `json:"usage"`
		ModelUsage map[string]struct {
			Output int `json:"outputTokens"`
		} `json:"modelUsage"`
	}
	if e := decodeResultObject(stdout, BackendClaudeCode, &r); e != nil {
		return cliReply{}, e
	}
	if r.IsError {
		e := r.failure(BackendClaudeCode, "claude")
		status := 0
		if r.APIErrorStatus != nil {
			status = *r.APIErrorStatus
		}
		e.Status = status
		switch {
		case status == 401 || status == 403 || saysLoggedOut(r.Result):
			e.Kind, e.Hint = ErrNotLoggedIn, claudeLoginHint
		case status == 429:
			e.Kind = ErrRateLimited
		case status == 529:
			e.Kind = ErrOverloaded
		}
		return cliReply{}, e
	}
	out := cliReply{text: r.Result, session: r.SessionID, usage: Usage{
		Input: r.Usage.Input + r.Usage.CacheCreate + r.Usage.CacheRead, Output: r.Usage.Output,
		CacheRead: r.Usage.CacheRead, CacheWrite: r.Usage.CacheCreate}}
	// The model that wrote the answer: the one with the most output.
	names := make([]string, 0, len(r.ModelUsage))
	for name := range r.ModelUsage {
		names = append(names, name)
	}
	sort.Strings(names)
	best := -1
	for _, name := range names {
		if n := r.ModelUsage[name].Output; n > best {
			out.model, best = name, n
		}
	}
	return out, nil
}

// parseCodexEvents reads `codex exec --json`: JSONL events. The answer is
// the last agent_message item; turn.completed carries the usage; a
// turn.failed (or an error event and no answer) is the failure.
func parseCodexEvents(stdout []byte) (cliReply, *Error) {
	var out cliReply
	var answered, completed bool
	var failure, lastError string
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
			Message  string `json:"message"`
			Item     struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
			Usage struct {
				Input     int `json:"input_tokens"`
				CacheRead int `json:"cached_input_tokens"`
				Output    int `json:"output_tokens"`
			} `json:"usage"`
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		switch ev.Type {
		case "thread.started":
			out.session = ev.ThreadID
		case "item.completed":
			if ev.Item.Type == "agent_message" {
				out.text, answered = ev.Item.Text, true
			}
		case "turn.completed":
			completed = true
			out.usage = out.usage.Add(Usage{Input: ev.Usage.Input, Output: ev.Usage.Output, CacheRead: ev.Usage.CacheRead})
		case "turn.failed":
			failure = ev.Error.Message
		case "error":
			lastError = ev.Message
		}
	}
	switch {
	case failure != "":
		return cliReply{}, codexFailure("codex reported a failed turn: " + failure)
	case answered && completed:
		return out, nil
	case lastError != "":
		return cliReply{}, codexFailure("codex ended without an answer: " + lastError)
	}
	return cliReply{}, &Error{Kind: ErrTransient, Provider: BackendCodex, Message: "no agent_message and turn.completed on its output" + quoteOut(stdout)}
}

func codexFailure(msg string) *Error {
	e := &Error{Kind: ErrTransient, Provider: BackendCodex, Message: textfmt.Clip(textfmt.OneLine(msg), 300)}
	if saysLoggedOut(msg) || strings.Contains(msg, "401") {
		e.Kind, e.Hint = ErrNotLoggedIn, codexLoginHint
	}
	return e
}

// parseCursorResult reads `agent -p --output-format json`: one result
// object on success (the reply in "result", the chat in "session_id"); on
// failure it exits non-zero with its message on stderr.
func parseCursorResult(stdout []byte) (cliReply, *Error) {
	var r resultObject
	if e := decodeResultObject(stdout, BackendCursor, &r); e != nil {
		return cliReply{}, e
	}
	if r.IsError {
		e := r.failure(BackendCursor, "agent")
		if saysLoggedOut(r.Result) {
			e.Kind, e.Hint = ErrNotLoggedIn, cursorLoginHint
		}
		return cliReply{}, e
	}
	return cliReply{text: r.Result, session: r.SessionID}, nil
}

// resultObject is the one object `claude -p` and Cursor's `agent -p` print
// with --output-format json; a parser's struct embeds it to read more.
type resultObject struct {
	Type      string `json:"type"`
	IsError   bool   `json:"is_error"`
	Result    string `json:"result"`
	SessionID string `json:"session_id"`
}

func (o *resultObject) object() *resultObject { return o }

// failure is the transient error of a result object that reports one (the
// caller refines its kind); command names the CLI in the message.
func (o *resultObject) failure(provider, command string) *Error {
	return &Error{Kind: ErrTransient, Provider: provider, Message: command + " reported an error: " + textfmt.Clip(textfmt.OneLine(o.Result), 300)}
}

// decodeResultObject decodes the last JSON object on stdout into r, a
// resultObject or a struct embedding one; without a result object there it
// is provider's transient error.
func decodeResultObject(stdout []byte, provider string, r interface{ object() *resultObject }) *Error {
	obj := lastJSONObject(stdout)
	if obj == nil || json.Unmarshal(obj, r) != nil || r.object().Type != "result" {
		return &Error{Kind: ErrTransient, Provider: provider, Message: "no result object on its output" + quoteOut(stdout)}
	}
	return nil
}

// lastJSONObject is the last line of out that is a JSON object, or the
// whole of out when it is one (pretty-printed).
func lastJSONObject(out []byte) []byte {
	t := bytes.TrimSpace(out)
	if json.Valid(t) && len(t) > 0 && t[0] == '{' {
		return t
	}
	lines := bytes.Split(t, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		l := bytes.TrimSpace(lines[i])
		if len(l) > 0 && l[0] == '{' && json.Valid(l) {
			return l
		}
	}
	return nil
}

func quoteOut(stdout []byte) string {
	s := textfmt.OneLine(redact.New(os.Environ()).String(strings.ToValidUTF8(string(stdout), "")))
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" (it printed %q)", textfmt.Clip(s, 120))
}
