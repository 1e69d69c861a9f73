package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Why Chat Completions and not OpenAI's newer Responses API: the compat
// backend exists to reach Ollama, vLLM, llama.cpp, OpenRouter, Groq and
// Gemini's compatible endpoint, and Chat Completions is the one wire format
// all of them speak. Responses support among them is partial at best. With
// Chat Completions one client, one set of golden files and one fake server
// cover both openai and compat, and everything copperhead needs (tools,
// parallel tool calls, token usage with cached-prompt counts) is there.
// OpenAI caches prompt prefixes automatically on this API, so we lose no
// caching by not using Responses; we would gain only server-side state we
// deliberately do not want (the loop owns the conversation and its recording).

const (
	// DefaultOpenAIBaseURL is OpenAI's API root. Only configuration changes
	// it; the client never reads OPENAI_BASE_URL or any other variable.
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
)

// OpenAIConfig configures the Chat Completions client for the openai and
// compat backends.
type OpenAIConfig struct {
	Name    string // "openai" (default) or "compat": the backend this client serves
	APIKey  string // sent as a Bearer token; empty sends no Authorization header
	Model   string // default DefaultOpenAIModel for openai; required for compat, which has no default
	BaseURL string // default DefaultOpenAIBaseURL for openai; required for compat
	// Organization and Project select an OpenAI organization and project.
	// They are sent only when Name is "openai": a compatible endpoint is a
	// third party and must not learn the user's OpenAI account layout.
	Organization, Project string
	// KeyEnv names the environment variable the key came from, e.g.
	// "OPENAI_API_KEY" or a compat endpoint's apiKeyEnv. It is used only in
	// hints; the client reads no environment.
	KeyEnv string
	// HTTPClient sends the requests; nil means a client with a ten-minute
	// timeout. It must not retry on its own.
	HTTPClient *http.Client
	// MaxTokens caps output when Options.MaxTokens is 0. When both are 0 the
	// request carries no cap and the server applies the model's own limit:
	// unlike Anthropic's, these APIs do not require one, and a fixed default
	// would be wrong for some model (too large for gpt-4o's 16k output, or for
	// a local server whose context window is 8k).
	MaxTokens int
}

// OpenAI is the Provider for OpenAI Chat Completions
// (POST {BaseURL}/chat/completions), non-streaming. It serves the openai
// backend and, with Name "compat", any OpenAI-compatible endpoint.
type OpenAI struct {
	cfg OpenAIConfig
	// invented counts tool-call ids made up for servers that send none, so
	// each is unique across the conversation, not just within one turn.
	invented atomic.Int64
}

// NewOpenAI returns a Chat Completions client with defaults filled in. It
// makes no network call; configuration problems are reported by Chat.
func NewOpenAI(c OpenAIConfig) *OpenAI {
	if c.Name == "" {
		c.Name = "openai"
	}
	if c.Name == "openai" {
		if c.Model == "" {
			c.Model = DefaultOpenAIModel
		}
		if c.BaseURL == "" {
			c.BaseURL = DefaultOpenAIBaseURL
		}
		if c.KeyEnv == "" {
			c.KeyEnv = "OPENAI_API_KEY"
		}
	}
	return &OpenAI{cfg: c}
}

// Name implements Provider: "openai" or "compat".
func (o *OpenAI) Name() string { return o.cfg.Name }

// Model implements Provider.
func (o *OpenAI) Model() string { return o.cfg.Model }

func (o *OpenAI) isOpenAI() bool { return o.cfg.Name == "openai" }

// keyName is how hints refer to the credential.
func (o *OpenAI) keyName() string {
	if o.cfg.KeyEnv != "" {
		return o.cfg.KeyEnv
	}
	return "the variable named by apiKeyEnv"
}

func (o *OpenAI) hints() errorHints {
	host := hostOf(o.cfg.BaseURL)
	if o.isOpenAI() {
		return errorHints{
			auth:    "check that " + o.keyName() + " holds a valid OpenAI API key with access to this model",
			billing: "the OpenAI account behind " + o.keyName() + " has exhausted its quota; check its plan and billing, or choose another model with --model",
			model:   "check the model id " + o.cfg.Model + ": OpenAI does not serve it to this key",
			network: "could not reach " + host + "; check the network connection",
		}
	}
	return errorHints{
		auth:    host + " rejected the credential; check " + o.keyName() + " (apiKeyEnv in .copperhead/config.json or COPPERHEAD_API_KEY_ENV)",
		billing: "the account at " + host + " has exhausted its quota or credit",
		model:   "check the model id " + o.cfg.Model + ": " + host + " does not serve it",
		network: "could not reach " + host + "; check baseURL and that the server is running",
	}
}

// Chat implements Provider.
func (o *OpenAI) Chat(ctx context.Context, msgs []Message, tools []Tool, opts Options) (*Turn, error) {
	if o.cfg.Name != "openai" && o.cfg.Name != "compat" {
		return nil, &Error{Kind: ErrBadRequest, Provider: o.cfg.Name, Message: fmt.Sprintf("unknown backend %q", o.cfg.Name),
			Hint: `this is a copperhead bug: OpenAIConfig.Name must be "openai" or "compat"`}
	}
	if o.isOpenAI() && o.cfg.APIKey == "" {
		return nil, &Error{Kind: ErrAuth, Provider: o.Name(), Message: "no API key",
			Hint: "set " + o.keyName() + ", or choose another model with --model"}
	}
	if o.cfg.BaseURL == "" || o.cfg.Model == "" {
		return nil, &Error{Kind: ErrNotConfigured, Provider: o.Name(), Message: "no endpoint or model configured",
			Hint: "use --model compat:<model-id> with baseURL set in .copperhead/config.json or COPPERHEAD_BASE_URL"}
	}
	maxTokens := opts.MaxTokens
	if maxTokens <= 0 {
		maxTokens = o.cfg.MaxTokens
	}
	body, err := marshalWire(o.requestFor(maxTokens, msgs, tools, opts.System))
	if err != nil {
		return nil, encodeError(o.Name(), err)
	}
	header := http.Header{}
	if o.cfg.APIKey != "" {
		header.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}
	if o.isOpenAI() {
		if o.cfg.Organization != "" {
			header.Set("OpenAI-Organization", o.cfg.Organization)
		}
		if o.cfg.Project != "" {
			header.Set("OpenAI-Project", o.cfg.Project)
		}
	}
	w := wireRequest{
		provider: o.Name(),
		client:   o.cfg.HTTPClient,
		url:      joinURL(o.cfg.BaseURL, "/chat/completions"),
		header:   header,
		body:     body,
		secret:   o.cfg.APIKey,
		hints:    o.hints(),
	}
	resp, err := postJSON(ctx, w)
	if err != nil {
		return nil, err
	}
	if resp.status/100 != 2 {
		return nil, w.classify(resp, time.Now())
	}
	return o.parseResponse(w, resp)
}

type openaiRequest struct {
	Model    string          `json:"model"`
	Messages []openaiMessage `json:"messages"`
	Tools    []openaiTool    `json:"tools,omitempty"`
	// OpenAI deprecated max_tokens and its reasoning models (o-series,
	// gpt-5) reject it, while Ollama, llama.cpp and older vLLM understand
	// only max_tokens. So openai sends max_completion_tokens and compat sends
	// max_tokens; exactly one is ever set.
	MaxCompletionTokens int `json:"max_completion_tokens,omitempty"`
	MaxTokens           int `json:"max_tokens,omitempty"`
}

type openaiMessage struct {
	Role string `json:"role"`
	// Content is null on an assistant message that only calls tools: the
	// shape OpenAI itself returns, and the one compatible servers test.
	Content    *string          `json:"content"`
	ToolCalls  []openaiToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type openaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
		// Arguments is a JSON-encoded string on the wire. It is raw here so
		// that a server sending an object instead still parses.
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type openaiTool struct {
	Type     string         `json:"type"`
	Function openaiFunction `json:"function"`
}

type openaiFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

func (o *OpenAI) requestFor(maxTokens int, msgs []Message, tools []Tool, system string) openaiRequest {
	req := openaiRequest{Model: o.cfg.Model, Messages: []openaiMessage{}}
	if maxTokens > 0 {
		if o.isOpenAI() {
			req.MaxCompletionTokens = maxTokens
		} else {
			req.MaxTokens = maxTokens
		}
	}
	text := func(s string) *string { return &s }
	if system != "" {
		req.Messages = append(req.Messages, openaiMessage{Role: "system", Content: text(system)})
	}
	for _, t := range tools {
		schema := t.Schema
		if len(bytes.TrimSpace(schema)) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		req.Tools = append(req.Tools, openaiTool{Type: "function",
			Function: openaiFunction{Name: t.Name, Description: t.Description, Parameters: schema}})
	}
	for _, m := range msgs {
		if m.Role == RoleAssistant {
			if m.Text == "" && len(m.ToolCalls) == 0 {
				continue // an empty turn said nothing; some servers reject it
			}
			am := openaiMessage{Role: "assistant"}
			if m.Text != "" {
				am.Content = text(m.Text)
			}
			for _, c := range m.ToolCalls {
				tc := openaiToolCall{ID: c.ID, Type: "function"}
				tc.Function.Name = c.Name
				tc.Function.Arguments = argumentsString(c.Args)
				am.ToolCalls = append(am.ToolCalls, tc)
			}
			req.Messages = append(req.Messages, am)
			continue
		}
		// Tool results must directly follow the assistant message that
		// called the tools, so they go before this turn's text.
		for _, r := range m.ToolResults {
			content := r.Content
			if r.IsError {
				// Chat Completions has no is_error flag; the content is the
				// only channel that tells the model its call failed.
				content = "error: " + content
			}
			req.Messages = append(req.Messages, openaiMessage{Role: "tool", Content: text(content), ToolCallID: r.CallID})
		}
		if m.Text != "" {
			req.Messages = append(req.Messages, openaiMessage{Role: "user", Content: text(m.Text)})
		}
	}
	return req
}

// argumentsString encodes a ToolCall's Args as the JSON string the wire
// wants. Args holding a JSON string are arguments that were not valid JSON
// when the model sent them (see toolArgs): they go back verbatim, so the
// model sees exactly what it wrote.
func argumentsString(args json.RawMessage) json.RawMessage {
	args = bytes.TrimSpace(args)
	raw := string(args)
	if len(args) == 0 {
		raw = "{}"
	} else if args[0] == '"' {
		var s string
		if json.Unmarshal(args, &s) == nil {
			raw = s
		}
	} else if !json.Valid(args) {
		raw = "{}"
	} else {
		var b bytes.Buffer
		if json.Compact(&b, args) == nil {
			raw = b.String()
		}
	}
	enc, _ := marshalWire(raw) // a string always encodes
	return enc
}

// toolArgs turns the wire arguments into ToolCall.Args. Valid JSON is kept
// as sent. Invalid JSON (small local models produce it) is kept as a JSON
// string holding the raw text: Args stays valid JSON for the recording, and
// the loop's decode into the tool's input struct fails with an error the
// model can read and correct.
func toolArgs(wire json.RawMessage) json.RawMessage {
	wire = bytes.TrimSpace(wire)
	text := wire
	if len(wire) > 0 && wire[0] == '"' {
		var s string
		if json.Unmarshal(wire, &s) != nil {
			return emptyObject
		}
		text = []byte(strings.TrimSpace(s))
	}
	if len(text) == 0 || string(text) == "null" {
		return emptyObject
	}
	if json.Valid(text) {
		return json.RawMessage(text)
	}
	enc, _ := marshalWire(string(text))
	return enc
}

type openaiResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content   json.RawMessage  `json:"content"`
			Refusal   string           `json:"refusal"`
			ToolCalls []openaiToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

func (o *OpenAI) parseResponse(w wireRequest, resp *wireResponse) (*Turn, error) {
	var r openaiResponse
	if err := json.Unmarshal(resp.body, &r); err != nil {
		return nil, w.malformed(resp, err.Error())
	}
	if len(r.Choices) == 0 {
		if ae, ok := parseAPIError(resp.body); ok {
			// OpenRouter and some proxies report upstream failures as an
			// error object under 200. Classify it by the status it names,
			// or as the 502 it effectively is.
			resp.status = http.StatusBadGateway
			if n := atoiStatus(ae.code); n != 0 {
				resp.status = n
			}
			return nil, w.classify(resp, time.Now())
		}
		return nil, w.malformed(resp, "no choices")
	}
	c := r.Choices[0]
	turn := &Turn{Model: r.Model, Text: contentText(c.Message.Content)}
	if turn.Text == "" {
		turn.Text = c.Message.Refusal
	}
	for _, tc := range c.Message.ToolCalls {
		id := tc.ID
		if id == "" {
			// Some local servers omit ids; results are matched by id, and
			// Anthropic (after a failover) wants them unique, so invent one.
			id = fmt.Sprintf("call_copperhead_%d", o.invented.Add(1))
		}
		turn.ToolCalls = append(turn.ToolCalls, ToolCall{ID: id, Name: tc.Function.Name, Args: toolArgs(tc.Function.Arguments)})
	}
	turn.Stop = openaiStop(c.FinishReason, len(turn.ToolCalls) > 0)
	turn.Usage = Usage{
		Input:     r.Usage.PromptTokens,
		Output:    r.Usage.CompletionTokens,
		CacheRead: r.Usage.PromptTokensDetails.CachedTokens,
	}
	return turn, nil
}

// atoiStatus reads an HTTP error status out of an error code, or 0.
func atoiStatus(code string) int {
	var n int
	if _, err := fmt.Sscanf(code, "%d", &n); err != nil || n < 400 || n > 599 {
		return 0
	}
	return n
}

// contentText reads message.content: a string, null, or (from some
// compatible servers) an array of {"type":"text","text":...} parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// openaiStop maps finish_reason. A reply carrying tool calls is StopToolUse
// even under "stop": older Ollama releases report tool calls that way. A
// truncated reply ("length") stays StopMaxTokens even with tool calls, since
// its last call's arguments may be cut off.
func openaiStop(reason string, hasToolCalls bool) StopReason {
	switch {
	case reason == "length":
		return StopMaxTokens
	case reason == "tool_calls" || reason == "function_call" || (hasToolCalls && (reason == "stop" || reason == "")):
		return StopToolUse
	case reason == "stop":
		return StopEnd
	}
	return StopOther
}
