package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"copperhead/internal/consistency"
)

// TestSyncExit pins sync's exit-code contract: 0 consistent, 1 something
// left to resolve or for a human, 2 a requirement violation.
func TestSyncExit(t *testing.T) {
	drift := consistency.Inconsistency{Kind: consistency.KindDocDrift, Resolvable: true}
	violation := consistency.Inconsistency{Kind: consistency.KindForbiddenPin, Violation: true}
	human := consistency.Inconsistency{Kind: consistency.KindOpenSpec}
	tests := []struct {
		name string
		is   []consistency.Inconsistency
		code int
		msg  string
	}{
		{"clean", nil, ExitOK, ""},
		{"resolvable", []consistency.Inconsistency{drift}, ExitFailed, ""},
		{"violation wins", []consistency.Inconsistency{drift, violation}, 2, "sync: 1 requirement violation: not rewritten"},
		{"for a human", []consistency.Inconsistency{human}, ExitFailed, "sync: 1 inconsistency must be looked at by a human"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := syncExit(syncResult(&consistency.Report{Inconsistencies: tc.is}, true))
			code, msg := ExitOK, ""
			var ee *exitError
			if errors.As(err, &ee) {
				code, msg = ee.code, ee.Error()
			}
			if code != tc.code || !strings.HasPrefix(msg, tc.msg) {
				t.Errorf("exit %d %q, want %d %q", code, msg, tc.code, tc.msg)
			}
		})
	}
}

func TestPrintSyncReportViolationFirst(t *testing.T) {
	rep := &consistency.Report{Inconsistencies: []consistency.Inconsistency{
		{Kind: consistency.KindBudgetExceeded, Doc: "docs/SPEC.md", Subject: "sleep_current_uA", Claim: "sleep_current_uA ≤ 25 µA",
			Actual: "at least 44.681 µA", Governing: "docs/SPEC.md ## Budgets", ProposedResolution: "a human decides", Violation: true},
		{Kind: consistency.KindDocDrift, Doc: "docs/BOM.md", Subject: "R6 value", Claim: "100k", Actual: "10k",
			Governing: "hw", ProposedResolution: "set it", Resolvable: true},
	}}
	var b bytes.Buffer
	printSyncReport(&b, rep)
	want := `2 inconsistencies: 1 requirement violation, 1 resolvable

VIOLATION budget_exceeded: sleep_current_uA
  doc:         docs/SPEC.md
  requirement: sleep_current_uA ≤ 25 µA
  as built:    at least 44.681 µA
  governing:   docs/SPEC.md ## Budgets
  not resolved by sync: a human decides

1. doc_drift: R6 value
  doc:       docs/BOM.md
  claim:     100k
  actual:    10k
  governing: hw
  proposed resolution: set it

`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
