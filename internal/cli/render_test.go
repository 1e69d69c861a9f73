package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"copperhead/internal/agent"
	"copperhead/internal/llm"
	"copperhead/internal/redact"
	"copperhead/internal/runs"
)

func TestCompactCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "0"}, {950, "950"}, {999, "999"}, {1000, "1k"}, {1234, "1.2k"}, {12345, "12.3k"},
		{99_949, "99.9k"}, {99_960, "100k"}, {123_456, "123k"}, {999_999, "1M"}, {1_234_567, "1.2M"},
	} {
		if got := compactCount(tc.n); got != tc.want {
			t.Errorf("compactCount(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// scriptedEvents is one short run as the loop reports it.
func scriptedEvents() []runs.Event {
	tok1 := llm.Usage{Input: 12_345, Output: 678}
	tok2 := llm.Usage{Input: 25_000, Output: 1_300}
	return []runs.Event{
		{Kind: runs.EventTurn, Turn: 1, Budget: 40},
		{Kind: runs.EventReply, Turn: 1, Budget: 40, Tokens: tok1, Text: "Plan: rename KEY_DAH.\nTwo sheets change."},
		{Kind: runs.EventTool, Turn: 1, Budget: 40, Tokens: tok1, Tool: "read_file", Text: "docs/PINOUT.md (88 lines) …"},
		{Kind: runs.EventTool, Turn: 1, Budget: 40, Tokens: tok1, Tool: "edit_file", Text: "edit_file is locked", IsError: true},
		{Kind: runs.EventTurn, Turn: 2, Budget: 40, Tokens: tok1},
		{Kind: runs.EventReply, Turn: 2, Budget: 40, Tokens: tok2, Text: "key sk-" + "proj-abcdefghijklmnopqrstuvwxyz0123 leaked"},
		{Kind: runs.EventNotice, Turn: 2, Budget: 40, Tokens: tok2, Text: "5 turns left: nudged to batch and finish"},
	}
}

func newTestRenderer(m mode) (*runRenderer, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	a := &app{io: IO{In: strings.NewReader("7\n"), Out: &out, Err: &errb, OutTTY: m == modeTTY}, json: m == modeJSON}
	red := redact.New(nil)
	r := a.newRunRenderer(red)
	r.frame = 0 // no ticker: the output is a function of the events alone
	r.now = func() time.Time { return time.Unix(1_700_000_000, 0) }
	return r, &out, &errb
}

func renderAll(r *runRenderer) {
	r.Header("copperhead test · do · m via p (selected by flag)", "run X · turn budget 40")
	r.Begin(40)
	for _, e := range scriptedEvents() {
		r.Event(e)
	}
	r.Outcome("done · verification passed · commit abc · 3s · 25k in / 1.3k out tokens", true)
	r.Close()
}

// TestRenderPlain: each turn prefixed with cumulative compact tokens, one
// line per tool result, no ANSI at all (AC-8.7, AC-8.9), secrets redacted.
func TestRenderPlain(t *testing.T) {
	r, out, errb := newTestRenderer(modePlain)
	renderAll(r)
	got := out.String()
	if strings.Contains(got, "\x1b") {
		t.Errorf("plain output holds an escape sequence:\n%q", got)
	}
	if errb.Len() != 0 {
		t.Errorf("plain mode wrote to stderr: %q", errb.String())
	}
	want := []string{
		"copperhead test · do · m via p (selected by flag)",
		"run X · turn budget 40",
		"[turn 1/40 · 12.3k in / 678 out] Plan: rename KEY_DAH.",
		"Two sheets change.",
		"  read_file: docs/PINOUT.md (88 lines) …",
		"  edit_file failed: edit_file is locked",
		"[turn 2/40 · 25k in / 1.3k out] key [REDACTED] leaked",
		"-- 5 turns left: nudged to batch and finish",
		"done · verification passed · commit abc · 3s · 25k in / 1.3k out tokens",
	}
	if lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n"); strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("plain output:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// TestRenderJSON: progress goes to stderr, stdout stays empty for the result
// object, and neither carries ANSI.
func TestRenderJSON(t *testing.T) {
	r, out, errb := newTestRenderer(modeJSON)
	renderAll(r)
	if out.Len() != 0 {
		t.Errorf("--json progress reached stdout: %q", out.String())
	}
	if !strings.Contains(errb.String(), "[turn 2/40 · 25k in / 1.3k out]") {
		t.Errorf("stderr lacks the turn prefix:\n%s", errb.String())
	}
	if strings.Contains(errb.String(), "\x1b") {
		t.Errorf("--json stderr holds an escape sequence")
	}
}

// TestRenderTTY: the status line is redrawn in place, the outcome line
// replaces it, and the cursor is shown again at the end (AC-8.8).
func TestRenderTTY(t *testing.T) {
	r, out, _ := newTestRenderer(modeTTY)
	r.Header("header")
	r.Begin(40)
	r.Event(runs.Event{Kind: runs.EventTurn, Turn: 1, Budget: 40})
	inFlight := out.String()
	for _, e := range scriptedEvents()[1:] {
		r.Event(e)
	}
	r.Outcome("done · verification passed", true)
	r.Close()
	got := out.String()
	if !strings.Contains(inFlight, hideCur) || !strings.Contains(inFlight, spinnerFrames[0]) || !strings.Contains(inFlight, "turn 1/40") {
		t.Errorf("no in-flight status line with a spinner:\n%q", inFlight)
	}
	if !strings.Contains(got, clearLine) || !strings.Contains(got, "25k in / 1.3k out") {
		t.Errorf("status line not redrawn with tokens:\n%q", got)
	}
	if strings.Contains(got, "proj-abcdefghijklmnopqrstuvwxyz0123") {
		t.Errorf("secret shown on the terminal")
	}
	if !strings.HasSuffix(got, "done · verification passed"+sgrReset+"\n") {
		t.Errorf("output does not end with the outcome line:\n%q", got[max(0, len(got)-120):])
	}
	if strings.Count(got, showCur) < 1 || strings.LastIndex(got, showCur) < strings.LastIndex(got, hideCur) {
		t.Errorf("cursor not restored after the last hide")
	}
	// Reuse across runs (the create pipeline): the next Begin re-establishes
	// the status line, Close releases it again.
	out.Reset()
	r.Begin(10)
	r.Close()
	if !strings.Contains(out.String(), hideCur) || !strings.HasSuffix(out.String(), showCur) {
		t.Errorf("second run's status line not established and released: %q", out.String())
	}
}

// TestRenderAsk: a question takes the status line out of the way and reads
// one answer.
func TestRenderAsk(t *testing.T) {
	r, out, _ := newTestRenderer(modeTTY)
	r.Begin(40)
	ans, ok := r.Ask(context.Background(), "More turns? ")
	r.Close()
	if ans != "7" || !ok {
		t.Errorf("answer %q", ans)
	}
	got := out.String()
	q := strings.Index(got, "More turns? ")
	if q < 0 || !strings.Contains(got[:q], clearLine+showCur) {
		t.Errorf("status line not cleared before the question:\n%q", got)
	}
	if n := askExtension(context.Background(), r, agent.BudgetStats{TurnsUsed: 40, TurnBudget: 40}); n != 0 {
		t.Errorf("askExtension at EOF granted %d turns", n)
	}
}

// TestRenderAskInterrupted: Ctrl-C at a question declines at once instead
// of waiting for a line that never comes.
func TestRenderAskInterrupted(t *testing.T) {
	r, _, _ := newTestRenderer(modeTTY)
	pr, pw := io.Pipe()
	defer pw.Close()
	r.in = bufio.NewReader(pr)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, ok := r.Ask(ctx, "More turns? "); ok {
		t.Errorf("an interrupted question was answered")
	}
}
