package ids

import (
	"testing"
	"time"
)

func TestDeriveAndNew(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a, b := Derive(t0, "run", "claim", "x"), Derive(t0, "run", "claim", "x")
	if a != b || !Valid(a) {
		t.Fatalf("Derive not stable or invalid: %s %s", a, b)
	}
	for _, other := range []string{Derive(t0, "run", "claim", "y"), Derive(t0, "run", "evidence", "x"), Derive(t0.Add(time.Millisecond), "run", "claim", "x")} {
		if other == a {
			t.Errorf("different inputs gave the same id %s", a)
		}
	}
	if Derive(t0.Add(time.Millisecond), "z") <= Derive(t0, "z") {
		t.Error("derived ids must sort by time")
	}
	prev := ""
	for i := 0; i < 100; i++ {
		id := New(t0)
		if !Valid(id) || id <= prev {
			t.Fatalf("New not monotonic: %s after %s", id, prev)
		}
		prev = id
	}
	for _, bad := range []string{"", "x", "01j00000000000000000000000", "01J0000000000000000000000"} {
		if Valid(bad) {
			t.Errorf("Valid(%q)", bad)
		}
	}
}
