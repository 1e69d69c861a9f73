package parts

import (
	"context"
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

// Errors a caller can branch on with errors.Is (egress's, shared with the
// search providers). The wrapped message names the provider and the
// variables to check, never their values.
var (
	ErrUnauthorized = egress.ErrUnauthorized
	ErrRateLimited  = egress.ErrRateLimited
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

// serverMessage shortens an API's error text for quoting in an error.
func serverMessage(s string) string {
	return textfmt.Clip(textfmt.OneLine(s), maxServerMessage)
}
