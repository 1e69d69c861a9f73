package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"copperhead/internal/llm"
	"copperhead/internal/redact"
	"copperhead/internal/runs"
	"copperhead/internal/textfmt"
)

// runRenderer shows an agent run as it happens, in one of three shapes
// (AC-8.7 – AC-8.9):
//
//   - plain (piped stdout, or --plain): line-oriented, zero ANSI. Each turn's
//     output starts with "[turn k/N · <in> in / <out> out]" carrying
//     cumulative token totals; each tool result is one line.
//   - json: the same lines on stderr, so stdout carries only the result.
//   - tty: assistant text and tool results scroll above a status line pinned
//     to the bottom and redrawn in place (a spinner while a model call is in
//     flight, elapsed time, turn k/N, tokens). The outcome line replaces it;
//     Close restores the cursor, which do defers so Ctrl-C restores it too.
//
// Model and tool text is redacted before it is shown: the terminal is a log.
// A renderer can be reused across runs (the create pipeline): Outcome
// releases the status line and the next Begin re-establishes it.
type runRenderer struct {
	w   io.Writer
	tty bool
	red *redact.Redactor
	now func() time.Time
	in  *bufio.Reader // answers to Ask
	// lines, when set, reads Ask's answer instead of in: the agent shell's
	// line editor, which shows the question as its prompt.
	lines func(ctx context.Context, prompt string) (string, error)
	frame time.Duration // spinner period; 0 disables the ticker (tests)

	mu       sync.Mutex
	start    time.Time
	turn     int
	budget   int
	tokens   llm.Usage
	inFlight bool
	spin     int
	drawn    bool // the status line is on screen
	active   bool // between Begin and Outcome
	stop     chan struct{}
	done     chan struct{}
}

// SGR sequences for the TTY chrome only. Colour is never needed to read the
// output: every state is also spelled out in words.
const (
	sgrReset  = "\x1b[0m"
	sgrDim    = "\x1b[2m"
	sgrCopper = "\x1b[38;5;173m"
	sgrGreen  = "\x1b[32m"
	sgrAmber  = "\x1b[33m"
	sgrRed    = "\x1b[31m"
	clearLine = "\r\x1b[2K"
	hideCur   = "\x1b[?25l"
	showCur   = "\x1b[?25h"
)

// spinnerFrames are drawn while a model call is in flight.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spinnerPeriod redraws the status line often enough to look alive and
// rarely enough to cost nothing.
const spinnerPeriod = 120 * time.Millisecond

// newRunRenderer picks the renderer for the app's mode: progress goes to
// stdout, except with --json where stdout is reserved for the result.
func (a *app) newRunRenderer(red *redact.Redactor) *runRenderer {
	r := &runRenderer{w: a.io.Out, red: red, now: time.Now, in: bufio.NewReader(a.io.In), lines: a.io.Lines, frame: spinnerPeriod}
	switch a.mode() {
	case modeJSON:
		r.w = a.io.Err
	case modeTTY:
		r.tty = true
	}
	return r
}

// Header prints the lines shown before the first turn (at most two, AC-8.4).
func (r *runRenderer) Header(lines ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range lines {
		if r.tty {
			l = sgrCopper + l + sgrReset
		}
		fmt.Fprintln(r.w, l)
	}
}

// Begin starts a run's status line: budget is its turn budget.
func (r *runRenderer) Begin(budget int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.start, r.budget, r.turn, r.tokens, r.inFlight, r.active = r.now(), budget, 0, llm.Usage{}, false, true
	if !r.tty {
		return
	}
	fmt.Fprint(r.w, hideCur)
	r.drawLocked()
	if r.frame > 0 {
		r.stop, r.done = make(chan struct{}), make(chan struct{})
		go r.tick(r.stop, r.done)
	}
}

func (r *runRenderer) tick(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(r.frame)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			r.mu.Lock()
			if r.drawn {
				r.spin++
				r.drawLocked()
			}
			r.mu.Unlock()
		}
	}
}

// Event renders one step of the run.
func (r *runRenderer) Event(e runs.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.turn, r.budget, r.tokens = e.Turn, e.Budget, e.Tokens
	switch e.Kind {
	case runs.EventTurn:
		r.inFlight = true
		if r.tty {
			r.drawLocked()
		}
	case runs.EventReply:
		r.inFlight = false
		text := strings.TrimSpace(r.red.String(e.Text))
		if r.tty {
			if text != "" {
				r.printLocked(text)
			} else {
				r.drawLocked()
			}
			return
		}
		prefix := fmt.Sprintf("[turn %d/%d · %s in / %s out]", e.Turn, e.Budget, compactCount(e.Tokens.Input), compactCount(e.Tokens.Output))
		if text == "" {
			r.printLocked(prefix)
		} else {
			r.printLocked(prefix + " " + text)
		}
	case runs.EventTool:
		r.printLocked(r.toolLine(e))
	case runs.EventNotice:
		line := "-- " + textfmt.OneLine(r.red.String(e.Text))
		if r.tty {
			line = sgrDim + line + sgrReset
		}
		r.printLocked(line)
	}
}

// Text prints a block of text (the agent's final summary) above the status
// line, redacted.
func (r *runRenderer) Text(text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if text = strings.TrimSpace(r.red.String(text)); text != "" {
		r.printLocked(text)
	}
}

// maxToolLine keeps a tool's result line on one terminal row's worth of
// text; the transcript has the whole result.
const maxToolLine = 160

func (r *runRenderer) toolLine(e runs.Event) string {
	res := textfmt.Clip(textfmt.OneLine(r.red.String(e.Text)), maxToolLine)
	line := "  " + e.Tool
	if e.IsError {
		line += " failed"
	}
	if res != "" {
		line += ": " + res
	}
	if r.tty {
		colour := sgrDim
		if e.IsError {
			colour = sgrAmber
		}
		return colour + line + sgrReset
	}
	return line
}

// Ask shows question and reads one line of answer, with the status line out
// of the way while the human thinks. In the agent shell the shell's line
// editor reads it (the question is its prompt): one reader of the terminal. ok is false when the input ended
// without an answer (nobody is there to say yes) or ctx ended first (Ctrl-C
// at the question declines instead of waiting for Enter).
func (r *runRenderer) Ask(ctx context.Context, question string) (answer string, ok bool) {
	r.mu.Lock()
	if r.tty && r.drawn {
		fmt.Fprint(r.w, clearLine+showCur)
		r.drawn = false
	}
	paused := r.active
	r.active = false
	if r.lines != nil {
		r.mu.Unlock()
		answer, err := r.lines(ctx, question)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.resumeLocked(paused)
		return strings.TrimSpace(answer), err == nil
	}
	fmt.Fprint(r.w, question)
	r.mu.Unlock()

	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		s, err := r.in.ReadString('\n')
		got <- line{s, err}
	}()
	var err error
	select {
	case l := <-got:
		answer, err = l.s, l.err
	case <-ctx.Done():
		// The reader goroutine stays blocked on stdin; the process is
		// on its way out.
		answer, err = "", ctx.Err()
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if !strings.HasSuffix(answer, "\n") {
		fmt.Fprintln(r.w) // EOF: end the question's line
	}
	r.resumeLocked(paused)
	return strings.TrimSpace(answer), err == nil || answer != ""
}

// resumeLocked brings the status line back after a question.
func (r *runRenderer) resumeLocked(paused bool) {
	r.active = paused
	if r.tty && r.active {
		fmt.Fprint(r.w, hideCur)
		r.drawLocked()
	}
}

// Outcome replaces the status line with the run's one final line.
func (r *runRenderer) Outcome(line string, ok bool) {
	r.release()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tty {
		colour := sgrRed
		if ok {
			colour = sgrGreen
			if strings.HasPrefix(line, "refused") {
				colour = sgrAmber
			}
		}
		line = colour + line + sgrReset
	}
	fmt.Fprintln(r.w, line)
}

// Close clears the status line and restores the cursor; safe to call more
// than once and after Outcome.
func (r *runRenderer) Close() { r.release() }

func (r *runRenderer) release() {
	r.mu.Lock()
	stop, done := r.stop, r.done
	r.stop, r.done = nil, nil
	r.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tty && r.active {
		if r.drawn {
			fmt.Fprint(r.w, clearLine)
		}
		fmt.Fprint(r.w, showCur)
	}
	r.drawn, r.active, r.inFlight = false, false, false
}

// printLocked writes lines above the status line.
func (r *runRenderer) printLocked(text string) {
	if r.tty && r.drawn {
		fmt.Fprint(r.w, clearLine)
		r.drawn = false
	}
	fmt.Fprintln(r.w, text)
	if r.tty {
		r.drawLocked()
	}
}

// drawLocked redraws the status line in place.
func (r *runRenderer) drawLocked() {
	if !r.tty || !r.active {
		return
	}
	mark := "·"
	if r.inFlight {
		mark = spinnerFrames[r.spin%len(spinnerFrames)]
	}
	elapsed := r.now().Sub(r.start)
	status := fmt.Sprintf("%s turn %d/%d · %s · %s in / %s out", mark, r.turn, r.budget,
		clockDuration(elapsed), compactCount(r.tokens.Input), compactCount(r.tokens.Output))
	if r.inFlight {
		status += " · waiting for the model"
	}
	fmt.Fprint(r.w, clearLine+sgrCopper+mark+sgrReset+sgrDim+strings.TrimPrefix(status, mark)+sgrReset)
	r.drawn = true
}

// compactCount formats a token count for a status line: 950, 1.2k, 12.3k,
// 123k, 1.2M. One decimal below 100 of a unit, none above, ".0" dropped.
func compactCount(n int) string {
	if n < 1000 && n > -1000 {
		return fmt.Sprint(n)
	}
	v, unit := float64(n)/1000, "k"
	if math.Abs(v) >= 999.95 {
		v, unit = v/1000, "M"
	}
	s := fmt.Sprintf("%.1f", v)
	if math.Abs(v) >= 99.95 {
		s = fmt.Sprintf("%.0f", v)
	}
	return strings.TrimSuffix(s, ".0") + unit
}

// clockDuration is elapsed time as a status line shows it: 42s, 3m07s, 1h02m.
func clockDuration(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}
