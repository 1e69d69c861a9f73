package llm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"copperhead/internal/transcript"
)

// ChatEventType is the transcript event type of one recorded Chat call.
const ChatEventType = "chat"

// ChatEvent is one Chat call as the transcript records it: what was asked,
// what came back (or how it failed), and every attempt it took. Replay serves
// Turn back when a later run sends a request with the same RequestHash.
// Redaction happens in the transcript writer, so the recorded text may differ
// from what was sent; the hash was taken before redaction.
type ChatEvent struct {
	Provider    string          `json:"provider"` // the backend that answered (after any failover)
	Model       string          `json:"model"`
	RequestHash string          `json:"request_hash"`
	Request     ChatRequest     `json:"request"`
	Turn        *Turn           `json:"turn,omitempty"`
	Attempts    []AttemptRecord `json:"attempts,omitempty"`
	DurationMS  int64           `json:"duration_ms"`
	Error       *ChatError      `json:"error,omitempty"`
}

// ChatRequest is the request of a ChatEvent, as a delta on the run's
// previous chat event: a loop resends the whole conversation every turn,
// and recording it whole again made a transcript grow with the square of
// its length (a 3 MB file written in turn 1 was stored once per later
// turn). Prior is how many leading messages repeat the previous request's
// (not stored again); Messages are the rest. SameSystem and SameTools say
// the system prompt or the tool list is the previous request's, and then
// System or Tools is empty. FullRequests rebuilds the requests as sent.
type ChatRequest struct {
	System     string    `json:"system,omitempty"`
	SameSystem bool      `json:"same_system,omitempty"`
	MaxTokens  int       `json:"max_tokens,omitempty"`
	Prior      int       `json:"prior_messages,omitempty"`
	Messages   []Message `json:"messages"`
	Tools      []Tool    `json:"tools,omitempty"`
	SameTools  bool      `json:"same_tools,omitempty"`
}

// FullRequests rebuilds each chat event's request as it was sent, in order,
// from the deltas Record writes (events recorded whole, Prior 0 and no
// Same flags, read back unchanged). It fails when an event repeats more
// messages than the previous request held: a transcript cut or reordered.
func FullRequests(events []ChatEvent) ([]ChatRequest, error) {
	out := make([]ChatRequest, 0, len(events))
	var prev ChatRequest
	for i, ev := range events {
		r := ev.Request
		if r.Prior > len(prev.Messages) {
			return nil, fmt.Errorf("chat event %d repeats %d messages of a request that had %d", i+1, r.Prior, len(prev.Messages))
		}
		full := ChatRequest{System: r.System, MaxTokens: r.MaxTokens, Tools: r.Tools,
			Messages: slices.Concat(prev.Messages[:r.Prior], r.Messages)}
		if r.SameSystem {
			full.System = prev.System
		}
		if r.SameTools {
			full.Tools = prev.Tools
		}
		if full.Messages == nil {
			full.Messages = []Message{}
		}
		out = append(out, full)
		prev = full
	}
	return out, nil
}

// AttemptRecord is an Attempt as recorded.
type AttemptRecord struct {
	Provider string     `json:"provider"`
	Model    string     `json:"model"`
	N        int        `json:"n"`
	Error    *ChatError `json:"error,omitempty"`
	WaitMS   int64      `json:"wait_ms,omitempty"`
	Failover bool       `json:"failover,omitempty"`
}

// ChatError is an *Error as recorded. Kind is empty for a failure that was no
// provider error, such as the run's context ending.
type ChatError struct {
	Kind         ErrorKind `json:"kind,omitempty"`
	Provider     string    `json:"provider,omitempty"`
	Status       int       `json:"status,omitempty"`
	RetryAfterMS int64     `json:"retry_after_ms,omitempty"`
	Message      string    `json:"message"`
	Hint         string    `json:"hint,omitempty"`
}

func chatErrorOf(err error) *ChatError {
	var e *Error
	if !errors.As(err, &e) {
		return &ChatError{Message: err.Error()}
	}
	return &ChatError{Kind: e.Kind, Provider: e.Provider, Status: e.Status,
		RetryAfterMS: e.RetryAfter.Milliseconds(), Message: e.Message, Hint: e.Hint}
}

// err turns a recorded failure back into the error Chat returned.
func (c *ChatError) err() error {
	if c.Kind == "" {
		return errors.New(c.Message)
	}
	return &Error{Kind: c.Kind, Provider: c.Provider, Status: c.Status,
		RetryAfter: time.Duration(c.RetryAfterMS) * time.Millisecond, Message: c.Message, Hint: c.Hint}
}

// Recorder is a Provider that writes every Chat call to a run's transcript.
type Recorder struct {
	p Provider
	w *transcript.Writer
	// prev is the last recorded request as sent (messages shallow-copied,
	// so the caller appending to its slice cannot change it).
	prev *ChatRequest
}

// Record wraps p so every Chat call writes one chat event to w. Wrap the
// outermost provider (the one Open returns) so the event carries the retries
// and failover behind each turn.
func Record(p Provider, w *transcript.Writer) *Recorder { return &Recorder{p: p, w: w} }

// Name is the wrapped provider's.
func (r *Recorder) Name() string { return r.p.Name() }

// Model is the wrapped provider's.
func (r *Recorder) Model() string { return r.p.Model() }

// Chat calls the wrapped provider and records the call. A failure to write
// the transcript fails the call: a run whose transcript silently lost a turn
// could never be replayed or audited.
func (r *Recorder) Chat(ctx context.Context, msgs []Message, tools []Tool, opts Options) (*Turn, error) {
	start := time.Now()
	turn, err := r.p.Chat(ctx, msgs, tools, opts)
	sent := ChatRequest{System: opts.System, MaxTokens: opts.MaxTokens, Messages: slices.Clone(nonNil(msgs)), Tools: tools}
	ev := ChatEvent{
		Provider:    r.p.Name(),
		Model:       r.p.Model(),
		RequestHash: RequestHash(msgs, tools, opts),
		Request:     r.delta(sent),
		DurationMS:  time.Since(start).Milliseconds(),
	}
	var attempts []Attempt
	if err != nil {
		ev.Error = chatErrorOf(err)
		var e *Error
		if errors.As(err, &e) {
			attempts = e.Attempts
		}
	} else {
		ev.Turn = turn
		attempts = turn.Attempts
	}
	for _, a := range attempts {
		rec := AttemptRecord{Provider: a.Provider, Model: a.Model, N: a.N, WaitMS: a.Wait.Milliseconds(), Failover: a.Failover}
		if a.Err != nil {
			rec.Error = chatErrorOf(a.Err)
		}
		ev.Attempts = append(ev.Attempts, rec)
	}
	// Flushed at once: a model call costs seconds and money, a flush
	// microseconds, and a turn that never reached the file is lost to
	// replay if the run dies before the loop's own flush.
	if werr := r.w.Write(ChatEventType, ev); werr != nil {
		return nil, fmt.Errorf("record chat turn: %w", werr)
	}
	if werr := r.w.Flush(); werr != nil {
		return nil, fmt.Errorf("record chat turn: %w", werr)
	}
	return turn, err
}

// delta is sent as a ChatRequest relative to the previous recorded one, and
// remembers sent as the new previous.
func (r *Recorder) delta(sent ChatRequest) ChatRequest {
	d := sent
	if p := r.prev; p != nil {
		n := 0
		for n < len(p.Messages) && n < len(sent.Messages) && reflect.DeepEqual(p.Messages[n], sent.Messages[n]) {
			n++
		}
		d.Prior, d.Messages = n, sent.Messages[n:]
		if sent.System == p.System && sent.System != "" {
			d.System, d.SameSystem = "", true
		}
		if len(sent.Tools) > 0 && reflect.DeepEqual(sent.Tools, p.Tools) {
			d.Tools, d.SameTools = nil, true
		}
	}
	r.prev = &sent
	return d
}

func nonNil(msgs []Message) []Message {
	if msgs == nil {
		return []Message{}
	}
	return msgs
}

// hashedRequest is exactly what RequestHash covers: what the model is shown.
// The output cap is left out on purpose: it bounds the answer, it does not
// change the question, and a replay must not fail over a tuning knob.
type hashedRequest struct {
	System   string    `json:"system"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools"`
}

// RequestHash identifies a Chat request: "sha256:" and the hex SHA-256 of the
// canonical JSON of its system prompt, messages and tools. Recording and
// replay both call it, so a replay serves a turn only to the request that
// produced it.
func RequestHash(msgs []Message, tools []Tool, opts Options) string {
	if tools == nil {
		tools = []Tool{}
	}
	b, err := canonicalJSON(hashedRequest{System: opts.System, Messages: nonNil(msgs), Tools: tools})
	if err != nil {
		// Unencodable (a tool schema that is not JSON): the provider will
		// refuse the request anyway; hash the reason so the value is stable.
		b = []byte("unencodable: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonicalJSON encodes v with object keys sorted at every depth (including
// inside tool schemas and arguments, whose key order is the model's or the
// schema builder's whim) and numbers kept verbatim.
func canonicalJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
