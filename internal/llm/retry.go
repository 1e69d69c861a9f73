package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// Retry defaults (spec §4.5: exponential backoff ×3, then fail over).
const (
	DefaultMaxRetries = 3
	DefaultBaseDelay  = 2 * time.Second  // first backoff: 2s, then 4s, 8s
	DefaultMaxDelay   = 30 * time.Second // no single backoff wait is longer
	// DefaultMaxServerWait bounds how long a server may ask us to wait. A
	// longer Retry-After means "come back later", not "retry": waiting it out
	// would stall an attended run for minutes, so retries end and failover
	// (where allowed) takes over.
	DefaultMaxServerWait = time.Minute
)

// RetryPolicy says how long and how often to wait on a retryable error. Zero
// fields take the defaults above; MaxRetries < 0 means never retry.
type RetryPolicy struct {
	MaxRetries    int           // retries after the first call (not counting failover)
	BaseDelay     time.Duration // first exponential-backoff wait
	MaxDelay      time.Duration // cap on each backoff wait; a server's Retry-After is honoured as given
	MaxServerWait time.Duration // a Retry-After longer than this ends the retries at once
	// Sleep waits d or until ctx ends, returning ctx.Err() then. Tests inject
	// it to record waits without spending them.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter spreads a backoff wait so clients rate-limited together do not
	// retry together; the default picks uniformly from [d/2, d].
	Jitter func(time.Duration) time.Duration
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxRetries == 0 {
		p.MaxRetries = DefaultMaxRetries
	}
	if p.MaxRetries < 0 {
		p.MaxRetries = 0
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.MaxServerWait <= 0 {
		p.MaxServerWait = DefaultMaxServerWait
	}
	if p.Sleep == nil {
		p.Sleep = sleepContext
	}
	if p.Jitter == nil {
		p.Jitter = equalJitter
	}
	return p
}

// wait returns how long to wait before retry n (1-based) after e, or false
// when the server asked for longer than MaxServerWait.
func (p RetryPolicy) wait(e *Error, n int) (time.Duration, bool) {
	if e.RetryAfter > 0 {
		return e.RetryAfter, e.RetryAfter <= p.MaxServerWait
	}
	d := p.BaseDelay
	for i := 1; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(p.Jitter(min(d, p.MaxDelay)), p.MaxDelay)
	return max(d, 0), true
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func equalJitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d-d/2+1)
}

// Attempt is one call to a concrete provider inside a Chat of the retrying
// provider.
type Attempt struct {
	Provider string        // backend name of the provider called
	Model    string        // model id it was called for
	N        int           // 1-based call number on that provider
	Err      *Error        // nil when this call produced the turn
	Wait     time.Duration // the wait that followed this call before the next one; 0 for the last
	Failover bool          // the call went to the fallback provider
}

// RetryLine is the one line a person is told about a failed call the
// retrying provider will try again ("rate limited by compat (HTTP 429),
// retrying in 5 s"), or "" for a call that is not followed by a wait.
func (a Attempt) RetryLine() string {
	if a.Err == nil || a.Wait <= 0 {
		return ""
	}
	why := strings.ReplaceAll(string(a.Err.Kind), "-", " ")
	switch a.Err.Kind {
	case ErrRateLimited, ErrOverloaded:
		why += " by " + a.Provider
	default:
		why = "model call failed (" + why + ", " + a.Provider + ")"
	}
	if a.Err.Status != 0 {
		why += fmt.Sprintf(" (HTTP %d)", a.Err.Status)
	}
	return fmt.Sprintf("%s, retrying in %s (attempt %d)", why, waitWords(a.Wait), a.N+1)
}

// waitWords is a wait as a person reads it: whole seconds rounded up, or
// milliseconds under a second.
func waitWords(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", max(1, d.Milliseconds()))
	}
	return fmt.Sprintf("%d s", int(math.Ceil(d.Seconds())))
}

// failoverAllowed is the whole failover rule: only between the two keyed
// families, openai and anthropic. compat is excluded even though it speaks the
// OpenAI protocol: a rate-limited third-party or local endpoint must never
// start spending the user's paid OPENAI_API_KEY/ANTHROPIC_API_KEY (AC-3.18);
// saved-login backends and replay never fail over either (§4.5).
func failoverAllowed(from, to string) bool {
	return (from == BackendOpenAI && to == BackendAnthropic) || (from == BackendAnthropic && to == BackendOpenAI)
}

// RetryingProvider wraps a provider with retry on retryable errors and, once
// those are exhausted, failover to a fallback provider. Failover is sticky:
// after it, the run keeps talking to the fallback rather than paying the
// primary's rate limit again on every turn; Name and Model then report the
// fallback.
type RetryingProvider struct {
	active, fallback Provider
	failedOver       bool
	policy           RetryPolicy
	onAttempt        func(Attempt)
}

// WithRetry wraps p. fallback may be nil; a fallback that failoverAllowed
// rejects for p is dropped, so no caller can route compat or a saved-login
// backend onto a paid key. onAttempt (may be nil) hears about every call as
// it ends, before any wait, so a UI can say "rate-limited, retrying in 4s".
func WithRetry(p Provider, policy RetryPolicy, fallback Provider, onAttempt func(Attempt)) *RetryingProvider {
	if fallback != nil && !failoverAllowed(p.Name(), fallback.Name()) {
		fallback = nil
	}
	return &RetryingProvider{active: p, fallback: fallback, policy: policy.withDefaults(), onAttempt: onAttempt}
}

// Name is the backend currently answering.
func (r *RetryingProvider) Name() string { return r.active.Name() }

// Model is the model id currently answering.
func (r *RetryingProvider) Model() string { return r.active.Model() }

// Chat calls the active provider, retrying retryable errors per the policy,
// then fails over once if allowed. The returned Turn or *Error carries every
// attempt. When ctx ends, Chat stops at once and returns ctx.Err().
func (r *RetryingProvider) Chat(ctx context.Context, msgs []Message, tools []Tool, opts Options) (*Turn, error) {
	var attempts []Attempt
	turn, err := r.try(ctx, r.active, r.failedOver, msgs, tools, opts, &attempts)
	if err != nil && r.shouldFailOver(ctx, err) {
		r.active, r.failedOver = r.fallback, true
		turn, err = r.try(ctx, r.active, true, msgs, tools, opts, &attempts)
	}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			final := *e // a copy: attempts[len-1].Err is e itself, and must not point back at its own list
			final.Attempts = attempts
			return nil, &final
		}
		return nil, err
	}
	turn.Attempts = attempts
	return turn, nil
}

func (r *RetryingProvider) shouldFailOver(ctx context.Context, err error) bool {
	var e *Error
	return r.fallback != nil && !r.failedOver && ctx.Err() == nil && errors.As(err, &e) && e.Retryable()
}

func (r *RetryingProvider) try(ctx context.Context, p Provider, failover bool, msgs []Message, tools []Tool, opts Options, attempts *[]Attempt) (*Turn, error) {
	for n := 1; ; n++ {
		turn, err := p.Chat(ctx, msgs, tools, opts)
		a := Attempt{Provider: p.Name(), Model: p.Model(), N: n, Failover: failover}
		if err == nil {
			r.note(attempts, a)
			return turn, nil
		}
		var e *Error
		errors.As(err, &e)
		a.Err = e
		if ctx.Err() != nil {
			r.note(attempts, a)
			return nil, ctx.Err()
		}
		if e == nil || !e.Retryable() || n > r.policy.MaxRetries {
			r.note(attempts, a)
			return nil, err
		}
		wait, ok := r.policy.wait(e, n)
		if !ok {
			r.note(attempts, a)
			return nil, err
		}
		a.Wait = wait
		r.note(attempts, a)
		if err := r.policy.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func (r *RetryingProvider) note(attempts *[]Attempt, a Attempt) {
	*attempts = append(*attempts, a)
	if r.onAttempt != nil {
		r.onAttempt(a)
	}
}
