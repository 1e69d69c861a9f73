package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

const (
	// DefaultAnthropicBaseURL is the Messages API host. Only configuration
	// changes it; the client never reads ANTHROPIC_BASE_URL or any other
	// environment variable.
	DefaultAnthropicBaseURL = "https://api.anthropic.com"

	// anthropicVersion pins the wire format this client was written against.
	anthropicVersion = "2023-06-01"

	// defaultAnthropicMaxTokens is the output cap when neither the config nor
	// the call sets one; the Messages API requires some value. 16000 leaves
	// room for a long plan plus several tool calls in one turn, and stays
	// under the size at which Anthropic expects a non-streaming request to
	// outlive its ten-minute guidance.
	defaultAnthropicMaxTokens = 16000
)

// AnthropicConfig configures the Anthropic Messages client.
type AnthropicConfig struct {
	APIKey  string
	Model   string // default DefaultAnthropicModel
	BaseURL string // default DefaultAnthropicBaseURL
	// HTTPClient sends the requests; nil means a client with a ten-minute
	// timeout. It must not retry on its own: retry and failover live above
	// the Provider, which needs to see every failure.
	HTTPClient *http.Client
	MaxTokens  int // output cap when Options.MaxTokens is 0; default 16000
}

// Anthropic is the Provider for Anthropic's Messages API
// (POST {BaseURL}/v1/messages), non-streaming.
//
// Every request marks exactly three prompt-cache breakpoints: the system
// prompt, the last tool, and the last content block of the last message.
// The agent loop resends the whole conversation each turn, so the system
// prompt and tools (which never change within a run) and everything up to
// the previous turn's last block are read from cache instead of billed
// again. Markers from earlier turns are never left behind: the request is
// built fresh from the neutral Messages on every call.
type Anthropic struct {
	cfg AnthropicConfig
}

// NewAnthropic returns an Anthropic client with defaults filled in. It makes
// no network call; a missing key is reported by Chat as ErrAuth.
func NewAnthropic(c AnthropicConfig) *Anthropic {
	if c.Model == "" {
		c.Model = DefaultAnthropicModel
	}
	if c.BaseURL == "" {
		c.BaseURL = DefaultAnthropicBaseURL
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = defaultAnthropicMaxTokens
	}
	return &Anthropic{cfg: c}
}

// Name implements Provider.
func (a *Anthropic) Name() string { return "anthropic" }

// Model implements Provider.
func (a *Anthropic) Model() string { return a.cfg.Model }

const anthropicAuthHint = "check that ANTHROPIC_API_KEY holds a valid Anthropic API key with access to this model"

// Chat implements Provider.
func (a *Anthropic) Chat(ctx context.Context, msgs []Message, tools []Tool, opts Options) (*Turn, error) {
	if a.cfg.APIKey == "" {
		return nil, &Error{Kind: ErrAuth, Provider: a.Name(), Message: "no API key",
			Hint: "set ANTHROPIC_API_KEY, or choose another model with --model"}
	}
	maxTokens := opts.MaxTokens
	if maxTokens <= 0 {
		maxTokens = a.cfg.MaxTokens
	}
	body, err := marshalWire(anthropicRequestFor(a.cfg.Model, maxTokens, msgs, tools, opts.System))
	if err != nil {
		return nil, encodeError(a.Name(), err)
	}
	w := wireRequest{
		provider: a.Name(),
		client:   a.cfg.HTTPClient,
		url:      joinURL(a.cfg.BaseURL, "/v1/messages"),
		header: http.Header{
			"X-Api-Key":         {a.cfg.APIKey},
			"Anthropic-Version": {anthropicVersion},
		},
		body:   body,
		secret: a.cfg.APIKey,
		hints: errorHints{
			auth:    anthropicAuthHint,
			billing: "the Anthropic account behind ANTHROPIC_API_KEY is out of credit; add credit in the Anthropic console or choose another model with --model",
			model:   "check the model id " + a.cfg.Model + ": Anthropic does not serve it to this key",
			network: "could not reach " + hostOf(a.cfg.BaseURL) + "; check the network connection",
		},
	}
	resp, err := postJSON(ctx, w)
	if err != nil {
		return nil, err
	}
	if resp.status/100 != 2 {
		return nil, w.classify(resp, time.Now())
	}
	return parseAnthropicResponse(w, resp)
}

// anthropicCache is the one cache_control value we send.
type anthropicCache struct {
	Type string `json:"type"`
}

var ephemeral = &anthropicCache{Type: "ephemeral"}

type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    []anthropicBlock   `json:"system,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
	Tools     []anthropicTool    `json:"tools,omitempty"`
}

type anthropicMessage struct {
	Role    string           `json:"role"`
	Content []anthropicBlock `json:"content"`
}

// anthropicBlock is a content block in either direction: text, tool_use or
// tool_result. Field order is wire order.
type anthropicBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      string          `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	CacheControl *anthropicCache `json:"cache_control,omitempty"`
}

type anthropicTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *anthropicCache `json:"cache_control,omitempty"`
}

// emptyObject stands in for a missing schema or tool input: the API requires
// both to be JSON objects.
var emptyObject = json.RawMessage(`{}`)

// anthropicRequestFor maps the neutral conversation onto the Messages wire
// format and places the three cache breakpoints.
func anthropicRequestFor(model string, maxTokens int, msgs []Message, tools []Tool, system string) anthropicRequest {
	req := anthropicRequest{Model: model, MaxTokens: maxTokens, Messages: []anthropicMessage{}}
	if system != "" {
		req.System = []anthropicBlock{{Type: "text", Text: system, CacheControl: ephemeral}}
	}
	for _, t := range tools {
		schema := t.Schema
		if len(bytes.TrimSpace(schema)) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		req.Tools = append(req.Tools, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if n := len(req.Tools); n > 0 {
		req.Tools[n-1].CacheControl = ephemeral
	}
	for _, m := range msgs {
		var blocks []anthropicBlock
		if m.Role == RoleAssistant {
			if m.Text != "" {
				blocks = append(blocks, anthropicBlock{Type: "text", Text: m.Text})
			}
			for _, c := range m.ToolCalls {
				blocks = append(blocks, anthropicBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: objectArgs(c.Args)})
			}
		} else {
			// The API wants a user turn's tool_result blocks before any text.
			for _, r := range m.ToolResults {
				blocks = append(blocks, anthropicBlock{Type: "tool_result", ToolUseID: r.CallID, Content: r.Content, IsError: r.IsError})
			}
			if m.Text != "" {
				blocks = append(blocks, anthropicBlock{Type: "text", Text: m.Text})
			}
		}
		if len(blocks) == 0 {
			// The API rejects an empty message (and a blank text block). An
			// empty turn said nothing, and the API merges the consecutive
			// same-role turns dropping it leaves, so skipping it is lossless.
			continue
		}
		req.Messages = append(req.Messages, anthropicMessage{Role: string(m.Role), Content: blocks})
	}
	if n := len(req.Messages); n > 0 {
		last := req.Messages[n-1].Content
		last[len(last)-1].CacheControl = ephemeral
	}
	return req
}

// objectArgs is a tool call's arguments as the JSON object tool_use.input
// must be. Arguments that are not an object (possible only in a conversation
// that began on a compatible endpoint returning malformed arguments) become
// {}: the call's failed result, already in the history, says what went wrong.
func objectArgs(args json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
		return emptyObject
	}
	return trimmed
}

type anthropicResponse struct {
	Type       string           `json:"type"`
	Model      string           `json:"model"`
	Content    []anthropicBlock `json:"content"`
	StopReason string           `json:"stop_reason"`
	Usage      struct {
		InputTokens              int `json:"input_tokens"`
		OutputTokens             int `json:"output_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

func parseAnthropicResponse(w wireRequest, resp *wireResponse) (*Turn, error) {
	var r anthropicResponse
	if err := json.Unmarshal(resp.body, &r); err != nil {
		return nil, w.malformed(resp, err.Error())
	}
	if r.Type != "message" {
		if _, ok := parseAPIError(resp.body); ok {
			// An error object under a 2xx status: classify it as the 500 it is.
			resp.status = http.StatusInternalServerError
			return nil, w.classify(resp, time.Now())
		}
		return nil, w.malformed(resp, `missing "type":"message"`)
	}
	turn := &Turn{Model: r.Model}
	var text strings.Builder
	for _, b := range r.Content {
		switch b.Type {
		case "text":
			// Plain concatenation: with citations the API splits one
			// paragraph across several text blocks.
			text.WriteString(b.Text)
		case "tool_use":
			turn.ToolCalls = append(turn.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Args: objectArgs(b.Input)})
		}
		// thinking and server-tool blocks carry nothing the loop uses.
	}
	turn.Text = text.String()
	turn.Stop = anthropicStop(r.StopReason)
	u := r.Usage
	turn.Usage = Usage{
		Input:      u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
		Output:     u.OutputTokens,
		CacheRead:  u.CacheReadInputTokens,
		CacheWrite: u.CacheCreationInputTokens,
	}
	return turn, nil
}

// anthropicStop maps stop_reason. A stop sequence is a normal end (we send
// none, but a proxy might); running out of context window while writing is a
// truncated answer like max_tokens; pause_turn, refusal and anything newer
// are StopOther.
func anthropicStop(reason string) StopReason {
	switch reason {
	case "end_turn", "stop_sequence":
		return StopEnd
	case "tool_use":
		return StopToolUse
	case "max_tokens", "model_context_window_exceeded":
		return StopMaxTokens
	}
	return StopOther
}
