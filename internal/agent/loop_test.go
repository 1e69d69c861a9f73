package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/gitrepo"
	"copperhead/internal/kicadcli"
	"copperhead/internal/llm"
	"copperhead/internal/project"
	"copperhead/internal/runmeta"
	"copperhead/internal/runs"
	"copperhead/internal/testkit"
	"copperhead/internal/tool"
	"copperhead/internal/tools"
	"copperhead/internal/tools/toolstest"
	"copperhead/internal/transcript"
)

// The loop tests run the real loop on a git copy of examples/open-telegraph
// with a scripted model: every path of AC-8.5 ends in a run-end event, a
// summary, and a tree that is either committed or byte-identical to before.

// scriptedModel is an llm.Provider that answers each Chat with the next step
// and keeps every request, so tests can assert on what the model was shown.
type scriptedModel struct {
	t     *testing.T
	mu    sync.Mutex
	steps []step
	reqs  []modelRequest
}

// step is one scripted answer: a turn, an error, or a function of the
// request (to block, or to look at it).
type step struct {
	turn *llm.Turn
	err  error
	fn   func(ctx context.Context) (*llm.Turn, error)
}

type modelRequest struct {
	msgs  []llm.Message
	tools []llm.Tool
	sys   string
}

func (m *scriptedModel) Name() string  { return "scripted" }
func (m *scriptedModel) Model() string { return "scripted-1" }

func (m *scriptedModel) Chat(ctx context.Context, msgs []llm.Message, tools []llm.Tool, opts llm.Options) (*llm.Turn, error) {
	m.mu.Lock()
	n := len(m.reqs)
	m.reqs = append(m.reqs, modelRequest{msgs: slices.Clone(msgs), tools: slices.Clone(tools), sys: opts.System})
	m.mu.Unlock()
	if n >= len(m.steps) {
		m.t.Errorf("model called %d times; the script has %d steps", n+1, len(m.steps))
		return nil, &llm.Error{Kind: llm.ErrBadRequest, Provider: "scripted", Message: "script exhausted"}
	}
	s := m.steps[n]
	switch {
	case s.fn != nil:
		return s.fn(ctx)
	case s.err != nil:
		return nil, s.err
	}
	t := *s.turn
	if t.Stop == "" {
		t.Stop = llm.StopEnd
		if len(t.ToolCalls) > 0 {
			t.Stop = llm.StopToolUse
		}
	}
	return &t, nil
}

func (m *scriptedModel) requests() []modelRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.reqs)
}

// reply is a model turn: optional text and tool calls written as name and
// JSON arguments pairs.
func reply(text string, calls ...string) step {
	t := &llm.Turn{Text: text, Usage: llm.Usage{Input: 1000, Output: 100}}
	for i := 0; i+1 < len(calls); i += 2 {
		t.ToolCalls = append(t.ToolCalls, llm.ToolCall{ID: fmt.Sprintf("call-%d", i/2), Name: calls[i], Args: json.RawMessage(calls[i+1])})
	}
	return step{turn: t}
}

// testTool is a tool for loop tests: it does exactly what run says, so each
// path of the loop can be driven without kicad-cli or openspec.
type testTool struct {
	name     string
	mutating bool
	run      func(s *tool.Session, args json.RawMessage) (tool.Result, error)
}

func (t testTool) Spec() llm.Tool {
	return llm.Tool{Name: t.name, Description: "test tool " + t.name, Schema: json.RawMessage(`{"type":"object"}`)}
}
func (t testTool) Mutating() bool { return t.mutating }
func (t testTool) Run(_ context.Context, s *tool.Session, args json.RawMessage) (tool.Result, error) {
	return t.run(s, args)
}

// testTools: touch writes notes/<name>.txt (a file the gates do not care
// about), fail_check counts a failed verification, approve marks the change
// validated, done and refuse finish the run without the real gates.
func testTools() []tool.Tool {
	return []tool.Tool{
		testTool{name: "touch", run: func(s *tool.Session, args json.RawMessage) (tool.Result, error) {
			var a struct{ Name string }
			_ = json.Unmarshal(args, &a)
			rel := "notes/" + cmpString(a.Name, "work") + ".txt"
			p := filepath.Join(s.Repo, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return tool.Result{}, err
			}
			old, _ := os.ReadFile(p)
			if err := os.WriteFile(p, append(old, "more work\n"...), 0o644); err != nil {
				return tool.Result{}, err
			}
			return tool.Result{Text: "wrote " + rel, Changed: []string{rel}}, nil
		}},
		testTool{name: "fail_check", run: func(s *tool.Session, _ json.RawMessage) (tool.Result, error) {
			s.RepairCycles++
			return tool.Result{Text: "ERC: 1 error: pin not connected", IsError: true}, nil
		}},
		testTool{name: "nest_repo", run: func(s *tool.Session, _ json.RawMessage) (tool.Result, error) {
			// An embedded repository with no commit: `git add -A` refuses
			// it with exit 128, the commit failure of AC-8.6.
			dir := filepath.Join(s.Repo, "vendored")
			if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
				return tool.Result{}, fmt.Errorf("git init: %v: %s", err, out)
			}
			return tool.Result{Text: "nested a repository"}, nil
		}},
		testTool{name: "decide", run: func(s *tool.Session, _ json.RawMessage) (tool.Result, error) {
			s.Decisions = append(s.Decisions, tool.Decision{Decision: "keep notes in notes/", Rationale: "the test says so", Affects: []string{"notes/work.txt"}})
			return tool.Result{Text: "recorded"}, nil
		}},
		testTool{name: "done", run: func(s *tool.Session, args json.RawMessage) (tool.Result, error) {
			// It stands in for a validated proposal: the commit needs one.
			s.Validated = true
			s.Finished = &tool.Finish{Outcome: tool.OutcomeDone, Summary: "wrote the notes"}
			return tool.Result{Text: "finished"}, nil
		}},
		testTool{name: "done_unproposed", run: func(s *tool.Session, args json.RawMessage) (tool.Result, error) {
			s.Finished = &tool.Finish{Outcome: tool.OutcomeDone, Summary: "wrote the notes"}
			return tool.Result{Text: "finished"}, nil
		}},
		testTool{name: "refuse", run: func(s *tool.Session, args json.RawMessage) (tool.Result, error) {
			s.Finished = &tool.Finish{Outcome: tool.OutcomeRefuse, Summary: "would break the budget"}
			return tool.Result{Text: "finished"}, nil
		}},
	}
}

func cmpString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fixtureRepo copies examples/open-telegraph into a temporary git repository
// with one commit.
func fixtureRepo(t *testing.T) string {
	t.Helper()
	dst := toolstest.CopyFixture(t)
	git(t, dst, "init", "-q", "-b", "main")
	git(t, dst, "add", "-A")
	git(t, dst, "commit", "-q", "-m", "fixture")
	return dst
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// offlineProbes keep the run-start metadata off the tools: a test run needs
// no kicad-cli or node version, only git's state.
var offlineProbes = runmeta.Probes{
	KicadCLIVersion: func(context.Context) (string, error) { return "", errors.New("offline") },
	NodeVersion:     func(context.Context) (string, error) { return "", errors.New("offline") },
	Executable:      func() (string, error) { return "", errors.New("offline") },
	Git:             gitrepo.Run,
}

// harness is one run under test.
type harness struct {
	t      *testing.T
	repo   string
	model  *scriptedModel
	in     RunInput
	rn     *runs.Run
	before map[string]string
	head   string
	events []runs.Event
}

func newHarness(t *testing.T, steps ...step) *harness {
	t.Helper()
	testkit.GitIdentity(t)
	repo := fixtureRepo(t)
	cfg, _, err := config.LoadConfig(repo)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, repo: repo, model: &scriptedModel{t: t, steps: steps}}
	rn, err := runs.Start(context.Background(), runs.Options{Repo: repo, Provider: h.model, MaxTurns: 10, Probes: &offlineProbes,
		Meta: runmeta.Input{Command: "do", Request: "test request", Config: cfg}})
	if err != nil {
		t.Fatal(err)
	}
	rn.RepairBudget = 5
	rn.Subscribe(func(e runs.Event) { h.events = append(h.events, e) })
	h.rn = rn
	h.in = RunInput{
		Repo: repo, Config: cfg, Request: "test request",
		Tools: append(tools.All(), testTools()...),
	}
	if h.before, err = gitrepo.TreeHashes(context.Background(), repo); err != nil {
		t.Fatal(err)
	}
	h.head = git(t, repo, "rev-parse", "HEAD")
	return h
}

func (h *harness) run() *runs.Outcome {
	h.t.Helper()
	out, err := Run(context.Background(), h.rn, h.in)
	if err != nil {
		h.t.Fatalf("Run: %v", err)
	}
	if n := len(h.model.requests()); n != len(h.model.steps) {
		h.t.Errorf("model called %d times, script has %d steps", n, len(h.model.steps))
	}
	h.checkRecord(out)
	return out
}

// runTo runs the harness and fails the test unless the run ended by the
// exit path want.
func (h *harness) runTo(want transcript.ExitPath) *runs.Outcome {
	h.t.Helper()
	out := h.run()
	if out.ExitPath != want {
		h.t.Fatalf("exit path %s (%s), want %s", out.ExitPath, out.Error, want)
	}
	return out
}

// checkRecord asserts what every path must leave (AC-8.5): run-start first,
// run-end last with the outcome's exit path, one tool event per call, and a
// summary.md with the run stats.
func (h *harness) checkRecord(out *runs.Outcome) {
	t := h.t
	t.Helper()
	if !out.ExitPath.Valid() {
		t.Errorf("exit path %q is not one of AC-8.5's", out.ExitPath)
	}
	evs, err := transcript.Read(filepath.Join(h.repo, out.RunDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) < 2 || evs[0].Type != transcript.TypeRunStart || evs[len(evs)-1].Type != transcript.TypeRunEnd {
		t.Fatalf("transcript does not run from run-start to run-end: %v", eventTypes(evs))
	}
	var end transcript.RunEnd
	if err := evs[len(evs)-1].Decode(&end); err != nil {
		t.Fatal(err)
	}
	if end.ExitPath != out.ExitPath || end.TurnsUsed != out.Turns || end.TurnBudget != out.TurnBudget ||
		end.RepairCyclesUsed != out.RepairCycles || len(end.PerTurn) != out.Turns || end.Tokens.Input != out.Tokens.Input {
		t.Errorf("run-end %+v disagrees with outcome %+v", end, out)
	}
	chats, calls, tools := 0, 0, 0
	for _, e := range evs {
		switch e.Type {
		case llm.ChatEventType:
			chats++
			var ce llm.ChatEvent
			if err := e.Decode(&ce); err != nil {
				t.Fatal(err)
			}
			if ce.Turn != nil {
				calls += len(ce.Turn.ToolCalls)
			}
		case transcript.TypeTool:
			tools++
		}
	}
	if chats != out.Turns {
		t.Errorf("%d chat events for %d turns", chats, out.Turns)
	}
	if tools != calls {
		t.Errorf("%d tool events for %d tool calls", tools, calls)
	}
	sum, err := os.ReadFile(filepath.Join(h.repo, out.RunDir, transcript.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	// A run that ended deleted its way back: a ref left would read as an
	// interrupted run (issue #13 item 6).
	if refs := git(t, h.repo, "for-each-ref", gitrepo.RunRefPrefix); refs != "" {
		t.Errorf("the run ended (%s) and left its ref:\n%s", out.ExitPath, refs)
	}
	for _, want := range []string{"## Run stats", "| Exit path | `" + string(out.ExitPath) + "` |", "## Open obligations"} {
		if !bytes.Contains(sum, []byte(want)) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
}

func eventTypes(evs []transcript.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// assertRestored checks the tree is byte-identical to before the run, HEAD
// included.
func (h *harness) assertRestored() {
	h.t.Helper()
	now, err := gitrepo.TreeHashes(context.Background(), h.repo)
	if err != nil {
		h.t.Fatal(err)
	}
	if !maps.Equal(now, h.before) {
		h.t.Errorf("tree differs from before the run")
	}
	if head := git(h.t, h.repo, "rev-parse", "HEAD"); head != h.head {
		h.t.Errorf("HEAD moved from %s to %s", h.head, head)
	}
	if st := git(h.t, h.repo, "status", "--porcelain"); st != "" {
		h.t.Errorf("git status not clean:\n%s", st)
	}
}

func (h *harness) stashes() string { return git(h.t, h.repo, "stash", "list") }

// assertNoStash checks the run (what names it) left no stash entry.
func (h *harness) assertNoStash(what string) {
	h.t.Helper()
	if s := h.stashes(); s != "" {
		h.t.Errorf("%s left a stash: %s", what, s)
	}
}

// assertStashed checks a failed run's work is in its named stash entry.
func (h *harness) assertStashed(out *runs.Outcome) {
	h.t.Helper()
	if out.StashRef == "" {
		h.t.Fatalf("no stash ref for a failed run that touched files")
	}
	if l := h.stashes(); !strings.Contains(l, "copperhead failed run "+h.rn.ID) {
		h.t.Errorf("stash list lacks the run's entry:\n%s", l)
	}
}

func toolNames(ts []llm.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// TestRefusal: finish(refuse) through the real finish tool ends the run as
// refused with nothing changed; before validation the tool list lacks every
// edit tool (invariant 1) and is byte-identical from turn to turn.
func TestRefusal(t *testing.T) {
	h := newHarness(t,
		reply("The pullup would leak 33 uA against the 25 uA budget.", "read_file", `{"path":"docs/SPEC.md"}`),
		reply("", "finish", `{"outcome":"refuse","summary":"A 100k pullup on KEY_DAH leaks about 33 uA; SPEC.md budgets 25 uA in sleep."}`),
	)
	h.in.Tools = nil // the real tool set
	out := h.runTo(transcript.ExitRefused)
	if !out.OK() || out.Commit != "" || out.StashRef != "" {
		t.Errorf("refusal: ok %v commit %q stash %q", out.OK(), out.Commit, out.StashRef)
	}
	if !strings.Contains(out.Summary, "25 uA") {
		t.Errorf("summary %q does not carry the refusal", out.Summary)
	}
	h.assertRestored()
	h.assertNoStash("a refusal that changed nothing")

	reqs := h.model.requests()
	for i, r := range reqs {
		names := toolNames(r.tools)
		for _, locked := range []string{"edit_file", "write_file"} {
			if slices.Contains(names, locked) {
				t.Errorf("turn %d: %s offered before the proposal validated", i+1, locked)
			}
		}
		if !slices.Contains(names, "propose_change") || !slices.Contains(names, "finish") {
			t.Errorf("turn %d: tool list %v lacks propose_change or finish", i+1, names)
		}
	}
	a, _ := json.Marshal(reqs[0].tools)
	b, _ := json.Marshal(reqs[1].tools)
	if !bytes.Equal(a, b) {
		t.Errorf("tool list bytes changed between turns with the same session state")
	}
	if reqs[0].sys != reqs[1].sys {
		t.Errorf("system prompt changed between turns")
	}
}

// TestStall: three consecutive replies without a tool call end the run as
// stalled; each is nudged first.
func TestStall(t *testing.T) {
	h := newHarness(t, reply("thinking"), reply("still thinking"), reply("more thinking"))
	out := h.runTo(transcript.ExitStalled)
	if out.OK() || out.StashRef != "" {
		t.Errorf("stall: ok %v stash %q", out.OK(), out.StashRef)
	}
	reqs := h.model.requests()
	last := reqs[1].msgs[len(reqs[1].msgs)-1]
	if last.Role != llm.RoleUser || !strings.Contains(last.Text, "called no tool") {
		t.Errorf("turn 2 was not nudged: %+v", last)
	}
	h.assertRestored()
}

// TestStallCounterResets: only consecutive tool-less replies count
// (AC-15.27).
func TestStallCounterResets(t *testing.T) {
	h := newHarness(t,
		reply("hmm"), reply("hmm"),
		reply("", "touch", `{}`),
		reply("hmm"), reply("hmm"),
		reply("", "done", `{}`),
	)
	h.runTo(transcript.ExitDone)
}

// TestTurnBudgetExhausted: without Extend, running out of turns fails, keeps
// the work in a stash and restores the tree byte for byte; the model was told
// to batch when few turns were left.
func TestTurnBudgetExhausted(t *testing.T) {
	h := newHarness(t,
		reply("", "touch", `{}`),
		reply("", "touch", `{"Name":"b"}`),
		reply("", "touch", `{}`),
	)
	h.rn.TurnBudget = 3
	out := h.runTo(transcript.ExitTurnBudgetExhausted)
	if out.Turns != 3 || out.TurnBudget != 3 {
		t.Errorf("turns %d/%d, want 3/3", out.Turns, out.TurnBudget)
	}
	h.assertStashed(out)
	h.assertRestored()
	nudges := 0
	for _, r := range h.model.requests() {
		for _, m := range r.msgs {
			if strings.Contains(m.Text, "multiple tool calls per response") {
				nudges++
			}
		}
	}
	if nudges == 0 {
		t.Errorf("no budget nudge with batching guidance reached the model")
	}
}

// TestExtendThenSuccess: at the budget, Extend sees the cost so far and
// grants turns; the conversation continues, a budget-extended event is
// recorded, and the run commits.
func TestExtendThenSuccess(t *testing.T) {
	h := newHarness(t,
		reply("", "touch", `{}`),
		reply("", "touch", `{}`),
		reply("", "decide", `{}`),
		reply("", "done", `{}`),
	)
	h.rn.TurnBudget = 2
	var seen []BudgetStats
	h.in.Extend = func(st BudgetStats) int {
		seen = append(seen, st)
		return 2
	}
	out := h.runTo(transcript.ExitDone)
	if len(seen) != 1 || seen[0].TurnsUsed != 2 || seen[0].TurnBudget != 2 ||
		!slices.Equal(seen[0].FilesTouched, []string{"notes/work.txt"}) || seen[0].Tokens.Input != 2000 {
		t.Errorf("Extend saw %+v", seen)
	}
	if out.TurnBudget != 4 || out.Turns != 4 {
		t.Errorf("turns %d/%d, want 4/4", out.Turns, out.TurnBudget)
	}
	evs, _ := transcript.Read(filepath.Join(h.repo, out.RunDir))
	if !slices.Contains(eventTypes(evs), EventBudgetExtended) {
		t.Errorf("no budget-extended event: %v", eventTypes(evs))
	}
	h.assertCommitted(out)
}

// assertCommitted checks a done run made exactly one commit holding the work
// and the doc entries, and left the tree clean.
func (h *harness) assertCommitted(out *runs.Outcome) {
	h.t.Helper()
	if out.Commit == "" {
		h.t.Fatalf("no commit")
	}
	if got := git(h.t, h.repo, "rev-parse", "HEAD"); got != out.Commit {
		h.t.Errorf("HEAD %s, outcome commit %s", got, out.Commit)
	}
	if parent := git(h.t, h.repo, "rev-parse", "HEAD~1"); parent != h.head {
		h.t.Errorf("not exactly one commit on top of the fixture")
	}
	if st := git(h.t, h.repo, "status", "--porcelain"); st != "" {
		h.t.Errorf("tree not clean after commit:\n%s", st)
	}
	files := git(h.t, h.repo, "show", "--name-only", "--format=", "HEAD")
	for _, want := range []string{"notes/work.txt", "docs/CHANGELOG.md"} {
		if !strings.Contains(files, want) {
			h.t.Errorf("commit lacks %s:\n%s", want, files)
		}
	}
	msg := git(h.t, h.repo, "log", "-1", "--format=%B")
	if !strings.Contains(msg, h.in.Request) {
		h.t.Errorf("commit message lacks the request:\n%s", msg)
	}
	cl, _ := os.ReadFile(filepath.Join(h.repo, "docs", "CHANGELOG.md"))
	if !strings.Contains(string(cl), h.in.Request) {
		h.t.Errorf("CHANGELOG.md has no entry for the request:\n%s", cl)
	}
}

// TestDecisionsWritten: decisions reach DECISIONS.md in the commit.
func TestDecisionsWritten(t *testing.T) {
	h := newHarness(t, reply("", "touch", `{}`, "decide", `{}`, "done", `{}`))
	out := h.runTo(transcript.ExitDone)
	h.assertCommitted(out)
	d, _ := os.ReadFile(filepath.Join(h.repo, "docs", "DECISIONS.md"))
	if !strings.Contains(string(d), "keep notes in notes/") || !strings.Contains(string(d), "the test says so") {
		t.Errorf("DECISIONS.md lacks the decision:\n%s", d)
	}
}

// TestProviderError: a provider failure ends the run, keeps the work, and
// restores the tree.
func TestProviderError(t *testing.T) {
	h := newHarness(t,
		reply("", "touch", `{}`),
		step{err: &llm.Error{Kind: llm.ErrAuth, Provider: "scripted", Status: 401, Message: "invalid x-api-key", Hint: "check ANTHROPIC_API_KEY"}},
	)
	out := h.runTo(transcript.ExitProviderError)
	if !strings.Contains(out.Error, "invalid x-api-key") || !strings.Contains(out.Error, "check ANTHROPIC_API_KEY") {
		t.Errorf("error %q lacks the provider's words or hint", out.Error)
	}
	// The CLI decides the exit code by the error's kind.
	var pe *llm.Error
	if !errors.As(out.Err, &pe) || pe.Kind != llm.ErrAuth {
		t.Errorf("outcome Err = %v, want the provider's *llm.Error", out.Err)
	}
	h.assertStashed(out)
	h.assertRestored()
}

// TestInterrupted: Ctrl-C while the model thinks ends the run as
// interrupted (the user's act, not a provider error), keeps the work and
// restores the tree.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := newHarness(t,
		reply("", "touch", `{}`),
		step{fn: func(c context.Context) (*llm.Turn, error) {
			cancel()
			<-c.Done()
			return nil, c.Err()
		}},
	)
	out, err := Run(ctx, h.rn, h.in)
	if err != nil {
		t.Fatal(err)
	}
	h.checkRecord(out)
	if out.ExitPath != transcript.ExitInterrupted || !strings.HasPrefix(out.Error, "interrupted: ") {
		t.Fatalf("exit path %s error %q, want interrupted", out.ExitPath, out.Error)
	}
	if out.StashRef == "" {
		t.Fatalf("no stash ref for an interrupted run that touched files")
	}
	if l := h.stashes(); !strings.Contains(l, "copperhead interrupted run "+h.rn.ID) {
		t.Errorf("stash list %q, want the interrupted run's entry", l)
	}
	h.assertRestored()
}

// TestWatchdog: a model call that hangs past the per-turn watchdog ends the
// run as a provider error.
func TestWatchdog(t *testing.T) {
	h := newHarness(t, step{fn: func(ctx context.Context) (*llm.Turn, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	h.in.TurnTimeout = 50 * time.Millisecond
	out := h.run()
	if out.ExitPath != transcript.ExitProviderError || !strings.Contains(out.Error, "watchdog") {
		t.Fatalf("exit path %s error %q, want a provider-error naming the watchdog", out.ExitPath, out.Error)
	}
	h.assertRestored()
}

// TestRepairCyclesExhausted: failed verifications beyond the budget end the
// run; the tree comes back byte-identical with the work in a stash (AC-3.6).
func TestRepairCyclesExhausted(t *testing.T) {
	h := newHarness(t,
		reply("", "touch", `{}`, "fail_check", `{}`),
		reply("", "touch", `{}`, "fail_check", `{}`),
		reply("", "touch", `{}`, "fail_check", `{}`, "touch", `{"Name":"late"}`),
	)
	h.rn.RepairBudget = 2
	out := h.runTo(transcript.ExitRepairCyclesExhausted)
	if out.RepairCycles != 3 || out.RepairBudget != 2 {
		t.Errorf("repair cycles %d/%d, want 3/2", out.RepairCycles, out.RepairBudget)
	}
	if _, err := os.Stat(filepath.Join(h.repo, "notes")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("notes/ survived the rollback")
	}
	h.assertStashed(out)
	h.assertRestored()
	// The call after the budget ran out was answered, not run.
	stash := git(t, h.repo, "stash", "show", "--include-untracked", "--name-only", "stash@{0}")
	if strings.Contains(stash, "late") {
		t.Errorf("a call after the repair budget ran out still ran:\n%s", stash)
	}
}

// TestCommitFailed: when the end-of-run commit fails (an embedded repository
// makes git add -A exit 128), the run ends commit-failed, restores the tree,
// keeps the work, and the summary names git's error (AC-8.6).
func TestCommitFailed(t *testing.T) {
	h := newHarness(t, reply("", "touch", `{}`, "nest_repo", `{}`, "done", `{}`))
	out := h.runTo(transcript.ExitCommitFailed)
	if out.Commit != "" || !strings.Contains(out.Error, "git") {
		t.Errorf("commit %q error %q", out.Commit, out.Error)
	}
	sum, _ := os.ReadFile(filepath.Join(h.repo, out.RunDir, transcript.SummaryFile))
	if !strings.Contains(string(sum), "### Error") || !strings.Contains(string(sum), "git") {
		t.Errorf("summary.md does not name the git error:\n%s", sum)
	}
	h.assertStashed(out)
	if head := git(t, h.repo, "rev-parse", "HEAD"); head != h.head {
		t.Errorf("HEAD moved after a failed commit")
	}
	if _, err := os.Stat(filepath.Join(h.repo, "notes")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("notes/ survived the rollback")
	}
}

// TestNoChange: a run that finishes as done having changed nothing (a
// decision only) ends no-change: no commit, no stash, no DECISIONS.md or
// CHANGELOG.md entry, the tree as before.
func TestNoChange(t *testing.T) {
	for _, dry := range []bool{false, true} {
		h := newHarness(t, reply("", "decide", `{}`), reply("", "done", `{}`))
		h.in.DryRun = dry
		out := h.run()
		if out.ExitPath != transcript.ExitNoChange || !strings.Contains(out.Error, "no change") {
			t.Fatalf("dry run %v: exit path %s (%s), want no-change", dry, out.ExitPath, out.Error)
		}
		if out.OK() {
			t.Errorf("no-change counts as OK")
		}
		if out.Commit != "" || out.StashRef != "" {
			t.Errorf("committed %q or stashed %q", out.Commit, out.StashRef)
		}
		h.assertRestored()
		h.assertNoStash("a run that changed nothing")
	}
}

// TestNoCommitWithoutProposal: changed files but no validated proposal (a
// finish that got past the gate) are not committed: the work is stashed and
// the tree restored.
func TestNoCommitWithoutProposal(t *testing.T) {
	h := newHarness(t, reply("", "touch", `{}`), reply("", "done_unproposed", `{}`))
	out := h.run()
	if out.ExitPath != transcript.ExitCommitFailed || !strings.Contains(out.Error, "no validated OpenSpec proposal") {
		t.Fatalf("exit path %s (%s), want commit-failed for no proposal", out.ExitPath, out.Error)
	}
	if out.Commit != "" {
		t.Errorf("committed %s", out.Commit)
	}
	h.assertStashed(out)
	h.assertRestored()
}

// TestDryRun: a dry run reaches done and returns the diff, having run on a
// scratch copy outside the repository: while it runs the user's tree is
// untouched (an edit goes to the copy), at the end there is no commit, no
// stash and no copy, and with AllowDirty the copy held the uncommitted work
// and the diff is relative to it (AC-3.9). A failed dry run keeps nothing.
func TestDryRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dirty bool
		steps []step
		exit  transcript.ExitPath
	}{
		{"done", false, []step{reply("", "peek", `{}`, "touch", `{}`, "peek", `{}`, "done", `{}`)}, transcript.ExitDone},
		{"done on a dirty tree", true, []step{reply("", "peek", `{}`, "touch", `{}`, "peek", `{}`, "done", `{}`)}, transcript.ExitDone},
		{"failed", true, []step{reply("", "touch", `{}`, "peek", `{}`), reply("", "fail_check", `{}`, "refuse", `{}`)}, transcript.ExitRefused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir())
			h := newHarness(t, tc.steps...)
			if tc.dirty {
				// Mine: an unstaged edit of a file the run appends to, and
				// an untracked file.
				os.MkdirAll(filepath.Join(h.repo, "notes"), 0o755)
				os.WriteFile(filepath.Join(h.repo, "notes", "work.txt"), []byte("my own line\n"), 0o644)
				os.WriteFile(filepath.Join(h.repo, "mine.txt"), []byte("mine\n"), 0o600)
				var err error
				if h.before, err = gitrepo.TreeHashes(context.Background(), h.repo); err != nil {
					t.Fatal(err)
				}
				h.in.AllowDirty = true
			}
			status := git(t, h.repo, "status", "--porcelain")
			var roots []string
			h.in.Tools = append(h.in.Tools, testTool{name: "peek", run: func(s *tool.Session, _ json.RawMessage) (tool.Result, error) {
				roots = append(roots, s.Repo)
				now, err := gitrepo.TreeHashes(context.Background(), h.repo)
				if err != nil {
					return tool.Result{}, err
				}
				var changed []string
				for p := range maps.Keys(now) {
					if now[p] != h.before[p] {
						changed = append(changed, p)
					}
				}
				for p := range maps.Keys(h.before) {
					if _, ok := now[p]; !ok {
						changed = append(changed, p+" (gone)")
					}
				}
				if len(changed) > 0 {
					t.Errorf("during the dry run the user's tree changed: %v", changed)
				}
				if _, err := os.Stat(filepath.Join(s.Repo, "mine.txt")); (err == nil) != tc.dirty {
					t.Errorf("the copy has mine.txt: %v, want %v", err == nil, tc.dirty)
				}
				return tool.Result{Text: "looked"}, nil
			}})
			h.in.DryRun = true
			out := h.runTo(tc.exit)
			if out.Commit != "" || out.StashRef != "" {
				t.Errorf("dry run committed %q or stashed %q", out.Commit, out.StashRef)
			}
			if len(roots) == 0 || roots[0] == h.repo || strings.HasPrefix(roots[0], h.repo+string(filepath.Separator)) {
				t.Fatalf("the tools ran in %v, want a scratch copy outside %s", roots, h.repo)
			}
			if _, err := os.Stat(roots[0]); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the scratch copy %s is still there: %v", roots[0], err)
			}
			if wts := git(t, h.repo, "worktree", "list"); strings.Count(wts, "\n") != 0 {
				t.Errorf("worktrees left:\n%s", wts)
			}
			if filepath.Join(h.repo, out.RunDir) != filepath.Join(h.repo, ".copperhead", "runs", h.rn.ID) {
				t.Errorf("run record at %s, want it in the user's repository", out.RunDir)
			}
			if tc.exit == transcript.ExitDone {
				if !strings.Contains(out.Diff, "notes/work.txt") || !strings.Contains(out.Diff, "+more work") {
					t.Errorf("diff lacks the change:\n%s", out.Diff)
				}
				if tc.dirty && (strings.Contains(out.Diff, "+my own line") || strings.Contains(out.Diff, "mine.txt")) {
					t.Errorf("the diff is not relative to the uncommitted state:\n%s", out.Diff)
				}
			} else if out.Diff != "" {
				t.Errorf("a failed dry run has a diff:\n%s", out.Diff)
			}
			now, err := gitrepo.TreeHashes(context.Background(), h.repo)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(now, h.before) {
				t.Errorf("the user's tree differs after the dry run")
			}
			if st := git(t, h.repo, "status", "--porcelain"); st != status {
				t.Errorf("git status %q, was %q", st, status)
			}
			if head := git(t, h.repo, "rev-parse", "HEAD"); head != h.head {
				t.Errorf("HEAD moved")
			}
			h.assertNoStash("dry run")
		})
	}
}

// TestFinishEndsTheBatch: calls after an accepted finish are answered
// without running.
func TestFinishEndsTheBatch(t *testing.T) {
	h := newHarness(t, reply("", "refuse", `{}`, "touch", `{}`))
	h.runTo(transcript.ExitRefused)
	h.assertRestored()
	h.assertNoStash("a call after finish (it ran)")
}

// TestProgressEvents: the run's watchers hear of each turn, reply and tool
// call with cumulative tokens, of the files a call changed, and last of the
// outcome.
func TestProgressEvents(t *testing.T) {
	h := newHarness(t, reply("plan: write notes", "touch", `{}`), reply("", "refuse", `{}`))
	out := h.run()
	var kinds []string
	for _, e := range h.events {
		kinds = append(kinds, string(e.Kind))
	}
	want := []string{"turn", "reply", "tool", "files", "turn", "reply", "tool"}
	if !slices.Equal(kinds[:len(want)], want) {
		t.Errorf("events %v, want to start with %v", kinds, want)
	}
	if f := h.events[3]; len(f.Files) == 0 || f.Tool != "touch" {
		t.Errorf("files event %+v: want the file touch wrote", f)
	}
	second := h.events[5]
	if second.Turn != 2 || second.Budget != 10 || second.Tokens.Input != 2000 || second.Tokens.Output != 200 {
		t.Errorf("second reply event %+v: want turn 2/10 with 2000 in / 200 out", second)
	}
	if end := h.events[len(h.events)-1]; end.Kind != runs.EventEnd || end.Outcome != out {
		t.Errorf("last event %+v: want the end with the run's outcome", end)
	}
}

// TestDirtyTreeRefused: without AllowDirty the run does not start.
func TestDirtyTreeRefused(t *testing.T) {
	h := newHarness(t)
	os.WriteFile(filepath.Join(h.repo, "scratch.txt"), []byte("mine"), 0o644)
	_, err := Run(context.Background(), h.rn, h.in)
	var dirty *gitrepo.DirtyError
	if !errors.As(err, &dirty) {
		t.Fatalf("Run on a dirty tree: %v, want a *gitrepo.DirtyError", err)
	}
	evs, _ := transcript.Read(h.rn.Dir)
	if len(evs) != 0 {
		t.Errorf("a refused start recorded events: %v", eventTypes(evs))
	}
}

// TestSystemPrompt: the §4.3 rules appear as written (testdata/loop_rules.txt
// is copied from the spec), with the workflow, the batching guidance
// (AC-15.5), the budgets, the registry, the KiCad files and every doc whole;
// building it twice yields the same bytes.
func TestSystemPrompt(t *testing.T) {
	repo := fixtureRepo(t)
	cfg, _, err := config.LoadConfig(repo)
	if err != nil {
		t.Fatal(err)
	}
	in := PromptInput{Repo: repo, Config: cfg, RunID: "01TESTRUN", MaxTurns: 12, MaxRepairCycles: 4}
	sys, err := SystemPrompt(in)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := SystemPrompt(in)
	if sys != again {
		t.Errorf("system prompt is not deterministic")
	}
	rules, err := os.ReadFile("testdata/loop_rules.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range strings.Split(strings.TrimSpace(string(rules)), "\n") {
		if !strings.Contains(sys, rule+"\n") {
			t.Errorf("system prompt lacks the rule verbatim: %s", rule)
		}
	}
	spec, _ := os.ReadFile(filepath.Join(repo, "docs", "SPEC.md"))
	want := []string{
		"propose_change", "validate_change", "run_erc", "check_drift", "record_decision", "finish",
		"multiple independent tool calls in a single response",
		"`sleep_current_uA`: 25",
		`"pins.strapping"`,
		"- `hardware/open-telegraph.kicad_sch`", "- `hardware/power.kicad_sch`", "- `hardware/open-telegraph.kicad_pcb`",
		"### docs/BOM.md", "### docs/PINOUT.md", "### docs/SPEC.md",
		strings.TrimRight(string(spec), "\n"),
		"You have 12 turns", "At most 4 failing runs",
	}
	for _, w := range want {
		if !strings.Contains(sys, w) {
			t.Errorf("system prompt lacks %q", w)
		}
	}
	// The workflow in the spec's order, one numbered step each.
	last := -1
	for _, step := range []string{"3. **`propose_change`.**", "4. **`validate_change`.**", "5. **Edit.**",
		"6. **`run_erc` / `run_drc`.**", "7. **`check_drift`.**", "8. **`record_decision`.**", "9. **`finish`.**"} {
		i := strings.Index(sys, step)
		if i <= last {
			t.Errorf("workflow step %s missing or out of order", step)
		}
		last = i
	}
}

// TestNudgePrompts: every nudge renders and the budget nudge carries the
// batching guidance (AC-15.6).
func TestNudgePrompts(t *testing.T) {
	b := mustPrompt("nudge_budget.md", struct{ TurnsLeft, Budget int }{5, 40})
	if !strings.Contains(b, "5 turns left of 40") || !strings.Contains(b, "multiple tool calls per response") {
		t.Errorf("budget nudge: %s", b)
	}
	if s := mustPrompt("nudge_stall.md", struct{ Left int }{2}); !strings.Contains(s, "2 more replies") {
		t.Errorf("stall nudge: %s", s)
	}
	if s := mustPrompt("nudge_extended.md", struct{ Extra, Budget, TurnsLeft int }{10, 50, 10}); !strings.Contains(s, "10 more turns") {
		t.Errorf("extension note: %s", s)
	}
	if s := mustPrompt("request.md", struct{ Request string }{"rename net KEY_DAH to KEY_DASH"}); !strings.Contains(s, "rename net KEY_DAH to KEY_DASH") {
		t.Errorf("request: %s", s)
	}
}

// renameScript is a whole successful run on the fixture with the real tools
// (AC-3.1 shape): propose and validate in one reply, the edits with the
// checks in the next, then the decision and finish. The lead's end-to-end
// scripts follow the same sequence.
func renameScript() []step {
	propose := `{"id":"rename-key-dah","why":"The dah paddle net should read KEY_DASH, matching the operator manual.",` +
		`"what_changes":"- Rename net KEY_DAH to KEY_DASH in the schematic\n- Update PINOUT.md",` +
		`"tasks":["Rename the global labels","Update PINOUT.md","Run ERC and the drift check"],` +
		`"deltas":[{"capability":"connectivity","kind":"ADDED","requirements":[{"name":"Dash key net name",` +
		`"text":"The dah paddle input SHALL be carried on a net named KEY_DASH.",` +
		`"scenarios":[{"name":"Dah paddle closed","when":"the dah paddle closes","then":"U1 pin 5 sees KEY_DASH pulled low"}]}]}]}`
	return []step{
		reply("Plan: rename the KEY_DAH global labels to KEY_DASH and update PINOUT.md; no budget is at risk.",
			"propose_change", propose, "validate_change", `{}`),
		reply("",
			"edit_file", `{"path":"hardware/open-telegraph.kicad_sch","old_string":"(global_label \"KEY_DAH\"","new_string":"(global_label \"KEY_DASH\"","replace_all":true}`,
			"edit_file", `{"path":"docs/PINOUT.md","old_string":"| U1 | 5 | IO5 | KEY_DAH |","new_string":"| U1 | 5 | IO5 | KEY_DASH |"}`,
			"edit_file", `{"path":"docs/PINOUT.md","old_string":"pin 5 IO5 (KEY_DAH)","new_string":"pin 5 IO5 (KEY_DASH)"}`,
			"run_erc", `{}`,
			"check_drift", `{}`),
		reply("",
			"record_decision", `{"decision":"KEY_DAH is renamed KEY_DASH","rationale":"matches the operator manual's wording","affects":["KEY_DASH","U1","docs/PINOUT.md"]}`,
			"finish", `{"outcome":"done","summary":"Renamed net KEY_DAH to KEY_DASH in the schematic and PINOUT.md; ERC clean, drift clean."}`),
	}
}

// TestRenameEndToEnd: the done path with every real gate: the proposal
// validates with openspec, the edit unlocks, ERC and drift pass, finish is
// accepted, and one commit holds the edits, the archived change, the
// DECISIONS.md and CHANGELOG.md entries.
func TestRenameEndToEnd(t *testing.T) {
	for _, bin := range []string{"kicad-cli", "openspec"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s not installed", bin)
		}
	}
	h := newHarness(t, renameScript()...)
	h.in.Tools = nil
	kc, err := kicadcli.Find(context.Background())
	if err != nil {
		t.Skip(err)
	}
	h.in.KiCad = kc
	if h.in.Project, err = project.Locate(h.repo, "", h.in.Config.Schematic, h.in.Config.Board); err != nil {
		t.Fatal(err)
	}
	out := h.run()
	if out.ExitPath != transcript.ExitDone {
		for _, r := range h.model.requests()[1:] {
			for _, tr := range r.msgs[len(r.msgs)-1].ToolResults {
				t.Logf("tool result: %s", tr.Content)
			}
		}
		t.Fatalf("exit path %s (%s), want done", out.ExitPath, out.Error)
	}
	if out.ChangeID != "rename-key-dah" || out.Verification.Status != transcript.VerifyPassed {
		t.Errorf("change %q verification %+v", out.ChangeID, out.Verification)
	}
	// The watchers heard the ERC as a verification result, and the edits
	// as changed files.
	var verified, written []string
	for _, e := range h.events {
		switch e.Kind {
		case runs.EventVerify:
			if !e.IsError {
				verified = append(verified, e.Tool)
			}
		case runs.EventFiles:
			written = append(written, e.Files...)
		}
	}
	if !slices.Equal(verified, []string{"run_erc"}) || !slices.Contains(written, "hardware/open-telegraph.kicad_sch") {
		t.Errorf("verify events %v, file events %v", verified, written)
	}
	// Tool list: no edit tools until validation, then they are offered.
	reqs := h.model.requests()
	if slices.Contains(toolNames(reqs[0].tools), "edit_file") || !slices.Contains(toolNames(reqs[1].tools), "edit_file") {
		t.Errorf("edit_file offered %v before / %v after validation", toolNames(reqs[0].tools), toolNames(reqs[1].tools))
	}
	if parent := git(t, h.repo, "rev-parse", "HEAD~1"); parent != h.head || git(t, h.repo, "rev-parse", "HEAD") != out.Commit {
		t.Errorf("not exactly one commit on top of the fixture")
	}
	if st := git(t, h.repo, "status", "--porcelain"); st != "" {
		t.Errorf("tree not clean after the commit:\n%s", st)
	}
	files := git(t, h.repo, "show", "--name-only", "--format=", "HEAD")
	for _, want := range []string{"hardware/open-telegraph.kicad_sch", "docs/PINOUT.md", "docs/DECISIONS.md", "docs/CHANGELOG.md", "openspec/changes/archive/"} {
		if !strings.Contains(files, want) {
			t.Errorf("commit lacks %s:\n%s", want, files)
		}
	}
	if _, err := os.Stat(filepath.Join(h.repo, "openspec", "changes", "rename-key-dah")); err == nil {
		t.Errorf("the change was not archived")
	}
	msg := git(t, h.repo, "log", "-1", "--format=%B")
	if !strings.HasPrefix(msg, "copperhead: test request") || !strings.Contains(msg, "Verification: ERC passed") {
		t.Errorf("commit message:\n%s", msg)
	}
}

// TestResultLine: the line a person watching the run reads says what a
// call changed (its first detail, how many more, the files written), not
// only the result's first line.
func TestResultLine(t *testing.T) {
	cases := []struct {
		name string
		res  tool.Result
		want string
	}{
		{"one line", tool.Result{Text: "ERC on x.kicad_sch: clean"}, "ERC on x.kicad_sch: clean"},
		{"prose below", tool.Result{Text: "change c validates.\nUnlocked: edit_file"}, "change c validates. …"},
		{"edit", tool.Result{Text: "set-field R7 Value 1M:\n- R7 Value \"10k\" -> \"1M\"\n- docs/BOM.md row R7\nchanged: hardware/a.kicad_sch, docs/BOM.md",
			Changed: []string{"hardware/a.kicad_sch", "docs/BOM.md"}},
			`set-field R7 Value 1M: R7 Value "10k" -> "1M" (+1 more) · 2 files written: a.kicad_sch, BOM.md`},
		{"file list is the detail", tool.Result{Text: "wrote change c:\n- openspec/changes/c/proposal.md\nNext: call validate_change.",
			Changed: []string{"openspec/changes/c/proposal.md"}}, "wrote change c · 1 file written: proposal.md"},
		{"error", tool.Result{Text: "rename_net refused, nothing changed: /A is a bus member", IsError: true}, "rename_net refused, nothing changed: /A is a bus member"},
		{"empty", tool.Result{}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := resultLine(c.res); got != c.want {
				t.Errorf("resultLine = %q\nwant          %q", got, c.want)
			}
		})
	}
}

// TestRunRefLifetime: the run's snapshot is referenced as
// refs/copperhead/runs/<run-id> before turn 1 (the model's first call
// already sees it, with the run-start on disk), and a refusal that changed
// files keeps them as "copperhead refused run <run-id>", not "failed".
func TestRunRefLifetime(t *testing.T) {
	var atTurn1, startOnDisk string
	h := newHarness(t)
	h.model.steps = []step{
		{fn: func(context.Context) (*llm.Turn, error) {
			atTurn1 = git(t, h.repo, "for-each-ref", "--format=%(refname)", gitrepo.RunRefPrefix)
			b, _ := os.ReadFile(filepath.Join(h.rn.Dir, transcript.TranscriptFile))
			startOnDisk = string(b)
			return reply("", "touch", `{}`).turn, nil
		}},
		reply("", "refuse", `{}`),
	}
	h.runTo(transcript.ExitRefused)
	if atTurn1 != gitrepo.RunRef(h.rn.ID) {
		t.Errorf("refs at turn 1: %q, want %s", atTurn1, gitrepo.RunRef(h.rn.ID))
	}
	if !strings.Contains(startOnDisk, `"type":"run-start"`) {
		t.Errorf("run-start not on disk at turn 1: %q", startOnDisk)
	}
	h.assertRestored()
	if l := h.stashes(); !strings.Contains(l, "copperhead refused run "+h.rn.ID) {
		t.Errorf("stash list %q, want the refused run's entry", l)
	}
}
