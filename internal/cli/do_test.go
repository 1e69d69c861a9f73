package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"copperhead/internal/llm"
	"copperhead/internal/llm/llmtest"
	"copperhead/internal/runs"
	"copperhead/internal/testkit"
	"copperhead/internal/transcript"
)

// doRepo is a git copy of examples/open-telegraph for do to work on, with a
// loopback fake model serving script as compat:test-model. Tests skip
// without kicad-cli: do refuses to start without it.
func doRepo(t *testing.T, script ...llmtest.Step) (repo string, srv *llmtest.Server) {
	t.Helper()
	if _, err := exec.LookPath("kicad-cli"); err != nil && os.Getenv("COPPERHEAD_KICAD_CLI") == "" {
		t.Skip("kicad-cli not installed")
	}
	for k, v := range map[string]string{
		"GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.com",
		"GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@example.com",
		"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
		"OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "COPPERHEAD_MODEL": "", "COPPERHEAD_API_KEY_ENV": "",
	} {
		t.Setenv(k, v)
	}
	src, _ := filepath.Abs("../../examples/open-telegraph")
	repo = t.TempDir()
	if err := os.CopyFS(repo, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "fixture"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	srv = llmtest.NewServer(t, llmtest.OpenAI, script...)
	t.Setenv("COPPERHEAD_BASE_URL", srv.URL+"/v1")
	return repo, srv
}

func call(name, args string) llm.ToolCall {
	return llm.ToolCall{Name: name, Args: json.RawMessage(args)}
}

var refusalScript = []llmtest.Step{
	llmtest.Reply{Text: "A 100k pullup on KEY_DAH leaks 33 uA; the sleep budget is 25 uA.",
		ToolCalls: []llm.ToolCall{call("read_file", `{"path":"docs/SPEC.md"}`)}, Usage: llm.Usage{Input: 12_345, Output: 678}},
	llmtest.Reply{ToolCalls: []llm.ToolCall{call("finish", `{"outcome":"refuse","summary":"Refused: 33 uA of pullup leakage breaks the 25 uA sleep budget in SPEC.md."}`)},
		Usage: llm.Usage{Input: 13_000, Output: 90}},
}

// TestDoRefusal: a refusal exits 0 with a header of two lines, one line per
// turn and tool, and one outcome line, in plain text with no ANSI; the run is
// recorded and the tree is untouched.
func TestDoRefusal(t *testing.T) {
	repo, srv := doRepo(t, refusalScript...)
	code, stdout, stderr := runCLI(t, "--repo", repo, "do", "add a 100k pullup on KEY_DAH", "--model", "compat:test-model", "--max-turns", "12")
	if code != ExitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, "\x1b") {
		t.Errorf("piped output holds ANSI escapes")
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if !regexp.MustCompile(`^copperhead \S.* · do · test-model via compat \(selected by flag\)$`).MatchString(lines[0]) ||
		!regexp.MustCompile(`^run [0-9A-Z]{26} · turn budget 12 · repair budget 5$`).MatchString(lines[1]) {
		t.Errorf("header:\n%s\n%s", lines[0], lines[1])
	}
	testkit.ContainsAll(t, "stdout", stdout,
		"[turn 1/12 · 12.3k in / 678 out] A 100k pullup",
		"  read_file: ",
		"[turn 2/12 · 25.3k in / 768 out]",
		"  finish: ",
		"Refused: 33 uA of pullup leakage",
	)
	last := lines[len(lines)-1]
	if !regexp.MustCompile(`^refused · nothing committed · \S+ · 25.3k in / 768 out tokens · turns 2/12 · run \.copperhead/runs/[0-9A-Z]{26}$`).MatchString(last) {
		t.Errorf("outcome line %q", last)
	}
	if len(srv.Requests()) != 2 {
		t.Errorf("%d model requests, want 2", len(srv.Requests()))
	}
	if st := gitOut(t, repo, "status", "--porcelain"); st != "" {
		t.Errorf("refusal changed the tree:\n%s", st)
	}
	runs, err := transcript.List(repo)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v, %v", runs, err)
	}
	evs, _ := transcript.Read(filepath.Join(transcript.RunsDir(repo), runs[0].ID))
	var start transcript.RunStart
	evs[0].Decode(&start)
	if start.Config.MaxTurns != 12 || start.Command != "do" || start.SelectionSource != "flag" {
		t.Errorf("run-start records budget %d command %q source %q; want 12, do, flag (AC-8.2)", start.Config.MaxTurns, start.Command, start.SelectionSource)
	}
}

// TestDoJSON: --json puts only the result object on stdout, progress on
// stderr.
func TestDoJSON(t *testing.T) {
	repo, _ := doRepo(t, refusalScript...)
	code, stdout, stderr := runCLI(t, "--repo", repo, "--json", "do", "add a 100k pullup on KEY_DAH", "--model", "compat:test-model")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var res runs.JSON
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("stdout is not one result object: %v\n%s", err, stdout)
	}
	if res.ExitPath != transcript.ExitRefused || res.TurnsUsed != 2 || res.TurnBudget != 40 || res.Commit != nil || res.Tokens.Input != 25_345 {
		t.Errorf("result %+v", res)
	}
	if !strings.Contains(stderr, "[turn 1/40 ·") || strings.Contains(stderr, "\x1b") {
		t.Errorf("stderr progress:\n%s", stderr)
	}
}

// TestDoDirtyTree: uncommitted changes refuse the run before anything is
// created, naming the files and the way out (AC-3.8).
func TestDoDirtyTree(t *testing.T) {
	repo, srv := doRepo(t)
	os.WriteFile(filepath.Join(repo, "docs", "SPEC.md"), []byte("edited\n"), 0o644)
	code, stdout, stderr := runCLI(t, "--repo", repo, "do", "anything", "--model", "compat:test-model")
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "docs/SPEC.md") || !strings.Contains(stderr, "--allow-dirty") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr %q: want one line naming the file and --allow-dirty", stderr)
	}
	if _, err := os.Stat(transcript.RunsDir(repo)); err == nil {
		t.Errorf("a refused start created a run folder")
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("a refused start called the model")
	}
}

// TestDoUsage: the request is required and --max-turns must be positive.
func TestDoUsage(t *testing.T) {
	for _, args := range [][]string{{"do"}, {"do", "  "}, {"do", "a", "b"}, {"do", "x", "--max-turns", "0"}} {
		if code, _, stderr := runCLI(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
}

// TestDoFailureExit: a failed run exits 1 with one error line naming the
// stash-free outcome and the transcript.
func TestDoFailureExit(t *testing.T) {
	repo, _ := doRepo(t, llmtest.Reply{Text: "hm"}, llmtest.Reply{Text: "hm"}, llmtest.Reply{Text: "hm"})
	code, stdout, stderr := runCLI(t, "--repo", repo, "do", "do something", "--model", "compat:test-model")
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "stalled · verification not-run") {
		t.Errorf("no outcome line:\n%s", stdout)
	}
	if !regexp.MustCompile(`^copperhead: stalled: 3 consecutive replies without a tool call \(transcript \.copperhead/runs/[0-9A-Z]{26}/transcript\.jsonl\)\n$`).MatchString(stderr) {
		t.Errorf("stderr %q", stderr)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(out.String())
}

// renameSteps is a whole successful rename with the real tools, as a fake
// model serves it: propose and validate, edit with the checks, decide and
// finish.
func renameSteps() []llmtest.Step {
	u := llm.Usage{Input: 2000, Output: 150}
	return []llmtest.Step{
		llmtest.Reply{Text: "Plan: rename the KEY_DAH labels and PINOUT.md.", Usage: u, ToolCalls: []llm.ToolCall{
			call("propose_change", `{"id":"rename-key-dah","why":"The dah net should read KEY_DASH.","what_changes":"- Rename KEY_DAH to KEY_DASH","tasks":["Rename the labels","Update PINOUT.md"],`+
				`"deltas":[{"capability":"connectivity","kind":"ADDED","requirements":[{"name":"Dash key net name","text":"The dah paddle input SHALL be carried on a net named KEY_DASH.",`+
				`"scenarios":[{"name":"Dah closed","when":"the dah paddle closes","then":"U1 pin 5 sees KEY_DASH low"}]}]}]}`),
			call("validate_change", `{}`)}},
		llmtest.Reply{Usage: u, ToolCalls: []llm.ToolCall{
			call("edit_file", `{"path":"hardware/open-telegraph.kicad_sch","old_string":"(global_label \"KEY_DAH\"","new_string":"(global_label \"KEY_DASH\"","replace_all":true}`),
			call("edit_file", `{"path":"docs/PINOUT.md","old_string":"KEY_DAH","new_string":"KEY_DASH","replace_all":true}`),
			call("run_erc", `{}`), call("check_drift", `{}`)}},
		llmtest.Reply{Usage: u, ToolCalls: []llm.ToolCall{
			call("record_decision", `{"decision":"KEY_DAH is renamed KEY_DASH","rationale":"the operator manual says dash"}`),
			call("finish", `{"outcome":"done","summary":"Renamed KEY_DAH to KEY_DASH; ERC clean, drift clean."}`)}},
	}
}

// TestDoDryRun: --dry-run runs to done, prints the diff, and writes nothing:
// no commit, no stash, a clean tree (AC-3.9).
func TestDoDryRun(t *testing.T) {
	if _, err := exec.LookPath("openspec"); err != nil {
		t.Skip("openspec not installed")
	}
	repo, _ := doRepo(t, renameSteps()...)
	head := gitOut(t, repo, "rev-parse", "HEAD")
	code, stdout, stderr := runCLI(t, "--repo", repo, "do", "rename net KEY_DAH to KEY_DASH", "--model", "compat:test-model", "--dry-run")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	testkit.ContainsAll(t, "stdout", stdout, `+	(global_label "KEY_DASH"`, "+| U1 | 5 | IO5 | KEY_DASH |", "docs/CHANGELOG.md", "done · verification passed · dry run: nothing written")
	if gitOut(t, repo, "rev-parse", "HEAD") != head || gitOut(t, repo, "status", "--porcelain") != "" || gitOut(t, repo, "stash", "list") != "" {
		t.Errorf("dry run wrote something")
	}
}

// TestDoRename: the done path commits once and prints the commit on the
// outcome line.
func TestDoRename(t *testing.T) {
	if _, err := exec.LookPath("openspec"); err != nil {
		t.Skip("openspec not installed")
	}
	repo, _ := doRepo(t, renameSteps()...)
	head := gitOut(t, repo, "rev-parse", "HEAD")
	code, stdout, stderr := runCLI(t, "--repo", repo, "do", "rename net KEY_DAH to KEY_DASH", "--model", "compat:test-model")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	commit := gitOut(t, repo, "rev-parse", "HEAD")
	if gitOut(t, repo, "rev-parse", "HEAD~1") != head || gitOut(t, repo, "status", "--porcelain") != "" {
		t.Errorf("not one clean commit")
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "done · verification passed · commit "+commit[:12]+" · ") {
		t.Errorf("outcome line %q", last)
	}
}
