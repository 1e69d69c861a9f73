package parts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"copperhead/internal/research/egress"
)

// mouserBaseURL is the Mouser Search API v1 root.
const mouserBaseURL = "https://api.mouser.com/api/v1"

// Mouser reads part data from the Mouser Search API: one distributor, but a
// free key. The API accepts its key only as the apiKey query parameter, so
// the key is in every request URL: the egress log redacts apiKey= values and
// every error returned here is scrubbed of the key.
type Mouser struct {
	key     string
	client  *egress.Client
	baseURL string // overridden by tests to point at a loopback server
}

// NewMouser returns a Mouser provider using key for every request.
func NewMouser(key string, client *egress.Client) *Mouser {
	return &Mouser{key: key, client: client, baseURL: mouserBaseURL}
}

// Name reports "mouser".
func (m *Mouser) Name() string { return "mouser" }

type mouserPartNumberRequest struct {
	SearchByPartRequest struct {
		MouserPartNumber  string `json:"mouserPartNumber"`
		PartSearchOptions string `json:"partSearchOptions"`
	} `json:"SearchByPartRequest"`
}

type mouserKeywordRequest struct {
	SearchByKeywordRequest struct {
		Keyword        string `json:"keyword"`
		Records        int    `json:"records"`
		StartingRecord int    `json:"startingRecord"`
		SearchOptions  string `json:"searchOptions"`
	} `json:"SearchByKeywordRequest"`
}

type mouserResponse struct {
	Errors []struct {
		Code         string `json:"Code"`
		Message      string `json:"Message"`
		PropertyName string `json:"PropertyName"`
	} `json:"Errors"`
	SearchResults *struct {
		Parts []mouserPart `json:"Parts"`
	} `json:"SearchResults"`
}

type mouserPart struct {
	ManufacturerPartNumber string  `json:"ManufacturerPartNumber"`
	Manufacturer           string  `json:"Manufacturer"`
	Description            string  `json:"Description"`
	LifecycleStatus        *string `json:"LifecycleStatus"`
	DataSheetURL           string  `json:"DataSheetUrl"`
	ProductDetailURL       string  `json:"ProductDetailUrl"`
	Availability           string  `json:"Availability"`
	AvailabilityInStock    string  `json:"AvailabilityInStock"`
	Min                    string  `json:"Min"`
	PriceBreaks            []struct {
		Quantity int    `json:"Quantity"`
		Price    string `json:"Price"`
		Currency string `json:"Currency"`
	} `json:"PriceBreaks"`
}

// ByMPN looks up parts by exact manufacturer (or Mouser) part number.
func (m *Mouser) ByMPN(ctx context.Context, mpn string) ([]Part, error) {
	var body mouserPartNumberRequest
	body.SearchByPartRequest.MouserPartNumber = mpn
	body.SearchByPartRequest.PartSearchOptions = "Exact"
	return m.post(ctx, "partnumber", body, defaultLimit)
}

// Search runs a keyword search.
func (m *Mouser) Search(ctx context.Context, query string, limit int) ([]Part, error) {
	limit = clampLimit(limit)
	var body mouserKeywordRequest
	body.SearchByKeywordRequest.Keyword = query
	body.SearchByKeywordRequest.Records = limit
	body.SearchByKeywordRequest.SearchOptions = "None"
	return m.post(ctx, "keyword", body, limit)
}

func (m *Mouser) post(ctx context.Context, endpoint string, body any, limit int) ([]Part, error) {
	op := "mouser " + endpoint + " search"
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	u := m.baseURL + "/search/" + endpoint + "?" + url.Values{"apiKey": {m.key}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, egress.Scrub(err, m.key, url.QueryEscape(m.key)))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := m.client.Do(ctx, req, maxResponseBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, egress.Scrub(err, m.key, url.QueryEscape(m.key)))
	}
	var r mouserResponse
	decodeErr := json.Unmarshal(resp.Body, &r)
	// Mouser reports a bad key as an Errors entry, with HTTP 200 or 400
	// depending on the endpoint; check the entries before the status.
	if decodeErr == nil && len(r.Errors) > 0 {
		e := r.Errors[0]
		msg := serverMessage(egress.Scrub(fmt.Errorf("%s", e.Message), m.key).Error())
		if strings.Contains(strings.ToLower(e.PropertyName+" "+e.Message), "key") ||
			strings.Contains(strings.ToLower(e.Message), "unique identifier") {
			return nil, fmt.Errorf("%s: %s: %w: check %s", op, msg, ErrUnauthorized, MouserKeyEnv)
		}
		if e.Code == "TooManyRequests" || strings.Contains(strings.ToLower(e.Message), "too many") {
			return nil, fmt.Errorf("%s: %s: %w: retry later", op, msg, ErrRateLimited)
		}
		if resp.Status >= 200 && resp.Status <= 299 {
			return nil, fmt.Errorf("%s: %s", op, msg)
		}
	}
	if resp.Status < 200 || resp.Status > 299 {
		return nil, egress.StatusError(op, resp.Status, MouserKeyEnv)
	}
	if decodeErr != nil {
		return nil, fmt.Errorf("%s: decode response: %w", op, decodeErr)
	}
	parts := []Part{}
	if r.SearchResults == nil {
		return parts, nil
	}
	for _, p := range r.SearchResults.Parts {
		if len(parts) == limit {
			break
		}
		parts = append(parts, p.normalize())
	}
	return parts, nil
}

func (p mouserPart) normalize() Part {
	part := Part{
		MPN:          strings.TrimSpace(p.ManufacturerPartNumber),
		Manufacturer: strings.TrimSpace(p.Manufacturer),
		Description:  strings.TrimSpace(p.Description),
		DatasheetURL: strings.TrimSpace(p.DataSheetURL),
	}
	if p.LifecycleStatus != nil {
		part.Lifecycle = strings.TrimSpace(*p.LifecycleStatus)
	}
	stock, ok := leadingInt(p.AvailabilityInStock)
	if !ok {
		stock, _ = leadingInt(p.Availability)
	}
	moq, _ := leadingInt(p.Min)
	offer := Offer{Distributor: "Mouser", Stock: stock, MOQ: moq, URL: strings.TrimSpace(p.ProductDetailURL)}
	for _, pb := range p.PriceBreaks {
		if price, ok := parsePrice(pb.Price, pb.Currency); ok {
			offer.Prices = append(offer.Prices, PriceBreak{Qty: pb.Quantity, Price: price, Currency: pb.Currency})
		}
	}
	part.Offers = []Offer{offer}
	return part
}

// leadingInt reads the integer at the start of s, skipping grouping
// separators: "6178 In Stock", "6,178", "6.178 auf Lager". "None" and ""
// report false.
func leadingInt(s string) (int, bool) {
	var digits strings.Builder
scan:
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case r == ',' || r == '.' || r == '\u00a0' || r == '\u202f' || r == '\'':
		default:
			break scan
		}
	}
	if digits.Len() == 0 {
		return 0, false
	}
	n, err := strconv.Atoi(digits.String())
	return n, err == nil
}

// dotDecimalCurrencies are currencies whose locales write "1,234.56": for
// them a lone comma before three digits ("$1,234", "¥1,234") groups
// thousands. Everywhere else a lone comma is a decimal comma ("0,480 €").
var dotDecimalCurrencies = map[string]bool{
	"USD": true, "GBP": true, "JPY": true, "CNY": true, "HKD": true, "SGD": true,
	"AUD": true, "CAD": true, "NZD": true, "INR": true, "TWD": true, "KRW": true,
	"ILS": true, "MXN": true, "THB": true, "MYR": true, "PHP": true,
}

// parsePrice reads a localized price string such as "$0.48", "0,480 €",
// "¥1,234" or "1.234,56 €". With both separators present the last one is the
// decimal point; several commas are thousands separators; a lone comma is
// decided by position and currency (see dotDecimalCurrencies).
func parsePrice(s, currency string) (float64, bool) {
	var b strings.Builder
	for _, r := range s {
		if (r >= '0' && r <= '9') || r == '.' || r == ',' {
			b.WriteRune(r)
		}
	}
	num := b.String()
	lastDot, lastComma := strings.LastIndex(num, "."), strings.LastIndex(num, ",")
	switch {
	case lastDot >= 0 && lastComma >= 0 && lastComma > lastDot:
		num = strings.ReplaceAll(num, ".", "")
		num = strings.Replace(num, ",", ".", 1)
	case lastDot >= 0 && lastComma >= 0:
		num = strings.ReplaceAll(num, ",", "")
	case strings.Count(num, ",") == 1 && !(len(num)-lastComma == 4 && dotDecimalCurrencies[strings.ToUpper(currency)]):
		num = strings.Replace(num, ",", ".", 1)
	default:
		num = strings.ReplaceAll(num, ",", "")
	}
	if num == "" || strings.Count(num, ".") > 1 {
		return 0, false
	}
	v, err := strconv.ParseFloat(num, 64)
	return v, err == nil
}
