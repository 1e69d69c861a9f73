package datasheets

import (
	"strings"
	"testing"
)

// FuzzParsePageCitations: no input panics; every citation found is a
// substring of the input that parses back to itself alone; every malformed
// mention is quoted from the input.
func FuzzParsePageCitations(f *testing.F) {
	for _, seed := range []string{
		"Iq 25 uA: .copperhead/datasheets/TPS63020DSJR-1a2b3c4d.pdf §2 Electrical Characteristics (p.2)",
		".copperhead/datasheets/A-00000000.pdf §7.3 (p. 14); .copperhead/datasheets/A-00000000.pdf §x",
		".copperhead/datasheets/../x.pdf §1 (p.1)",
		".copperhead/datasheets/.copperhead/datasheets/",
		".copperhead/datasheets/A.pdf §(p.99999999999999999999999)",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cites, malformed := ParsePageCitations(s)
		for _, c := range cites {
			if !strings.Contains(s, c.Written) || c.Page < 0 || !strings.HasSuffix(c.File, ".pdf") {
				t.Fatalf("citation %+v not from %q", c, s)
			}
			again, bad := ParsePageCitations(c.Written)
			if len(again) != 1 || len(bad) != 0 || again[0] != c {
				t.Fatalf("%q re-parses as %+v, %q", c.Written, again, bad)
			}
		}
		for _, m := range malformed {
			if !strings.Contains(s, m) {
				t.Fatalf("malformed %q not from %q", m, s)
			}
		}
	})
}
