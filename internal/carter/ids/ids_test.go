package ids

import (
	"testing"
	"time"

	"copperhead/internal/ulids"
)

func TestDerive(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a, b := Derive(t0, "run", "claim", "x"), Derive(t0, "run", "claim", "x")
	if a != b || !ulids.Valid(a) {
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
	// Replays compare byte for byte: the derivation itself must not drift.
	if got, want := Derive(t0, "run", "claim", "x"), derivedBefore; got != want {
		t.Errorf("Derive(t0, run, claim, x) = %s, want %s (the id carter has always derived)", got, want)
	}
}

// derivedBefore is Derive(2026-01-02T03:04:05Z, "run", "claim", "x") as the
// package computed it before it was built on internal/ulids.
const derivedBefore = "01KDYAK348FKBFNBBS8PSPFYNN"
