package schedit

import (
	"crypto/rand"
	"fmt"
)

// newUUID returns a random version-4 UUID for an object an edit creates.
// Randomness, not a hash of the edit, is deliberate: two parts added with the
// same reference on different days must never share a UUID, and KiCad itself
// mints v4 UUIDs. Existing objects keep theirs because edits never rewrite them.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand.Read never returns an error on supported platforms.
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
