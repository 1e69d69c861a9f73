package cli

import (
	"strings"
	"testing"

	"copperhead/internal/design"
	"copperhead/internal/verify"
)

func TestPrintSourcing(t *testing.T) {
	fail := design.SourcingFinding{Refdes: "U4", Kind: "lifecycle_ended", Severity: design.SeverityFail, Message: `U4 X: lifecycle "EOL": end of life`}
	warn := design.SourcingFinding{Refdes: "U3", Kind: "stale", Severity: design.SeverityWarn, Message: "U3 Y: snapshot is 40 days old, limit 30"}
	tests := []struct {
		name string
		gate verify.SourcingGate
		want string
	}{
		{"skipped", verify.SourcingGate{OK: true, Skipped: "research is not enabled"}, "sourcing - skipped (research is not enabled)\n"},
		{"clean", verify.SourcingGate{OK: true}, "sourcing ✓\n"},
		{"warnings only pass", verify.SourcingGate{OK: true, Findings: []design.SourcingFinding{warn, warn}},
			"sourcing ✓ 2 warnings\n  warning: " + warn.Message + "\n  warning: " + warn.Message + "\n"},
		{"failures first", verify.SourcingGate{OK: false, Findings: []design.SourcingFinding{warn, fail}},
			"sourcing ✗ 1 failure, 1 warning\n  " + fail.Message + "\n  warning: " + warn.Message + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			printSourcing(&b, tt.gate)
			if b.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}
