package openspec

import (
	"context"
	"strings"
	"testing"
)

func TestCheckChangeID(t *testing.T) {
	tests := []struct {
		id      string
		wantErr string
	}{
		{"add-key-jack", ""},
		{"100-add-led", ""},
		{"abc", ""},
		{"ab", "3 to 64"},
		{strings.Repeat("a", 65), "3 to 64"},
		{"Add-Led", "kebab-case"},
		{"add_led", "kebab-case"},
		{"add--led", "kebab-case"},
		{"-add", "kebab-case"},
		{"add-", "kebab-case"},
		{"--all", "kebab-case"},
		{"../etc", "kebab-case"},
		{"archive", "reserved"},
	}
	for _, tc := range tests {
		err := CheckChangeID(tc.id)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("CheckChangeID(%q) = %v, want nil", tc.id, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("CheckChangeID(%q) = %v, want it to mention %q", tc.id, err, tc.wantErr)
		}
	}
}

const goodChangeSpec = `## ADDED Requirements

### Requirement: External key jack
The keyer SHALL accept an external paddle on a 3.5 mm jack.

#### Scenario: Paddle plugged in
- **WHEN** a paddle is plugged into J3
- **THEN** dit and dah closures reach the MCU
`

func TestValidateChange(t *testing.T) {
	needOpenSpec(t)
	proposal := "## Why\nAn external paddle.\n\n## What Changes\n- add J3\n"
	tasks := "## 1. Implementation\n\n- [ ] 1.1 add J3\n"
	tests := []struct {
		name       string
		files      map[string]string
		wantFailed int
		wantIssue  string
	}{
		{"valid", map[string]string{
			"openspec/changes/add-jack/proposal.md":                proposal,
			"openspec/changes/add-jack/tasks.md":                   tasks,
			"openspec/changes/add-jack/specs/connectivity/spec.md": goodChangeSpec,
		}, 0, ""},
		{"strict fails on a missing SHALL", map[string]string{
			"openspec/changes/add-jack/proposal.md":                proposal,
			"openspec/changes/add-jack/specs/connectivity/spec.md": strings.Replace(goodChangeSpec, "SHALL accept", "accepts", 1),
		}, 1, "SHALL or MUST"},
		{"no scenario", map[string]string{
			"openspec/changes/add-jack/proposal.md":                proposal,
			"openspec/changes/add-jack/specs/connectivity/spec.md": goodChangeSpec[:strings.Index(goodChangeSpec, "####")],
		}, 1, "scenario"},
		{"unknown change", map[string]string{"openspec/changes/other/proposal.md": proposal}, 1, "Unknown item"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := gitRepo(t, tc.files)
			res, err := ValidateChange(context.Background(), root, "add-jack")
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res, tc.wantFailed, tc.wantIssue)
		})
	}
}

func TestValidateChangeRefusesBadID(t *testing.T) {
	if _, err := ValidateChange(context.Background(), t.TempDir(), "--all"); err == nil {
		t.Fatal("ValidateChange(--all) succeeded; want the id refused before openspec runs")
	}
}
