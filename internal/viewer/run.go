package viewer

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path"
	"strings"
	"sync/atomic"

	"copperhead/internal/redact"
	"copperhead/internal/runs"
	"copperhead/internal/textfmt"
)

// maxResultChars is how much of a tool's result the pane shows: the first
// lines say what happened; the whole result is in the transcript.
const maxResultChars = 2000

// runEvent is a run's event as the page gets it, every text redacted with
// the run's own redactor (the same scrub as the transcript and terminal).
type runEvent struct {
	Type      string       `json:"type"` // "event"
	Kind      string       `json:"kind"` // runs.EventKind, or "error" for a run that could not start
	Turn      int          `json:"turn"`
	Budget    int          `json:"budget"`
	TokensIn  int          `json:"tokens_in"`
	TokensOut int          `json:"tokens_out"`
	Text      string       `json:"text,omitempty"`
	Tool      string       `json:"tool,omitempty"`
	IsError   bool         `json:"is_error,omitempty"`
	Result    string       `json:"result,omitempty"`
	Files     []string     `json:"files,omitempty"`
	Outcome   *outcomeJSON `json:"outcome,omitempty"`
}

type outcomeJSON struct {
	ExitPath string `json:"exit_path"`
	OK       bool   `json:"ok"`
	Line     string `json:"line"`
	Summary  string `json:"summary,omitempty"`
	Commit   string `json:"commit,omitempty"`
	StashRef string `json:"stash_ref,omitempty"`
}

func (s *Server) eventMessage(red *redact.Redactor, e runs.Event) runEvent {
	m := runEvent{Type: "event", Kind: string(e.Kind), Turn: e.Turn, Budget: e.Budget, TokensIn: e.Tokens.Input, TokensOut: e.Tokens.Output,
		Text: red.String(e.Text), Tool: e.Tool, IsError: e.IsError, Result: red.String(textfmt.Clip(e.Result, maxResultChars)), Files: e.Files}
	if o := e.Outcome; o != nil {
		line := string(o.ExitPath)
		if s.opts.OutcomeLine != nil {
			line = s.opts.OutcomeLine(o)
		}
		m.Outcome = &outcomeJSON{ExitPath: string(o.ExitPath), OK: o.OK(), Line: red.String(line), Summary: red.String(o.Summary),
			Commit: o.Commit, StashRef: o.StashRef}
	}
	return m
}

// touchesKiCad says whether a run's changed files include a sheet or the
// board (a doc edit needs no new picture).
func touchesKiCad(files []string) bool {
	for _, f := range files {
		switch path.Ext(f) {
		case ".kicad_sch", ".kicad_pcb":
			return true
		}
	}
	return false
}

// record keeps m in the run's log (for pages that join later) and sends it.
func (s *Server) record(m runEvent) {
	data, _ := json.Marshal(m)
	// Under the hub's lock: a page joining now gets the event either in
	// the log it is sent first or as this broadcast, never both.
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	s.mu.Lock()
	if len(s.runLog) < maxRunLog {
		s.runLog = append(s.runLog, data)
	}
	switch {
	case m.Kind == string(runs.EventReply) && m.Text != "":
		s.rationale = append(s.rationale, firstLine(m.Text))
	case m.Outcome != nil && m.Outcome.Summary != "":
		s.rationale = append(s.rationale, firstLine(m.Outcome.Summary))
	}
	s.mu.Unlock()
	s.hub.broadcastLocked(data)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return textfmt.Clip(s, 300)
}

// startRun is POST /api/run {"request": "..."}: one run at a time (409
// while one is going). The run's own gates decide everything else (a dirty
// tree, the spec gate, the finish gate); the request is text, never a path.
func (s *Server) startRun(w http.ResponseWriter, r *http.Request) {
	if s.opts.Run == nil {
		http.Error(w, "this session has no model: start watch with a model configured", http.StatusServiceUnavailable)
		return
	}
	var body struct {
		Request string `json:"request"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		http.Error(w, "bad request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := strings.TrimSpace(body.Request)
	if req == "" {
		http.Error(w, "empty change request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if s.baseCtx == nil || s.baseCtx.Err() != nil {
		s.mu.Unlock()
		http.Error(w, "the server is stopping", http.StatusServiceUnavailable)
		return
	}
	if s.running {
		s.mu.Unlock()
		http.Error(w, "a run is in progress: one run at a time (Stop it first)", http.StatusConflict)
		return
	}
	// The run outlives this request but not the server: its context is
	// the server's, cancelled by Ctrl-C.
	ctx, cancel := context.WithCancel(s.baseCtx)
	s.running, s.request, s.cancelRun, s.runDone = true, req, cancel, make(chan struct{})
	s.runLog, s.rationale = nil, nil
	done := s.runDone
	s.mu.Unlock()
	s.rend.markBefore()
	s.broadcastState(func() {})
	go s.run(ctx, req, done)
	w.WriteHeader(http.StatusAccepted)
}

func (s *Server) run(ctx context.Context, req string, done chan struct{}) {
	defer close(done)
	var unsub func()
	var ended atomic.Bool // set by the run's goroutines, read here
	err := s.opts.Run(ctx, req, func(rn *runs.Run) {
		red := rn.Redactor
		unsub = rn.Subscribe(func(e runs.Event) {
			m := s.eventMessage(red, e)
			if e.Kind == runs.EventEnd {
				ended.Store(true)
			}
			s.record(m)
			if (e.Kind == runs.EventFiles && touchesKiCad(e.Files)) || e.Kind == runs.EventEnd {
				s.kick()
			}
		})
	})
	if unsub != nil {
		unsub()
	}
	if err != nil && !ended.Load() {
		// The run never started (a dirty tree, no model): say why where
		// the request was typed.
		s.record(runEvent{Type: "event", Kind: "error", Text: redact.New(os.Environ()).String(err.Error())})
	}
	s.broadcastState(func() {
		s.running = false
		s.cancelRun()
		s.cancelRun = nil
	})
	s.kick()
}

// stopRun is POST /api/stop: the run's context is cancelled, as Ctrl-C
// cancels `do`'s, so it ends interrupted, rolled back, its work stashed.
func (s *Server) stopRun(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	cancel := s.cancelRun
	s.mu.Unlock()
	if cancel == nil {
		http.Error(w, "no run in progress", http.StatusConflict)
		return
	}
	cancel()
	w.WriteHeader(http.StatusAccepted)
}

// waitRun waits for a run in progress to end (its context is already
// cancelled when the server stops).
func (s *Server) waitRun() {
	s.mu.Lock()
	done := s.runDone
	s.mu.Unlock()
	if done != nil {
		<-done
	}
}
