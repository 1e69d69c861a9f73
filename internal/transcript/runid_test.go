package transcript

import (
	"testing"
	"time"

	"copperhead/internal/ulids"
)

// TestNewRunIDSharesTheULIDGenerator: run ids and every other ULID of the
// module (carter's event ids) come from one monotonic generator, so ids made
// in the same millisecond by either sort in creation order. Two generators
// side by side would interleave at random.
func TestNewRunIDSharesTheULIDGenerator(t *testing.T) {
	at := time.Date(2026, 12, 2, 3, 4, 5, 0, time.UTC)
	prev := ""
	for i := range 64 {
		id := NewRunID(at)
		if i%2 == 1 {
			id = ulids.New(at)
		}
		if id <= prev {
			t.Fatalf("id %d (%s) does not sort after %s: two ULID generators", i, id, prev)
		}
		prev = id
	}
}
