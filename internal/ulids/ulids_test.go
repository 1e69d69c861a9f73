package ulids

import (
	"testing"
	"time"
)

func TestNewIsMonotonicAndValid(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	prev := ""
	for range 100 {
		id := New(t0)
		if !Valid(id) || id <= prev {
			t.Fatalf("New not monotonic: %s after %s", id, prev)
		}
		prev = id
	}
	if got, ok := Time(prev); !ok || !got.Equal(t0) {
		t.Errorf("Time(%s) = %v, %v; want %v", prev, got, ok, t0)
	}
	if New(t0.Add(time.Millisecond)) <= prev {
		t.Error("a later millisecond must sort after")
	}
}

func TestFromEntropy(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a, b := FromEntropy(t0, [10]byte{1, 2, 3}), FromEntropy(t0, [10]byte{1, 2, 3})
	if a != b || !Valid(a) {
		t.Fatalf("FromEntropy not stable or invalid: %s %s", a, b)
	}
	if FromEntropy(t0, [10]byte{1, 2, 4}) == a {
		t.Error("different entropy gave the same id")
	}
	if FromEntropy(t0.Add(time.Millisecond), [10]byte{}) <= FromEntropy(t0, [10]byte{0xff}) {
		t.Error("ids must sort by time first")
	}
}

// TestStampClamps: times a ULID cannot hold clamp to its ends.
func TestStampClamps(t *testing.T) {
	max := uint64(1<<48 - 1)
	for at, want := range map[time.Time]uint64{
		time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC): 0,
		time.UnixMilli(0):                            0,
		time.UnixMilli(1_700_000_000_123):            1_700_000_000_123,
		time.Date(20000, 1, 1, 0, 0, 0, 0, time.UTC): max,
	} {
		if got := Stamp(at); got != want {
			t.Errorf("Stamp(%v) = %d, want %d", at, got, want)
		}
	}
}

func TestValidAndTime(t *testing.T) {
	for _, bad := range []string{"", "x", "01j00000000000000000000000", "01J0000000000000000000000"} {
		if Valid(bad) {
			t.Errorf("Valid(%q)", bad)
		}
	}
	if _, ok := Time("not-a-ulid"); ok {
		t.Error("Time accepted a non-ULID")
	}
	// Time reads any case (run ids typed by hand); Valid wants canonical.
	if _, ok := Time("01j00000000000000000000000"); !ok {
		t.Error("Time refused a lower-case ULID")
	}
}
