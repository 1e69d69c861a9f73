// Package ids derives carter's replayable identifiers: the ids of sources,
// evidence, claims and contradictions come from Derive, a pure function of a
// time and a seed, so a replay of a run rebuilds exactly the ids the run
// wrote and its outputs compare byte for byte. Fresh ids (run and event ids)
// and validity checks come from internal/ulids, the module's one ULID
// generator, which Derive is built on.
//
// ids imports only the standard library and internal/ulids; it must never
// import another carter package.
package ids

import (
	"crypto/sha256"
	"strings"
	"time"

	"copperhead/internal/ulids"
)

// Derive returns the ULID whose time part is t and whose 80 random bits are
// the first bytes of SHA-256 over the seed parts. Equal inputs give equal
// ids; callers include the run id and a kind ("claim", "evidence") in the
// seed so ids never collide across runs or kinds.
func Derive(t time.Time, seed ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(seed, "\x00")))
	return ulids.FromEntropy(t, [10]byte(sum[:10]))
}
