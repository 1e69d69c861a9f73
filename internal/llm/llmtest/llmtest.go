// Package llmtest is a fake model server for tests: an httptest.Server that
// speaks the real Anthropic Messages or OpenAI Chat Completions wire JSON and
// answers each request with the next step of a script; and a fake
// saved-login CLI (fakecli.go) speaking claude's, codex's and Cursor agent's
// output formats.
//
//	s := llmtest.NewServer(t, llmtest.Anthropic,
//		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "read_file", Args: json.RawMessage(`{"path":"docs/SPEC.md"}`)}}},
//		llmtest.Status{Code: 429, Header: map[string]string{"retry-after": "2"}},
//		llmtest.Reply{Text: "done", Usage: llm.Usage{Input: 1200, CacheRead: 1000, Output: 40}},
//	)
//	p := llm.NewAnthropic(llm.AnthropicConfig{APIKey: "test-key", BaseURL: s.URL})
//	...
//	reqs := s.Requests() // every request received, for assertions on the wire
//
// Point an Anthropic client's BaseURL at s.URL, and an OpenAI or compat
// client's BaseURL at s.URL (any path prefix works: s.URL+"/v1" too). A
// request beyond the end of the script fails the test and gets a 500.
// Because the server answers with real wire JSON, a test that passes against
// it exercises the same parsing a live run does.
package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"copperhead/internal/llm"
)

// Protocol is the wire format a Server speaks.
type Protocol string

const (
	Anthropic Protocol = "anthropic" // POST .../v1/messages
	OpenAI    Protocol = "openai"    // POST .../chat/completions, for openai and compat
)

// Step is one scripted answer: Reply, Status, Malformed or Slow.
type Step interface{ isStep() }

// Reply answers with a successful model turn.
type Reply struct {
	Text string
	// ToolCalls are returned in order. An empty ID is filled with a unique
	// one; empty Args become {}.
	ToolCalls []llm.ToolCall
	// Stop defaults to llm.StopToolUse when there are tool calls and
	// llm.StopEnd otherwise. The four llm.StopReason values map to the
	// protocol's own words (StopOther is Anthropic "refusal", OpenAI
	// "content_filter"); any other value is sent verbatim, to test unknown
	// stop reasons.
	Stop llm.StopReason
	// Usage is reported in the protocol's shape, so a correct client reads
	// back exactly this value: Input includes CacheRead and CacheWrite
	// (Anthropic reports input_tokens net of both; OpenAI reports
	// prompt_tokens including cached_tokens and has no cache-write count,
	// so CacheWrite is not sent there).
	Usage llm.Usage
	// Model is the model id the reply claims; default the request's model.
	Model string
}

// Status answers with an HTTP error in the protocol's error JSON.
type Status struct {
	Code   int               // the HTTP status
	Header map[string]string // e.g. {"retry-after": "2"} or {"retry-after-ms": "1500"}
	// Type is error.type: default rate_limit_error for 429,
	// overloaded_error for 529, authentication_error for 401, api_error for
	// 5xx, invalid_request_error otherwise (the same names OpenAI uses,
	// close enough for a fake).
	Type string
	// ErrorCode is OpenAI's error.code (e.g. "insufficient_quota",
	// "context_length_exceeded"); ignored for Anthropic.
	ErrorCode string
	Message   string // error.message; default the status text
	// Body, when set, is sent verbatim instead of generated error JSON (for
	// proxies' HTML pages, Ollama's {"error":"..."}, or a 200 error object).
	Body string
}

// Malformed answers 200 with a body that is not the protocol's JSON.
type Malformed struct {
	Body string // default a truncated JSON object
}

// Slow waits Delay before answering with Then (default a text reply), so
// tests can exercise cancellation and timeouts. It gives up early when the
// client goes away or the server closes.
type Slow struct {
	Delay time.Duration
	Then  Step
}

func (Reply) isStep()     {}
func (Status) isStep()    {}
func (Malformed) isStep() {}
func (Slow) isStep()      {}

// Request is one request the Server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Server is a scripted fake model endpoint.
type Server struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:41235.
	URL string

	t        testing.TB
	protocol Protocol
	srv      *httptest.Server
	closing  chan struct{}

	mu       sync.Mutex
	script   []Step
	requests []Request
}

// NewServer starts a fake endpoint speaking p that answers requests with
// script, one step each, and closes it when the test ends.
func NewServer(t testing.TB, p Protocol, script ...Step) *Server {
	t.Helper()
	if p != Anthropic && p != OpenAI {
		t.Fatalf("llmtest: unknown protocol %q", p)
	}
	s := &Server{t: t, protocol: p, script: script, closing: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(func() {
		close(s.closing)
		s.srv.Close()
	})
	return s
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = Request{Method: r.Method, Path: r.Path, Header: r.Header.Clone(), Body: bytes.Clone(r.Body)}
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	var step Step
	if n < len(s.script) {
		step = s.script[n]
	}
	s.mu.Unlock()

	suffix := "/v1/messages"
	if s.protocol == OpenAI {
		suffix = "/chat/completions"
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, suffix) {
		s.t.Errorf("llmtest: request %d is %s %s, want POST .../%s", n+1, r.Method, r.URL.Path, strings.TrimPrefix(suffix, "/"))
		s.writeError(w, Status{Code: http.StatusNotFound, Message: "llmtest: wrong endpoint"})
		return
	}
	var req struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.t.Errorf("llmtest: request %d body is not a JSON object: %v", n+1, err)
		s.writeError(w, Status{Code: http.StatusBadRequest, Message: "llmtest: body is not JSON"})
		return
	}
	if step == nil {
		s.t.Errorf("llmtest: request %d arrived but the script has only %d steps", n+1, len(s.script))
		s.writeError(w, Status{Code: http.StatusInternalServerError, Message: "llmtest: script exhausted"})
		return
	}
	s.answer(w, r, step, n, req.Model)
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, step Step, n int, model string) {
	switch st := step.(type) {
	case Reply:
		if st.Model == "" {
			st.Model = model
		}
		var body any
		if s.protocol == Anthropic {
			body = anthropicReply(st, n)
		} else {
			body = openaiReply(st, n)
		}
		writeJSON(w, http.StatusOK, body)
	case Status:
		s.writeError(w, st)
	case Malformed:
		b := st.Body
		if b == "" {
			b = `{"id":"msg_truncated","content":[{"type":"te`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, b)
	case Slow:
		timer := time.NewTimer(st.Delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
		then := st.Then
		if then == nil {
			then = Reply{Text: "slow reply"}
		}
		s.answer(w, r, then, n, model)
	default:
		s.t.Errorf("llmtest: unknown step type %T", step)
		s.writeError(w, Status{Code: http.StatusInternalServerError, Message: "llmtest: unknown step"})
	}
}

func (s *Server) writeError(w http.ResponseWriter, st Status) {
	for k, v := range st.Header {
		w.Header().Set(k, v)
	}
	if st.Body != "" {
		w.WriteHeader(st.Code)
		_, _ = io.WriteString(w, st.Body)
		return
	}
	typ := st.Type
	if typ == "" {
		switch {
		case st.Code == http.StatusTooManyRequests:
			typ = "rate_limit_error"
		case st.Code == 529:
			typ = "overloaded_error"
		case st.Code == http.StatusUnauthorized:
			typ = "authentication_error"
		case st.Code >= 500:
			typ = "api_error"
		default:
			typ = "invalid_request_error"
		}
	}
	msg := st.Message
	if msg == "" {
		msg = http.StatusText(st.Code)
	}
	if s.protocol == Anthropic {
		writeJSON(w, st.Code, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
		return
	}
	var code any
	if st.ErrorCode != "" {
		code = st.ErrorCode
	}
	writeJSON(w, st.Code, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func args(a json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(a)) == 0 {
		return json.RawMessage(`{}`)
	}
	return a
}

func stopOf(r Reply) llm.StopReason {
	if r.Stop != "" {
		return r.Stop
	}
	if len(r.ToolCalls) > 0 {
		return llm.StopToolUse
	}
	return llm.StopEnd
}

func anthropicReply(r Reply, n int) map[string]any {
	content := []map[string]any{}
	if r.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": r.Text})
	}
	for i, c := range r.ToolCalls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("toolu_llmtest_%d_%d", n+1, i+1)
		}
		content = append(content, map[string]any{"type": "tool_use", "id": id, "name": c.Name, "input": args(c.Args)})
	}
	stop := string(stopOf(r))
	if stop == string(llm.StopOther) {
		stop = "refusal"
	}
	u := r.Usage
	return map[string]any{
		"id":            fmt.Sprintf("msg_llmtest_%d", n+1),
		"type":          "message",
		"role":          "assistant",
		"model":         r.Model,
		"content":       content,
		"stop_reason":   stop,
		"stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens":                max(u.Input-u.CacheRead-u.CacheWrite, 0),
			"cache_creation_input_tokens": u.CacheWrite,
			"cache_read_input_tokens":     u.CacheRead,
			"output_tokens":               u.Output,
		},
	}
}

func openaiReply(r Reply, n int) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if r.Text != "" {
		msg["content"] = r.Text
	}
	if len(r.ToolCalls) > 0 {
		var calls []map[string]any
		for i, c := range r.ToolCalls {
			id := c.ID
			if id == "" {
				id = fmt.Sprintf("call_llmtest_%d_%d", n+1, i+1)
			}
			calls = append(calls, map[string]any{"id": id, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": string(args(c.Args))}})
		}
		msg["tool_calls"] = calls
	}
	var finish string
	switch stop := stopOf(r); stop {
	case llm.StopEnd:
		finish = "stop"
	case llm.StopToolUse:
		finish = "tool_calls"
	case llm.StopMaxTokens:
		finish = "length"
	case llm.StopOther:
		finish = "content_filter"
	default:
		finish = string(stop)
	}
	u := r.Usage
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest-%d", n+1),
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   r.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
		"usage": map[string]any{
			"prompt_tokens":             u.Input,
			"completion_tokens":         u.Output,
			"total_tokens":              u.Input + u.Output,
			"prompt_tokens_details":     map[string]any{"cached_tokens": u.CacheRead},
			"completion_tokens_details": map[string]any{"reasoning_tokens": 0},
		},
	}
}
