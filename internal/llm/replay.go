package llm

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"copperhead/internal/transcript"
)

// Replay is the replay:<run-id> backend: it answers each Chat call with the
// next turn a recorded run received, and makes no network call at all. It is
// strict: a request whose RequestHash differs from the recorded one stops the
// run with a diff, because serving a turn to a question it did not answer
// would make the replay lie about what the model did.
type Replay struct {
	runID  string
	events []ChatEvent
	next   int
}

// ReplayLast names the repository's most recent run: replay:last.
const ReplayLast = "last"

// NewReplay loads the chat events of run runID (or ReplayLast) from
// repoRoot's transcripts.
func NewReplay(repoRoot, runID string) (*Replay, error) {
	fail := func(msg string) (*Replay, error) {
		return nil, &Error{Kind: ErrNotConfigured, Provider: BackendReplay, Message: msg,
			Hint: "replay:<run-id> names a run under .copperhead/runs/ that called a model"}
	}
	if repoRoot == "" {
		return fail("no repository to read run " + runID + " from")
	}
	if runID == ReplayLast {
		runs, err := transcript.List(repoRoot)
		if err != nil || len(runs) == 0 {
			return fail("replay:last: the repository has no recorded runs")
		}
		runID = runs[0].ID
	}
	dir, err := transcript.Find(repoRoot, runID)
	if err != nil {
		return fail(err.Error()) // names the run, and the recent ones when it is not found
	}
	events, err := transcript.Read(dir)
	if err != nil {
		return fail(fmt.Sprintf("run %s: %v", runID, err))
	}
	r := &Replay{runID: runID}
	var recorded []ChatEvent
	for i, e := range events {
		if e.Type != ChatEventType {
			continue
		}
		var ev ChatEvent
		if err := e.Decode(&ev); err != nil {
			return fail(fmt.Sprintf("run %s: event %d: %v", runID, i+1, err))
		}
		if ev.Turn == nil && ev.Error == nil {
			return fail(fmt.Sprintf("run %s: chat event %d records neither a turn nor an error", runID, len(recorded)+1))
		}
		recorded = append(recorded, ev)
	}
	full, err := FullRequests(recorded)
	if err != nil {
		return fail(fmt.Sprintf("run %s: %v", runID, err))
	}
	for i := range recorded {
		recorded[i].Request = full[i] // requestDiff compares whole requests
	}
	r.events = recorded
	if len(r.events) == 0 {
		return fail("run " + runID + " recorded no chat turns")
	}
	return r, nil
}

// Name is "replay".
func (r *Replay) Name() string { return BackendReplay }

// Model is the model the recorded run used for the next turn to be served
// (the last one once all are served): a run that failed over changes model
// mid-run, and the replay reports each turn as it was.
func (r *Replay) Model() string { return r.events[min(r.next, len(r.events)-1)].Model }

// Remaining is how many recorded turns have not been served yet.
func (r *Replay) Remaining() int { return len(r.events) - r.next }

// Chat serves the next recorded turn, or the recorded error when that call
// failed, provided the request matches the recording exactly.
func (r *Replay) Chat(ctx context.Context, msgs []Message, tools []Tool, opts Options) (*Turn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hint := "a replay needs the same request, docs, tools and copperhead version as run " + r.runID + "; start a fresh run to call a model"
	if r.next >= len(r.events) {
		return nil, &Error{Kind: ErrBadRequest, Provider: BackendReplay, Hint: hint,
			Message: fmt.Sprintf("run %s recorded %d chat turns and this run asked for turn %d", r.runID, len(r.events), r.next+1)}
	}
	ev := r.events[r.next]
	if h := RequestHash(msgs, tools, opts); h != ev.RequestHash {
		return nil, &Error{Kind: ErrBadRequest, Provider: BackendReplay, Hint: hint,
			Message: fmt.Sprintf("turn %d of run %s was asked a different question: %s", r.next+1, r.runID,
				requestDiff(ev.Request, ChatRequest{System: opts.System, Messages: msgs, Tools: tools}))}
	}
	r.next++
	if ev.Error != nil {
		return nil, ev.Error.err()
	}
	turn := *ev.Turn
	turn.ToolCalls = slices.Clone(turn.ToolCalls)
	return &turn, nil
}

// requestDiff says where a request first departs from the recorded one. The
// recorded side is redacted, so a message holding a secret reads as changed
// even when only the redaction differs; the hashes, taken before redaction,
// are what decide, and this text only explains.
func requestDiff(recorded, now ChatRequest) string {
	if recorded.System != now.System {
		return "the system prompt changed: " + excerptDiff(recorded.System, now.System)
	}
	if d := toolsDiff(recorded.Tools, now.Tools); d != "" {
		return d
	}
	for i := range min(len(recorded.Messages), len(now.Messages)) {
		a, errA := canonicalJSON(recorded.Messages[i])
		b, errB := canonicalJSON(now.Messages[i])
		if errA != nil || errB != nil || string(a) != string(b) {
			return fmt.Sprintf("message %d (%s) differs: %s", i+1, now.Messages[i].Role, excerptDiff(string(a), string(b)))
		}
	}
	if len(recorded.Messages) != len(now.Messages) {
		return fmt.Sprintf("the recording has %d messages, this run sent %d", len(recorded.Messages), len(now.Messages))
	}
	return "the recorded request reads the same after redaction; the difference is in redacted text"
}

func toolsDiff(recorded, now []Tool) string {
	names := func(ts []Tool) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Name)
		}
		return out
	}
	if rn, nn := names(recorded), names(now); !slices.Equal(rn, nn) {
		return fmt.Sprintf("the tools changed: recorded [%s], now [%s]", strings.Join(rn, " "), strings.Join(nn, " "))
	}
	for i := range recorded {
		a, _ := canonicalJSON(recorded[i])
		b, _ := canonicalJSON(now[i])
		if string(a) != string(b) {
			return fmt.Sprintf("tool %s changed: %s", now[i].Name, excerptDiff(string(a), string(b)))
		}
	}
	return ""
}

// excerptContext is how many characters an excerpt shows around the first
// difference: enough to recognise the sentence, short enough for one line.
const excerptContext = 40

// excerptDiff shows the two texts around their first difference.
func excerptDiff(recorded, now string) string {
	a, b := []rune(recorded), []rune(now)
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	cut := func(r []rune) string {
		from, to := max(i-excerptContext, 0), min(i+excerptContext, len(r))
		s := string(r[from:to])
		if from > 0 {
			s = "…" + s
		}
		if to < len(r) {
			s += "…"
		}
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("at character %d recorded %s, now %s", i+1, cut(a), cut(b))
}
