package openspec

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func needOpenSpec(t *testing.T) {
	t.Helper()
	if _, err := Binary(); err != nil {
		t.Skip("openspec not installed (run scripts/setup.sh)")
	}
}

func write(t *testing.T, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

const goodSpec = `# power

## Purpose
Battery life of the keyer.

## Requirements
### Requirement: Sleep current
The device SHALL draw at most 25 uA while asleep.

#### Scenario: Idle
- **WHEN** the keyer is idle for one minute
- **THEN** it sleeps below 25 uA
`

func TestValidateAll(t *testing.T) {
	needOpenSpec(t)
	tests := []struct {
		name       string
		files      map[string]string
		wantFailed int
		wantIssue  string
	}{
		{"valid spec", map[string]string{"openspec/specs/power/spec.md": goodSpec}, 0, ""},
		{"spec without sections", map[string]string{"openspec/specs/power/spec.md": "# power\n"}, 1, "Purpose"},
		{"change without deltas", map[string]string{
			"openspec/specs/power/spec.md":         goodSpec,
			"openspec/changes/add-led/proposal.md": "## Why\nA second LED.\n\n## What Changes\n- add D2\n",
		}, 1, "delta"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := exec.Command("git", "init", "-q", root).Run(); err != nil {
				t.Fatal(err)
			}
			for rel, body := range tc.files {
				write(t, root, rel, body)
			}
			res, err := ValidateAll(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed != tc.wantFailed || res.OK() != (tc.wantFailed == 0) {
				t.Fatalf("failed = %d, want %d (%+v)", res.Failed, tc.wantFailed, res.Issues)
			}
			if tc.wantIssue != "" {
				found := false
				for _, is := range res.Issues {
					found = found || strings.Contains(is.Message, tc.wantIssue)
				}
				if !found {
					t.Errorf("no issue mentions %q: %+v", tc.wantIssue, res.Issues)
				}
			}
		})
	}
}

func TestMissingBinary(t *testing.T) {
	t.Setenv("COPPERHEAD_OPENSPEC", filepath.Join(t.TempDir(), "nope"))
	_, err := ValidateAll(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "openspec validate") {
		t.Fatalf("err = %v", err)
	}
}
