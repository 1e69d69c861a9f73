package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"copperhead/internal/repl"
	"copperhead/internal/testkit"
)

// TestShellOffATerminal: the shell needs a terminal. Without one and without
// a request it refuses (exit 2, one line, pointing at do); with a request it
// is one do run, with do's checks (here: no model configured, exit 2 with
// do's message). A lone word at the root is still an unknown command.
func TestShellOffATerminal(t *testing.T) {
	repo := t.TempDir()
	if err := testkit.CopyTree(repo, "../../examples/open-telegraph", nil); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("COPPERHEAD_MODEL", "")
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"copperhead", []string{"--repo", repo}, ExitUsage,
			[]string{"no command given, and the agent shell needs a terminal on stdin and stdout: one of ", "repl", `copperhead do "<change request>"`}},
		{"repl", []string{"--repo", repo, "repl"}, ExitUsage,
			[]string{"the agent shell needs a terminal on stdin and stdout", `copperhead do "<change request>"`}},
		{"repl --json", []string{"--repo", repo, "--json", "repl"}, ExitUsage, []string{"the agent shell needs a terminal"}},
		{"repl with two requests", []string{"--repo", repo, "repl", "a b", "c d"}, ExitUsage, []string{"repl takes at most one change request"}},
		{"a slash command off a terminal", []string{"--repo", repo, "repl", "/check"}, ExitUsage,
			[]string{"/check is a slash command of the agent shell, which needs a terminal", "copperhead --help"}},
		{"a lone word at the root", []string{"--repo", repo, "chek"}, ExitUsage, []string{`unknown command "chek"`, "did you mean check?"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if strings.Contains(tc.name, "json") {
				if !strings.Contains(stdout, `"ok": false`) {
					t.Errorf("--json stdout %q, want the error object", stdout)
				}
			} else if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
	// A request off a terminal is a do run: its preflight speaks (this tree is
	// not a git repository, or has no model: either is do's own refusal).
	for _, args := range [][]string{
		{"--repo", repo, "repl", "rename net KEY_DAH to KEY_DASH", "--model", "compat:"},
		{"--repo", repo, "rename net KEY_DAH to KEY_DASH", "--model", "compat:"},
	} {
		code, _, stderr := runCLI(t, args...)
		_, _, doErr := runCLI(t, "--repo", repo, "do", "rename net KEY_DAH to KEY_DASH", "--model", "compat:")
		if code == ExitOK || stderr != doErr {
			t.Errorf("%v: exit %d, stderr %q; want do's refusal %q", args, code, stderr, doErr)
		}
	}
}

// TestShellCommandTable: every slash command the spec names is in the table
// with a help line and a function (help is the shell's own), and none twice.
func TestShellCommandTable(t *testing.T) {
	s := &session{a: &app{}, ws: &workspace{}}
	table := s.commands()
	want := []string{"help", "demo", "examples", "status", "check", "parts", "nets", "bom", "sync", "drift",
		"constraints", "openspec", "config", "git", "runs", "last", "model", "version", "clear", "quit"}
	var names []string
	for _, c := range table {
		names = append(names, c.Name)
		if c.Help == "" {
			t.Errorf("/%s has no help line", c.Name)
		}
		if c.Run == nil && c.Name != "help" {
			t.Errorf("/%s has no function", c.Name)
		}
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("table %v, want %v", names, want)
	}
	quit := table[len(table)-1]
	if err := quit.Run(context.Background(), nil); !errors.Is(err, repl.ErrQuit) {
		t.Errorf("/quit returned %v, want repl.ErrQuit", err)
	}
}

// TestInterrupts: a claim takes one interrupt (cancelling the step, not the
// parent, with the signal as the cause); unclaimed or spent, an interrupt is
// the process's.
func TestInterrupts(t *testing.T) {
	cause := errors.New("interrupt signal received")
	var ints Interrupts
	if ints.Interrupt(cause) {
		t.Fatal("an interrupt with no claim was taken")
	}
	parent, cancelParent := context.WithCancel(context.Background())
	defer cancelParent()
	step, release := ints.Claim(parent)
	if !ints.Interrupt(cause) {
		t.Fatal("the claim did not take the interrupt")
	}
	if step.Err() == nil || context.Cause(step) != cause || parent.Err() != nil {
		t.Errorf("step %v (cause %v), parent %v: want the step cancelled by the signal, the parent not", step.Err(), context.Cause(step), parent.Err())
	}
	if ints.Interrupt(cause) {
		t.Error("a spent claim took a second interrupt")
	}
	release()
	// A release of an old claim leaves a newer one in force.
	_, releaseOld := ints.Claim(parent)
	next, releaseNext := ints.Claim(parent)
	releaseOld()
	if !ints.Interrupt(cause) || next.Err() == nil {
		t.Error("releasing an old claim dropped the newer one")
	}
	releaseNext()
	var none *Interrupts
	ctx, rel := none.Claim(parent)
	rel()
	if ctx.Err() == nil || none.Interrupt(cause) {
		t.Error("a nil Interrupts: want a plain child and no interrupt taken")
	}
}
