package agent

import (
	"context"
	"errors"
	"sync"

	"copperhead/internal/llm"
	"copperhead/internal/runs"
	"copperhead/internal/tool"
	"copperhead/internal/transcript"
)

// Session is an agent run whose reasoner is outside copperhead: an MCP
// client's model calls the run's tools one at a time instead of copperhead's
// turn loop choosing them. Everything else is the loop's own code, so every
// gate holds the same way whoever reasons: the tree is snapshotted and the
// snapshot referenced before the first write (Open), every call goes
// through tool.Dispatch (the spec gate, strict arguments, the path gate, the
// post-call hook opening the ledger) and is recorded as a tool event, and
// the run ends through the loop's ending: finish(done) is accepted only by
// the finish tool's gate and commits once, a refusal or an abort restores
// the snapshot byte for byte and keeps the work in a stash.
//
// A Session is safe for concurrent use: calls run one at a time, in the
// order they arrive, as the loop runs a turn's calls.
type Session struct {
	mu  sync.Mutex
	r   *run
	out *runs.Outcome // set once the run ended
}

// Open starts a Session on rn: the loop's own start (the tree opened unless
// in.Tree is set, the tool session, the system prompt, the snapshot
// referenced and the run-start written). in.Interactive is refused: the
// client's user approves by calling the tools. The caller abandons rn when
// Open returns an error (the run never began).
func Open(ctx context.Context, rn *runs.Run, in RunInput) (*Session, error) {
	if in.Interactive {
		return nil, errors.New("agent session: interactive approval is the client's, not copperhead's")
	}
	r, err := newRun(ctx, rn, in)
	if err != nil {
		return nil, err
	}
	return &Session{r: r}, nil
}

// ToolList is the tool list the reasoner may call now (tool.ToolList: the
// mutating tools are absent until the run's change validates); nil once the
// run ended.
func (s *Session) ToolList() []llm.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out != nil {
		return nil
	}
	return tool.ToolList(s.r.s, s.r.tools)
}

// SystemPrompt is the run's system prompt, the one copperhead's own loop
// would send: the rules, the workflow, the budgets, the registry and the docs.
func (s *Session) SystemPrompt() string { return s.r.system }

// RunID is the run's id.
func (s *Session) RunID() string { return s.r.rn.ID }

// State is what the reasoner can see of the run between calls.
type State struct {
	RunID     string   `json:"run_id"`
	ChangeID  string   `json:"change_id,omitempty"`
	Validated bool     `json:"validated"`
	Touched   []string `json:"files_touched"`
	// Open are the ledger's open obligations: finish(done) is refused
	// while any is left.
	Open []string `json:"open_obligations"`
}

// State reports the run's state now.
func (s *Session) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return State{RunID: s.r.rn.ID, ChangeID: s.r.s.ChangeID, Validated: s.r.s.Validated,
		Touched: append([]string{}, s.r.s.Touched...), Open: s.r.openObligations()}
}

// Call runs one tool call through the loop's dispatch (tool.Dispatch, the
// tool event, the watchers' events). When the call ended the run (an
// accepted finish, the repair budget spent, a tool that broke the run, a
// cancelled ctx), the run is ended as the loop would end it and the outcome
// is returned; otherwise the outcome is nil. A call after the end is refused
// without running.
func (s *Session) Call(ctx context.Context, call llm.ToolCall) (tool.Result, *runs.Outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out != nil {
		return tool.Errorf("not run: run %s has ended (%s)", s.r.rn.ID, s.out.ExitPath), s.out
	}
	results, fatal := s.r.dispatch(ctx, []llm.ToolCall{call})
	res := tool.Result{Text: results[0].Content, IsError: results[0].IsError}
	if exit, failure, over := s.r.afterCalls(ctx, fatal); over {
		s.out = s.r.end(ctx, exit, failure)
	}
	return res, s.out
}

// End ends the run now with exit and failure (an abort: the reasoner went
// away or asked to stop), through the loop's ending: a failure keeps the
// work in a stash and restores the tree. A run that already ended returns
// its outcome unchanged.
func (s *Session) End(ctx context.Context, exit transcript.ExitPath, failure string) *runs.Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out == nil {
		s.out = s.r.end(ctx, exit, failure)
	}
	return s.out
}

// SetSubject sets the subject line of the commit a done run makes
// (RunInput.Subject): a reasoner's session has no request in the person's
// words to head it, but its change has a name once proposed.
func (s *Session) SetSubject(subject string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.r.in.Subject = subject
}

// Ended is the run's outcome, nil while it runs.
func (s *Session) Ended() *runs.Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out
}

// Changed reports whether the run wrote anything yet: a proposal, an edit.
// A run that wrote nothing has nothing to recover.
func (s *Session) Changed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.r.s.Touched) > 0 || s.r.s.ChangeID != ""
}

// Close removes a dry run's scratch copy (a no-op otherwise); the caller
// calls it once the Session is done with.
func (s *Session) Close(ctx context.Context) error { return s.r.tree.Remove(ctx) }
