package parts

import (
	"slices"
	"strings"
	"time"

	"copperhead/internal/sourcing"
)

// NewSnapshot summarizes p as provider reported it at retrieved, for the
// offline sourcing rules (internal/sourcing): total stock across offers, the
// number of distinct distributors holding stock (a distributor listing zero
// cannot supply, so it is not a source), and the lowest 1k unit price among
// them.
func NewSnapshot(p Part, provider string, retrieved time.Time) sourcing.Snapshot {
	s := sourcing.Snapshot{MPN: p.MPN, Provider: provider, Retrieved: retrieved.UTC(), Lifecycle: p.Lifecycle}
	sources := map[string]bool{}
	var holding []Offer
	for _, o := range p.Offers {
		if o.Stock <= 0 {
			continue
		}
		s.Stock += o.Stock
		sources[strings.ToLower(strings.TrimSpace(o.Distributor))] = true
		holding = append(holding, o)
	}
	s.Distributors = len(sources)
	s.Price1k, s.Currency = price1k(holding)
	return s
}

// price1kQty is the quantity D7's "price1k" quotes: a production batch, where
// price breaks have usually settled.
const price1kQty = 1000

// price1k is the lowest unit price at price1kQty pieces among offers: each
// offer's price at the largest break not above 1000. Prices in different
// currencies do not compare, so USD wins when quoted, else the currency that
// sorts first (deterministic, if arbitrary). Zero and "" when no offer quotes
// a usable price.
func price1k(offers []Offer) (float64, string) {
	best := map[string]float64{}
	for _, o := range offers {
		qty, price, currency := 0, 0.0, ""
		for _, b := range o.Prices {
			if b.Qty <= price1kQty && b.Qty >= qty && b.Price > 0 {
				qty, price, currency = b.Qty, b.Price, strings.ToUpper(strings.TrimSpace(b.Currency))
			}
		}
		if qty == 0 {
			continue
		}
		if old, ok := best[currency]; !ok || price < old {
			best[currency] = price
		}
	}
	if p, ok := best["USD"]; ok {
		return p, "USD"
	}
	currencies := make([]string, 0, len(best))
	for c := range best {
		currencies = append(currencies, c)
	}
	slices.Sort(currencies)
	if len(currencies) == 0 {
		return 0, ""
	}
	return best[currencies[0]], currencies[0]
}
