package testkit

import (
	"strings"
	"testing"
)

// ContainsAll reports an error, and carries on, for each of wants that got
// lacks: "<what> lacks <want>:" and then got, so one run shows every phrase
// a message or file is missing.
func ContainsAll(t testing.TB, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}
