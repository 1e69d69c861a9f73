package llm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseProtocol(t *testing.T) {
	tests := []struct {
		name, reply string
		text        string
		calls       []string // name + " " + args
		err         string
	}{
		{"bare object", `{"text": "hi", "tool_calls": []}`, "hi", nil, ""},
		{"fenced after prose", "Sure.\n```json\n{\"text\": \"\", \"tool_calls\": [{\"name\": \"run_erc\", \"args\": {}}]}\n```\nDone.", "", []string{"run_erc {}"}, ""},
		{"bare fence", "```\n{\"tool_calls\": [{\"name\": \"finish\", \"args\": {\"outcome\": \"done\"}}]}\n```", "", []string{`finish {"outcome":"done"}`}, ""},
		{"leading prose", `I will read it first. {"text": "x", "tool_calls": [{"name": "read_file", "args": {"path": "a b"}}]}`, "x", []string{`read_file {"path":"a b"}`}, ""},
		{"args missing and args as a string", `{"tool_calls": [{"name": "a"}, {"name": "b", "args": "{\"k\": 1}"}]}`, "", []string{"a {}", `b {"k":1}`}, ""},
		{"text only", `{"text": "nothing to do"}`, "nothing to do", nil, ""},
		{"plain prose", "I cannot do that.", "", nil, `not one JSON object of copperhead's protocol: "I cannot do that."`},
		{"empty", "", "", nil, "not one JSON object"},
		{"other object", `{"answer": 1}`, "", nil, `neither "text" nor "tool_calls"`},
		{"calls not a list", `{"tool_calls": {"name": "x"}}`, "", nil, `"tool_calls" is not a list`},
		{"args not an object", `{"tool_calls": [{"name": "x", "args": [1]}]}`, "", nil, `"args" is not an object`},
		{"empty string args", `{"tool_calls": [{"name": "x", "args": ""}]}`, "", nil, `"args" is not an object`},
		{"text not a string", `{"text": 5}`, "", nil, `"text" is not a string`},
		{"truncated object", `{"text": "hi", "tool_calls": [`, "", nil, "not one JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := parseProtocol(tt.reply)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range r.ToolCalls {
				got = append(got, c.Name+" "+string(c.Args))
			}
			if r.Text != tt.text || strings.Join(got, "|") != strings.Join(tt.calls, "|") {
				t.Errorf("got text %q calls %q, want %q %q", r.Text, got, tt.text, tt.calls)
			}
		})
	}
}

func TestScrubbedEnv(t *testing.T) {
	env := []string{"PATH=/bin", "HOME=/h", "OPENAI_API_KEY=a", "ANTHROPIC_API_KEY=b", "ANTHROPIC_BASE_URL=c", "GROQ_API_KEY=d",
		"AWS_ACCESS_KEY_ID=e", "GITHUB_TOKEN=f", "CLAUDE_CODE_OAUTH_TOKEN=g", "COPPERHEAD_MODEL=h", "HTTPS_PROXY=i", "CODEX_HOME=j", "DB_PASSWORD=k"}
	got := strings.Join(scrubbedEnv(env, []string{"CLAUDE_CODE_OAUTH_TOKEN"}), " ")
	if want := "PATH=/bin HOME=/h CLAUDE_CODE_OAUTH_TOKEN=g HTTPS_PROXY=i CODEX_HOME=j"; got != want {
		t.Errorf("scrubbed = %q, want %q", got, want)
	}
}

// TestRealCLIOutputs reads output captured from the real CLIs (claude
// 2.1.328 logged out; codex-cli 0.169.0 with its server unreachable, cut
// off by a timeout) and the documented success shapes.
func TestRealCLIOutputs(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "savedlogin", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if _, e := parseClaudeResult(read("claude-2.1.328-not-logged-in.json")); e == nil || e.Kind != ErrNotLoggedIn || !strings.Contains(e.Message, "Not logged in") || !strings.Contains(e.Hint, "claude /login") {
		t.Errorf("claude logged out: %v", e)
	}
	if _, e := parseCodexEvents(read("codex-0.169.0-unreachable.jsonl")); e == nil || e.Kind != ErrTransient || !strings.Contains(e.Message, "Reconnecting... 5/5") {
		t.Errorf("codex unreachable: %v", e)
	}
	r, e := parseCodexEvents([]byte(`{"type":"thread.started","thread_id":"t1"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"{\"text\":\"hi\"}"}}
{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}`))
	if e != nil || r.text != `{"text":"hi"}` || r.usage != (Usage{Input: 24763, CacheRead: 24448, Output: 122}) || r.session != "t1" {
		t.Errorf("codex success: %+v %v", r, e)
	}
	if _, e := parseCodexEvents([]byte(`{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized"}}`)); e == nil || e.Kind != ErrNotLoggedIn {
		t.Errorf("codex 401: %v", e)
	}
	r, e = parseCursorResult([]byte(`{"type":"result","subtype":"success","is_error":false,"duration_ms":1234,"duration_api_ms":1234,"result":"{\"text\":\"ok\"}","session_id":"c-1","request_id":"r"}` + "\n"))
	if e != nil || r.text != `{"text":"ok"}` || r.session != "c-1" {
		t.Errorf("cursor success: %+v %v", r, e)
	}
	for _, tt := range []struct {
		status int
		kind   ErrorKind
	}{{429, ErrRateLimited}, {529, ErrOverloaded}, {401, ErrNotLoggedIn}, {500, ErrTransient}} {
		out := fmt.Sprintf(`{"type":"result","is_error":true,"result":"API Error","api_error_status":%d}`, tt.status)
		if _, e := parseClaudeResult([]byte(out)); e == nil || e.Kind != tt.kind {
			t.Errorf("claude status %d: %v, want %s", tt.status, e, tt.kind)
		}
	}
}
