package openspec

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"copperhead/internal/procgroup"
)

func needOpenSpec(t *testing.T) {
	t.Helper()
	if _, err := Binary(); err != nil {
		t.Skip("openspec not installed (run scripts/setup.sh)")
	}
}

// gitRepo makes a git repository in a temporary folder holding files
// (slash path -> content).
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if err := exec.Command("git", "init", "-q", root).Run(); err != nil {
		t.Fatal(err)
	}
	for rel, body := range files {
		write(t, root, rel, body)
	}
	return root
}

// checkResult holds a validation result to the number of failed items
// wanted and, unless wantIssue is empty, to an issue mentioning it.
func checkResult(t *testing.T, res *Result, wantFailed int, wantIssue string) {
	t.Helper()
	if res.Failed != wantFailed || res.OK() != (wantFailed == 0) {
		t.Fatalf("failed = %d, want %d (%+v)", res.Failed, wantFailed, res.Issues)
	}
	if wantIssue != "" {
		found := false
		for _, is := range res.Issues {
			found = found || strings.Contains(is.Message, wantIssue)
		}
		if !found {
			t.Errorf("no issue mentions %q: %+v", wantIssue, res.Issues)
		}
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
			root := gitRepo(t, tc.files)
			res, err := ValidateAll(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res, tc.wantFailed, tc.wantIssue)
		})
	}
}

// COPPERHEAD_OPENSPEC naming a file that is missing or not executable is
// ErrNotInstalled, naming the path, from Binary and from every command: a
// caller can tell "not installed" from "openspec failed" up front.
func TestMissingBinary(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "notexec")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(dir, "openspec")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 1.13.2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		env, want string // want "" means found
	}{
		{filepath.Join(dir, "nope"), "COPPERHEAD_OPENSPEC names " + filepath.Join(dir, "nope") + ", which does not exist"},
		{notExec, "COPPERHEAD_OPENSPEC names " + notExec + ", which is not an executable file"},
		{dir, "which is not an executable file"},
		{fake, ""},
	}
	for _, tc := range tests {
		t.Setenv("COPPERHEAD_OPENSPEC", tc.env)
		got, err := Binary()
		if tc.want == "" {
			if err != nil || got != fake {
				t.Errorf("%s: Binary() = %q, %v", tc.env, got, err)
			}
			continue
		}
		if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Binary() err = %v, want ErrNotInstalled with %q", tc.env, err, tc.want)
		}
		if _, err := ValidateAll(context.Background(), t.TempDir()); !errors.Is(err, ErrNotInstalled) {
			t.Errorf("%s: ValidateAll err = %v, want ErrNotInstalled", tc.env, err)
		}
	}
}

// TestValidateAllYielding: check's validation (beside kicad-cli) runs at
// procgroup.YieldNice, the plain one at the caller's niceness. The fake
// reports its niceness (field 19 of /proc/self/stat) as an issue, once it
// sees the value wanted, so the test does not race the renice.
func TestValidateAllYielding(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	parent, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	base := 20 - parent // Getpriority returns 20-nice on Linux
	fake := filepath.Join(t.TempDir(), "openspec")
	script := `#!/bin/sh
nice() { cut -d' ' -f19 /proc/$$/stat; }
i=0; while [ "$(nice)" != "$WANT_NICE" ] && [ $i -lt 100 ]; do sleep 0.02; i=$((i+1)); done
printf '{"items": [{"id": "power", "type": "spec", "valid": true, "issues": [{"level": "INFO", "path": "", "message": "nice %s"}]}]}\n' "$(nice)"
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("COPPERHEAD_OPENSPEC", fake)
	for _, tc := range []struct {
		name     string
		validate func(context.Context, string) (*Result, error)
		want     int
	}{
		{"ValidateAllYielding", ValidateAllYielding, max(base, procgroup.YieldNice)},
		{"ValidateAll", ValidateAll, base},
	} {
		t.Setenv("WANT_NICE", strconv.Itoa(tc.want))
		res, err := tc.validate(context.Background(), t.TempDir())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if want := "nice " + strconv.Itoa(tc.want); len(res.Issues) != 1 || res.Issues[0].Message != want {
			t.Errorf("%s: %+v, want one issue %q", tc.name, res.Issues, want)
		}
	}
}
