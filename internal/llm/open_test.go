package llm_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"copperhead/internal/llm"
	"copperhead/internal/llm/llmtest"
)

const (
	openaiKey    = "sk-" + "openai-test-0000000000000000000000"
	anthropicKey = "sk-" + "ant-test-00000000000000000000000000"
	groqKey      = "gsk-" + "groq-test-000000000000000000000000"
)

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// hosts is a transport that sends each request to the fake server standing in
// for its host, and remembers which hosts were asked for. A host with no
// stand-in fails the request without touching the network.
type hosts struct {
	mu    sync.Mutex
	to    map[string]string // host -> fake server base URL
	asked []string
}

func (h *hosts) RoundTrip(req *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.asked = append(h.asked, req.URL.Host)
	base, ok := h.to[req.URL.Host]
	h.mu.Unlock()
	if !ok {
		return nil, errors.New("test transport: no stand-in for " + req.URL.Host)
	}
	u, _ := url.Parse(base)
	out := req.Clone(req.Context())
	out.URL.Scheme, out.URL.Host = u.Scheme, u.Host
	return http.DefaultTransport.RoundTrip(out)
}

func (h *hosts) client() *http.Client { return &http.Client{Transport: h} }

// noWait is a retry policy that records nothing and waits for nothing.
var noWait = llm.RetryPolicy{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}

func chatOnce(t *testing.T, p llm.Provider) (*llm.Turn, error) {
	t.Helper()
	return p.Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "hello"}}, nil, llm.Options{System: "be brief"})
}

// errorText fails t unless err is an *llm.Error of kind whose message and
// hint, returned as one text, mention each of contains.
func errorText(t *testing.T, err error, kind llm.ErrorKind, contains ...string) string {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != kind {
		t.Fatalf("err = %v, want kind %s", err, kind)
	}
	text := e.Error() + " " + e.Hint
	for _, c := range contains {
		if !strings.Contains(text, c) {
			t.Errorf("%q lacks %q", text, c)
		}
	}
	return text
}

func TestOpenRefusesBeforeAnyNetworkCall(t *testing.T) {
	tests := []struct {
		name     string
		sel      llm.Selection
		env      func(string) string
		kind     llm.ErrorKind
		contains []string
		absent   []string
	}{
		{"anthropic without its key", llm.Selection{Backend: llm.BackendAnthropic, ModelID: "claude-x"},
			envOf(llm.EnvOpenAIKey, openaiKey), llm.ErrAuth, []string{"ANTHROPIC_API_KEY"}, nil},
		{"openai without its key", llm.Selection{Backend: llm.BackendOpenAI, ModelID: "gpt-5"},
			envOf(llm.EnvAnthropicKey, anthropicKey), llm.ErrAuth, []string{"OPENAI_API_KEY"}, nil},
		{"remote compat without its key names the variable (AC-3.14)",
			llm.Selection{Backend: llm.BackendCompat, ModelID: "m", BaseURL: "https://api.groq.com/openai/v1", APIKeyEnv: "GROQ_API_KEY"},
			envOf(llm.EnvOpenAIKey, openaiKey, llm.EnvAnthropicKey, anthropicKey, "GROQ_KEY", groqKey),
			llm.ErrAuth, []string{"GROQ_API_KEY", "api.groq.com"}, []string{openaiKey, groqKey}},
		{"remote compat with no apiKeyEnv", llm.Selection{Backend: llm.BackendCompat, ModelID: "m", BaseURL: "https://openrouter.ai/api/v1"},
			envOf(llm.EnvOpenAIKey, openaiKey), llm.ErrAuth, []string{"apiKeyEnv", "openrouter.ai"}, nil},
		{"compat without an endpoint", llm.Selection{Backend: llm.BackendCompat, ModelID: "m"},
			envOf(), llm.ErrNotConfigured, []string{"compat:<model-id>"}, nil},
		{"compat endpoint that is no http URL, not echoed", llm.Selection{Backend: llm.BackendCompat, ModelID: "m", BaseURL: "ftp://user:hunter2@x/"},
			envOf(), llm.ErrNotConfigured, []string{"http(s)"}, []string{"hunter2"}},
		{"apiKeyEnv holding a key, refused without echoing it",
			llm.Selection{Backend: llm.BackendCompat, ModelID: "m", BaseURL: "https://api.example.com/v1", APIKeyEnv: "sk-" + "live-0123456789abcdefghij"},
			envOf(), llm.ErrNotConfigured, []string{"apiKeyEnv"}, []string{"sk-live"}},
		{"codex with no CLI on PATH, a key set: no fallback to it", llm.Selection{Backend: llm.BackendCodex}, envOf(llm.EnvOpenAIKey, openaiKey, "PATH", "/nonexistent"),
			llm.ErrNotInstalled, []string{"codex", "not on PATH", "npm install -g @openai/codex"}, []string{openaiKey}},
		{"claude-code with no CLI on PATH", llm.Selection{Backend: llm.BackendClaudeCode}, envOf(),
			llm.ErrNotInstalled, []string{"claude", "not on PATH", "npm install -g @anthropic-ai/claude-code"}, nil},
		{"cursor with no CLI on PATH", llm.Selection{Backend: llm.BackendCursor, ModelID: "x"}, envOf(),
			llm.ErrNotInstalled, []string{"agent", "not on PATH", llm.EnvCursorPath}, nil},
		{"cursor with COPPERHEAD_CURSOR_PATH naming no program", llm.Selection{Backend: llm.BackendCursor}, envOf(llm.EnvCursorPath, "/nonexistent/agent"),
			llm.ErrNotInstalled, []string{"/nonexistent/agent", "not an executable"}, nil},
		{"replay without a repo", llm.Selection{Backend: llm.BackendReplay, RunID: "r1"}, envOf(),
			llm.ErrNotConfigured, []string{"r1"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &hosts{}
			_, err := llm.Open(tt.sel, llm.Settings{Getenv: tt.env}, llm.OpenOptions{HTTPClient: h.client(), Retry: noWait})
			text := errorText(t, err, tt.kind, tt.contains...)
			for _, a := range tt.absent {
				if strings.Contains(text, a) {
					t.Errorf("%q leaks %q", text, a)
				}
			}
			if len(h.asked) != 0 {
				t.Fatalf("requests before refusing: %v", h.asked)
			}
		})
	}
}

// TestCompatCredential covers AC-3.13 and AC-3.14 on the wire: the credential
// comes only from the variable apiKeyEnv names, and a local endpoint needs none.
func TestCompatCredential(t *testing.T) {
	tests := []struct {
		name      string
		host      string // "" means the fake server's own loopback address
		apiKeyEnv string
		env       []string
		wantAuth  string
	}{
		{name: "loopback without a key sends none", env: []string{llm.EnvOpenAIKey, openaiKey, llm.EnvAnthropicKey, anthropicKey}},
		{name: "loopback with its key sends it", apiKeyEnv: "LOCAL_KEY", env: []string{"LOCAL_KEY", "local-secret"}, wantAuth: "Bearer local-secret"},
		{name: "loopback with an unset apiKeyEnv sends none", apiKeyEnv: "LOCAL_KEY", env: []string{llm.EnvOpenAIKey, openaiKey}},
		{name: ".local host without a key", host: "ollama.local:11434", env: []string{llm.EnvOpenAIKey, openaiKey}},
		{name: "remote host with the configured key sends that key", host: "api.groq.com", apiKeyEnv: "GROQ_API_KEY",
			env: []string{"GROQ_API_KEY", groqKey, llm.EnvOpenAIKey, openaiKey, llm.EnvAnthropicKey, anthropicKey}, wantAuth: "Bearer " + groqKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.OpenAI, llmtest.Reply{Text: "hi"})
			base := srv.URL + "/v1"
			h := &hosts{to: map[string]string{}}
			if tt.host != "" {
				h.to[tt.host] = srv.URL
				base = "https://" + tt.host + "/v1"
			} else {
				h.to[strings.TrimPrefix(srv.URL, "http://")] = srv.URL
			}
			s := llm.Settings{Flag: "compat:llama3", ConfigBaseURL: base, ConfigAPIKeyEnv: tt.apiKeyEnv, Getenv: envOf(tt.env...)}
			sel, err := llm.Select(s)
			if err != nil {
				t.Fatal(err)
			}
			p, err := llm.Open(sel, s, llm.OpenOptions{HTTPClient: h.client(), Retry: noWait})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if p.Name() != llm.BackendCompat || p.Model() != "llama3" {
				t.Fatalf("provider %s/%s", p.Name(), p.Model())
			}
			if _, err := chatOnce(t, p); err != nil {
				t.Fatalf("Chat: %v", err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			if got := reqs[0].Header.Get("Authorization"); got != tt.wantAuth {
				t.Fatalf("Authorization = %q, want %q", got, tt.wantAuth)
			}
			for _, k := range []string{"OpenAI-Organization", "OpenAI-Project", "x-api-key"} {
				if reqs[0].Header.Get(k) != "" {
					t.Errorf("compat request carries %s", k)
				}
			}
		})
	}
}

// TestEndpointSettingsOnlyRouteCompat is AC-3.16: an exported
// COPPERHEAD_BASE_URL never redirects gpt-5 or claude.
func TestEndpointSettingsOnlyRouteCompat(t *testing.T) {
	for _, tt := range []struct {
		flag, key, keyValue, host string
		proto                     llmtest.Protocol
	}{
		{"gpt-5", llm.EnvOpenAIKey, openaiKey, "api.openai.com", llmtest.OpenAI},
		{"claude", llm.EnvAnthropicKey, anthropicKey, "api.anthropic.com", llmtest.Anthropic},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			trap := llmtest.NewServer(t, llmtest.OpenAI) // any request to it fails the test
			real := llmtest.NewServer(t, tt.proto, llmtest.Reply{Text: "hi"})
			h := &hosts{to: map[string]string{tt.host: real.URL, strings.TrimPrefix(trap.URL, "http://"): trap.URL}}
			s := llm.Settings{Flag: tt.flag, ConfigBaseURL: trap.URL + "/v1", ConfigAPIKeyEnv: "TRAP_KEY",
				Getenv: envOf(tt.key, tt.keyValue, llm.EnvBaseURL, trap.URL+"/v1", llm.EnvAPIKeyEnv, "TRAP_KEY", "TRAP_KEY", "trap-secret")}
			sel, err := llm.Select(s)
			if err != nil {
				t.Fatal(err)
			}
			p, err := llm.Open(sel, s, llm.OpenOptions{HTTPClient: h.client(), Retry: noWait})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := chatOnce(t, p); err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if n := len(trap.Requests()); n != 0 {
				t.Fatalf("the compat endpoint got %d requests", n)
			}
			if len(h.asked) != 1 || h.asked[0] != tt.host {
				t.Fatalf("hosts asked %v, want [%s]", h.asked, tt.host)
			}
			if strings.Contains(real.Requests()[0].Header.Get("Authorization"), "trap-secret") {
				t.Fatal("the compat credential reached a keyed provider")
			}
		})
	}
}

// TestOpenFailover runs retry and failover through Open against fake
// endpoints for both keyed families: anthropic <-> openai only when the other
// key is set, and never from compat even with both keys present (AC-3.18).
func TestOpenFailover(t *testing.T) {
	limited := func() []llmtest.Step {
		s := llmtest.Status{Code: 429, Header: map[string]string{"retry-after": "1"}}
		return []llmtest.Step{s, s, s, s}
	}
	tests := []struct {
		name          string
		flag          string
		env           []string
		anthropic     []llmtest.Step
		openai        []llmtest.Step
		compat        []llmtest.Step
		wantAnthropic int
		wantOpenAI    int
		wantCompat    int
		wantFrom      string // backend that answered; "" means the call fails rate-limited
		wantModel     string
	}{
		{name: "anthropic fails over to openai", flag: "claude", env: []string{llm.EnvAnthropicKey, anthropicKey, llm.EnvOpenAIKey, openaiKey},
			anthropic: limited(), openai: []llmtest.Step{llmtest.Reply{Text: "from openai"}},
			wantAnthropic: 4, wantOpenAI: 1, wantFrom: llm.BackendOpenAI, wantModel: llm.DefaultOpenAIModel},
		{name: "openai fails over to anthropic", flag: "gpt-5", env: []string{llm.EnvAnthropicKey, anthropicKey, llm.EnvOpenAIKey, openaiKey},
			openai: limited(), anthropic: []llmtest.Step{llmtest.Reply{Text: "from anthropic"}},
			wantAnthropic: 1, wantOpenAI: 4, wantFrom: llm.BackendAnthropic, wantModel: llm.DefaultAnthropicModel},
		{name: "no failover without the other key", flag: "claude", env: []string{llm.EnvAnthropicKey, anthropicKey},
			anthropic: limited(), wantAnthropic: 4},
		{name: "auth error does not fail over", flag: "claude", env: []string{llm.EnvAnthropicKey, anthropicKey, llm.EnvOpenAIKey, openaiKey},
			anthropic: []llmtest.Step{llmtest.Status{Code: 401}}, wantAnthropic: 1},
		{name: "compat never fails over to a paid key", flag: "compat:llama3",
			env:    []string{llm.EnvAnthropicKey, anthropicKey, llm.EnvOpenAIKey, openaiKey},
			compat: limited(), wantCompat: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ant := llmtest.NewServer(t, llmtest.Anthropic, tt.anthropic...)
			oai := llmtest.NewServer(t, llmtest.OpenAI, tt.openai...)
			cpt := llmtest.NewServer(t, llmtest.OpenAI, tt.compat...)
			h := &hosts{to: map[string]string{
				"api.anthropic.com":                    ant.URL,
				"api.openai.com":                       oai.URL,
				strings.TrimPrefix(cpt.URL, "http://"): cpt.URL,
			}}
			s := llm.Settings{Flag: tt.flag, ConfigBaseURL: cpt.URL + "/v1", Getenv: envOf(tt.env...)}
			sel, err := llm.Select(s)
			if err != nil {
				t.Fatal(err)
			}
			var waits []time.Duration
			pol := llm.RetryPolicy{Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			p, err := llm.Open(sel, s, llm.OpenOptions{HTTPClient: h.client(), Retry: pol})
			if err != nil {
				t.Fatal(err)
			}
			turn, err := chatOnce(t, p)
			if got := [3]int{len(ant.Requests()), len(oai.Requests()), len(cpt.Requests())}; got != [3]int{tt.wantAnthropic, tt.wantOpenAI, tt.wantCompat} {
				t.Fatalf("requests anthropic/openai/compat = %v, want %v", got, [3]int{tt.wantAnthropic, tt.wantOpenAI, tt.wantCompat})
			}
			if tt.wantFrom == "" {
				if err == nil {
					t.Fatal("Chat succeeded, want a failure")
				}
				return
			}
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if p.Name() != tt.wantFrom || p.Model() != tt.wantModel || turn.Model != tt.wantModel {
				t.Fatalf("answered by %s/%s (turn model %s), want %s/%s", p.Name(), p.Model(), turn.Model, tt.wantFrom, tt.wantModel)
			}
			if len(waits) != 3 || waits[0] != time.Second {
				t.Fatalf("waits = %v, want three honouring retry-after: 1", waits)
			}
			if n := len(turn.Attempts); n != 5 || !turn.Attempts[4].Failover {
				t.Fatalf("attempts = %+v", turn.Attempts)
			}
		})
	}
}

func TestOpenSendsOpenAIOrganizationOnlyToOpenAI(t *testing.T) {
	oai := llmtest.NewServer(t, llmtest.OpenAI, llmtest.Reply{Text: "hi"})
	h := &hosts{to: map[string]string{"api.openai.com": oai.URL}}
	s := llm.Settings{Flag: "gpt-5", Getenv: envOf(llm.EnvOpenAIKey, openaiKey, llm.EnvOpenAIOrg, "org-1", llm.EnvOpenAIProject, "proj-1")}
	sel, _ := llm.Select(s)
	p, err := llm.Open(sel, s, llm.OpenOptions{HTTPClient: h.client(), Retry: noWait})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chatOnce(t, p); err != nil {
		t.Fatal(err)
	}
	hd := oai.Requests()[0].Header
	if hd.Get("Authorization") != "Bearer "+openaiKey || hd.Get("OpenAI-Organization") != "org-1" || hd.Get("OpenAI-Project") != "proj-1" {
		t.Fatalf("headers %v", hd)
	}
}

func TestBackends(t *testing.T) {
	s := llm.Settings{ConfigBaseURL: "https://api.groq.com/openai/v1", ConfigAPIKeyEnv: "GROQ_API_KEY",
		Getenv: envOf(llm.EnvAnthropicKey, anthropicKey, "GROQ_API_KEY", groqKey)}
	got := map[string]llm.BackendStatus{}
	for _, b := range llm.Backends(s) {
		got[b.Backend] = b
		if strings.Contains(b.Detail+b.Hint, "sk-") || strings.Contains(b.Detail+b.Hint, groqKey) {
			t.Errorf("%s leaks a key: %+v", b.Backend, b)
		}
	}
	want := map[string]bool{llm.BackendAnthropic: true, llm.BackendOpenAI: false, llm.BackendCompat: true,
		llm.BackendClaudeCode: false, llm.BackendCodex: false, llm.BackendCursor: false}
	for name, ready := range want {
		if b, ok := got[name]; !ok || b.Ready != ready {
			t.Errorf("%s = %+v, want ready %v", name, b, ready)
		}
	}
	if !strings.Contains(got[llm.BackendOpenAI].Detail, "OPENAI_API_KEY") || !strings.Contains(got[llm.BackendCompat].Detail, "GROQ_API_KEY") {
		t.Errorf("details: %+v", got)
	}

	// An apiKeyEnv holding a key is reported without echoing it.
	bad := llm.Backends(llm.Settings{ConfigBaseURL: "https://x.example/v1", ConfigAPIKeyEnv: "sk-" + "live-000000000000000000000", Getenv: envOf()})
	for _, b := range bad {
		if b.Backend == llm.BackendCompat && (b.Ready || strings.Contains(b.Detail+b.Hint, "sk-live")) {
			t.Fatalf("compat = %+v", b)
		}
	}
}

func TestIsLocalEndpoint(t *testing.T) {
	for raw, want := range map[string]bool{
		"http://localhost:11434/v1": true, "http://LOCALHOST./v1": true, "http://127.0.0.1:8080": true, "http://127.9.9.9": true,
		"http://[::1]:8000/v1": true, "http://printer.local/v1": true, "https://api.groq.com/openai/v1": false,
		"http://10.0.0.5/v1": false, "http://localhost.evil.com/v1": false, "http://notlocal/v1": false,
	} {
		u, _ := url.Parse(raw)
		if got := llm.IsLocalEndpoint(u); got != want {
			t.Errorf("IsLocalEndpoint(%s) = %v, want %v", raw, got, want)
		}
	}
	if llm.IsLoopbackHost("printer.local") || !llm.IsLoopbackHost("::1") {
		t.Error("IsLoopbackHost: .local is not loopback; ::1 is")
	}
}
