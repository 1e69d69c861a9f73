package openspec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/testkit"
)

const ledProposal = "## Why\nThe keyer needs a visible status indication while charging, so a second LED is added.\n\n" +
	"## What Changes\n- add D2 with its series resistor\n"

const ledDelta = `## ADDED Requirements
### Requirement: Status LED
The device SHALL show charging status on a second LED.

#### Scenario: Charging
- **WHEN** the battery charges
- **THEN** D2 lights
`

const badDelta = `## MODIFIED Requirements
### Requirement: Wake on key
The device SHALL wake within 10 ms of a key press.

#### Scenario: Key press
- **WHEN** a key is pressed
- **THEN** the keyer wakes
`

func TestArchive(t *testing.T) {
	needOpenSpec(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		delta   string
		wantErr string
	}{
		{"added requirement merges", ledDelta, ""},
		{"modifying a missing requirement fails and changes nothing", badDelta, "not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := gitRepo(t, nil)
			write(t, root, "openspec/specs/power/spec.md", goodSpec)
			write(t, root, "openspec/changes/add-led/proposal.md", ledProposal)
			write(t, root, "openspec/changes/add-led/tasks.md", "- [x] 1.1 add D2\n")
			write(t, root, "openspec/changes/add-led/specs/power/spec.md", tc.delta)

			err := Archive(ctx, root, "add-led")
			spec, rerr := os.ReadFile(filepath.Join(root, "openspec/specs/power/spec.md"))
			if rerr != nil {
				t.Fatal(rerr)
			}
			archived, _ := filepath.Glob(filepath.Join(root, "openspec/changes/archive/*-add-led/proposal.md"))
			_, active := os.Stat(filepath.Join(root, "openspec/changes/add-led"))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "openspec archive add-led: ") {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				if string(spec) != goodSpec || len(archived) != 0 || active != nil {
					t.Errorf("a failed archive changed files (archived %v)", archived)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(archived) != 1 || active == nil {
				t.Errorf("change not moved under openspec/changes/archive/ (archived %v, active stat %v)", archived, active)
			}
			testkit.ContainsAll(t, "merged spec", string(spec), "### Requirement: Sleep current", "### Requirement: Status LED", "- **THEN** D2 lights")
			res, err := ValidateAll(ctx, root)
			if err != nil || !res.OK() {
				t.Errorf("specs invalid after archive: %v %+v", err, res)
			}
		})
	}
}

func TestArchiveRefusals(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, "openspec/specs/power/spec.md", goodSpec)
	write(t, root, "openspec/changes/archive/2026-01-01-old/proposal.md", ledProposal)
	for _, id := range []string{"", "--help", "../specs", "a/b", ".hidden", "archive", "missing"} {
		if err := Archive(ctx, root, id); err == nil || !strings.Contains(err.Error(), "openspec archive") {
			t.Errorf("Archive(%q) err = %v", id, err)
		}
	}
}
