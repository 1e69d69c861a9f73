package llm

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

// scripted is a provider that answers from a script: each call consumes one
// entry, an *Error or (nil) a turn saying which call it was.
type scripted struct {
	name, model string
	script      []*Error
	calls       int
	onCall      func() // runs inside each call, before the answer
}

func (s *scripted) Name() string  { return s.name }
func (s *scripted) Model() string { return s.model }
func (s *scripted) Chat(ctx context.Context, msgs []Message, tools []Tool, opts Options) (*Turn, error) {
	s.calls++
	if s.onCall != nil {
		s.onCall()
	}
	if len(s.script) == 0 {
		return &Turn{Text: s.name + " ok", Stop: StopEnd, Model: s.model}, nil
	}
	e := s.script[0]
	s.script = s.script[1:]
	if e == nil {
		return &Turn{Text: s.name + " ok", Stop: StopEnd, Model: s.model}, nil
	}
	c := *e
	c.Provider = s.name
	return nil, &c
}

var (
	rateLimited = &Error{Kind: ErrRateLimited, Status: 429}
	overloaded  = &Error{Kind: ErrOverloaded, Status: 529}
	transient   = &Error{Kind: ErrTransient, Status: 502}
	authFailed  = &Error{Kind: ErrAuth, Status: 401}
	badRequest  = &Error{Kind: ErrBadRequest, Status: 400}
	tooLong     = &Error{Kind: ErrContextTooLong, Status: 400}
)

func retryAfter(d time.Duration) *Error {
	return &Error{Kind: ErrRateLimited, Status: 429, RetryAfter: d}
}

// sleeps records the waits a policy asks for without spending them.
type sleeps []time.Duration

func (s *sleeps) policy() RetryPolicy {
	return RetryPolicy{
		Sleep:  func(ctx context.Context, d time.Duration) error { *s = append(*s, d); return ctx.Err() },
		Jitter: func(d time.Duration) time.Duration { return d }, // deterministic
	}
}

func TestRetry(t *testing.T) {
	tests := []struct {
		name      string
		script    []*Error
		policy    func(RetryPolicy) RetryPolicy
		wantErr   ErrorKind // "" means success
		wantCalls int
		wantWaits []time.Duration
	}{
		{name: "success first time", wantCalls: 1},
		{name: "429 with Retry-After honoured", script: []*Error{retryAfter(7 * time.Second), nil},
			wantCalls: 2, wantWaits: []time.Duration{7 * time.Second}},
		{name: "Retry-After above MaxDelay still honoured", script: []*Error{retryAfter(45 * time.Second), nil},
			wantCalls: 2, wantWaits: []time.Duration{45 * time.Second}},
		{name: "Retry-After above MaxServerWait ends retries", script: []*Error{retryAfter(61 * time.Second), nil},
			wantErr: ErrRateLimited, wantCalls: 1},
		{name: "exponential backoff then give up after 3 retries", script: []*Error{rateLimited, overloaded, transient, rateLimited, nil},
			wantErr: ErrRateLimited, wantCalls: 4, wantWaits: []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second}},
		{name: "backoff capped at MaxDelay", script: []*Error{transient, transient, transient, nil},
			policy:    func(p RetryPolicy) RetryPolicy { p.BaseDelay, p.MaxDelay = 10*time.Second, 15*time.Second; return p },
			wantCalls: 4, wantWaits: []time.Duration{10 * time.Second, 15 * time.Second, 15 * time.Second}},
		{name: "jitter never exceeds MaxDelay", script: []*Error{transient, nil},
			policy: func(p RetryPolicy) RetryPolicy {
				p.BaseDelay, p.MaxDelay = 10*time.Second, 10*time.Second
				p.Jitter = func(d time.Duration) time.Duration { return 2 * d }
				return p
			},
			wantCalls: 2, wantWaits: []time.Duration{10 * time.Second}},
		{name: "MaxRetries negative never retries", script: []*Error{rateLimited, nil},
			policy:  func(p RetryPolicy) RetryPolicy { p.MaxRetries = -1; return p },
			wantErr: ErrRateLimited, wantCalls: 1},
		{name: "auth never retried", script: []*Error{authFailed, nil}, wantErr: ErrAuth, wantCalls: 1},
		{name: "bad request never retried", script: []*Error{badRequest, nil}, wantErr: ErrBadRequest, wantCalls: 1},
		{name: "context too long never retried", script: []*Error{tooLong, nil}, wantErr: ErrContextTooLong, wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got sleeps
			pol := got.policy()
			if tt.policy != nil {
				pol = tt.policy(pol)
			}
			p := &scripted{name: BackendAnthropic, model: "claude-x", script: tt.script}
			var heard []Attempt
			r := WithRetry(p, pol, nil, func(a Attempt) { heard = append(heard, a) })
			turn, err := r.Chat(context.Background(), nil, nil, Options{})
			if p.calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", p.calls, tt.wantCalls)
			}
			if !reflect.DeepEqual([]time.Duration(got), tt.wantWaits) {
				t.Errorf("waits = %v, want %v", got, tt.wantWaits)
			}
			var attempts []Attempt
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Chat: %v", err)
				}
				attempts = turn.Attempts
			} else {
				var e *Error
				if !errors.As(err, &e) || e.Kind != tt.wantErr {
					t.Fatalf("err = %v, want kind %s", err, tt.wantErr)
				}
				attempts = e.Attempts
			}
			if len(attempts) != tt.wantCalls || !reflect.DeepEqual(attempts, heard) {
				t.Fatalf("attempts = %+v, heard %+v, want %d", attempts, heard, tt.wantCalls)
			}
			for i, a := range attempts {
				if a.N != i+1 || a.Provider != BackendAnthropic || a.Model != "claude-x" || a.Failover {
					t.Errorf("attempt %d = %+v", i, a)
				}
				if i < len(tt.wantWaits) && a.Wait != tt.wantWaits[i] {
					t.Errorf("attempt %d wait = %v, want %v", i, a.Wait, tt.wantWaits[i])
				}
			}
		})
	}
}

func TestDefaultJitterStaysInRange(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 2, 3, time.Second, 30 * time.Second} {
		for range 100 {
			if j := equalJitter(d); j < d/2 || j > d {
				t.Fatalf("equalJitter(%v) = %v, outside [d/2, d]", d, j)
			}
		}
	}
}

func TestRetryStopsWhenContextEnds(t *testing.T) {
	t.Run("while waiting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		p := &scripted{name: BackendOpenAI, model: "gpt-5", script: []*Error{rateLimited, nil}}
		fb := &scripted{name: BackendAnthropic, model: "claude-x"}
		start := time.Now()
		r := WithRetry(p, RetryPolicy{BaseDelay: time.Hour, MaxDelay: time.Hour}, fb, func(Attempt) { cancel() })
		_, err := r.Chat(ctx, nil, nil, Options{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("waited out the backoff instead of stopping")
		}
		if p.calls != 1 || fb.calls != 0 {
			t.Fatalf("calls primary %d fallback %d, want 1 and 0", p.calls, fb.calls)
		}
	})
	t.Run("during a call", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var s sleeps
		p := &scripted{name: BackendOpenAI, model: "gpt-5", script: []*Error{transient}, onCall: cancel}
		fb := &scripted{name: BackendAnthropic, model: "claude-x"}
		_, err := WithRetry(p, s.policy(), fb, nil).Chat(ctx, nil, nil, Options{})
		if !errors.Is(err, context.Canceled) || p.calls != 1 || fb.calls != 0 || len(s) != 0 {
			t.Fatalf("err %v, calls %d/%d, waits %v: want canceled after one call, no wait, no failover", err, p.calls, fb.calls, s)
		}
	})
}

func TestFailover(t *testing.T) {
	exhausted := []*Error{rateLimited, rateLimited, rateLimited, rateLimited}
	tests := []struct {
		name             string
		primary, backup  string
		script           []*Error
		wantPrimaryCalls int
		wantBackupCalls  int
		wantErr          ErrorKind
	}{
		{"anthropic to openai", BackendAnthropic, BackendOpenAI, exhausted, 4, 1, ""},
		{"openai to anthropic", BackendOpenAI, BackendAnthropic, exhausted, 4, 1, ""},
		{"long Retry-After fails over at once", BackendOpenAI, BackendAnthropic, []*Error{retryAfter(time.Hour)}, 1, 1, ""},
		{"auth does not fail over", BackendOpenAI, BackendAnthropic, []*Error{authFailed}, 1, 0, ErrAuth},
		{"compat never fails over to openai", BackendCompat, BackendOpenAI, exhausted, 4, 0, ErrRateLimited},
		{"compat never fails over to anthropic", BackendCompat, BackendAnthropic, exhausted, 4, 0, ErrRateLimited},
		{"claude-code never fails over", BackendClaudeCode, BackendAnthropic, exhausted, 4, 0, ErrRateLimited},
		{"codex never fails over", BackendCodex, BackendOpenAI, exhausted, 4, 0, ErrRateLimited},
		{"cursor never fails over", BackendCursor, BackendOpenAI, exhausted, 4, 0, ErrRateLimited},
		{"replay never fails over", BackendReplay, BackendOpenAI, exhausted, 4, 0, ErrRateLimited},
		{"no failover to the same family", BackendOpenAI, BackendOpenAI, exhausted, 4, 0, ErrRateLimited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s sleeps
			p := &scripted{name: tt.primary, model: "m1", script: tt.script}
			fb := &scripted{name: tt.backup, model: "m2"}
			r := WithRetry(p, s.policy(), fb, nil)
			turn, err := r.Chat(context.Background(), nil, nil, Options{})
			if p.calls != tt.wantPrimaryCalls || fb.calls != tt.wantBackupCalls {
				t.Fatalf("calls primary %d backup %d, want %d and %d", p.calls, fb.calls, tt.wantPrimaryCalls, tt.wantBackupCalls)
			}
			if tt.wantErr != "" {
				var e *Error
				if !errors.As(err, &e) || e.Kind != tt.wantErr || e.Provider != tt.primary {
					t.Fatalf("err = %v, want %s from %s", err, tt.wantErr, tt.primary)
				}
				if r.Name() != tt.primary {
					t.Fatalf("Name() = %q after a failed call, want %q", r.Name(), tt.primary)
				}
				return
			}
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			last := turn.Attempts[len(turn.Attempts)-1]
			if !last.Failover || last.Provider != tt.backup || last.Err != nil || turn.Text != tt.backup+" ok" {
				t.Fatalf("last attempt %+v, turn %q: want a successful failover to %s", last, turn.Text, tt.backup)
			}
			if len(turn.Attempts) != tt.wantPrimaryCalls+1 {
				t.Fatalf("attempts = %d, want %d", len(turn.Attempts), tt.wantPrimaryCalls+1)
			}
			// Sticky: the next turn goes straight to the fallback.
			if r.Name() != tt.backup || r.Model() != "m2" {
				t.Fatalf("after failover Name/Model = %s/%s", r.Name(), r.Model())
			}
			p.script = exhausted
			if _, err := r.Chat(context.Background(), nil, nil, Options{}); err != nil || p.calls != tt.wantPrimaryCalls || fb.calls != 2 {
				t.Fatalf("second call: err %v, primary calls %d, backup calls %d", err, p.calls, fb.calls)
			}
		})
	}
}

func TestFailoverThatAlsoFailsReportsEveryAttempt(t *testing.T) {
	var s sleeps
	p := &scripted{name: BackendAnthropic, model: "claude-x", script: []*Error{overloaded, overloaded, overloaded, overloaded}}
	fb := &scripted{name: BackendOpenAI, model: "gpt-5", script: []*Error{authFailed}}
	_, err := WithRetry(p, s.policy(), fb, nil).Chat(context.Background(), nil, nil, Options{})
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrAuth || e.Provider != BackendOpenAI {
		t.Fatalf("err = %v, want the fallback's auth error", err)
	}
	if len(e.Attempts) != 5 || !e.Attempts[4].Failover || e.Attempts[4].Err.Kind != ErrAuth || e.Attempts[4].Err.Attempts != nil {
		t.Fatalf("attempts = %+v", e.Attempts)
	}
}

// TestRetryLine: a call followed by a wait is one line naming why, the
// provider, the status and the wait; a call not followed by one is silent.
func TestRetryLine(t *testing.T) {
	cases := []struct {
		a    Attempt
		want string
	}{
		{Attempt{Provider: "compat", N: 1, Err: &Error{Kind: ErrRateLimited, Status: 429}, Wait: 5 * time.Second}, "rate limited by compat (HTTP 429), retrying in 5 s (attempt 2)"},
		{Attempt{Provider: "anthropic", N: 2, Err: &Error{Kind: ErrOverloaded, Status: 529}, Wait: 1500 * time.Millisecond}, "overloaded by anthropic (HTTP 529), retrying in 2 s (attempt 3)"},
		{Attempt{Provider: "openai", N: 1, Err: &Error{Kind: ErrTransient}, Wait: 300 * time.Millisecond}, "model call failed (transient, openai), retrying in 300 ms (attempt 2)"},
		{Attempt{Provider: "openai", N: 4, Err: &Error{Kind: ErrRateLimited, Status: 429}}, ""},
		{Attempt{Provider: "openai", N: 1}, ""},
	}
	for _, c := range cases {
		if got := c.a.RetryLine(); got != c.want {
			t.Errorf("RetryLine = %q, want %q", got, c.want)
		}
	}
}
