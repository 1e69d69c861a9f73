package parts

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"copperhead/internal/research/egress"
	"copperhead/internal/textfmt"
)

// Part is one manufacturer part as a provider reports it, normalized across
// providers. Lifecycle is the provider's own wording ("Active", "NRND",
// "Obsolete"); sourcing.CheckSourcing interprets it.
type Part struct {
	MPN          string  `json:"mpn"`
	Manufacturer string  `json:"manufacturer"`
	Description  string  `json:"description,omitempty"`
	Lifecycle    string  `json:"lifecycle,omitempty"`
	DatasheetURL string  `json:"datasheetUrl,omitempty"`
	Offers       []Offer `json:"offers,omitempty"`
}

// Offer is one distributor's listing of a part at retrieval time.
type Offer struct {
	Distributor string       `json:"distributor"`
	Stock       int          `json:"stock"`
	MOQ         int          `json:"moq,omitempty"`
	Prices      []PriceBreak `json:"prices,omitempty"`
	URL         string       `json:"url,omitempty"`
}

// PriceBreak is the unit price from Qty pieces upward.
type PriceBreak struct {
	Qty      int     `json:"qty"`
	Price    float64 `json:"price"`
	Currency string  `json:"currency"`
}

// Provider is one part-data API. Search takes free text ("3.3V LDO SOT-23");
// ByMPN looks up one manufacturer part number. An empty slice with a nil
// error means the provider knows no such part.
type Provider interface {
	Name() string
	Search(ctx context.Context, query string, limit int) ([]Part, error)
	ByMPN(ctx context.Context, mpn string) ([]Part, error)
}

// Environment variables holding provider credentials.
const (
	NexarClientIDEnv     = "NEXAR_CLIENT_ID"
	NexarClientSecretEnv = "NEXAR_CLIENT_SECRET"
	MouserKeyEnv         = "MOUSER_API_KEY"
)

// Available returns the part-data providers whose credentials are set, in
// preference order: Nexar (multi-distributor), then Mouser (one distributor).
// A provider without its credentials is absent, not present-and-failing (D2).
func Available(getenv func(string) string, client *egress.Client) []Provider {
	var ps []Provider
	id, secret := strings.TrimSpace(getenv(NexarClientIDEnv)), strings.TrimSpace(getenv(NexarClientSecretEnv))
	if id != "" && secret != "" {
		ps = append(ps, NewNexar(id, secret, client))
	}
	if k := strings.TrimSpace(getenv(MouserKeyEnv)); k != "" {
		ps = append(ps, NewMouser(k, client))
	}
	return ps
}

// Errors a caller can branch on with errors.Is. The wrapped message names the
// provider and the variables to check, never their values.
var (
	ErrUnauthorized = errors.New("unauthorized")
	ErrRateLimited  = errors.New("rate limited")
)

const (
	// maxResponseBytes caps a part API response. A 50-part result with every
	// seller is a few hundred kilobytes; the cap only stops a runaway server.
	maxResponseBytes = 4 << 20
	// maxLimit bounds how many parts one call returns: Mouser's own ceiling,
	// and more candidates than the agent can weigh.
	maxLimit = 50
	// defaultLimit is used when the caller asks for limit <= 0.
	defaultLimit = 10
	// maxServerMessage bounds an API's own error text quoted in our errors.
	maxServerMessage = 200
)

func clampLimit(n int) int {
	if n <= 0 {
		return defaultLimit
	}
	return min(n, maxLimit)
}

// statusError maps a non-2xx response to an error naming the provider and,
// for authentication failures, the variables holding the credentials. The
// body is not quoted: it is untrusted and may echo the request.
func statusError(op string, status int, credEnv string) error {
	switch {
	case status == 401 || status == 403:
		return fmt.Errorf("%s: HTTP %d: %w: check %s", op, status, ErrUnauthorized, credEnv)
	case status == 429:
		return fmt.Errorf("%s: HTTP 429: %w: retry later", op, ErrRateLimited)
	default:
		return fmt.Errorf("%s: unexpected HTTP status %d", op, status)
	}
}

// scrub returns err with every occurrence of each secret replaced, so an
// error that echoes a request detail cannot carry a credential into a
// transcript. Errors without a secret pass through unchanged, keeping
// errors.Is and errors.As working.
func scrub(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	changed := false
	for _, s := range secrets {
		if s != "" && strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, "[redacted]")
			changed = true
		}
	}
	if !changed {
		return err
	}
	return errors.New(msg)
}

// serverMessage shortens an API's error text for quoting in an error.
func serverMessage(s string) string {
	s = textfmt.OneLine(s)
	if r := []rune(s); len(r) > maxServerMessage {
		return string(r[:maxServerMessage-1]) + "…"
	}
	return s
}
