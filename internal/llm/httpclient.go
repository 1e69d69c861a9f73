package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// This file is the HTTP plumbing every hand-written model client shares: one
// JSON POST, one mapping from an HTTP failure to an *Error, one parser for the
// server's requested wait, and one scrubber that keeps credentials out of
// error text. The clients differ only in the JSON they put on the wire.

const (
	// maxResponseBytes caps a model reply read into memory. A non-streaming
	// reply carrying a 32k-token completion and its tool calls is well under
	// 1 MiB of JSON; the cap exists only so a misbehaving compatible endpoint
	// cannot exhaust memory. A larger reply is an ErrTransient.
	maxResponseBytes = 8 << 20

	// maxErrorBodyBytes caps how much of a failed response we read: error
	// bodies are a few hundred bytes, and a proxy's HTML page needs no more.
	maxErrorBodyBytes = 64 << 10

	// maxErrorMessage is how many characters of the provider's own words
	// reach Error.Message: enough for "prompt is too long: 208000 tokens >
	// 200000 maximum", short enough for a one-line CLI error.
	maxErrorMessage = 300

	// maxRetryAfter bounds a server-requested wait. It only keeps absurd
	// header values from overflowing a time.Duration; whether to wait that
	// long is the retry policy's decision, not the client's.
	maxRetryAfter = 24 * time.Hour

	// defaultRequestTimeout bounds one non-streaming request when the caller
	// supplies no *http.Client. Anthropic recommends streaming for requests
	// expected to run past ten minutes; our output caps keep replies under it.
	defaultRequestTimeout = 10 * time.Minute

	userAgent = "copperhead"
)

// defaultHTTPClient serves clients configured without one. Its timeout is the
// only thing it adds to the standard transport.
var defaultHTTPClient = &http.Client{Timeout: defaultRequestTimeout}

// wireRequest is one JSON POST to a model API.
type wireRequest struct {
	provider string // Error.Provider for every failure
	client   *http.Client
	url      string
	header   http.Header
	body     []byte
	secret   string // the API key: scrubbed from every error message
	hints    errorHints
}

// wireResponse is a response the server finished sending: any status.
type wireResponse struct {
	status int
	header http.Header
	body   []byte
}

// errorHints are the provider-specific words an *Error carries as its Hint.
type errorHints struct {
	auth    string // the key was rejected (401/403)
	billing string // the account behind the key has no quota or credit left
	model   string // the model id was not found (404)
	network string // no response arrived
}

// postJSON sends r and reads the whole reply. It returns the caller's own
// context error (wrapped, so errors.Is works) when ctx ended the request, an
// *Error of kind ErrTransient when no usable response arrived, and otherwise
// the response whatever its status: classify turns a non-2xx into an *Error.
func postJSON(ctx context.Context, r wireRequest) (*wireResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(r.body))
	if err != nil {
		return nil, &Error{Kind: ErrBadRequest, Provider: r.provider, Message: r.scrub(err.Error()),
			Hint: "check the endpoint URL"}
	}
	for k, vs := range r.header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)

	client := r.client
	if client == nil {
		client = defaultHTTPClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("%s: %w", r.provider, ctxErr)
		}
		return nil, &Error{Kind: ErrTransient, Provider: r.provider, Message: r.scrub(err.Error()), Hint: r.hints.network}
	}
	defer resp.Body.Close()

	limit := int64(maxResponseBytes)
	if resp.StatusCode/100 != 2 {
		limit = maxErrorBodyBytes
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("%s: %w", r.provider, ctxErr)
		}
		return nil, &Error{Kind: ErrTransient, Provider: r.provider, Status: resp.StatusCode,
			Message: r.scrub("reading response: " + err.Error()), Hint: r.hints.network}
	}
	if int64(len(body)) > limit {
		if resp.StatusCode/100 == 2 {
			return nil, &Error{Kind: ErrTransient, Provider: r.provider, Status: resp.StatusCode,
				Message: fmt.Sprintf("response larger than %d bytes", maxResponseBytes),
				Hint:    "the endpoint sent an implausibly large reply; check that it speaks this protocol"}
		}
		body = body[:limit] // an error page: its head is enough to classify
	}
	return &wireResponse{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// malformed is the *Error for a 2xx reply we could not understand. A
// truncated or garbled reply is usually a proxy or server hiccup, so it is
// transient: sending the same request again may well succeed.
func (r wireRequest) malformed(resp *wireResponse, why string) *Error {
	return &Error{Kind: ErrTransient, Provider: r.provider, Status: resp.status,
		Message: r.scrub("malformed response: " + why),
		Hint:    "the endpoint's reply was not valid " + r.provider + " JSON; re-run, and if it persists check the endpoint"}
}

// apiError is the error object every supported wire format nests somewhere in
// a failed response.
type apiError struct {
	typ     string // Anthropic error.type / OpenAI error.type
	code    string // OpenAI error.code, as text
	message string
}

// parseAPIError reads the error out of a response body. It understands
// Anthropic's {"type":"error","error":{"type","message"}}, OpenAI's
// {"error":{"message","type","code"}}, the {"error":"text"} of Ollama's
// native routes, and the flat {"message","type","code"} older vLLM servers
// send. ok is false when the body holds none of these.
func parseAPIError(body []byte) (e apiError, ok bool) {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &env) != nil {
		return apiError{}, false
	}
	inner := bytes.TrimSpace(env.Error)
	switch {
	case len(inner) > 0 && inner[0] == '{':
		var obj struct {
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
		}
		if json.Unmarshal(inner, &obj) != nil {
			return apiError{}, false
		}
		return apiError{typ: obj.Type, code: rawText(obj.Code), message: obj.Message}, true
	case len(inner) > 0 && inner[0] == '"':
		var s string
		if json.Unmarshal(inner, &s) != nil {
			return apiError{}, false
		}
		return apiError{message: s}, true
	case env.Message != "":
		return apiError{typ: env.Type, code: rawText(env.Code), message: env.Message}, true
	}
	return apiError{}, false
}

// rawText renders a JSON string or number as plain text, and anything else
// (null, absent) as "".
func rawText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// contextTooLongPhrases are the words providers use when the conversation no
// longer fits: Anthropic ("prompt is too long: N tokens > M maximum"), OpenAI
// and vLLM ("maximum context length is N tokens"), and the variants other
// compatible servers use.
var contextTooLongPhrases = []string{
	"prompt is too long",
	"context_length_exceeded",
	"maximum context length",
	"context length",
	"context window",
	"too many tokens",
	"input is too long",
	"exceeds the context",
}

// classify turns a non-2xx response into an *Error. The order matters: a 429
// is a rate limit even when its message mentions tokens, and a quota 429 is
// not a rate limit at all.
func (r wireRequest) classify(resp *wireResponse, now time.Time) *Error {
	ae, ok := parseAPIError(resp.body)
	msg := ae.message
	if !ok {
		msg = bodySnippet(resp.body)
	}
	if msg == "" {
		msg = http.StatusText(resp.status)
	}
	e := &Error{
		Provider:   r.provider,
		Status:     resp.status,
		RetryAfter: parseRetryAfter(resp.header, now),
		Message:    r.scrub(msg),
	}
	lower := strings.ToLower(ae.message)
	switch {
	case ae.typ == "insufficient_quota" || ae.code == "insufficient_quota" ||
		ae.typ == "billing_error" || resp.status == http.StatusPaymentRequired ||
		strings.Contains(lower, "credit balance"):
		// OpenAI reports an exhausted account as a 429, Anthropic as a 400
		// "credit balance is too low": waiting never helps, and only the
		// account owner can, so this is a credential problem, not a rate limit.
		e.Kind, e.Hint = ErrAuth, r.hints.billing
		e.RetryAfter = 0
	case resp.status == http.StatusTooManyRequests:
		e.Kind = ErrRateLimited
		e.Hint = "the provider is rate-limiting this key; wait and re-run, or choose another model with --model"
	case resp.status == 529 || resp.status == http.StatusServiceUnavailable || ae.typ == "overloaded_error":
		e.Kind = ErrOverloaded
		e.Hint = "the provider is overloaded; re-run later, or choose another model with --model"
	case resp.status == http.StatusUnauthorized || resp.status == http.StatusForbidden:
		e.Kind, e.Hint = ErrAuth, r.hints.auth
	case resp.status == http.StatusRequestEntityTooLarge || ae.code == "context_length_exceeded" ||
		(resp.status/100 == 4 && containsAny(lower, contextTooLongPhrases)):
		e.Kind = ErrContextTooLong
		e.Hint = "the conversation no longer fits the model's context window; narrow the request or choose a model with a larger window"
	case resp.status == http.StatusRequestTimeout || resp.status == http.StatusConflict || resp.status/100 == 5:
		// 408 and 409 are what the official SDKs retry besides 429 and 5xx:
		// a server-side timeout or lock contention, not a fault in the request.
		e.Kind = ErrTransient
		e.Hint = "the provider failed to answer; re-run, and if it persists check its status page"
	case resp.status == http.StatusNotFound:
		e.Kind, e.Hint = ErrBadRequest, r.hints.model
	default:
		e.Kind = ErrBadRequest
		e.Hint = "the provider rejected the request; its message says which part"
	}
	return e
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// bodySnippet is the text of a non-JSON error body (a proxy's HTML page, a
// plain-text 502), with markup stripped, or "" when the body is empty.
func bodySnippet(body []byte) string {
	s := string(body)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	s = htmlTag.ReplaceAllString(s, " ")
	return strings.TrimSpace(s)
}

var htmlTag = regexp.MustCompile(`<[^>]*>`)

// parseRetryAfter reads the wait a server asked for: OpenAI's retry-after-ms
// (milliseconds, possibly fractional) first because it is the more precise,
// then the standard Retry-After as delay-seconds or an HTTP-date relative to
// now. It returns 0 when neither header names a positive wait.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			if d := clampWait(ms * float64(time.Millisecond)); d > 0 {
				return d
			}
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		return clampWait(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return clampWait(float64(t.Sub(now)))
	}
	return 0
}

// clampWait turns a wait in nanoseconds into a Duration in [0, maxRetryAfter].
func clampWait(ns float64) time.Duration {
	switch {
	case math.IsNaN(ns) || ns <= 0:
		return 0
	case ns >= float64(maxRetryAfter):
		return maxRetryAfter
	}
	return time.Duration(ns)
}

// minSecretLen is the shortest configured key scrubbed verbatim: anything
// shorter cannot be a real credential, and replacing every occurrence of a
// two-letter placeholder would garble the message for nothing.
const minSecretLen = 4

// secretShapes match credentials that may appear in provider text even when
// they are not the configured key: OpenAI echoes a masked key in its 401
// ("Incorrect API key provided: sk-proj-****abcd"), proxies echo Authorization
// headers, and some endpoints take keys as query parameters.
var secretShapes = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`sk-[A-Za-z0-9_\-*]{4,}`), "sk-[redacted]"},
	{regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9_\-.~+/=*]+`), "${1}[redacted]"},
	{regexp.MustCompile(`(?i)([?&](?:api[_-]?)?key=)[^&\s"']+`), "${1}[redacted]"},
}

// scrub makes provider or transport text safe to show and record: the
// configured key and anything shaped like a credential are replaced, control
// characters and runs of whitespace become single spaces, and the result is
// cut to maxErrorMessage characters. Every string that enters an *Error from
// the wire passes through here; that is the rule that keeps keys out of
// transcripts.
func (r wireRequest) scrub(s string) string {
	if len(r.secret) >= minSecretLen {
		s = strings.ReplaceAll(s, r.secret, "[redacted]")
	}
	for _, sh := range secretShapes {
		s = sh.re.ReplaceAllString(s, sh.repl)
	}
	return trimMessage(s)
}

// trimMessage collapses whitespace and control characters and cuts s to
// maxErrorMessage runes, marking the cut with an ellipsis.
func trimMessage(s string) string {
	s = strings.ToValidUTF8(s, "")
	var b strings.Builder
	space := false
	n := 0
	for _, c := range s {
		if unicode.IsSpace(c) || unicode.IsControl(c) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		if n >= maxErrorMessage {
			b.WriteString("…")
			return b.String()
		}
		b.WriteRune(c)
		n++
	}
	return b.String()
}

// marshalWire encodes a request body compactly and without HTML escaping, so
// a tool description containing "<" or "&" reaches the model as written and
// the bytes stay identical from call to call (prompt caching keys on them).
func marshalWire(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// joinURL appends an API path to a configured base URL, tolerating a
// trailing slash on the base.
func joinURL(base, path string) string {
	return strings.TrimRight(base, "/") + path
}

// hostOf names the host of a base URL for hints, or the URL itself when it
// does not parse.
func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return base
}

// encodeError is the *Error for a request we could not even encode: always a
// bug in the caller's messages or tools (e.g. a Tool.Schema that is not JSON).
func encodeError(provider string, err error) *Error {
	var syn *json.SyntaxError
	msg := err.Error()
	if errors.As(err, &syn) {
		msg = "a tool schema or tool-call argument is not valid JSON: " + msg
	}
	return &Error{Kind: ErrBadRequest, Provider: provider, Message: trimMessage(msg),
		Hint: "this is a copperhead bug: the request could not be encoded"}
}
