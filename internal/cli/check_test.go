package cli

import (
	"strings"
	"testing"

	"copperhead/internal/design"
	"copperhead/internal/kicadcli"
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

// TestPrintToolCounts: the gate line's numbers are what kicad-cli reported
// and never read as a sum: a gate's warnings include its parity issues and
// unconnected items, which the line names inside that count.
func TestPrintToolCounts(t *testing.T) {
	v := func(sev kicadcli.Severity, n int) []kicadcli.Violation {
		out := make([]kicadcli.Violation, n)
		for i := range out {
			out[i] = kicadcli.Violation{Severity: sev, Type: "x", Description: "d"}
		}
		return out
	}
	tests := []struct {
		name string
		gate verify.ToolGate
		want string
	}{
		{"clean", verify.ToolGate{OK: true}, "DRC ✓"},
		{"warnings with parity and unconnected", verify.ToolGate{OK: true, Warnings: 18,
			Violations: v(kicadcli.SeverityWarning, 11), Unconnected: v(kicadcli.SeverityWarning, 2), Parity: v(kicadcli.SeverityWarning, 5)},
			"DRC ✓ 18 warnings (2 unconnected, 5 parity)"},
		{"errors and warnings", verify.ToolGate{OK: false, Errors: 3, Warnings: 5,
			Unconnected: v(kicadcli.SeverityError, 3), Parity: v(kicadcli.SeverityWarning, 5)},
			"DRC ✗ 3 errors (3 unconnected), 5 warnings (5 parity)"},
		{"skipped", verify.ToolGate{OK: true, Skipped: "no board"}, "DRC - skipped (no board)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			printTool(&b, "DRC", tt.gate, false)
			if first, _, _ := strings.Cut(b.String(), "\n"); first != tt.want {
				t.Errorf("gate line %q, want %q", first, tt.want)
			}
		})
	}
}
