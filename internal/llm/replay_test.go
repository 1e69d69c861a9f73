package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"copperhead/internal/llm"
	"copperhead/internal/llm/llmtest"
	"copperhead/internal/redact"
	"copperhead/internal/transcript"
)

// replayTools is the toolset of the recorded conversation.
var replayTools = []llm.Tool{{
	Name:        "read_file",
	Description: "Read a repo file.",
	Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
}}

const replaySystem = "You are a hardware design agent."

// conversation drives p through a two-turn exchange the way the agent loop
// does: ask, run the tool the model asked for, send the result, get the
// answer. edit may change the request before each call.
func conversation(t *testing.T, p llm.Provider, edit func(call int, msgs []llm.Message, tools []llm.Tool, opts *llm.Options) ([]llm.Message, []llm.Tool)) ([]*llm.Turn, error) {
	t.Helper()
	msgs := []llm.Message{{Role: llm.RoleUser, Text: "rename net KEY_DAH to KEY_DASH"}}
	var turns []*llm.Turn
	for call := range 2 {
		tools, opts := replayTools, llm.Options{System: replaySystem, MaxTokens: 4000}
		if edit != nil {
			msgs, tools = edit(call, msgs, tools, &opts)
		}
		turn, err := p.Chat(context.Background(), msgs, tools, opts)
		if err != nil {
			return turns, err
		}
		turns = append(turns, turn)
		msgs = append(msgs, turn.Message())
		var results []llm.ToolResult
		for _, c := range turn.ToolCalls {
			results = append(results, llm.ToolResult{CallID: c.ID, Content: "# SPEC\nsleep current budget 25 uA"})
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, ToolResults: results, Text: map[bool]string{true: "", false: "go on"}[len(results) > 0]})
	}
	return turns, nil
}

// record runs the conversation against a fake Anthropic endpoint (one rate
// limit on the way) with recording on, and returns the repo, run id, the
// turns the loop saw, and the server.
func record(t *testing.T) (repo, runID string, turns []*llm.Turn, srv *llmtest.Server) {
	t.Helper()
	repo = t.TempDir()
	runID = transcript.NewRunID(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	w, err := transcript.Create(repo, runID, redact.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	srv = llmtest.NewServer(t, llmtest.Anthropic,
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "read_file", Args: json.RawMessage(`{"path":"docs/SPEC.md"}`)}},
			Usage: llm.Usage{Input: 1200, Output: 30, CacheWrite: 1000}},
		llmtest.Status{Code: 429, Header: map[string]string{"retry-after": "2"}},
		llmtest.Reply{Text: "Renamed; ERC passes.", Usage: llm.Usage{Input: 1300, Output: 50, CacheRead: 1000}},
	)
	live := llm.NewAnthropic(llm.AnthropicConfig{APIKey: anthropicKey, BaseURL: srv.URL, Model: "claude-test"})
	p := llm.Record(llm.WithRetry(live, noWait, nil, nil), w)
	turns, err = conversation(t, p, nil)
	if err != nil {
		t.Fatalf("recording: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return repo, runID, turns, srv
}

func chatEvents(t *testing.T, repo, runID string) []llm.ChatEvent {
	t.Helper()
	dir, err := transcript.Find(repo, runID)
	if err != nil {
		t.Fatal(err)
	}
	events, err := transcript.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []llm.ChatEvent
	for _, e := range events {
		if e.Type == llm.ChatEventType {
			var ev llm.ChatEvent
			if err := e.Decode(&ev); err != nil {
				t.Fatal(err)
			}
			out = append(out, ev)
		}
	}
	return out
}

func TestRecordWritesOneChatEventPerCall(t *testing.T) {
	repo, runID, turns, _ := record(t)
	evs := chatEvents(t, repo, runID)
	if len(evs) != 2 {
		t.Fatalf("%d chat events, want 2", len(evs))
	}
	first, second := evs[0], evs[1]
	if first.Provider != llm.BackendAnthropic || first.Model != "claude-test" || !strings.HasPrefix(first.RequestHash, "sha256:") {
		t.Errorf("first event header %+v", first)
	}
	if first.Request.System != replaySystem || first.Request.MaxTokens != 4000 || len(first.Request.Messages) != 1 || len(first.Request.Tools) != 1 {
		t.Errorf("first request %+v", first.Request)
	}
	if first.Turn == nil || len(first.Turn.ToolCalls) != 1 || first.Turn.Usage != turns[0].Usage || first.Turn.Stop != llm.StopToolUse {
		t.Errorf("first turn %+v", first.Turn)
	}
	if len(first.Attempts) != 1 || first.Attempts[0].Error != nil {
		t.Errorf("first attempts %+v", first.Attempts)
	}
	want := []llm.AttemptRecord{
		{Provider: llm.BackendAnthropic, Model: "claude-test", N: 1, WaitMS: 2000,
			Error: &llm.ChatError{Kind: llm.ErrRateLimited, Provider: llm.BackendAnthropic, Status: 429, RetryAfterMS: 2000}},
		{Provider: llm.BackendAnthropic, Model: "claude-test", N: 2},
	}
	got := second.Attempts
	if len(got) == 2 && got[0].Error != nil {
		got[0].Error.Message, got[0].Error.Hint = "", "" // the provider's wording is not ours to pin
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("second attempts\n %+v\nwant\n %+v", got, want)
	}
	if second.Error != nil || second.Turn == nil || second.Turn.Text != "Renamed; ERC passes." {
		t.Errorf("second event %+v", second)
	}
	// The second request repeats the first's message, system prompt and
	// tools: only its two new messages are stored, and the whole request
	// is rebuilt from the deltas.
	if r := second.Request; r.Prior != 1 || len(r.Messages) != 2 || !r.SameSystem || r.System != "" || !r.SameTools || len(r.Tools) != 0 {
		t.Errorf("second request is not a delta: %+v", r)
	}
	full, err := llm.FullRequests(evs)
	if err != nil {
		t.Fatal(err)
	}
	if len(full[1].Messages) != 3 || full[1].System != replaySystem || len(full[1].Tools) != 1 ||
		!reflect.DeepEqual(full[1].Messages[0], first.Request.Messages[0]) {
		t.Errorf("rebuilt second request %+v", full[1])
	}
}

func TestReplayServesTheRecordedTurnsWithoutNetwork(t *testing.T) {
	repo, runID, recorded, srv := record(t)
	before := len(srv.Requests())

	p, err := llm.Open(llm.Selection{Backend: llm.BackendReplay, RunID: runID}, llm.Settings{Getenv: envOf()},
		llm.OpenOptions{RepoRoot: repo, HTTPClient: (&hosts{}).client()})
	if err != nil {
		t.Fatalf("Open replay: %v", err)
	}
	if p.Name() != llm.BackendReplay || p.Model() != "claude-test" {
		t.Fatalf("replay is %s/%s", p.Name(), p.Model())
	}
	replayed, err := conversation(t, p, nil)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if len(srv.Requests()) != before {
		t.Fatal("the replay reached the model server")
	}
	for i := range recorded {
		recorded[i].Attempts = nil // attempts belong to the recording run, not to the turn
		if !reflect.DeepEqual(replayed[i], recorded[i]) {
			t.Errorf("turn %d replayed\n %+v\nrecorded\n %+v", i+1, replayed[i], recorded[i])
		}
	}
	_, err = p.Chat(context.Background(), nil, nil, llm.Options{})
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.ErrBadRequest || !strings.Contains(e.Message, "recorded 2 chat turns") {
		t.Fatalf("a third call: %v, want a bad-request naming the 2 recorded turns", err)
	}
}

func TestReplayRefusesAChangedRequest(t *testing.T) {
	repo, runID, _, _ := record(t)
	tests := []struct {
		name string
		edit func(call int, msgs []llm.Message, tools []llm.Tool, opts *llm.Options) ([]llm.Message, []llm.Tool)
		want []string
	}{
		{"first message changed", func(call int, msgs []llm.Message, tools []llm.Tool, opts *llm.Options) ([]llm.Message, []llm.Tool) {
			msgs[0].Text = "rename net KEY_DAH to KEY_DOT"
			return msgs, tools
		}, []string{"turn 1", "message 1 (user) differs", "KEY_DASH", "KEY_DOT"}},
		{"tool result changed on turn 2", func(call int, msgs []llm.Message, tools []llm.Tool, opts *llm.Options) ([]llm.Message, []llm.Tool) {
			if call == 1 {
				msgs[2].ToolResults[0].Content = "# SPEC\nsleep current budget 30 uA"
			}
			return msgs, tools
		}, []string{"turn 2", "message 3 (user) differs", "25 uA", "30 uA"}},
		{"system prompt changed", func(call int, msgs []llm.Message, tools []llm.Tool, opts *llm.Options) ([]llm.Message, []llm.Tool) {
			opts.System += " Be terse."
			return msgs, tools
		}, []string{"turn 1", "system prompt changed"}},
		{"a tool added", func(call int, msgs []llm.Message, tools []llm.Tool, opts *llm.Options) ([]llm.Message, []llm.Tool) {
			return msgs, append(append([]llm.Tool(nil), tools...), llm.Tool{Name: "run_erc", Schema: json.RawMessage(`{"type":"object"}`)})
		}, []string{"tools changed", "[read_file]", "[read_file run_erc]"}},
		{"a tool schema changed", func(call int, msgs []llm.Message, tools []llm.Tool, opts *llm.Options) ([]llm.Message, []llm.Tool) {
			return msgs, []llm.Tool{{Name: "read_file", Description: "Read any file.", Schema: tools[0].Schema}}
		}, []string{"tool read_file changed", "Read a repo file.", "Read any file."}},
		{"an extra message", func(call int, msgs []llm.Message, tools []llm.Tool, opts *llm.Options) ([]llm.Message, []llm.Tool) {
			return append(msgs, llm.Message{Role: llm.RoleUser, Text: "and hurry"}), tools
		}, []string{"the recording has 1 messages, this run sent 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := llm.NewReplay(repo, runID)
			if err != nil {
				t.Fatal(err)
			}
			_, err = conversation(t, p, tt.edit)
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != llm.ErrBadRequest || e.Provider != llm.BackendReplay {
				t.Fatalf("err = %v, want a replay bad-request", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(e.Message, w) {
					t.Errorf("message %q lacks %q", e.Message, w)
				}
			}
		})
	}
}

func TestReplayServesARecordedFailure(t *testing.T) {
	repo := t.TempDir()
	runID := transcript.NewRunID(time.Now())
	w, err := transcript.Create(repo, runID, redact.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t, llmtest.OpenAI, llmtest.Status{Code: 401, Message: "invalid key"})
	live := llm.NewOpenAI(llm.OpenAIConfig{Name: llm.BackendCompat, BaseURL: srv.URL, Model: "llama3"})
	_, recErr := llm.Record(llm.WithRetry(live, noWait, nil, nil), w).Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "hi"}}, nil, llm.Options{})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ev := chatEvents(t, repo, runID)
	if len(ev) != 1 || ev[0].Error == nil || ev[0].Error.Kind != llm.ErrAuth || ev[0].Turn != nil || len(ev[0].Attempts) != 1 {
		t.Fatalf("recorded %+v", ev)
	}
	p, err := llm.NewReplay(repo, runID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "hi"}}, nil, llm.Options{})
	var got, want *llm.Error
	if !errors.As(err, &got) || !errors.As(recErr, &want) || got.Kind != want.Kind || got.Message != want.Message || got.Provider != llm.BackendCompat {
		t.Fatalf("replayed %v, recorded %v", err, recErr)
	}
}

func TestNewReplayUnknownRun(t *testing.T) {
	_, err := llm.NewReplay(t.TempDir(), "no-such-run")
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.ErrNotConfigured || !strings.Contains(e.Message, "no-such-run") {
		t.Fatalf("err = %v", err)
	}
}

func TestRequestHash(t *testing.T) {
	msgs := []llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Args: json.RawMessage(`{"path":"a","n":1}`)}}}}
	tools := []llm.Tool{{Name: "read_file", Schema: json.RawMessage(`{"type":"object","required":["path"]}`)}}
	base := llm.RequestHash(msgs, tools, llm.Options{System: "s"})
	same := []struct {
		name  string
		msgs  []llm.Message
		tools []llm.Tool
		opts  llm.Options
	}{
		{"max tokens is not part of the question", msgs, tools, llm.Options{System: "s", MaxTokens: 99}},
		{"key order in args", []llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Args: json.RawMessage(`{ "n": 1, "path": "a" }`)}}}}, tools, llm.Options{System: "s"}},
		{"key order in schema", msgs, []llm.Tool{{Name: "read_file", Schema: json.RawMessage(`{"required":["path"],"type":"object"}`)}}, llm.Options{System: "s"}},
	}
	for _, c := range same {
		if got := llm.RequestHash(c.msgs, c.tools, c.opts); got != base {
			t.Errorf("%s: hash changed", c.name)
		}
	}
	if llm.RequestHash(nil, nil, llm.Options{}) != llm.RequestHash([]llm.Message{}, []llm.Tool{}, llm.Options{}) {
		t.Error("nil and empty requests hash differently")
	}
	differ := map[string]string{
		"system": llm.RequestHash(msgs, tools, llm.Options{System: "t"}),
		"args":   llm.RequestHash([]llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Args: json.RawMessage(`{"path":"b","n":1}`)}}}}, tools, llm.Options{System: "s"}),
		"tools":  llm.RequestHash(msgs, nil, llm.Options{System: "s"}),
	}
	for what, h := range differ {
		if h == base {
			t.Errorf("changing %s kept the hash", what)
		}
	}
}

// echoModel answers every call with a fixed tool call; it counts calls.
type echoModel struct{ n int }

func (m *echoModel) Name() string  { return "compat" }
func (m *echoModel) Model() string { return "echo" }
func (m *echoModel) Chat(ctx context.Context, msgs []llm.Message, tools []llm.Tool, opts llm.Options) (*llm.Turn, error) {
	m.n++
	return &llm.Turn{Text: fmt.Sprintf("turn %d", m.n), Stop: llm.StopToolUse,
		ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("c%d", m.n), Name: "read_file", Args: json.RawMessage(`{"path":"a"}`)}}}, nil
}

// TestRecordStoresEachTurnsNewMessages: a six-turn conversation whose first
// message is 1 MB is stored about once, not six times (each turn records the
// messages new since the previous call), and replay still serves every
// turn to the same requests. The tool list changes mid-run (the spec gate
// unlocking tools) and is recorded again then.
func TestRecordStoresEachTurnsNewMessages(t *testing.T) {
	repo := t.TempDir()
	runID := transcript.NewRunID(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	w, err := transcript.Create(repo, runID, redact.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	few := []llm.Tool{{Name: "read_file", Description: "read", Schema: json.RawMessage(`{"type":"object"}`)}}
	more := append(slices.Clone(few), llm.Tool{Name: "edit_file", Description: "edit", Schema: json.RawMessage(`{"type":"object"}`)})
	converse := func(p llm.Provider) []string {
		msgs := []llm.Message{{Role: llm.RoleUser, Text: big}}
		var texts []string
		for turn := 1; turn <= 6; turn++ {
			tools := few
			if turn > 3 {
				tools = more
			}
			tr, err := p.Chat(context.Background(), msgs, tools, llm.Options{System: "sys"})
			if err != nil {
				t.Fatalf("turn %d: %v", turn, err)
			}
			texts = append(texts, tr.Text)
			msgs = append(msgs, tr.Message(), llm.Message{Role: llm.RoleUser,
				ToolResults: []llm.ToolResult{{CallID: tr.ToolCalls[0].ID, Content: fmt.Sprintf("result %d", turn)}}})
		}
		return texts
	}
	recorded := converse(llm.Record(&echoModel{}, w))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 3<<19 { // 1.5 MiB: the big message once, plus small change
		t.Errorf("transcript is %d bytes for a 1 MiB message over six turns: requests are stored whole", fi.Size())
	}
	evs := chatEvents(t, repo, runID)
	if evs[3].Request.SameTools || len(evs[3].Request.Tools) != 2 || !evs[4].Request.SameTools {
		t.Errorf("tool list changes are not recorded: turn 4 %+v, turn 5 same=%v", evs[3].Request.Tools, evs[4].Request.SameTools)
	}
	rp, err := llm.NewReplay(repo, runID)
	if err != nil {
		t.Fatal(err)
	}
	if replayed := converse(rp); !slices.Equal(replayed, recorded) {
		t.Errorf("replay served %q, recorded %q", replayed, recorded)
	}
}
