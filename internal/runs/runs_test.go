package runs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/gitrepo"
	"copperhead/internal/llm"
	"copperhead/internal/runmeta"
	"copperhead/internal/transcript"
)

// model answers every call with reply, or fails with err.
type model struct {
	reply string
	err   error
	calls int
}

func (m *model) Name() string  { return "scripted" }
func (m *model) Model() string { return "scripted-1" }
func (m *model) Chat(ctx context.Context, _ []llm.Message, _ []llm.Tool, _ llm.Options) (*llm.Turn, error) {
	m.calls++
	if m.err != nil {
		return nil, m.err
	}
	return &llm.Turn{Text: m.reply, Usage: llm.Usage{Input: 10, Output: 3}}, nil
}

var offline = runmeta.Probes{
	KicadCLIVersion: func(context.Context) (string, error) { return "", errors.New("offline") },
	NodeVersion:     func(context.Context) (string, error) { return "", errors.New("offline") },
	Executable:      func() (string, error) { return "", errors.New("offline") },
	Git:             gitrepo.Run,
}

func start(t *testing.T, p llm.Provider, o Options) *Run {
	t.Helper()
	o.Repo, o.Provider, o.Probes = t.TempDir(), p, &offline
	r, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBudgets(t *testing.T) {
	cfg := func(turns, repair int) config.Config {
		c := config.DefaultConfig()
		c.MaxTurns, c.MaxRepairCycles = turns, repair
		return c
	}
	for _, tt := range []struct {
		name           string
		flag           int
		cfg            config.Config
		turns, repairs int
	}{
		{"defaults", 0, cfg(0, 0), config.DefaultMaxTurns, config.DefaultMaxRepairCycles},
		{"config", 0, cfg(12, 3), 12, 3},
		{"flag over config", 7, cfg(12, 3), 7, 3},
		{"negative is unset", -1, cfg(-4, -2), config.DefaultMaxTurns, config.DefaultMaxRepairCycles},
	} {
		t.Run(tt.name, func(t *testing.T) {
			turns, repairs := Budgets(tt.flag, tt.cfg)
			if turns != tt.turns || repairs != tt.repairs {
				t.Errorf("Budgets = %d, %d; want %d, %d", turns, repairs, tt.turns, tt.repairs)
			}
		})
	}
}

// TestOneShotRecorded: a one-shot call is a run like any other: run-start,
// the chat, run-end, summary.md; a model failure is recorded and returned
// in the outcome, never as a record error.
func TestOneShotRecorded(t *testing.T) {
	for _, tt := range []struct {
		name string
		m    *model
		exit transcript.ExitPath
	}{
		{"answered", &model{reply: "pong"}, transcript.ExitDone},
		{"failed", &model{err: &llm.Error{Kind: llm.ErrAuth, Message: "bad key sk-ant-api03-" + strings.Repeat("x", 40)}}, transcript.ExitProviderError},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := start(t, tt.m, Options{OneShot: true, Meta: runmeta.Input{Command: "models --probe", Request: "ping"}})
			var kinds []EventKind
			r.Subscribe(func(e Event) { kinds = append(kinds, e.Kind) })
			out, err := r.OneShot(context.Background(), Call{Message: "ping"})
			if err != nil {
				t.Fatal(err)
			}
			if out.ExitPath != tt.exit || out.TurnBudget != 1 || out.RunDir != ".copperhead/runs/"+r.ID {
				t.Errorf("outcome %+v", out)
			}
			if (out.Reply != nil) != (tt.m.err == nil) || (out.Err != nil) != (tt.m.err != nil) {
				t.Errorf("reply %v err %v", out.Reply, out.Err)
			}
			if strings.Contains(out.Error, "xxxxxxxxxxxxxxxxxxxx") {
				t.Errorf("the outcome's error is not redacted: %s", out.Error)
			}
			evs, err := transcript.Read(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, e := range evs {
				types = append(types, e.Type)
			}
			want := []string{transcript.TypeRunStart, llm.ChatEventType, transcript.TypeRunEnd}
			if !slices.Equal(types, want) {
				t.Errorf("transcript %v, want %v", types, want)
			}
			if _, err := os.Stat(filepath.Join(r.Dir, transcript.SummaryFile)); err != nil {
				t.Error(err)
			}
			if !slices.Equal(kinds, []EventKind{EventEnd}) {
				t.Errorf("events %v, want one end", kinds)
			}
		})
	}
}

// TestOutcomeJSON: do --json's object: commit and stash_ref null when
// there is none, the duration in milliseconds, ok from the exit path.
func TestOutcomeJSON(t *testing.T) {
	o := Outcome{RunID: "r1", ExitPath: transcript.ExitRefused, Duration: 1500 * time.Millisecond, StashRef: "stash@{0} (abc)"}
	b, err := json.Marshal(&o)
	if err != nil {
		t.Fatal(err)
	}
	var got JSON
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if !got.OK || got.Commit != nil || got.StashRef == nil || *got.StashRef != o.StashRef || got.DurationMS != 1500 {
		t.Errorf("json %s", b)
	}
	if !strings.Contains(string(b), `"commit":null`) {
		t.Errorf("commit is not null: %s", b)
	}
}

// TestWatchers: every watcher hears every event in order; a cancelled one
// hears no more; a notice nobody watches goes to Notify, redacted.
func TestWatchers(t *testing.T) {
	var notified []string
	r := start(t, &model{}, Options{Notify: func(s string) { notified = append(notified, s) }})
	key := "sk-proj-" + strings.Repeat("a", 40)
	r.Notice("retrying with " + key)
	if len(notified) != 1 || strings.Contains(notified[0], key) {
		t.Errorf("unwatched notice: %q", notified)
	}
	var a, b []string
	stopA := r.Subscribe(func(e Event) { a = append(a, e.Text) })
	r.Subscribe(func(e Event) { b = append(b, e.Text) })
	r.Emit(Event{Kind: EventNotice, Text: "one"})
	stopA()
	r.Notice("two")
	if !slices.Equal(a, []string{"one"}) || !slices.Equal(b, []string{"one", "two"}) || len(notified) != 1 {
		t.Errorf("a %v b %v notified %v", a, b, notified)
	}
}

// TestOpenTreeRefusesDirty: the run's one preflight refuses a dirty tree
// before any run folder exists.
func TestOpenTreeRefusesDirty(t *testing.T) {
	repo := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a"), 0o644)
	git("add", ".")
	git("commit", "-qm", "init")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("b"), 0o644)
	_, err := OpenTree(context.Background(), repo, false, false)
	var dirty *gitrepo.DirtyError
	if !errors.As(err, &dirty) {
		t.Fatalf("OpenTree on a dirty tree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(repo, ".copperhead")); !os.IsNotExist(err) {
		t.Errorf("a refused tree got a run folder: %v", err)
	}
	tree, err := OpenTree(context.Background(), repo, true, false)
	if err != nil || tree.Snap == nil || tree.Scratch != nil || tree.Map(repo) != repo {
		t.Fatalf("OpenTree --allow-dirty: %+v, %v", tree, err)
	}
}

// TestReasonerRun: a run whose model is outside copperhead (an MCP client)
// opens no provider and records the reasoner as its model, "mcp-client" as
// its provider and "mcp" as its selection; it begins and ends like any run.
func TestReasonerRun(t *testing.T) {
	r, err := Start(context.Background(), Options{Repo: t.TempDir(), Reasoner: "claude-code 2.1", Probes: &offline,
		Meta: runmeta.Input{Command: "mcp", Config: config.DefaultConfig()}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Provider != nil {
		t.Errorf("a reasoned run has a provider: %v", r.Provider)
	}
	if r.Start.Model != "claude-code 2.1" || r.Start.Provider != ReasonerProvider || r.Start.SelectionSource != transcript.SourceMCP {
		t.Errorf("run-start names %q via %q (%q)", r.Start.Model, r.Start.Provider, r.Start.SelectionSource)
	}
	if err := r.Begin(); err != nil {
		t.Fatal(err)
	}
	o := r.Outcome()
	o.ExitPath = transcript.ExitRefused
	if err := r.End(o, transcript.Summary{}); err != nil {
		t.Fatal(err)
	}
	evs, err := transcript.Read(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Type != transcript.TypeRunStart || evs[1].Type != transcript.TypeRunEnd {
		t.Errorf("transcript %v, want run-start then run-end", evs)
	}
}
