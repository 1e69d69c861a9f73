// Package task owns carter's input: the TaskSpec (a question and its
// constraints, spec §2) and Normalize, which fills defaults and refuses what
// no run should start with (an empty question, a domain both allowed and
// denied, a budget of zero). Every other package receives a normalized Spec
// and never re-checks it.
//
// task imports only the standard library; it must never import another
// carter package.
package task

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Defaults from the engineering spec §2. Ten sources and ten minutes fit a
// 1–2 page brief; 25 tool calls leave room for a few search rounds plus a
// fetch per source.
const (
	DefaultMaxToolCalls = 25
	DefaultMaxMinutes   = 10
	DefaultMaxSources   = 10
	DefaultRecencyDays  = 3650
)

// Upper bounds. They exist so a typo (--max-minutes 6000) cannot hold a
// machine or an API account hostage, not to pace a real run.
const (
	maxToolCallsLimit = 500
	maxMinutesLimit   = 240
	maxSourcesLimit   = 100
	maxQuestionBytes  = 2000
	maxDomains        = 200
)

// Spec is the TaskSpec: what to research and within which bounds.
type Spec struct {
	Question    string      `json:"question"`
	Constraints Constraints `json:"constraints"`
}

// Constraints bound a run. Zero values mean "the default" to Normalize.
type Constraints struct {
	MaxToolCalls int      `json:"max_tool_calls"`
	MaxMinutes   float64  `json:"max_minutes"`
	MaxSources   int      `json:"max_sources"`
	RecencyDays  int      `json:"recency_days"`
	AllowDomains []string `json:"allow_domains"`
	DenyDomains  []string `json:"deny_domains"`
}

// ErrInvalid is wrapped by every error Normalize returns, so the CLI can
// tell bad input (exit 2) from a failed run.
var ErrInvalid = errors.New("invalid task")

// Normalize returns s with defaults filled, the question trimmed to one
// line of text, and domains lower-cased, validated, de-duplicated and
// sorted. It refuses an empty or over-long question, negative or
// out-of-range budgets, a malformed domain, and a domain that is both
// allowed and denied (which would make the answer depend on rule order).
func Normalize(s Spec) (Spec, error) {
	q := strings.Join(strings.FieldsFunc(s.Question, unicode.IsSpace), " ")
	if q == "" {
		return Spec{}, fmt.Errorf("%w: the question is empty", ErrInvalid)
	}
	if !utf8.ValidString(q) {
		return Spec{}, fmt.Errorf("%w: the question is not valid UTF-8", ErrInvalid)
	}
	if len(q) > maxQuestionBytes {
		return Spec{}, fmt.Errorf("%w: the question is %d bytes long (at most %d)", ErrInvalid, len(q), maxQuestionBytes)
	}
	for _, r := range q {
		if unicode.IsControl(r) {
			return Spec{}, fmt.Errorf("%w: the question contains a control character", ErrInvalid)
		}
	}
	c := s.Constraints
	var err error
	if c.MaxToolCalls, err = intBudget("max_tool_calls", c.MaxToolCalls, DefaultMaxToolCalls, maxToolCallsLimit); err != nil {
		return Spec{}, err
	}
	if c.MaxSources, err = intBudget("max_sources", c.MaxSources, DefaultMaxSources, maxSourcesLimit); err != nil {
		return Spec{}, err
	}
	switch {
	case math.IsNaN(c.MaxMinutes) || c.MaxMinutes < 0 || c.MaxMinutes > maxMinutesLimit:
		return Spec{}, fmt.Errorf("%w: max_minutes must be between 0 and %d (0 means the default %d)", ErrInvalid, maxMinutesLimit, DefaultMaxMinutes)
	case c.MaxMinutes == 0:
		c.MaxMinutes = DefaultMaxMinutes
	}
	switch {
	case c.RecencyDays < 0:
		return Spec{}, fmt.Errorf("%w: recency_days must not be negative", ErrInvalid)
	case c.RecencyDays == 0:
		c.RecencyDays = DefaultRecencyDays
	}
	if c.AllowDomains, err = domains("allow", c.AllowDomains); err != nil {
		return Spec{}, err
	}
	if c.DenyDomains, err = domains("deny", c.DenyDomains); err != nil {
		return Spec{}, err
	}
	for _, d := range c.AllowDomains {
		if slices.Contains(c.DenyDomains, d) {
			return Spec{}, fmt.Errorf("%w: domain %s is both allowed and denied", ErrInvalid, d)
		}
	}
	return Spec{Question: q, Constraints: c}, nil
}

func intBudget(name string, v, def, limit int) (int, error) {
	switch {
	case v < 0 || v > limit:
		return 0, fmt.Errorf("%w: %s must be between 1 and %d (0 means the default %d)", ErrInvalid, name, limit, def)
	case v == 0:
		return def, nil
	}
	return v, nil
}

// domains normalizes an allow or deny list. Users paste URLs and wildcards
// ("https://docs.kicad.org/9.0/", "*.kicad.org"); both mean the domain and
// its subdomains, which is how the policy matches them.
func domains(kind string, in []string) ([]string, error) {
	if len(in) > maxDomains {
		return nil, fmt.Errorf("%w: more than %d %s domains", ErrInvalid, maxDomains, kind)
	}
	out := []string{}
	for _, raw := range in {
		d, err := Domain(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: --%s-domain %q: %v", ErrInvalid, kind, raw, err)
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Domain turns a user's domain entry (bare, wildcard, or URL) into a
// lower-case host name, or says why it is not one.
func Domain(raw string) (string, error) {
	s := strings.ToLower(strings.TrimSpace(raw))
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || u.Hostname() == "" {
			return "", errors.New("not a domain or URL")
		}
		s = u.Hostname()
	}
	s = strings.TrimPrefix(s, "*.")
	s = strings.Trim(s, ".")
	if s == "" {
		return "", errors.New("empty domain")
	}
	if len(s) > 253 {
		return "", errors.New("longer than 253 bytes")
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return "", errors.New("empty or over-long label")
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", fmt.Errorf("character %q is not allowed in a domain (use the punycode form)", c)
			}
		}
	}
	return s, nil
}
