package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"copperhead/internal/llm"
	"copperhead/internal/llm/llmtest"
)

const openaiTestKey = "sk-" + "proj-TESTKEY0123456789abcdefghijklmnopqrstuvwxyz"

func newOpenAI(name, url, key string) *llm.OpenAI {
	return llm.NewOpenAI(llm.OpenAIConfig{Name: name, APIKey: key, Model: "gpt-test", BaseURL: url,
		Organization: "org-test", Project: "proj_test", KeyEnv: map[string]string{"openai": "", "compat": "GROQ_API_KEY"}[name]})
}

func TestOpenAIRequestGolden(t *testing.T) {
	for _, name := range []string{"openai", "compat"} {
		t.Run(name, func(t *testing.T) {
			s := llmtest.NewServer(t, llmtest.OpenAI, llmtest.Reply{Text: "ok"})
			msgs, tools, opts := fixture()
			// A trailing user text after the tool results: it must come after
			// the role:"tool" messages.
			msgs[2].Text = "Keep the sleep budget in mind."
			if _, err := newOpenAI(name, s.URL+"/v1", openaiTestKey).Chat(context.Background(), msgs, tools, opts); err != nil {
				t.Fatal(err)
			}
			r := s.Requests()[0]
			if r.Path != "/v1/chat/completions" {
				t.Errorf("path %s", r.Path)
			}
			checkGoldenBody(t, name+"_request.json", r.Body)
			// The one difference between the two bodies is the output-cap field.
			body := string(r.Body)
			wantField, otherField := `"max_completion_tokens":4096`, `"max_tokens"`
			if name == "compat" {
				wantField, otherField = `"max_tokens":4096`, `"max_completion_tokens"`
			}
			if !strings.Contains(body, wantField) || strings.Contains(body, otherField) {
				t.Errorf("%s body should carry %s and not %s", name, wantField, otherField)
			}
		})
	}
}

func TestOpenAINoMaxTokensByDefault(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.OpenAI, llmtest.Reply{Text: "ok"})
	if _, err := newOpenAI("openai", s.URL, openaiTestKey).Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "hi"}}, nil, llm.Options{}); err != nil {
		t.Fatal(err)
	}
	want := `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}]}`
	if got := string(s.Requests()[0].Body); got != want {
		t.Errorf("body %s, want %s", got, want)
	}
}

func TestOpenAIHeaders(t *testing.T) {
	cases := []struct {
		name, key                   string
		wantAuth, wantOrg, wantProj string
	}{
		{"openai", openaiTestKey, "Bearer " + openaiTestKey, "org-test", "proj_test"},
		{"compat", "gsk_remote", "Bearer gsk_remote", "", ""},
		{"compat", "", "", "", ""},
	}
	for _, c := range cases {
		s := llmtest.NewServer(t, llmtest.OpenAI, llmtest.Reply{Text: "ok"})
		if _, err := newOpenAI(c.name, s.URL, c.key).Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "hi"}}, nil, llm.Options{}); err != nil {
			t.Fatal(err)
		}
		h := s.Requests()[0].Header
		if got := h.Get("Authorization"); got != c.wantAuth {
			t.Errorf("%s key=%q: Authorization = %q, want %q", c.name, c.key, got, c.wantAuth)
		}
		if _, present := h["Authorization"]; present != (c.wantAuth != "") {
			t.Errorf("%s key=%q: Authorization present = %v", c.name, c.key, present)
		}
		if got := h.Get("OpenAI-Organization"); got != c.wantOrg {
			t.Errorf("%s: OpenAI-Organization = %q, want %q", c.name, got, c.wantOrg)
		}
		if got := h.Get("OpenAI-Project"); got != c.wantProj {
			t.Errorf("%s: OpenAI-Project = %q, want %q", c.name, got, c.wantProj)
		}
		if h.Get("Content-Type") != "application/json" || h.Get("X-Api-Key") != "" {
			t.Errorf("%s: headers %v", c.name, h)
		}
	}
}

func TestOpenAIResponse(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.OpenAI,
		llmtest.Reply{Text: "Checking.", ToolCalls: []llm.ToolCall{
			{ID: "call_a", Name: "read_file", Args: json.RawMessage(`{"path":"docs/SPEC.md"}`)},
			{ID: "call_b", Name: "assign_pin"},
		}, Usage: llm.Usage{Input: 1500, CacheRead: 1024, Output: 42}, Model: "gpt-test-2025"})
	turn, err := newOpenAI("openai", s.URL, openaiTestKey).Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if turn.Text != "Checking." || turn.Stop != llm.StopToolUse || turn.Model != "gpt-test-2025" {
		t.Errorf("turn = %+v", turn)
	}
	if len(turn.ToolCalls) != 2 || turn.ToolCalls[0].ID != "call_a" || string(turn.ToolCalls[0].Args) != `{"path":"docs/SPEC.md"}` ||
		string(turn.ToolCalls[1].Args) != `{}` {
		t.Errorf("tool calls = %+v", turn.ToolCalls)
	}
	if want := (llm.Usage{Input: 1500, CacheRead: 1024, Output: 42}); turn.Usage != want {
		t.Errorf("usage = %+v, want %+v", turn.Usage, want)
	}
}

// TestOpenAICompatQuirks feeds replies real compatible servers send: tool
// calls under finish_reason "stop" without ids, arguments that are an object
// or not JSON at all, content as an array of parts, and no usage.
func TestOpenAICompatQuirks(t *testing.T) {
	body := `{"model":"llama3.1:8b","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant",` +
		`"content":[{"type":"text","text":"Let me "},{"type":"text","text":"look."}],` +
		`"tool_calls":[{"type":"function","function":{"name":"read_file","arguments":{"path":"a"}}},` +
		`{"type":"function","function":{"name":"read_file","arguments":"{\"path\": \"b\""}},` +
		`{"type":"function","function":{"name":"noop","arguments":""}}]}}]}`
	s := llmtest.NewServer(t, llmtest.OpenAI, llmtest.Status{Code: 200, Body: body}, llmtest.Reply{Text: "ok"})
	p := newOpenAI("compat", s.URL, "")
	turn, err := p.Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if turn.Text != "Let me look." || turn.Stop != llm.StopToolUse || turn.Usage != (llm.Usage{}) {
		t.Errorf("turn = %+v", turn)
	}
	var got []string
	for _, c := range turn.ToolCalls {
		got = append(got, c.ID+" "+string(c.Args))
	}
	want := []string{`call_copperhead_1 {"path":"a"}`, `call_copperhead_2 "{\"path\": \"b\""`, `call_copperhead_3 {}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("tool calls\n%q\nwant\n%q", got, want)
	}
	// Every Args is valid JSON, so the turn can be recorded.
	if _, err := json.Marshal(turn); err != nil {
		t.Errorf("turn does not marshal: %v", err)
	}
	// Sent back, the malformed arguments are exactly what the model wrote.
	msgs := []llm.Message{{Role: llm.RoleUser, Text: "go"}, turn.Message()}
	if _, err := p.Chat(context.Background(), msgs, nil, llm.Options{}); err != nil {
		t.Fatal(err)
	}
	var req struct {
		Messages []struct {
			ToolCalls []struct {
				Function struct{ Arguments string } `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(s.Requests()[1].Body, &req); err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, c := range req.Messages[1].ToolCalls {
		sent = append(sent, c.Function.Arguments)
	}
	if want := []string{`{"path":"a"}`, `{"path": "b"`, `{}`}; strings.Join(sent, "|") != strings.Join(want, "|") {
		t.Errorf("arguments sent back %q, want %q", sent, want)
	}
}

func TestOpenAIStopReasons(t *testing.T) {
	cases := []struct {
		reply llmtest.Reply
		want  llm.StopReason
	}{
		{llmtest.Reply{Text: "x"}, llm.StopEnd},
		{llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "t"}}}, llm.StopToolUse},
		{llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "t"}}, Stop: llm.StopMaxTokens}, llm.StopMaxTokens},
		{llmtest.Reply{Text: "x", Stop: llm.StopMaxTokens}, llm.StopMaxTokens},
		{llmtest.Reply{Text: "x", Stop: "content_filter"}, llm.StopOther},
		{llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "t"}}, Stop: "content_filter"}, llm.StopOther},
		{llmtest.Reply{Text: "x", Stop: "function_call"}, llm.StopToolUse},
	}
	for _, c := range cases {
		s := llmtest.NewServer(t, llmtest.OpenAI, c.reply)
		turn, err := newOpenAI("compat", s.URL, "").Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if turn.Stop != c.want {
			t.Errorf("reply %+v -> %q, want %q", c.reply, turn.Stop, c.want)
		}
	}
}

func TestOpenAIErrors(t *testing.T) {
	cases := []errorCase{
		{name: "429 retry-after-ms", step: llmtest.Status{Code: 429, Type: "requests", ErrorCode: "rate_limit_exceeded",
			Header: map[string]string{"retry-after-ms": "250"}, Message: "Rate limit reached for gpt-test"},
			kind: llm.ErrRateLimited, status: 429, retryAfter: 250 * time.Millisecond, msg: "Rate limit reached"},
		{name: "429 http-date in the past", step: llmtest.Status{Code: 429, Header: map[string]string{"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}},
			kind: llm.ErrRateLimited, status: 429},
		{name: "insufficient_quota", step: llmtest.Status{Code: 429, Type: "insufficient_quota", ErrorCode: "insufficient_quota",
			Header:  map[string]string{"retry-after": "20"},
			Message: "You exceeded your current quota, please check your plan and billing details."},
			kind: llm.ErrAuth, status: 429, msg: "current quota", hint: "OPENAI_API_KEY has exhausted its quota"},
		{name: "context_length_exceeded", step: llmtest.Status{Code: 400, ErrorCode: "context_length_exceeded",
			Message: "Your input exceeds the context window of this model."},
			kind: llm.ErrContextTooLong, status: 400, hint: "context window"},
		{name: "vllm flat error", step: llmtest.Status{Code: 400, Body: `{"object":"error","message":"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.","type":"BadRequestError","param":null,"code":400}`},
			kind: llm.ErrContextTooLong, status: 400, msg: "maximum context length is 8192"},
		{name: "401 masked key", step: llmtest.Status{Code: 401, Type: "invalid_request_error", ErrorCode: "invalid_api_key",
			Message: "Incorrect API key provided: sk-proj-****wxyz. You can find your API key at https://platform.openai.com/account/api-keys."},
			kind: llm.ErrAuth, status: 401, msg: "Incorrect API key provided: sk-[redacted]", hint: "OPENAI_API_KEY"},
		{name: "key in message", step: llmtest.Status{Code: 400, Message: "bad header Authorization: Bearer " + openaiTestKey},
			kind: llm.ErrBadRequest, status: 400, msg: "Bearer [redacted]"},
		{name: "500", step: llmtest.Status{Code: 500, Type: "server_error"}, kind: llm.ErrTransient, status: 500},
		{name: "503", step: llmtest.Status{Code: 503, Message: "The engine is currently overloaded"}, kind: llm.ErrOverloaded, status: 503},
		{name: "404", step: llmtest.Status{Code: 404, ErrorCode: "model_not_found", Message: "The model `gpt-test` does not exist"},
			kind: llm.ErrBadRequest, status: 404, hint: "model id gpt-test"},
		{name: "malformed", step: llmtest.Malformed{}, kind: llm.ErrTransient, status: 200, msg: "malformed"},
		{name: "no choices", step: llmtest.Status{Code: 200, Body: `{"id":"x","choices":[]}`}, kind: llm.ErrTransient, status: 200, msg: "no choices"},
		{name: "openrouter error under 200", step: llmtest.Status{Code: 200, Body: `{"error":{"message":"Rate limit exceeded: upstream","code":429}}`},
			kind: llm.ErrRateLimited, status: 429, msg: "upstream"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := llmtest.NewServer(t, llmtest.OpenAI, c.step)
			_, err := newOpenAI("openai", s.URL, openaiTestKey).Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{})
			checkError(t, err, "openai", c)
		})
	}
}

func TestCompatErrors(t *testing.T) {
	cases := []errorCase{
		{name: "ollama model missing", step: llmtest.Status{Code: 404, Body: `{"error":"model \"gpt-test\" not found, try pulling it first"}`},
			kind: llm.ErrBadRequest, status: 404, msg: "try pulling it first", hint: "127.0.0.1"},
		{name: "401 names the key variable", step: llmtest.Status{Code: 401, Message: "Invalid API Key"},
			kind: llm.ErrAuth, status: 401, hint: "GROQ_API_KEY"},
		{name: "429 is a rate limit", step: llmtest.Status{Code: 429, Header: map[string]string{"retry-after": "3"}},
			kind: llm.ErrRateLimited, status: 429, retryAfter: 3 * time.Second},
		{name: "413 tpm", step: llmtest.Status{Code: 413, Message: "Request too large for model on tokens per minute (TPM)"},
			kind: llm.ErrContextTooLong, status: 413},
		{name: "402 credits", step: llmtest.Status{Code: 402, Message: "Insufficient credits"}, kind: llm.ErrAuth, status: 402, hint: "quota or credit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := llmtest.NewServer(t, llmtest.OpenAI, c.step)
			_, err := newOpenAI("compat", s.URL, "gsk_remote_key").Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{})
			checkError(t, err, "compat", c)
		})
	}
}

func TestOpenAIConfigErrors(t *testing.T) {
	noKey := llm.NewOpenAI(llm.OpenAIConfig{})
	if noKey.Name() != "openai" || noKey.Model() != llm.DefaultOpenAIModel {
		t.Errorf("defaults: %s %s", noKey.Name(), noKey.Model())
	}
	_, err := noKey.Chat(context.Background(), nil, nil, llm.Options{})
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.ErrAuth || !strings.Contains(e.Hint, "OPENAI_API_KEY") {
		t.Errorf("missing key: %v", err)
	}
	// compat has no default endpoint or model.
	_, err = llm.NewOpenAI(llm.OpenAIConfig{Name: "compat", Model: "m"}).Chat(context.Background(), nil, nil, llm.Options{})
	if !errors.As(err, &e) || e.Kind != llm.ErrNotConfigured || e.Provider != "compat" || !strings.Contains(e.Hint, "compat:<model-id>") {
		t.Errorf("compat without baseURL: %v", err)
	}
}
