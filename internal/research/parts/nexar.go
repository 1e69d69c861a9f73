package parts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"copperhead/internal/research/egress"
)

const (
	nexarTokenURL   = "https://identity.nexar.com/connect/token"
	nexarGraphQLURL = "https://api.nexar.com/graphql"
	// nexarRefreshEarly renews a token this long before it expires, so a
	// request never leaves with a token that dies in flight.
	nexarRefreshEarly = time.Minute
	// nexarCredEnv names both variables in errors: the token endpoint does
	// not say which of the pair is wrong.
	nexarCredEnv = NexarClientIDEnv + " and " + NexarClientSecretEnv
)

// nexarPartFields selects exactly what Part needs. Lifecycle is not a field
// of Nexar's part; it is the "lifecyclestatus" spec, so specs are selected
// and filtered by attribute shortname.
const nexarPartFields = `
fragment PartFields on SupPart {
  mpn
  manufacturer { name }
  shortDescription
  bestDatasheet { url }
  specs { attribute { shortname } displayValue }
  sellers {
    company { name }
    offers {
      inventoryLevel
      moq
      clickUrl
      prices { quantity price currency }
    }
  }
}`

const nexarByMPNQuery = `query PartsByMPN($q: String!, $limit: Int!) {
  supSearchMpn(q: $q, limit: $limit) { results { part { ...PartFields } } }
}` + nexarPartFields

const nexarSearchQuery = `query PartsSearch($q: String!, $limit: Int!) {
  supSearch(q: $q, limit: $limit) { results { part { ...PartFields } } }
}` + nexarPartFields

// Nexar reads part data from Nexar's supply GraphQL API (Octopart data: one
// query covers every authorized distributor). It authenticates with OAuth
// client credentials; the bearer token is cached until a minute before it
// expires and shared by concurrent calls.
type Nexar struct {
	clientID, clientSecret string
	client                 *egress.Client

	// Overridden by tests: loopback endpoints and an injectable clock.
	tokenURL, graphqlURL string
	now                  func() time.Time

	mu      sync.Mutex // guards token and expires; held across a refresh
	token   string
	expires time.Time
}

// NewNexar returns a Nexar provider for the given client credentials.
func NewNexar(clientID, clientSecret string, client *egress.Client) *Nexar {
	return &Nexar{
		clientID: clientID, clientSecret: clientSecret, client: client,
		tokenURL: nexarTokenURL, graphqlURL: nexarGraphQLURL, now: time.Now,
	}
}

// Name reports "nexar".
func (n *Nexar) Name() string { return "nexar" }

// ByMPN looks up parts whose MPN matches mpn.
func (n *Nexar) ByMPN(ctx context.Context, mpn string) ([]Part, error) {
	return n.query(ctx, "supSearchMpn", nexarByMPNQuery, mpn, defaultLimit)
}

// Search runs a free-text part search.
func (n *Nexar) Search(ctx context.Context, query string, limit int) ([]Part, error) {
	return n.query(ctx, "supSearch", nexarSearchQuery, query, clampLimit(limit))
}

// accessToken returns a valid bearer token, requesting a new one only when
// the cached one is missing or inside its refresh margin. The mutex is held
// across the request so concurrent callers share one refresh.
func (n *Nexar) accessToken(ctx context.Context) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.token != "" && n.now().Before(n.expires) {
		return n.token, nil
	}
	form := url.Values{}
	form.Set("grant_type", "client_credentials")
	form.Set("client_id", n.clientID)
	form.Set("client_secret", n.clientSecret)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", fmt.Errorf("nexar token: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	start := n.now()
	resp, err := n.client.Do(ctx, req, maxResponseBytes)
	if err != nil {
		return "", fmt.Errorf("nexar token: %w", egress.Scrub(err, n.clientID, n.clientSecret))
	}
	// The OAuth error for bad client credentials is 400 invalid_client.
	if resp.Status == 400 || resp.Status == 401 || resp.Status == 403 {
		return "", fmt.Errorf("nexar token: HTTP %d: %w: check %s", resp.Status, ErrUnauthorized, nexarCredEnv)
	}
	if resp.Status < 200 || resp.Status > 299 {
		return "", egress.StatusError("nexar token", resp.Status, nexarCredEnv)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
		TokenType   string `json:"token_type"`
	}
	if err := json.Unmarshal(resp.Body, &tok); err != nil || tok.AccessToken == "" {
		return "", fmt.Errorf("nexar token: response has no access_token")
	}
	life := time.Duration(tok.ExpiresIn) * time.Second
	// Refresh a minute early, but never so early that a short-lived token
	// is refreshed on every call: at most half its life.
	margin := min(nexarRefreshEarly, life/2)
	n.token, n.expires = tok.AccessToken, start.Add(life-margin)
	return n.token, nil
}

// forgetToken drops the cached token after the API rejected it, so the next
// call authenticates afresh.
func (n *Nexar) forgetToken(token string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.token == token {
		n.token = ""
	}
}

type nexarGraphQLRequest struct {
	Query     string         `json:"query"`
	Variables map[string]any `json:"variables"`
}

type nexarPart struct {
	MPN          string `json:"mpn"`
	Manufacturer struct {
		Name string `json:"name"`
	} `json:"manufacturer"`
	ShortDescription string `json:"shortDescription"`
	BestDatasheet    *struct {
		URL string `json:"url"`
	} `json:"bestDatasheet"`
	Specs []struct {
		Attribute struct {
			Shortname string `json:"shortname"`
		} `json:"attribute"`
		DisplayValue string `json:"displayValue"`
	} `json:"specs"`
	Sellers []struct {
		Company struct {
			Name string `json:"name"`
		} `json:"company"`
		Offers []struct {
			InventoryLevel int    `json:"inventoryLevel"`
			MOQ            *int   `json:"moq"`
			ClickURL       string `json:"clickUrl"`
			Prices         []struct {
				Quantity int     `json:"quantity"`
				Price    float64 `json:"price"`
				Currency string  `json:"currency"`
			} `json:"prices"`
		} `json:"offers"`
	} `json:"sellers"`
}

type nexarResponse struct {
	Data   map[string]*struct{ Results []struct{ Part nexarPart } } `json:"data"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// query runs one GraphQL search. A 401 with a cached token means the token
// was revoked or expired early: it is dropped and the call retried once.
func (n *Nexar) query(ctx context.Context, field, query, q string, limit int) ([]Part, error) {
	payload, err := json.Marshal(nexarGraphQLRequest{Query: query, Variables: map[string]any{"q": q, "limit": limit}})
	if err != nil {
		return nil, fmt.Errorf("nexar %s: %w", field, err)
	}
	for attempt := 0; ; attempt++ {
		token, err := n.accessToken(ctx)
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.graphqlURL, bytes.NewReader(payload))
		if err != nil {
			return nil, fmt.Errorf("nexar %s: %w", field, err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := n.client.Do(ctx, req, maxResponseBytes)
		if err != nil {
			return nil, fmt.Errorf("nexar %s: %w", field, egress.Scrub(err, token, n.clientID, n.clientSecret))
		}
		if resp.Status == 401 && attempt == 0 {
			n.forgetToken(token)
			continue
		}
		if resp.Status < 200 || resp.Status > 299 {
			return nil, egress.StatusError("nexar "+field, resp.Status, nexarCredEnv)
		}
		return decodeNexar(field, resp.Body)
	}
}

func decodeNexar(field string, body []byte) ([]Part, error) {
	var r nexarResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("nexar %s: decode response: %w", field, err)
	}
	if len(r.Errors) > 0 {
		return nil, fmt.Errorf("nexar %s: graphql error: %s", field, serverMessage(r.Errors[0].Message))
	}
	set := r.Data[field]
	parts := []Part{}
	if set == nil {
		return parts, nil
	}
	for _, res := range set.Results {
		parts = append(parts, res.Part.normalize())
	}
	return parts, nil
}

func (p nexarPart) normalize() Part {
	part := Part{
		MPN:          strings.TrimSpace(p.MPN),
		Manufacturer: strings.TrimSpace(p.Manufacturer.Name),
		Description:  strings.TrimSpace(p.ShortDescription),
	}
	if p.BestDatasheet != nil {
		part.DatasheetURL = p.BestDatasheet.URL
	}
	for _, s := range p.Specs {
		if strings.EqualFold(s.Attribute.Shortname, "lifecyclestatus") {
			part.Lifecycle = strings.TrimSpace(s.DisplayValue)
		}
	}
	for _, seller := range p.Sellers {
		for _, o := range seller.Offers {
			offer := Offer{
				Distributor: strings.TrimSpace(seller.Company.Name),
				// Nexar reports unknown inventory as -1; unknown is not stock.
				Stock: max(o.InventoryLevel, 0),
				URL:   o.ClickURL,
			}
			if o.MOQ != nil {
				offer.MOQ = *o.MOQ
			}
			for _, pb := range o.Prices {
				offer.Prices = append(offer.Prices, PriceBreak{Qty: pb.Quantity, Price: pb.Price, Currency: pb.Currency})
			}
			part.Offers = append(part.Offers, offer)
		}
	}
	return part
}
