package parts

import (
	"testing"
	"time"

	"copperhead/internal/sourcing"
)

func TestNewSnapshot(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	usd := func(qty int, price float64) PriceBreak { return PriceBreak{Qty: qty, Price: price, Currency: "USD"} }
	tests := []struct {
		name string
		part Part
		want sourcing.Snapshot
	}{
		{"stock, distributors and the 1k price",
			Part{MPN: "TPS63020DSJR", Lifecycle: "Production", Offers: []Offer{
				{Distributor: "Digi-Key", Stock: 12450, Prices: []PriceBreak{usd(1, 3.1), usd(100, 2.2), usd(1000, 1.5), usd(5000, 1.1)}},
				{Distributor: "Digi-Key", Stock: 3000},
				{Distributor: "Mouser", Stock: 0, Prices: []PriceBreak{usd(1000, 0.9)}}, // holds nothing: not a source, not a price
				{Distributor: " digi-key ", Stock: 5},
				{Distributor: "Arrow", Stock: 10, Prices: []PriceBreak{usd(1, 2.5), usd(500, 1.4)}},
			}},
			sourcing.Snapshot{MPN: "TPS63020DSJR", Provider: "nexar", Retrieved: at.UTC(), Lifecycle: "Production", Stock: 15465, Distributors: 2, Price1k: 1.4, Currency: "USD"}},
		{"no price breaks",
			Part{MPN: "X1", Offers: []Offer{{Distributor: "A", Stock: 1}}},
			sourcing.Snapshot{MPN: "X1", Provider: "nexar", Retrieved: at.UTC(), Stock: 1, Distributors: 1}},
		{"USD preferred over other currencies",
			Part{MPN: "X2", Offers: []Offer{
				{Distributor: "A", Stock: 1, Prices: []PriceBreak{{Qty: 1000, Price: 0.5, Currency: "EUR"}}},
				{Distributor: "B", Stock: 1, Prices: []PriceBreak{{Qty: 1000, Price: 0.7, Currency: "usd"}}},
			}},
			sourcing.Snapshot{MPN: "X2", Provider: "nexar", Retrieved: at.UTC(), Stock: 2, Distributors: 2, Price1k: 0.7, Currency: "USD"}},
		{"without USD the first currency by name",
			Part{MPN: "X3", Offers: []Offer{
				{Distributor: "A", Stock: 1, Prices: []PriceBreak{{Qty: 10, Price: 0.9, Currency: "GBP"}}},
				{Distributor: "B", Stock: 1, Prices: []PriceBreak{{Qty: 2000, Price: 0.1, Currency: "EUR"}, {Qty: 100, Price: 0.8, Currency: "EUR"}}},
			}},
			sourcing.Snapshot{MPN: "X3", Provider: "nexar", Retrieved: at.UTC(), Stock: 2, Distributors: 2, Price1k: 0.8, Currency: "EUR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewSnapshot(tt.part, "nexar", at); got != tt.want {
				t.Errorf("snapshot = %+v\n      want %+v", got, tt.want)
			}
		})
	}
}
