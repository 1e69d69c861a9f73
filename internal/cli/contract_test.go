package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/create"
	"copperhead/internal/llm"
)

// TestCommandGroups: every command group, given no subcommand or one it does
// not have, is a usage error naming it and listing what exists (issue 13,
// CLI contract). cobra alone prints help and exits 0 for a bare group.
func TestCommandGroups(t *testing.T) {
	tests := []struct {
		args []string
		want []string // substrings of the one stderr line
	}{
		{[]string{"edit"}, []string{"edit needs a subcommand: one of ", "rename-net", "set-field", "no-connect"}},
		{[]string{"edit", "frobnicate", "R1"}, []string{`unknown command "frobnicate" for "copperhead edit"`, "valid commands are ", "swap-pins"}},
		{[]string{"edit", "set-fild", "R1", "Value", "1k"}, []string{`unknown command "set-fild"`, "did you mean set-field?"}},
		{[]string{"--repo", ".", "edit", "--dry-run", "bogus"}, []string{`unknown command "bogus" for "copperhead edit"`}},
		{[]string{"draft"}, []string{"draft needs a subcommand: one of layout, schematic"}},
		{[]string{"draft", "board"}, []string{`unknown command "board" for "copperhead draft": valid commands are layout, schematic`}},
		{[]string{"export"}, []string{"export needs a subcommand: one of bom"}},
		{[]string{"export", "gerbers"}, []string{`unknown command "gerbers" for "copperhead export": valid commands are bom`}},
		{[]string{"datasheet"}, []string{"datasheet needs a subcommand: one of fetch"}},
		{[]string{"parts", "find"}, []string{`unknown command "find" for "copperhead parts": valid commands are search`}},
		{[]string{"frobnicate"}, []string{`unknown command "frobnicate" for "copperhead": valid commands are `, "check", "edit"}},
		{nil, []string{"no command given, and the agent shell needs a terminal on stdin and stdout: one of ", "check", "init", `copperhead do "<change request>"`}},
		// cobra would show the group's help and exit 0.
		{[]string{"edit", "bogus", "--help"}, []string{`unknown command "bogus" for "copperhead edit"`}},
		{[]string{"frobnicate", "--help"}, []string{`unknown command "frobnicate" for "copperhead"`}},
		{[]string{"help", "frobnicate"}, []string{`unknown command "frobnicate" for "copperhead"`}},
		{[]string{"help", "edit", "frobnicate"}, []string{`unknown command "frobnicate" for "copperhead edit"`}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != ExitUsage {
				t.Errorf("exit %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "copperhead: ") {
				t.Errorf("stderr is not one line: %q", stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}

// TestVersionEverywhere: --version is a global flag, as the README's table
// of global flags says, so it works after any command.
func TestVersionEverywhere(t *testing.T) {
	for _, args := range [][]string{
		{"--version"}, {"check", "--version"}, {"edit", "--version"}, {"edit", "set-field", "--version"},
		{"draft", "schematic", "--version"}, {"--repo", "nowhere", "do", "--version"},
	} {
		code, stdout, stderr := runCLI(t, args...)
		if code != ExitOK || !strings.HasPrefix(stdout, "copperhead ") || strings.Count(stdout, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	code, stdout, _ := runCLI(t, "--json", "check", "--version")
	var v struct {
		OK      bool   `json:"ok"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); code != ExitOK || err != nil || !v.OK || v.Version == "" {
		t.Errorf("--json --version: exit %d, %q (%v)", code, stdout, err)
	}
}

// TestJSONOnEveryPath: with --json, stdout is exactly one JSON object
// whatever happens: the command's own with "ok", or {"ok": false, "error"}
// when it failed before printing one. The human line still goes to stderr,
// and the exit code is the same as without --json.
func TestJSONOnEveryPath(t *testing.T) {
	empty := t.TempDir()
	broken := t.TempDir()
	// A schematic copperhead cannot load: its top-level list is never closed.
	os.WriteFile(filepath.Join(broken, "x.kicad_sch"), []byte("(kicad_sch (version 20231120) (generator eeschema)\n  (symbol (lib_id \"Device:R\")\n"), 0o644)
	noKiCad := filepath.Join(empty, "no-kicad-cli")
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		code  int
		ok    bool
		error string // substring of "error"; "" when ok
	}{
		{"check, schematic does not load", []string{"--repo", broken, "check"}, nil, ExitFailed, false, "x.kicad_sch:3:1: unexpected end of file"},
		{"check, no schematic", []string{"--repo", empty, "check"}, nil, ExitFailed, false, "no KiCad schematic"},
		{"outputs, no schematic", []string{"--repo", empty, "outputs"}, nil, ExitFailed, false, "no KiCad schematic"},
		{"outputs, kicad-cli missing", []string{"--repo", "testdata/tiny", "outputs"}, map[string]string{"COPPERHEAD_KICAD_CLI": noKiCad}, ExitUsage, false, "kicad-cli"},
		{"edit, no schematic", []string{"--repo", empty, "edit", "set-field", "R1", "Value", "1k"}, nil, ExitFailed, false, "no KiCad schematic"},
		{"edit, bare", []string{"edit"}, nil, ExitUsage, false, "edit needs a subcommand"},
		{"edit, unknown op", []string{"edit", "bogus"}, nil, ExitUsage, false, `unknown command "bogus"`},
		{"nets, kicad-cli missing", []string{"--repo", "testdata/tiny", "nets"}, map[string]string{"COPPERHEAD_KICAD_CLI": noKiCad}, ExitUsage, false, "kicad-cli"},
		{"parts, does not load", []string{"--repo", broken, "parts"}, nil, ExitFailed, false, "unexpected end of file"},
		{"explain, no schematic", []string{"--repo", empty, "explain", "R1"}, nil, ExitFailed, false, "no KiCad schematic"},
		{"init, no schematic", []string{"--repo", empty, "init"}, nil, ExitFailed, false, "no KiCad schematic"},
		{"sync, no schematic", []string{"--repo", empty, "sync"}, nil, ExitFailed, false, "no KiCad schematic"},
		{"do cannot start", []string{"--repo", empty, "do", "add a pullup"}, nil, ExitFailed, false, "no KiCad schematic"},
		{"doctor, kicad-cli missing", []string{"--repo", empty, "doctor"}, map[string]string{"COPPERHEAD_KICAD_CLI": noKiCad}, ExitFailed, false, "doctor: required dependency failing: kicad-cli"},
		{"bad --repo", []string{"--repo", filepath.Join(empty, "nope"), "check"}, nil, ExitUsage, false, "--repo"},
		{"unknown flag before --json", []string{"check", "--bogus"}, nil, ExitUsage, false, "unknown flag: --bogus"},
		{"extra argument", []string{"check", "now"}, nil, ExitUsage, false, `unknown command "now"`},
		{"models, key missing", []string{"--repo", empty, "models", "--model", "gpt-5"}, map[string]string{"OPENAI_API_KEY": ""}, ExitUsage, false, "OPENAI_API_KEY is not set"},
		{"models, none selected", []string{"--repo", empty, "models"}, map[string]string{"OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "COPPERHEAD_MODEL": ""}, ExitFailed, false, "no model selected"},
		{"models, selected", []string{"--repo", empty, "models", "--model", "gpt-5"}, map[string]string{"OPENAI_API_KEY": "test-openai-credential-value"}, ExitOK, true, ""},
		{"demo --tour", []string{"demo", "--tour"}, nil, ExitOK, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			args := append(append([]string{}, tc.args...), "--json")
			if tc.name == "unknown flag before --json" {
				// pflag stops at the first bad flag, so --json after it is
				// never parsed: Main still honours it.
				args = tc.args[:1:1]
				args = append(args, "--bogus", "--json")
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			var obj map[string]any
			dec := json.NewDecoder(strings.NewReader(stdout))
			if err := dec.Decode(&obj); err != nil {
				t.Fatalf("stdout is not a JSON object: %v\n%s", err, stdout)
			}
			if dec.More() {
				t.Errorf("stdout holds more than one JSON value:\n%s", stdout)
			}
			if ok, _ := obj["ok"].(bool); ok != tc.ok || obj["ok"] == nil {
				t.Errorf(`"ok" is %v, want %v`, obj["ok"], tc.ok)
			}
			msg, _ := obj["error"].(string)
			if tc.ok {
				if code == ExitOK && obj["error"] != nil {
					t.Errorf(`a success carries "error": %v`, obj["error"])
				}
				return
			}
			if !strings.Contains(msg, tc.error) || strings.Contains(msg, "\n") {
				t.Errorf(`"error" %q, want one line containing %q`, msg, tc.error)
			}
			if tc.name != "doctor, kicad-cli missing" && tc.name != "models, none selected" {
				// The human line is still on stderr (doctor and models
				// have printed their rows instead).
				if !strings.Contains(stderr, "copperhead: ") {
					t.Errorf("stderr lacks the error line: %q", stderr)
				}
			}
		})
	}
}

// TestJSONOutcomeSplice: the outcome keys go in front of what the command
// wrote, only when missing, and nothing it wrote changes.
func TestJSONOutcomeSplice(t *testing.T) {
	tests := []struct {
		in   string
		code int
		msg  string
		want string
	}{
		{"{\n  \"a\": 1\n}\n", ExitOK, "", "{\n  \"ok\": true,\n  \"a\": 1\n}\n"},
		{"{\n  \"a\": 1\n}\n", ExitFailed, "it broke", "{\n  \"ok\": false,\n  \"error\": \"it broke\",\n  \"a\": 1\n}\n"},
		{"{\n  \"ok\": false,\n  \"error\": \"own\"\n}\n", ExitFailed, "other", "{\n  \"ok\": false,\n  \"error\": \"own\"\n}\n"},
		{"{\n  \"ok\": false,\n  \"erc\": {\n    \"ok\": true\n  }\n}\n", ExitFailed, "check failed: drift", "{\n  \"ok\": false,\n  \"error\": \"check failed: drift\",\n  \"erc\": {\n    \"ok\": true\n  }\n}\n"},
		{"{\n  \"selected\": null,\n  \"ok\": false\n}\n", ExitFailed, "none", "{\n  \"error\": \"none\",\n  \"selected\": null,\n  \"ok\": false\n}\n"},
		{"{}\n", ExitUsage, "bad", "{\n  \"ok\": false,\n  \"error\": \"bad\"\n}\n"},
		{"", ExitFailed, "x \"quoted\" <b>", "{\n  \"ok\": false,\n  \"error\": \"x \\\"quoted\\\" <b>\"\n}\n"},
		{"", ExitOK, "", "{\n  \"ok\": true\n}\n"},
		{"Usage: help text\n", ExitOK, "", "Usage: help text\n"},
	}
	for _, tc := range tests {
		var out strings.Builder
		g := &jsonStdout{w: &out, on: func() bool { return true }}
		g.Write([]byte(tc.in))
		if err := g.finish(tc.code, tc.msg, ""); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("%q exit %d: got %q, want %q", tc.in, tc.code, out.String(), tc.want)
		}
	}
}

func TestArgsWantJSON(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"check", "--json"}, true},
		{[]string{"--json=true", "nets"}, true},
		{[]string{"--json=false", "nets"}, false},
		{[]string{"do", "--", "--json"}, false},
		{[]string{"check"}, false},
	} {
		if got := argsWantJSON(tc.args); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestCreateStageRunKeepsStdout: a create stage is a do-style run; under
// --json its own result object must not reach stdout, which holds only
// create's one object (before, every model stage printed a DoResult there).
func TestCreateStageRunKeepsStdout(t *testing.T) {
	repo, srv := doRepo(t, refusalScript...)
	var out, errb strings.Builder
	a := &app{io: IO{In: strings.NewReader(""), Out: &out, Err: &errb}, repo: repo, json: true}
	ctx := context.Background()
	kc, err := findKiCad(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.modelSettings("compat:test-model")
	if err != nil {
		t.Fatal(err)
	}
	sel, err := llm.Select(s)
	if err != nil {
		t.Fatal(err)
	}
	ro := a.runOptions(repo, s, sel)
	in := create.Input{Env: create.Env{Repo: repo, KiCad: kc}, Model: &ro, Watch: a.watchStage(ctx, createOptions{})}
	run, err := create.RunStage(ctx, in, create.Stages[0], "seed the specification", 10)
	if err != nil {
		t.Fatal(err)
	}
	if run.Exit != "refused" || len(srv.Requests()) != 2 {
		t.Fatalf("the stage did not run as scripted: %+v, %d requests", run, len(srv.Requests()))
	}
	if out.Len() != 0 {
		t.Errorf("a stage run wrote to stdout under --json:\n%s", out.String())
	}
	if !strings.Contains(errb.String(), `"exit_path": "refused"`) {
		t.Errorf("the stage's result is not on stderr:\n%s", errb.String())
	}
}
