package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"copperhead/internal/config"
	"copperhead/internal/llm/llmtest"
	"copperhead/internal/testkit"
)

// The agent shell in a real terminal (issue 15): the built binary runs under
// tmux against a copy of the fixture, with the scripted model of
// do_rename.txtar. The test types as a person does and reads the screen
// (tmux capture-pane), polling each expectation until a deadline: the
// deadline only detects a hang, it never times a step.

// paneDeadline bounds one expectation: ERC, DRC and a whole scripted rename
// take seconds; a minute more than that is a hang.
const paneDeadline = 3 * time.Minute

// tmuxShell is one tmux server (its own socket, no user config) running one
// copperhead shell in a pane that stays after the process exits, so its exit
// status can be read.
type tmuxShell struct {
	t      *testing.T
	sock   string
	env    []string
	status string // the file the pane's script writes copperhead's exit status to
}

// newShell is the tmux server for a shell whose fixture shellFixture made
// in dir, its environment env.
func newShell(t *testing.T, dir string, env []string) *tmuxShell {
	return &tmuxShell{t: t, sock: filepath.Join(dir, "tmux.sock"), env: env, status: filepath.Join(dir, "status")}
}

func (s *tmuxShell) tmux(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-S", s.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// start runs script (a shell script starting copperhead) with args in a new
// session.
func (s *tmuxShell) start(script string, args ...string) {
	s.t.Helper()
	line := "sh " + shellQuote(script)
	for _, a := range args {
		line += " " + shellQuote(a)
	}
	s.tmux("new-session", "-d", "-s", "shell", "-x", "160", "-y", "50", line)
	s.tmux("set-option", "-t", "shell", "remain-on-exit", "on")
	s.t.Cleanup(func() { _ = exec.Command("tmux", "-S", s.sock, "kill-server").Run() })
}

// pane is the screen and its scroll-back, joined lines, no colour.
func (s *tmuxShell) pane() string {
	return s.tmux("capture-pane", "-p", "-J", "-S", "-5000", "-t", "shell")
}

// waitFor polls the pane until ok holds, failing with the screen at the
// deadline.
func (s *tmuxShell) waitFor(what string, ok func(pane string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(paneDeadline)
	for {
		p := s.pane()
		if ok(p) {
			return p
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waiting for %s: not there after %v; the screen:\n%s", what, paneDeadline, p)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

var promptLine = regexp.MustCompile(`(?m)^copperhead> `)

// prompts waits until the pane shows n prompts and the newest is the last
// thing on the screen (the shell is waiting for a line).
func (s *tmuxShell) prompts(n int) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("prompt #%d", n), func(p string) bool {
		trimmed := strings.TrimRight(p, "\n ")
		return len(promptLine.FindAllStringIndex(p, -1)) >= n && strings.HasSuffix(trimmed, "copperhead>")
	})
}

// key presses the key tmux names k (Enter, C-c, ...).
func (s *tmuxShell) key(k string) {
	s.t.Helper()
	s.tmux("send-keys", "-t", "shell", k)
}

// typeLine types line and Enter.
func (s *tmuxShell) typeLine(line string) {
	s.t.Helper()
	s.tmux("send-keys", "-t", "shell", "-l", line)
	s.key("Enter")
}

// exitStatus waits for the shell to exit and returns its status, which the
// pane's script writes (tmux's own pane_dead_status is not reliably set when
// the terminal closes before tmux reaps the process).
func (s *tmuxShell) exitStatus() string {
	s.t.Helper()
	deadline := time.Now().Add(paneDeadline)
	for {
		if data, err := os.ReadFile(s.status); err == nil {
			return strings.TrimSpace(string(data))
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the shell did not exit; the screen:\n%s", s.pane())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// wantExit waits for the shell to exit and fails the test unless its
// status is want; what says how it was left.
func (s *tmuxShell) wantExit(what, want string) {
	s.t.Helper()
	if status := s.exitStatus(); status != want {
		s.t.Errorf("%s: exit status %s, want %s", what, status, want)
	}
}

// shellFixture is a committed copy of the fixture (prepare, when not nil,
// changes it first) and a script starting copperhead on it, its arguments
// passed on, with the scripted model's endpoint at modelURL.
func shellFixture(t *testing.T, modelURL string, prepare func(repo string), extraEnv ...string) (dir, repo, script string, env []string) {
	bin, err := exec.LookPath("copperhead") // testscript.Main puts it on PATH
	if err != nil {
		t.Skip("copperhead command not on PATH")
	}
	for _, tool := range []string{"tmux", "git", "openspec", "kicad-cli"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	if _, err := os.Stat(demos); err != nil {
		t.Skip("kicad-demos are not installed")
	}
	dir = t.TempDir()
	repo = filepath.Join(dir, "repo")
	if err := testkit.CopyTree(repo, "../../examples/open-telegraph", nil); err != nil {
		t.Fatal(err)
	}
	env = append(os.Environ(),
		"HOME="+filepath.Join(dir, "home"), "COPPERHEAD_CACHE_DIR="+filepath.Join(dir, "cache"),
		"COPPERHEAD_KICAD_CONFIG="+filepath.Join(dir, "kicadcfg"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test Engineer", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=Test Engineer", "GIT_COMMITTER_EMAIL=test@example.invalid",
		"OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "COPPERHEAD_MODEL=", "TERM=xterm-256color")
	env = append(env, extraEnv...)
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(repo)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "open-telegraph"}} {
		git(t, repo, env, args...)
	}
	// The script is what the pane runs: the environment is spelled out in
	// it, not inherited from whichever tmux server answers.
	var b strings.Builder
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TMUX") || !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(name) {
			continue
		}
		fmt.Fprintf(&b, "export %s=%s\n", name, shellQuote(value))
	}
	fmt.Fprintf(&b, "export COPPERHEAD_BASE_URL=%s\n", shellQuote(modelURL))
	// The script outlives copperhead to record its exit status; a Ctrl-C
	// meant for copperhead runs the trap here instead of ending the script
	// (a trapped signal is back to its default in copperhead).
	fmt.Fprintf(&b, "trap true INT\n%s --repo %s \"$@\"\n", shellQuote(bin), shellQuote(repo))
	fmt.Fprintf(&b, "echo $? > '%[1]s.tmp' && mv '%[1]s.tmp' '%[1]s'\n", filepath.Join(dir, "status"))
	script = filepath.Join(dir, "shell.sh")
	if err := os.WriteFile(script, []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, repo, script, env
}

func git(t *testing.T, repo string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// wantCommitted fails t unless the screen p shows a run done and
// committed, and repo holds that one commit on top of the fixture's.
func wantCommitted(t *testing.T, p, repo string, env []string) {
	t.Helper()
	if !regexp.MustCompile(`(?m)^done · verification passed.* · commit [0-9a-f]{12} `).MatchString(p) {
		t.Errorf("no done outcome line with a commit:\n%s", p)
	}
	if got := git(t, repo, env, "rev-list", "--count", "HEAD"); got != "2" {
		t.Errorf("%s commits after the run, want 2 (one new)", got)
	}
}

// renameScript is do_rename.txtar's scripted model: the same six replies.
func renameScript(t *testing.T) []llmtest.Step {
	steps, err := fakeSteps(scriptFile(t, "do_rename.txtar", "rename.json"))
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// TestShellInTmux: slash commands, a change request that lands as one
// commit, the dirty-tree refusal that leaves the shell up, and /quit.
func TestShellInTmux(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.OpenAI, renameScript(t)...)
	dir, repo, script, env := shellFixture(t, srv.URL+"/v1", nil)
	sh := newShell(t, dir, env)
	sh.start(script, "--model", "compat:scripted")

	p := sh.prompts(1)
	if !strings.Contains(p, "model: scripted at http://127.0.0.1") {
		t.Errorf("the banner does not name the session's model:\n%s", p)
	}
	sh.typeLine("/help")
	p = sh.prompts(2)
	for _, name := range []string{"/help", "/demo", "/check", "/parts", "/sync", "/model", "/quit"} {
		if !strings.Contains(p, "  "+name) {
			t.Errorf("/help does not list %s", name)
		}
	}
	// Tab completes a slash command's name.
	sh.tmux("send-keys", "-t", "shell", "-l", "/par")
	sh.key("Tab")
	sh.waitFor("the completed name", func(p string) bool { return strings.HasSuffix(strings.TrimRight(p, "\n "), "copperhead> /parts") })
	sh.key("Enter")
	p = sh.prompts(3)
	if !strings.Contains(p, "29 parts in hardware/open-telegraph.kicad_sch") {
		t.Errorf("/parts did not list the parts:\n%s", p)
	}
	sh.typeLine("/check")
	p = sh.prompts(4)
	for _, gate := range []string{"ERC ✓", "DRC ✓", "drift ✓"} {
		if !regexp.MustCompile(`(?m)^` + gate).MatchString(p) {
			t.Errorf("/check did not print %q:\n%s", gate, p)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the inspect commands made %d model requests, want none", n)
	}

	sh.typeLine("rename net KEY_DAH to KEY_DASH")
	p = sh.prompts(5)
	wantCommitted(t, p, repo, env)
	if got := git(t, repo, env, "log", "-1", "--format=%s"); got != "copperhead: rename net KEY_DAH to KEY_DASH" {
		t.Errorf("the commit's subject is %q", got)
	}
	if got := git(t, repo, env, "status", "--porcelain"); got != "" {
		t.Errorf("the shell left the tree dirty (its history and log must be git-ignored):\n%s", got)
	}
	asked := len(srv.Requests())

	// A dirty tree: the request is refused before any model call, and the
	// shell stays up.
	if err := os.WriteFile(filepath.Join(repo, "notes.txt"), []byte("scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sh.typeLine("change R7 to 1M")
	p = sh.prompts(6)
	if !strings.Contains(p, "--allow-dirty") || !strings.Contains(p, "notes.txt") {
		t.Errorf("no dirty-tree refusal naming the file and --allow-dirty:\n%s", p)
	}
	if n := len(srv.Requests()); n != asked {
		t.Errorf("the refused request reached the model (%d requests, want %d)", n, asked)
	}

	sh.typeLine("/quit")
	sh.wantExit("/quit", "0")

	// The session log: plain lines (no control sequences), what was typed
	// and what the run printed.
	logs, _ := filepath.Glob(filepath.Join(repo, filepath.FromSlash(config.RunsDir), "repl-*.log"))
	if len(logs) != 1 {
		t.Fatalf("session logs %v, want one", logs)
	}
	data, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	testkit.ContainsAll(t, "the session log", log, "> /help", "> rename net KEY_DAH to KEY_DASH", "29 parts in", "done · verification passed")
	if strings.ContainsAny(log, "\x1b\r") {
		t.Errorf("the session log holds control characters:\n%q", log)
	}
	hist, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(config.RunsDir), "repl_history"))
	if err != nil || !strings.Contains(string(hist), "/parts\n") || !strings.Contains(string(hist), "rename net KEY_DAH to KEY_DASH\n") {
		t.Errorf("history %q (%v), want the typed lines", hist, err)
	}
}

// TestShellCtrlCLeaves: Ctrl-C at an empty prompt ends the shell, exit 0.
func TestShellCtrlCLeaves(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.OpenAI)
	dir, _, script, env := shellFixture(t, srv.URL+"/v1", nil)
	sh := newShell(t, dir, env)
	sh.start(script, "--model", "compat:scripted")
	sh.prompts(1)
	sh.key("C-c")
	sh.wantExit("Ctrl-C at an empty prompt", "0")
}

// scriptFile is one file of a testdata script, for a test that reuses a
// script's scripted model.
func scriptFile(t *testing.T, script, name string) []byte {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata/script", script))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	t.Fatalf("%s has no %s", script, name)
	return nil
}

// TestShellInterruptRun: Ctrl-C while the model thinks ends that run
// interrupted (do_interrupted.txtar's scenario: the edit stashed, the tree
// back to HEAD) and the prompt comes back; the shell still works after.
func TestShellInterruptRun(t *testing.T) {
	steps, err := fakeSteps(scriptFile(t, "do_interrupted.txtar", "steps.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t, llmtest.OpenAI, steps...)
	dir, repo, script, env := shellFixture(t, srv.URL+"/v1", nil)
	sh := newShell(t, dir, env)
	sh.start(script, "--model", "compat:scripted")
	sh.prompts(1)
	sh.typeLine("change R7 to 1M")
	for deadline := time.Now().Add(paneDeadline); len(srv.Requests()) < 4; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the model got %d requests, want 4; the screen:\n%s", len(srv.Requests()), sh.pane())
		}
	}
	sh.key("C-c")
	p := sh.prompts(2)
	if !regexp.MustCompile(`(?m)^interrupted · `).MatchString(p) {
		t.Errorf("no interrupted outcome line:\n%s", p)
	}
	if strings.Contains(p, "provider-error") {
		t.Errorf("the interrupt reads as a provider error:\n%s", p)
	}
	if got := git(t, repo, env, "status", "--porcelain"); got != "" {
		t.Errorf("the tree is not back to HEAD:\n%s", got)
	}
	if got := git(t, repo, env, "stash", "list"); !regexp.MustCompile(`copperhead interrupted run [0-9A-Z]{26}`).MatchString(got) {
		t.Errorf("stash list %q, want the interrupted run's work", got)
	}
	sh.typeLine("/version")
	p = sh.prompts(3)
	if !regexp.MustCompile(`(?m)^copperhead \S+`).MatchString(p[strings.LastIndex(p, "> /version"):]) {
		t.Errorf("/version after the interrupt printed no version:\n%s", p)
	}
	sh.key("C-d")
	sh.wantExit("Ctrl-D at an empty prompt", "0")
}

// TestShellBudgetPrompt: the first request, given on the command line, runs
// before the prompt; reaching its turn budget it asks for more turns inside
// the shell (AC-15.4's numbers), the answer is read by the shell's line
// editor (Enter: the default extension), and the run goes on to its commit
// (AC-15.1).
func TestShellBudgetPrompt(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.OpenAI, renameScript(t)...)
	dir, repo, script, env := shellFixture(t, srv.URL+"/v1", func(repo string) {
		p := filepath.Join(repo, ".copperhead", "config.json")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cfg := strings.Replace(string(data), `"maxTurns": 40`, `"maxTurns": 2`, 1)
		if cfg == string(data) {
			t.Fatal("the fixture's config has no maxTurns 40 to lower")
		}
		if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	sh := newShell(t, dir, env)
	// The request on the command line (copperhead "<request>") runs before
	// the first prompt.
	sh.start(script, "--model", "compat:scripted", "rename net KEY_DAH to KEY_DASH")
	p := sh.waitFor("the budget question", func(p string) bool { return strings.Contains(p, "More turns? [10, 0 to stop]") })
	if !strings.Contains(p, "turn budget reached: 2/2 turns") || !strings.Contains(p, "tokens. More turns?") {
		t.Errorf("the question lacks the cost so far:\n%s", p)
	}
	if strings.Contains(p, "copperhead> ") {
		t.Errorf("a prompt came before the first request ran:\n%s", p)
	}
	sh.key("Enter")
	p = sh.prompts(1)
	wantCommitted(t, p, repo, env)
	logs, _ := filepath.Glob(filepath.Join(repo, filepath.FromSlash(config.RunsDir), "repl-*.log"))
	if len(logs) != 1 {
		t.Fatalf("session logs %v, want one", logs)
	}
	if data, err := os.ReadFile(logs[0]); err != nil || !strings.Contains(string(data), "More turns? [10, 0 to stop]") {
		t.Errorf("the session log lacks the question (%v):\n%s", err, data)
	}
	sh.typeLine("/quit")
	sh.wantExit("/quit", "0")
}

// TestShellModelPicker: with no model configured anywhere the shell offers
// the ready backends; the pick (a compatible endpoint, whose model id is
// asked for) is the session's model, and /model NAME changes it.
func TestShellModelPicker(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.OpenAI)
	dir, _, script, env := shellFixture(t, srv.URL+"/v1", nil)
	sh := newShell(t, dir, env)
	sh.start(script)
	p := sh.waitFor("the picker", func(p string) bool {
		return strings.Contains(p, "Pick one for this session [1-1, Enter to keep none]:")
	})
	if !strings.Contains(p, "model: none: no model selected") || !regexp.MustCompile(`(?m)^  1\s+compat\s`).MatchString(p) {
		t.Errorf("the picker does not say why or list the ready compat backend:\n%s", p)
	}
	sh.typeLine("1")
	sh.waitFor("the model id question", func(p string) bool { return strings.Contains(p, "model id at that endpoint:") })
	sh.typeLine("scripted")
	p = sh.prompts(1)
	if !strings.Contains(p, "model: scripted at "+srv.URL+"/v1 (backend compat, selected by this session)") {
		t.Errorf("the pick is not the session's model:\n%s", p)
	}
	sh.typeLine("/model compat:other")
	p = sh.prompts(2)
	if !strings.Contains(p, "model: other at ") {
		t.Errorf("/model NAME did not change the model:\n%s", p)
	}
	sh.typeLine("/model compat:")
	p = sh.prompts(3)
	if !strings.Contains(p, "copperhead: /model: invalid model") {
		t.Errorf("/model with a malformed name was not refused:\n%s", p)
	}
	sh.typeLine("/quit")
	sh.wantExit("/quit", "0")
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("picking a model made %d model requests, want none", n)
	}
}

// TestShellUnignoredRuns: in a repository that does not git-ignore the runs
// folder the shell says so and writes no history or log, so it never makes
// the tree dirty (which would refuse every request).
func TestShellUnignoredRuns(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.OpenAI)
	dir, repo, script, env := shellFixture(t, srv.URL+"/v1", func(repo string) {
		if err := os.Remove(filepath.Join(repo, ".gitignore")); err != nil {
			t.Fatal(err)
		}
	})
	sh := newShell(t, dir, env)
	sh.start(script, "--model", "compat:scripted")
	p := sh.prompts(1)
	if !strings.Contains(p, "-- "+config.RunsDir+" is not git-ignored here (copperhead init adds it): this session keeps no history or log file") {
		t.Errorf("no notice about the unignored runs folder:\n%s", p)
	}
	sh.typeLine("/git")
	sh.prompts(2)
	sh.typeLine("/quit")
	sh.wantExit("/quit", "0")
	if got := git(t, repo, env, "status", "--porcelain"); got != "" {
		t.Errorf("the shell made the tree dirty:\n%s", got)
	}
}

// TestShellTerminated: SIGTERM at the prompt ends the shell at once with
// exit status 130, the terminal given back (the read in progress is
// abandoned, not waited for).
func TestShellTerminated(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.OpenAI)
	dir, _, script, env := shellFixture(t, srv.URL+"/v1", nil)
	sh := newShell(t, dir, env)
	sh.start(script, "--model", "compat:scripted")
	sh.prompts(1)
	// The pane runs the script; copperhead is its child.
	pane := strings.TrimSpace(sh.tmux("list-panes", "-t", "shell", "-F", "#{pane_pid}"))
	out, err := exec.Command("ps", "-o", "pid=", "--ppid", pane).Output()
	if err != nil {
		t.Fatalf("ps --ppid %s: %v", pane, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("the pane's script has no one child: %q", out)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	sh.wantExit("SIGTERM at the prompt", strconv.Itoa(exitInterrupted))
	// Ended by the shell itself, not by the 10-second watchdog.
	if p := sh.pane(); strings.Contains(p, "still running") {
		t.Errorf("the watchdog ended the shell:\n%s", p)
	}
}

// TestShellInterruptCommand: Ctrl-C during a slash command stops it (the
// kicad-cli it waits on is killed, as signals.txtar shows for the commands)
// and the prompt comes back. kicad-cli is a fake that marks that it started
// and hangs.
func TestShellInterruptCommand(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.OpenAI)
	tmp := t.TempDir()
	started, fake := filepath.Join(tmp, "started"), filepath.Join(tmp, "kicad-cli")
	slow := "#!/bin/sh\nif [ \"$1\" = version ]; then echo 9.0.8; exit 0; fi\n: > \"$STARTED\"\nexec sleep 1000\n"
	if err := os.WriteFile(fake, []byte(slow), 0o755); err != nil {
		t.Fatal(err)
	}
	dir, _, script, env := shellFixture(t, srv.URL+"/v1", nil, "COPPERHEAD_KICAD_CLI="+fake, "STARTED="+started)
	sh := newShell(t, dir, env)
	sh.start(script, "--model", "compat:scripted")
	sh.prompts(1)
	sh.typeLine("/nets")
	for deadline := time.Now().Add(paneDeadline); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kicad-cli never started; the screen:\n%s", sh.pane())
		}
	}
	sh.key("C-c")
	p := sh.prompts(2)
	if !strings.Contains(p, "stopped (interrupt signal received)") {
		t.Errorf("/nets was not stopped by the interrupt:\n%s", p)
	}
	sh.typeLine("/quit")
	sh.wantExit("/quit after the interrupt", "0")
}
