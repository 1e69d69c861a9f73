package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

// TestExitCodes pins the documented exit-code contract.
func TestExitCodes(t *testing.T) {
	empty := t.TempDir()
	file := filepath.Join(empty, "file")
	os.WriteFile(file, nil, 0o644)
	// A KiCad 5 project: a legacy .pro and .sch, no .kicad_sch.
	k5 := t.TempDir()
	os.WriteFile(filepath.Join(k5, "board.pro"), []byte("update=22/05/2015 07:44:53\nversion=1\n"), 0o644)
	os.WriteFile(filepath.Join(k5, "board.sch"), []byte("EESchema Schematic File Version 4\nEELAYER 30 0\nEELAYER END\n"), 0o644)
	const k5Line = "copperhead: board.sch is a KiCad 5 (legacy) schematic, which copperhead cannot read: open and save it in KiCad 6 or later (KiCad 9's File > Save converts it)\n"
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"help", []string{"--help"}, ExitOK, ""},
		{"version", []string{"--version"}, ExitOK, ""},
		{"unknown flag", []string{"--bogus"}, ExitUsage, "copperhead: unknown flag: --bogus"},
		{"unknown command", []string{"frobnicate"}, ExitUsage, `copperhead: unknown command "frobnicate"`},
		{"extra argument", []string{"check", "now"}, ExitUsage, `copperhead: unknown command "now" for "copperhead check"`},
		{"missing repo", []string{"--repo", filepath.Join(empty, "nope"), "parts"}, ExitUsage, "no such file or directory"},
		{"repo is a file", []string{"--repo", file, "parts"}, ExitUsage, "not a folder"},
		{"no schematic", []string{"--repo", empty, "init"}, ExitFailed, "no KiCad schematic (.kicad_sch) found"},
		{"no schematic, check", []string{"--repo", empty, "check"}, ExitFailed, "no KiCad schematic"},
		{"KiCad 5 project, init", []string{"--repo", k5, "init"}, ExitFailed, k5Line},
		{"KiCad 5 project, check", []string{"--repo", k5, "check"}, ExitFailed, k5Line},
		{"KiCad 5 project, edit", []string{"--repo", k5, "edit", "set-field", "R1", "Value", "1k"}, ExitFailed, k5Line},
		{"KiCad 5 project, draft layout", []string{"--repo", k5, "draft", "layout"}, ExitFailed, k5Line},
		{"missing kicad-cli", []string{"--repo", "testdata/tiny", "nets"}, ExitUsage, "run scripts/setup.sh"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "missing kicad-cli" {
				t.Setenv("COPPERHEAD_KICAD_CLI", filepath.Join(empty, "no-kicad-cli"))
			}
			code, _, stderr := runCLI(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, tc.stderr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 0 && tc.code != ExitOK {
				t.Errorf("error is not one line: %q", stderr)
			}
		})
	}
}

// TestStderrIsRedacted: an error that quotes a secret-bearing value never
// shows the secret (AC-4.1 extends to log lines).
func TestStderrIsRedacted(t *testing.T) {
	secret := "sk-" + "proj-abcdefghijklmnopqrstuvwxyz012345"
	code, _, stderr := runCLI(t, "--repo", secret, "parts")
	if code != ExitUsage {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(stderr, secret) || !strings.Contains(stderr, "[REDACTED]") {
		t.Fatalf("stderr %q shows the secret or lacks the marker", stderr)
	}
}
