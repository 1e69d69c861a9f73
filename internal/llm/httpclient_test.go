package llm

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"lower-case name", map[string]string{"retry-after": " 7 "}, 7 * time.Second},
		{"http-date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"http-date past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{"ms", map[string]string{"retry-after-ms": "1500"}, 1500 * time.Millisecond},
		{"ms wins", map[string]string{"retry-after-ms": "250.5", "Retry-After": "9"}, 250500 * time.Microsecond},
		{"bad ms falls back", map[string]string{"retry-after-ms": "soon", "Retry-After": "3"}, 3 * time.Second},
		{"zero ms falls back", map[string]string{"retry-after-ms": "0", "Retry-After": "3"}, 3 * time.Second},
		{"negative", map[string]string{"Retry-After": "-4"}, 0},
		{"garbage", map[string]string{"Retry-After": "tomorrow"}, 0},
		{"NaN", map[string]string{"Retry-After": "NaN"}, 0},
		{"absurd is clamped", map[string]string{"Retry-After": "1e300"}, maxRetryAfter},
		{"absurd ms is clamped", map[string]string{"retry-after-ms": "Inf"}, maxRetryAfter},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.header {
			h.Set(k, v)
		}
		if got := parseRetryAfter(h, now); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestScrub(t *testing.T) {
	w := wireRequest{secret: "my-secret-key-value"}
	cases := []struct{ in, want string }{
		{"plain  message\n\twith\x00 controls", "plain message with controls"},
		{"key my-secret-key-value leaked", "key [redacted] leaked"},
		{"Incorrect API key provided: sk-proj-****abcd. See docs", "Incorrect API key provided: sk-[redacted]. See docs"},
		{"Authorization: Bearer abc.def-123 rejected", "Authorization: Bearer [redacted] rejected"},
		{`GET https://x.example/v1?key=AIzaSy123&alt=json failed`, `GET https://x.example/v1?key=[redacted]&alt=json failed`},
		{"sk-ant-api03-abcdefgh", "sk-[redacted]"},
		{"  ", ""},
	}
	for _, c := range cases {
		if got := w.scrub(c.in); got != c.want {
			t.Errorf("scrub(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// A short placeholder key is not scrubbed verbatim.
	if got := (wireRequest{secret: "ab"}).scrub("about"); got != "about" {
		t.Errorf("short secret scrubbed: %q", got)
	}
}

func TestTrimMessage(t *testing.T) {
	long := strings.Repeat("é", maxErrorMessage+50)
	got := trimMessage(long)
	if n := len([]rune(got)); n != maxErrorMessage+1 || !strings.HasSuffix(got, "…") {
		t.Errorf("trimmed to %d runes: %q", n, got)
	}
	if got := trimMessage(strings.Repeat("a", maxErrorMessage)); got != strings.Repeat("a", maxErrorMessage) {
		t.Errorf("message of exactly the limit was cut")
	}
	if got := trimMessage("bad \xff utf8"); got != "bad utf8" {
		t.Errorf("invalid utf-8: %q", got)
	}
}

func TestParseAPIError(t *testing.T) {
	cases := []struct {
		body string
		want apiError
		ok   bool
	}{
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, apiError{typ: "overloaded_error", message: "Overloaded"}, true},
		{`{"error":{"message":"quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, apiError{typ: "insufficient_quota", code: "insufficient_quota", message: "quota"}, true},
		{`{"error":{"message":"upstream","code":502}}`, apiError{code: "502", message: "upstream"}, true},
		{`{"error":"model not found"}`, apiError{message: "model not found"}, true},
		{`{"object":"error","message":"too long","type":"BadRequestError","code":400}`, apiError{typ: "BadRequestError", code: "400", message: "too long"}, true},
		{`<html>`, apiError{}, false},
		{`{"ok":true}`, apiError{}, false},
	}
	for _, c := range cases {
		got, ok := parseAPIError([]byte(c.body))
		if got != c.want || ok != c.ok {
			t.Errorf("parseAPIError(%s) = %+v, %v; want %+v, %v", c.body, got, ok, c.want, c.ok)
		}
	}
}

func TestArgumentsRoundTrip(t *testing.T) {
	cases := []struct{ wire, args, back string }{
		{`"{\"a\": 1}"`, `{"a": 1}`, `"{\"a\":1}"`},
		{`{"a":1}`, `{"a":1}`, `"{\"a\":1}"`},
		{`""`, `{}`, `"{}"`},
		{`null`, `{}`, `"{}"`},
		{``, `{}`, `"{}"`},
		{`"{\"a\": "`, `"{\"a\":"`, `"{\"a\":"`},
	}
	for _, c := range cases {
		args := toolArgs(json.RawMessage(c.wire))
		if string(args) != c.args {
			t.Errorf("toolArgs(%s) = %s, want %s", c.wire, args, c.args)
		}
		if !json.Valid(args) {
			t.Errorf("toolArgs(%s) is not JSON", c.wire)
		}
		if back := argumentsString(args); string(back) != c.back {
			t.Errorf("argumentsString(%s) = %s, want %s", args, back, c.back)
		}
	}
}

func TestObjectArgs(t *testing.T) {
	for in, want := range map[string]string{``: `{}`, `{"a":1}`: `{"a":1}`, `"text"`: `{}`, `[1]`: `{}`, `{bad`: `{}`} {
		if got := string(objectArgs(json.RawMessage(in))); got != want {
			t.Errorf("objectArgs(%q) = %s, want %s", in, got, want)
		}
	}
}
