package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Role is who speaks a Message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one turn of the conversation in a provider-neutral shape. A user
// message carries text and/or the results of the previous assistant turn's
// tool calls; an assistant message carries text and/or tool calls.
type Message struct {
	Role        Role         `json:"role"`
	Text        string       `json:"text,omitempty"`
	ToolCalls   []ToolCall   `json:"tool_calls,omitempty"`
	ToolResults []ToolResult `json:"tool_results,omitempty"`
}

// ToolCall is the model asking to run a tool.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// ToolResult answers one ToolCall by its ID.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// Tool is a tool the model may call. Schema is a JSON Schema object; build it
// with ToolFor so the bytes are stable across runs (prompt caching keys on them).
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"input_schema"`
}

// Options tune one Chat call.
type Options struct {
	System    string // the system prompt
	MaxTokens int    // output cap; 0 means the provider's default for copperhead
}

// StopReason says why the model stopped.
type StopReason string

const (
	StopEnd       StopReason = "end_turn"   // finished its answer
	StopToolUse   StopReason = "tool_use"   // wants tool results
	StopMaxTokens StopReason = "max_tokens" // hit the output cap
	StopOther     StopReason = "other"
)

// Usage counts tokens for one Chat call. Input includes CacheRead and
// CacheWrite: it is everything the provider billed as input.
type Usage struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cache_read"`
	CacheWrite int `json:"cache_write"`
}

// Add returns the sum of two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{Input: u.Input + v.Input, Output: u.Output + v.Output, CacheRead: u.CacheRead + v.CacheRead, CacheWrite: u.CacheWrite + v.CacheWrite}
}

// Turn is the model's answer to one Chat call.
type Turn struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	Usage     Usage      `json:"usage"`
	Stop      StopReason `json:"stop"`
	Model     string     `json:"model,omitempty"`  // the model id the provider reports having used
	Cached    bool       `json:"cached,omitempty"` // served by a Cache from an identical earlier request

	// Attempts are the calls the retrying provider made to produce this
	// turn, retries and failover included. The recorder logs them in the
	// chat event; they are not part of the turn itself, so a replayed turn
	// never carries the old run's retries.
	Attempts []Attempt `json:"-"`
}

// Message returns the turn as the assistant message to append to the history.
func (t *Turn) Message() Message {
	return Message{Role: RoleAssistant, Text: t.Text, ToolCalls: t.ToolCalls}
}

// Provider is one model backend. Implementations must be safe to call from one
// goroutine at a time; they own nothing but the wire protocol.
type Provider interface {
	// Name is the backend family: "anthropic", "openai", "compat", "replay".
	Name() string
	// Model is the model id requests are sent for.
	Model() string
	// Chat sends the conversation and returns the model's next turn, or an
	// *Error.
	Chat(ctx context.Context, msgs []Message, tools []Tool, opts Options) (*Turn, error)
}

// ErrorKind classifies provider failures; retry and failover decide by it.
type ErrorKind string

const (
	ErrRateLimited    ErrorKind = "rate-limited"     // 429: retry after a wait, then fail over
	ErrOverloaded     ErrorKind = "overloaded"       // 529 / 503 overloaded: like a rate limit
	ErrTransient      ErrorKind = "transient"        // 5xx, connection reset, malformed reply: retry
	ErrAuth           ErrorKind = "auth"             // 401/403, missing key: never retried
	ErrNotLoggedIn    ErrorKind = "not-logged-in"    // saved-login backend without a login
	ErrNotInstalled   ErrorKind = "not-installed"    // saved-login backend CLI missing
	ErrBadRequest     ErrorKind = "bad-request"      // 400 and friends: never retried
	ErrContextTooLong ErrorKind = "context-too-long" // the conversation no longer fits
	ErrNotConfigured  ErrorKind = "not-configured"   // the selected backend lacks a setting (compat baseURL): never retried
)

// Error is every failure a Provider returns.
type Error struct {
	Kind       ErrorKind
	Provider   string        // backend name
	Status     int           // HTTP status, 0 when there was no response
	RetryAfter time.Duration // the server's requested wait, 0 when it named none
	Message    string        // the provider's own words (redacted, trimmed)
	Hint       string        // what the user can do about it

	// Attempts are every call made before giving up, set by the retrying
	// provider on the error it returns (see Turn.Attempts).
	Attempts []Attempt `json:"-"`
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s", e.Provider, e.Kind)
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Retryable reports whether waiting and sending the same request again may help.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case ErrRateLimited, ErrOverloaded, ErrTransient:
		return true
	}
	return false
}
