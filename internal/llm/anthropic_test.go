package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"copperhead/internal/llm"
	"copperhead/internal/llm/llmtest"
)

// testKey looks like a real key so a leak would be recognisable in output.
const testKey = "sk-" + "ant-api03-TESTKEY0123456789abcdefghijklmnopqrstuvwxyz"

type readFileInput struct {
	Path     string `json:"path" desc:"repository-relative path"`
	MaxLines int    `json:"max_lines,omitempty" desc:"stop after this many lines"`
}

type assignPinInput struct {
	Net       string `json:"net" desc:"net name, e.g. KEY_DAH"`
	GPIO      int    `json:"gpio"`
	Rationale string `json:"rationale" desc:"one line: why this pin (<= 80 chars) & not another"`
}

// fixture is the fixed conversation every golden request encodes: a user
// request, an assistant turn with text and two tool calls, and a user turn
// answering both (one result an error).
func fixture() (msgs []llm.Message, tools []llm.Tool, opts llm.Options) {
	tools = []llm.Tool{
		llm.ToolFor[readFileInput]("read_file", "Read a text file from the repository."),
		llm.ToolFor[assignPinInput]("assign_pin", "Assign a net to an MCU GPIO."),
	}
	msgs = []llm.Message{
		{Role: llm.RoleUser, Text: "Move the key input to an RTC-capable pin."},
		{Role: llm.RoleAssistant, Text: "Reading the pinout and the spec first.", ToolCalls: []llm.ToolCall{
			{ID: "toolu_01", Name: "read_file", Args: json.RawMessage(`{"path":"docs/PINOUT.md"}`)},
			{ID: "toolu_02", Name: "read_file", Args: json.RawMessage(`{"path": "docs/SPEC.md", "max_lines": 40}`)},
		}},
		{Role: llm.RoleUser, ToolResults: []llm.ToolResult{
			{CallID: "toolu_01", Content: "| GPIO | Net |\n| 4 | KEY_DAH |"},
			{CallID: "toolu_02", Content: "file not found: docs/SPEC.md", IsError: true},
		}},
	}
	opts = llm.Options{System: "You are copperhead. Hold <all> constraints & budgets.", MaxTokens: 4096}
	return msgs, tools, opts
}

func newAnthropic(url string) *llm.Anthropic {
	return llm.NewAnthropic(llm.AnthropicConfig{APIKey: testKey, Model: "claude-test", BaseURL: url})
}

func TestAnthropicRequestGolden(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Anthropic, llmtest.Reply{Text: "ok"})
	msgs, tools, opts := fixture()
	if _, err := newAnthropic(s.URL).Chat(context.Background(), msgs, tools, opts); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	checkGoldenBody(t, "anthropic_request.json", reqs[0].Body)
	checkCacheMarkers(t, reqs[0].Body)
}

// checkCacheMarkers asserts the three breakpoints: system block, last tool,
// last block of the last message, and no marker anywhere else.
func checkCacheMarkers(t *testing.T, body []byte) {
	t.Helper()
	if n := strings.Count(string(body), `"cache_control"`); n != 3 {
		t.Errorf("%d cache_control markers, want 3:\n%s", n, body)
	}
	var req struct {
		System []map[string]any `json:"system"`
		Tools  []map[string]any `json:"tools"`
		Msgs   []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	marked := func(m map[string]any) bool {
		cc, ok := m["cache_control"].(map[string]any)
		return ok && cc["type"] == "ephemeral"
	}
	if len(req.System) != 1 || !marked(req.System[0]) {
		t.Errorf("system block not marked: %v", req.System)
	}
	for i, tool := range req.Tools {
		if want := i == len(req.Tools)-1; marked(tool) != want {
			t.Errorf("tool %d marked=%v, want %v", i, marked(tool), want)
		}
	}
	for i, m := range req.Msgs {
		for j, b := range m.Content {
			want := i == len(req.Msgs)-1 && j == len(m.Content)-1
			if marked(b) != want {
				t.Errorf("message %d block %d marked=%v, want %v", i, j, marked(b), want)
			}
		}
	}
}

// TestAnthropicCacheMarkersMove checks that the marker on the last message
// moves on as the conversation grows: the previous turn's last block carries
// none in the next request.
func TestAnthropicCacheMarkersMove(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Anthropic,
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "read_file", Args: json.RawMessage(`{"path":"a"}`)}}},
		llmtest.Reply{Text: "done"})
	p := newAnthropic(s.URL)
	msgs, tools, opts := fixture()
	turn, err := p.Chat(context.Background(), msgs, tools, opts)
	if err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, turn.Message(), llm.Message{Role: llm.RoleUser, ToolResults: []llm.ToolResult{{CallID: turn.ToolCalls[0].ID, Content: "a"}},
		Text: "and keep it under budget"})
	if _, err := p.Chat(context.Background(), msgs, tools, opts); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	checkCacheMarkers(t, reqs[0].Body)
	checkCacheMarkers(t, reqs[1].Body)
	// The tool_result comes before the text in the final user message, and
	// the text (the last block) carries the marker.
	var req struct {
		Msgs []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1].Body, &req); err != nil {
		t.Fatal(err)
	}
	last := req.Msgs[len(req.Msgs)-1].Content
	if len(last) != 2 || last[0]["type"] != "tool_result" || last[1]["type"] != "text" || last[1]["cache_control"] == nil {
		t.Errorf("last message = %v", last)
	}
}

func TestAnthropicNoSystemNoTools(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Anthropic, llmtest.Reply{Text: "hi"})
	_, err := newAnthropic(s.URL).Chat(context.Background(),
		[]llm.Message{{Role: llm.RoleUser, Text: "hello"}, {Role: llm.RoleAssistant}, {Role: llm.RoleUser, Text: "again"}}, nil, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := string(s.Requests()[0].Body)
	want := `{"model":"claude-test","max_tokens":16000,"messages":[{"role":"user","content":[{"type":"text","text":"hello"}]},` +
		`{"role":"user","content":[{"type":"text","text":"again","cache_control":{"type":"ephemeral"}}]}]}`
	if body != want {
		t.Errorf("body\n%s\nwant\n%s", body, want)
	}
}

func TestAnthropicResponse(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Anthropic,
		llmtest.Reply{Text: "Checking.", ToolCalls: []llm.ToolCall{
			{ID: "toolu_a", Name: "read_file", Args: json.RawMessage(`{"path":"docs/SPEC.md"}`)},
			{ID: "toolu_b", Name: "assign_pin"},
		}, Usage: llm.Usage{Input: 1500, CacheRead: 1000, CacheWrite: 300, Output: 42}, Model: "claude-test-20250101"},
	)
	turn, err := newAnthropic(s.URL).Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if turn.Text != "Checking." || turn.Stop != llm.StopToolUse || turn.Model != "claude-test-20250101" {
		t.Errorf("turn = %+v", turn)
	}
	if len(turn.ToolCalls) != 2 || turn.ToolCalls[0].ID != "toolu_a" || string(turn.ToolCalls[0].Args) != `{"path":"docs/SPEC.md"}` ||
		turn.ToolCalls[1].Name != "assign_pin" || string(turn.ToolCalls[1].Args) != `{}` {
		t.Errorf("tool calls = %+v", turn.ToolCalls)
	}
	if want := (llm.Usage{Input: 1500, CacheRead: 1000, CacheWrite: 300, Output: 42}); turn.Usage != want {
		t.Errorf("usage = %+v, want %+v", turn.Usage, want)
	}
}

// TestAnthropicUsageWire pins the accounting against a hand-written reply:
// reported input is input_tokens plus both cache counts (AC-15.15).
func TestAnthropicUsageWire(t *testing.T) {
	body := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[` +
		`{"type":"thinking","thinking":"hmm","signature":"x"},{"type":"text","text":"a"},{"type":"text","text":"b"}],` +
		`"stop_reason":"end_turn","stop_sequence":null,` +
		`"usage":{"input_tokens":12,"cache_creation_input_tokens":2000,"cache_read_input_tokens":30000,"output_tokens":7}}`
	s := llmtest.NewServer(t, llmtest.Anthropic, llmtest.Status{Code: 200, Body: body})
	turn, err := newAnthropic(s.URL).Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (llm.Usage{Input: 32012, Output: 7, CacheRead: 30000, CacheWrite: 2000}); turn.Usage != want {
		t.Errorf("usage = %+v, want %+v", turn.Usage, want)
	}
	if turn.Text != "ab" || turn.Stop != llm.StopEnd || len(turn.ToolCalls) != 0 {
		t.Errorf("turn = %+v", turn)
	}
}

func TestAnthropicStopReasons(t *testing.T) {
	cases := map[llm.StopReason]llm.StopReason{
		llm.StopEnd:                     llm.StopEnd,
		llm.StopMaxTokens:               llm.StopMaxTokens,
		"stop_sequence":                 llm.StopEnd,
		"model_context_window_exceeded": llm.StopMaxTokens,
		"pause_turn":                    llm.StopOther,
		"refusal":                       llm.StopOther,
		"something_new":                 llm.StopOther,
	}
	for wire, want := range cases {
		s := llmtest.NewServer(t, llmtest.Anthropic, llmtest.Reply{Text: "x", Stop: wire})
		turn, err := newAnthropic(s.URL).Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if turn.Stop != want {
			t.Errorf("stop_reason %q -> %q, want %q", wire, turn.Stop, want)
		}
	}
}

func TestAnthropicHeaders(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Anthropic, llmtest.Reply{Text: "ok"})
	if _, err := newAnthropic(s.URL+"/").Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{}); err != nil {
		t.Fatal(err)
	}
	r := s.Requests()[0]
	if r.Method != http.MethodPost || r.Path != "/v1/messages" {
		t.Errorf("%s %s", r.Method, r.Path)
	}
	for k, want := range map[string]string{
		"X-Api-Key":         testKey,
		"Anthropic-Version": "2023-06-01",
		"Content-Type":      "application/json",
		"Authorization":     "",
	} {
		if got := r.Header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
}

// errorCase is one scripted failure and the *Error it must become.
type errorCase struct {
	name       string
	step       llmtest.Step
	kind       llm.ErrorKind
	status     int
	retryAfter time.Duration
	msg        string // substring of Error.Message
	hint       string // substring of Error.Hint
}

func TestAnthropicErrors(t *testing.T) {
	long := strings.Repeat("overlong ", 100)
	cases := []errorCase{
		{name: "429 seconds", step: llmtest.Status{Code: 429, Header: map[string]string{"retry-after": "2"}, Message: "Number of request tokens has exceeded your per-minute rate limit"},
			kind: llm.ErrRateLimited, status: 429, retryAfter: 2 * time.Second, msg: "per-minute rate limit"},
		{name: "429 ms", step: llmtest.Status{Code: 429, Header: map[string]string{"retry-after-ms": "1500", "retry-after": "9"}},
			kind: llm.ErrRateLimited, status: 429, retryAfter: 1500 * time.Millisecond},
		{name: "529", step: llmtest.Status{Code: 529, Message: "Overloaded"}, kind: llm.ErrOverloaded, status: 529, msg: "Overloaded"},
		{name: "overloaded_error under 500", step: llmtest.Status{Code: 500, Type: "overloaded_error"}, kind: llm.ErrOverloaded, status: 500},
		{name: "503", step: llmtest.Status{Code: 503, Header: map[string]string{"retry-after": "5"}}, kind: llm.ErrOverloaded, status: 503, retryAfter: 5 * time.Second},
		{name: "500", step: llmtest.Status{Code: 500, Message: "Internal server error"}, kind: llm.ErrTransient, status: 500},
		{name: "502 html", step: llmtest.Status{Code: 502, Body: "<html><body><h1>502 Bad Gateway</h1></body></html>"},
			kind: llm.ErrTransient, status: 502, msg: "502 Bad Gateway"},
		{name: "401", step: llmtest.Status{Code: 401, Message: "invalid x-api-key"}, kind: llm.ErrAuth, status: 401, msg: "invalid x-api-key", hint: "ANTHROPIC_API_KEY"},
		{name: "403", step: llmtest.Status{Code: 403, Type: "permission_error", Message: "Your API key does not have permission"},
			kind: llm.ErrAuth, status: 403, hint: "ANTHROPIC_API_KEY"},
		{name: "prompt too long", step: llmtest.Status{Code: 400, Message: "prompt is too long: 208310 tokens > 200000 maximum"},
			kind: llm.ErrContextTooLong, status: 400, msg: "208310 tokens > 200000", hint: "context window"},
		{name: "413", step: llmtest.Status{Code: 413, Type: "request_too_large", Message: "Request exceeds the maximum allowed number of bytes."},
			kind: llm.ErrContextTooLong, status: 413},
		{name: "credit", step: llmtest.Status{Code: 400, Message: "Your credit balance is too low to access the Anthropic API."},
			kind: llm.ErrAuth, status: 400, hint: "out of credit"},
		{name: "404 model", step: llmtest.Status{Code: 404, Type: "not_found_error", Message: "model: claude-nope"},
			kind: llm.ErrBadRequest, status: 404, hint: "model id claude-test"},
		{name: "400", step: llmtest.Status{Code: 400, Message: "messages.1.content.0.tool_use.input: Input should be a valid dictionary"},
			kind: llm.ErrBadRequest, status: 400, msg: "valid dictionary"},
		{name: "408", step: llmtest.Status{Code: 408}, kind: llm.ErrTransient, status: 408},
		{name: "malformed", step: llmtest.Malformed{}, kind: llm.ErrTransient, status: 200, msg: "malformed response"},
		{name: "not a message", step: llmtest.Status{Code: 200, Body: `{"hello":"world"}`}, kind: llm.ErrTransient, status: 200, msg: "malformed"},
		{name: "error under 200", step: llmtest.Status{Code: 200, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
			kind: llm.ErrOverloaded},
		{name: "long message trimmed", step: llmtest.Status{Code: 400, Message: long}, kind: llm.ErrBadRequest, status: 400, msg: "overlong overlong"},
		{name: "key echoed", step: llmtest.Status{Code: 401, Message: "bad key " + testKey + " (Bearer " + testKey + ")"}, kind: llm.ErrAuth, status: 401, msg: "bad key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := llmtest.NewServer(t, llmtest.Anthropic, c.step)
			_, err := newAnthropic(s.URL).Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{})
			checkError(t, err, "anthropic", c)
		})
	}
}

// checkError asserts err is the *Error c describes, and that no key material
// leaked into any of its text.
func checkError(t *testing.T, err error, provider string, c errorCase) {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *llm.Error", err, err)
	}
	if e.Kind != c.kind || e.Provider != provider {
		t.Errorf("kind/provider = %s/%s, want %s/%s (%v)", e.Kind, e.Provider, c.kind, provider, e)
	}
	if c.status != 0 && e.Status != c.status {
		t.Errorf("status = %d, want %d", e.Status, c.status)
	}
	if e.RetryAfter != c.retryAfter {
		t.Errorf("retry after = %v, want %v", e.RetryAfter, c.retryAfter)
	}
	if !strings.Contains(e.Message, c.msg) {
		t.Errorf("message %q lacks %q", e.Message, c.msg)
	}
	if !strings.Contains(e.Hint, c.hint) {
		t.Errorf("hint %q lacks %q", e.Hint, c.hint)
	}
	if e.Hint == "" {
		t.Errorf("no hint")
	}
	if n := len([]rune(e.Message)); n > 301 {
		t.Errorf("message is %d runes, want <= 301", n)
	}
	all := e.Error() + " " + e.Hint
	for _, secret := range []string{testKey, openaiTestKey, "TESTKEY", "sk-proj-"} {
		if strings.Contains(all, secret) {
			t.Errorf("error leaks %q: %s", secret, all)
		}
	}
}

func TestAnthropicMissingKey(t *testing.T) {
	_, err := llm.NewAnthropic(llm.AnthropicConfig{BaseURL: "http://127.0.0.1:1"}).Chat(context.Background(), nil, nil, llm.Options{})
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.ErrAuth || !strings.Contains(e.Hint, "ANTHROPIC_API_KEY") {
		t.Errorf("err = %#v", err)
	}
}

func TestAnthropicDefaults(t *testing.T) {
	p := llm.NewAnthropic(llm.AnthropicConfig{APIKey: testKey})
	if p.Name() != "anthropic" || p.Model() != llm.DefaultAnthropicModel {
		t.Errorf("name/model = %s/%s", p.Name(), p.Model())
	}
}

// TestContextCancel: the caller's cancellation comes back as its own
// context error, not as a retryable provider failure.
func TestContextCancel(t *testing.T) {
	for _, p := range []llmtest.Protocol{llmtest.Anthropic, llmtest.OpenAI} {
		t.Run(string(p), func(t *testing.T) {
			s := llmtest.NewServer(t, p, llmtest.Slow{Delay: 10 * time.Second})
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := providerFor(p, s.URL).Chat(ctx, []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{})
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want context.DeadlineExceeded", err)
			}
			var e *llm.Error
			if errors.As(err, &e) {
				t.Errorf("cancellation reported as provider error %v", e)
			}
			if time.Since(start) > 5*time.Second {
				t.Errorf("cancellation took %v", time.Since(start))
			}
		})
	}
}

// TestClientTimeout: a timeout of the configured *http.Client (not the
// caller's context) is a slow server, which is transient.
func TestClientTimeout(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Anthropic, llmtest.Slow{Delay: 10 * time.Second})
	p := llm.NewAnthropic(llm.AnthropicConfig{APIKey: testKey, BaseURL: s.URL, HTTPClient: &http.Client{Timeout: 50 * time.Millisecond}})
	_, err := p.Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{})
	checkError(t, err, "anthropic", errorCase{kind: llm.ErrTransient})
}

func TestConnectionRefused(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	for _, p := range []llmtest.Protocol{llmtest.Anthropic, llmtest.OpenAI} {
		_, err := providerFor(p, url).Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{})
		name := string(p)
		checkError(t, err, name, errorCase{kind: llm.ErrTransient, hint: "could not reach"})
	}
}

func TestResponseSizeCap(t *testing.T) {
	for _, p := range []llmtest.Protocol{llmtest.Anthropic, llmtest.OpenAI} {
		t.Run(string(p), func(t *testing.T) {
			huge := `{"model":"` + strings.Repeat("x", 9<<20) + `"}`
			s := llmtest.NewServer(t, p, llmtest.Malformed{Body: huge})
			_, err := providerFor(p, s.URL).Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "go"}}, nil, llm.Options{})
			checkError(t, err, string(p), errorCase{kind: llm.ErrTransient, status: 200, msg: "response larger than"})
		})
	}
}

func providerFor(p llmtest.Protocol, url string) llm.Provider {
	if p == llmtest.Anthropic {
		return newAnthropic(url)
	}
	return llm.NewOpenAI(llm.OpenAIConfig{Name: "openai", APIKey: openaiTestKey, Model: "gpt-test", BaseURL: url})
}
