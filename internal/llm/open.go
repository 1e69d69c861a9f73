package llm

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// OpenOptions are what Open needs beyond the selection and settings.
type OpenOptions struct {
	RepoRoot   string       // the repo whose .copperhead/runs/ a replay:<run-id> reads
	HTTPClient *http.Client // nil: a client from modelHTTPClient
	Retry      RetryPolicy  // zero value: the defaults (3 retries, 2s..30s, 1 min server wait)
	OnAttempt  func(Attempt)
	// CacheDir, when set, caches turns there (see Cache); replay is never cached.
	CacheDir string
	// CLITimeout bounds one saved-login CLI call; zero means DefaultCLITimeout.
	CLITimeout time.Duration
}

// Open builds the provider a Selection names, wrapped with retry and, for the
// keyed openai/anthropic families, failover to the other family when its key
// is set. Every credential check happens here, before any network call: a
// missing key is an ErrAuth naming the variable, a compat endpoint without a
// baseURL is ErrNotConfigured, a saved-login backend whose CLI is missing is
// ErrNotInstalled and one whose CLI's own offline status says logged out is
// ErrNotLoggedIn. The saved-login backends retry but never fail over.
func Open(sel Selection, s Settings, o OpenOptions) (Provider, error) {
	p, err := open(sel, s, o)
	if err != nil || o.CacheDir == "" || sel.Backend == BackendReplay {
		return p, err
	}
	return WithCache(p, sel, o.CacheDir), nil
}

func open(sel Selection, s Settings, o OpenOptions) (Provider, error) {
	client := o.HTTPClient
	if client == nil {
		client = modelHTTPClient()
	}
	switch sel.Backend {
	case BackendReplay:
		// No retry wrapper: a replay makes no calls that could be retried.
		r, err := NewReplay(o.RepoRoot, sel.RunID)
		if err != nil {
			return nil, err // not a typed nil inside the Provider
		}
		return r, nil
	case BackendAnthropic, BackendOpenAI:
		p, err := openKeyed(sel.Backend, sel.ModelID, s, client)
		if err != nil {
			return nil, err
		}
		other := BackendOpenAI
		if sel.Backend == BackendOpenAI {
			other = BackendAnthropic
		}
		var fallback Provider
		if fb, err := openKeyed(other, defaultModel(other), s, client); err == nil {
			fallback = fb
		}
		return WithRetry(p, o.Retry, fallback, o.OnAttempt), nil
	case BackendCompat:
		key, err := credential(sel, s)
		if err != nil {
			return nil, err
		}
		p := NewOpenAI(OpenAIConfig{Name: BackendCompat, APIKey: key, KeyEnv: sel.APIKeyEnv, Model: sel.ModelID, BaseURL: sel.BaseURL, HTTPClient: client})
		return WithRetry(p, o.Retry, nil, o.OnAttempt), nil
	}
	if isSavedLogin(sel.Backend) {
		p, err := openSavedLogin(sel, s, o.CLITimeout)
		if err != nil {
			return nil, err
		}
		// No fallback: a saved login never spends a key or another login
		// (AC-3.18).
		return WithRetry(p, o.Retry, nil, o.OnAttempt), nil
	}
	// Any unknown name: credential refuses it with the *Error that says why.
	_, err := credential(sel, s)
	return nil, err
}

func openKeyed(backend, model string, s Settings, client *http.Client) (Provider, error) {
	key, err := credential(Selection{Backend: backend}, s)
	if err != nil {
		return nil, err
	}
	if backend == BackendAnthropic {
		return NewAnthropic(AnthropicConfig{APIKey: key, Model: model, HTTPClient: client}), nil
	}
	return NewOpenAI(OpenAIConfig{Name: BackendOpenAI, APIKey: key, KeyEnv: EnvOpenAIKey, Model: model, HTTPClient: client,
		Organization: s.env(EnvOpenAIOrg), Project: s.env(EnvOpenAIProject)}), nil
}

func defaultModel(backend string) string {
	if backend == BackendAnthropic {
		return DefaultAnthropicModel
	}
	return DefaultOpenAIModel
}

// credential is the one place that decides which environment variable a
// backend may read and whether it may run without one. It returns the key to
// send ("" for none), or the *Error Open refuses with. The keyed families read
// only their own variable; compat reads only the variable its apiKeyEnv
// names, so a key under any other name (OPENAI_API_KEY included) never
// satisfies it (AC-3.13) and never travels to a third-party host.
func credential(sel Selection, s Settings) (string, error) {
	switch sel.Backend {
	case BackendAnthropic, BackendOpenAI:
		name := EnvAnthropicKey
		if sel.Backend == BackendOpenAI {
			name = EnvOpenAIKey
		}
		if key := s.env(name); key != "" {
			return key, nil
		}
		return "", &Error{Kind: ErrAuth, Provider: sel.Backend, Message: name + " is not set",
			Hint: "export " + name + ", or choose another model with --model"}
	case BackendCompat:
		u, err := compatEndpoint(sel.BaseURL)
		if err != nil {
			return "", err
		}
		if err := checkAPIKeyEnv(sel.APIKeyEnv); err != nil {
			return "", &Error{Kind: ErrNotConfigured, Provider: BackendCompat, Message: err.Error()}
		}
		key := ""
		if sel.APIKeyEnv != "" {
			key = s.env(sel.APIKeyEnv)
		}
		if key != "" || IsLocalEndpoint(u) {
			// A local server (Ollama, LM Studio, vLLM) takes no key; one
			// configured and set is still sent, in case it wants one.
			return key, nil
		}
		if sel.APIKeyEnv == "" {
			return "", &Error{Kind: ErrAuth, Provider: BackendCompat,
				Message: fmt.Sprintf("the remote endpoint %s needs a credential and no apiKeyEnv is configured", u.Host),
				Hint:    "set apiKeyEnv in .copperhead/config.json (or " + EnvAPIKeyEnv + ") to the name of the variable holding its key"}
		}
		return "", &Error{Kind: ErrAuth, Provider: BackendCompat,
			Message: fmt.Sprintf("%s is not set (apiKeyEnv for %s)", sel.APIKeyEnv, u.Host),
			Hint:    "export " + sel.APIKeyEnv + " with the key for " + u.Host}
	case BackendReplay:
		return "", nil
	case BackendCodex, BackendClaudeCode, BackendCursor:
		// The CLI's own login: copperhead reads no credential for it
		// (openSavedLogin checks the CLI).
		return "", nil
	}
	return "", &Error{Kind: ErrNotConfigured, Provider: sel.Backend, Message: fmt.Sprintf("unknown backend %q", sel.Backend)}
}

// compatEndpoint validates a compat baseURL. Errors never echo the URL: it may
// carry user:password.
func compatEndpoint(baseURL string) (*url.URL, error) {
	if baseURL == "" {
		return nil, &Error{Kind: ErrNotConfigured, Provider: BackendCompat,
			Message: "no endpoint configured for " + compatSpecExample,
			Hint:    "set baseURL in .copperhead/config.json or export " + EnvBaseURL + " (e.g. http://localhost:11434/v1 for Ollama)"}
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, &Error{Kind: ErrNotConfigured, Provider: BackendCompat,
			Message: "baseURL is not an http(s) URL with a host",
			Hint:    "write the endpoint's API root, e.g. https://api.groq.com/openai/v1"}
	}
	return u, nil
}

// IsLoopbackHost reports whether host (a URL's Hostname()) names this machine:
// localhost, 127.0.0.0/8 or ::1. Nothing sent there leaves the machine.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsLocalEndpoint reports whether a compat endpoint may run without a
// credential (AC-3.14): a loopback host or an mDNS .local name on the LAN.
// A .local host is not loopback: prompts do leave the machine, which is why
// doctor's privacy check uses IsLoopbackHost instead (AC-3.17).
func IsLocalEndpoint(u *url.URL) bool {
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	return IsLoopbackHost(host) || strings.HasSuffix(host, ".local")
}

// modelHTTPClient is the client for model APIs. It has no whole-request
// timeout: a non-streaming reply sends its headers only when the model has
// finished, which can take minutes, and the caller's ctx is what ends a run.
// The header timeout only bounds a server that accepted the request and went
// silent. Proxy is nil because a client reads only the variables named for it,
// and HTTPS_PROXY is named for none; redirects are refused because an API
// endpoint that moves is a misconfiguration, not something to follow with a
// credential attached.
func modelHTTPClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:     true,
			TLSHandshakeTimeout:   15 * time.Second,
			ResponseHeaderTimeout: 10 * time.Minute,
			IdleConnTimeout:       90 * time.Second,
			ExpectContinueTimeout: time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// BackendStatus is one backend as `copperhead models` lists it. Detail names
// variables and hosts, never a credential's value.
type BackendStatus struct {
	Backend      string `json:"backend"`
	Ready        bool   `json:"ready"` // Open would build it: its credential and settings are present
	DefaultModel string `json:"default_model,omitempty"`
	Detail       string `json:"detail"`
	Hint         string `json:"hint,omitempty"`
	// The saved-login backends' CLI: where it was found, what its
	// --version said, and "logged-in", "logged-out" or "unknown".
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	Login   string `json:"login,omitempty"`
}

// Backends reports every backend and whether Open would accept it with these
// settings, using the same credential rules Open applies. For a saved-login
// backend it runs the CLI's --version and, where the CLI has one that makes
// no network call, its own login status (claude auth status, codex login
// status); Cursor's status asks its servers, so its login is "unknown".
func Backends(s Settings) []BackendStatus {
	compat := Selection{Backend: BackendCompat}
	compat.BaseURL, compat.APIKeyEnv = compatSettings(s)
	var out []BackendStatus
	for _, sel := range []Selection{
		{Backend: BackendAnthropic, ModelID: DefaultAnthropicModel},
		{Backend: BackendOpenAI, ModelID: DefaultOpenAIModel},
		compat,
		{Backend: BackendClaudeCode},
		{Backend: BackendCodex},
		{Backend: BackendCursor},
	} {
		if isSavedLogin(sel.Backend) {
			out = append(out, savedLoginStatus(sel.Backend, s))
			continue
		}
		st := BackendStatus{Backend: sel.Backend, DefaultModel: sel.ModelID}
		key, err := credential(sel, s)
		if e, ok := err.(*Error); ok {
			st.Detail, st.Hint = e.Message, e.Hint
		} else {
			st.Ready = true
			st.Detail = readyDetail(sel, key != "")
		}
		out = append(out, st)
	}
	return out
}

func readyDetail(sel Selection, haveKey bool) string {
	switch sel.Backend {
	case BackendAnthropic:
		return EnvAnthropicKey + " is set"
	case BackendOpenAI:
		return EnvOpenAIKey + " is set"
	}
	u, _ := compatEndpoint(sel.BaseURL)
	if !haveKey {
		return "endpoint " + u.Host + " (local, no credential)"
	}
	return "endpoint " + u.Host + ", key from " + sel.APIKeyEnv
}
