// Package ulids makes and reads ULIDs: 26 characters of Crockford base32
// whose lexical order is the order of their times (to the millisecond, then
// creation order). It is the one ULID generator of the module: copperhead's
// run ids (transcript.NewRunID) and carter's event, source, evidence and
// claim ids (internal/carter/ids) are all made here.
//
// ulids imports only the standard library and the ULID package; it must
// never import another copperhead package.
package ulids

import (
	"crypto/rand"
	"time"

	"github.com/oklog/ulid/v2"
)

// monotonic keeps ids made within one millisecond (the stages of a create
// pipeline, parallel tests, a burst of events) in creation order. crypto/rand
// never fails, so neither does New.
var monotonic = &ulid.LockedMonotonicReader{MonotonicReader: ulid.Monotonic(rand.Reader, 0)}

// New returns a fresh ULID for time t, greater than every id New made
// before it for the same millisecond.
func New(t time.Time) string {
	id, err := ulid.New(Stamp(t), monotonic)
	if err != nil {
		// Monotonic overflow within one millisecond: 2^80 ids. Fall back
		// to plain randomness rather than fail over a name.
		id = ulid.MustNew(Stamp(t), rand.Reader)
	}
	return id.String()
}

// FromEntropy returns the ULID whose time part is t and whose 80 random bits
// are entropy: a pure function of its inputs, for ids a replay must rebuild.
func FromEntropy(t time.Time, entropy [10]byte) string {
	var id ulid.ULID
	if err := id.SetTime(Stamp(t)); err != nil {
		_ = id.SetTime(0)
	}
	_ = id.SetEntropy(entropy[:]) // exactly 10 bytes: cannot fail
	return id.String()
}

// Valid reports whether s is a well-formed ULID in canonical (upper-case)
// form.
func Valid(s string) bool {
	id, err := ulid.ParseStrict(s)
	return err == nil && id.String() == s
}

// Time returns the time encoded in a ULID (any case), and false for a string
// that is not one.
func Time(s string) (time.Time, bool) {
	id, err := ulid.ParseStrict(s)
	if err != nil {
		return time.Time{}, false
	}
	return ulid.Time(id.Time()).UTC(), true
}

// Stamp is t in Unix milliseconds clamped to what a ULID can hold: times
// before 1970 are 0, times past the year 10889 the maximum.
func Stamp(t time.Time) uint64 {
	if t.Before(time.UnixMilli(0)) {
		return 0
	}
	if ms := ulid.Timestamp(t); ms <= ulid.MaxTime() {
		return ms
	}
	return ulid.MaxTime()
}
