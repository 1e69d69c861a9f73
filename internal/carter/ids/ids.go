// Package ids makes carter's identifiers: ULIDs, 26 characters that sort by
// time. Event ids come from New (monotonic, random); the ids of sources,
// evidence and claims come from Derive, which is a pure function of a time
// and a seed, so a replay of a run rebuilds exactly the ids the run wrote and
// its outputs compare byte for byte.
//
// ids imports only the standard library and ulid; it must never import
// another carter package.
package ids

import (
	"crypto/rand"
	"crypto/sha256"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// monotonic keeps ids made within one millisecond in creation order, so the
// event log sorts as it was written. crypto/rand never fails.
var monotonic = &ulid.LockedMonotonicReader{MonotonicReader: ulid.Monotonic(rand.Reader, 0)}

// New returns a fresh ULID for time t.
func New(t time.Time) string {
	id, err := ulid.New(stamp(t), monotonic)
	if err != nil {
		// 2^80 ids in one millisecond: fall back to plain randomness.
		id = ulid.MustNew(stamp(t), rand.Reader)
	}
	return id.String()
}

// Derive returns the ULID whose time part is t and whose 80 random bits are
// the first bytes of SHA-256 over the seed parts. Equal inputs give equal
// ids; callers include the run id and a kind ("claim", "evidence") in the
// seed so ids never collide across runs or kinds.
func Derive(t time.Time, seed ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(seed, "\x00")))
	var id ulid.ULID
	if err := id.SetTime(stamp(t)); err != nil {
		_ = id.SetTime(0)
	}
	_ = id.SetEntropy(sum[:10]) // exactly 10 bytes: cannot fail
	return id.String()
}

// Valid reports whether s is a well-formed ULID in canonical (upper-case)
// form.
func Valid(s string) bool {
	id, err := ulid.ParseStrict(s)
	return err == nil && id.String() == s
}

func stamp(t time.Time) uint64 {
	if t.Before(time.UnixMilli(0)) {
		return 0
	}
	if ms := ulid.Timestamp(t); ms <= ulid.MaxTime() {
		return ms
	}
	return ulid.MaxTime()
}
