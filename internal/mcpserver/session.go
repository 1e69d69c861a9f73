package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"copperhead/internal/agent"
	"copperhead/internal/llm"
	"copperhead/internal/runmeta"
	"copperhead/internal/runs"
	"copperhead/internal/tool"
	"copperhead/internal/transcript"
)

// SessionResult is what every session tool returns, as structured content
// beside the same text the agent's own loop would hand its model.
type SessionResult struct {
	// Result is the tool's answer, word for word what copperhead's own loop
	// gives its model.
	Result  string `json:"result" jsonschema:"the tool's answer"`
	IsError bool   `json:"is_error" jsonschema:"true when the call was refused or failed; nothing it refused was changed"`
	// Session is the change session's state after the call; nil when the
	// call ran outside one (a read before any proposal).
	Session *agent.State `json:"session,omitempty" jsonschema:"the change session after the call"`
	// Ended is how the session ended, when this call ended it.
	Ended *Ending `json:"ended,omitempty" jsonschema:"how the change session ended, when this call ended it"`
}

// Ending is a change session's outcome as a client reads it.
type Ending struct {
	ExitPath   string `json:"exit_path" jsonschema:"done, refused, interrupted, no-change, commit-failed, ..."`
	Commit     string `json:"commit,omitempty" jsonschema:"the one commit a done session made"`
	StashRef   string `json:"stash_ref,omitempty" jsonschema:"where a session that did not commit kept its work"`
	Error      string `json:"error,omitempty"`
	Transcript string `json:"transcript" jsonschema:"the run's transcript, repository-relative"`
}

var sessionResultSchema = mustSchema[SessionResult]()

func mustSchema[T any]() *jsonschema.Schema {
	sch, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err))
	}
	return sch
}

// readOnlyTools answer from the tree as it is and change no session state:
// outside a change session they run on a session of their own, through the
// same Dispatch and path gate, without opening a run.
var readOnlyTools = map[string]bool{
	"read_file": true, "search": true, "list_symbols": true, "list_nets": true, "list_pins": true,
	"search_symbols": true, "symbol_pins": true,
}

// addSessionTool registers t with the SDK: its name, description and input
// schema exactly as the agent's model sees them (derived from the tool's
// arguments type), SessionResult's output schema, and a handler that goes
// through callSession. Arguments are decoded strictly by tool.New, as in the
// loop, so the SDK does not validate them a second way.
func (s *Server) addSessionTool(t tool.Tool) {
	spec := t.Spec()
	mt := &mcp.Tool{Name: spec.Name, Description: spec.Description, InputSchema: spec.Schema, OutputSchema: sessionResultSchema}
	if readOnlyTools[spec.Name] {
		mt.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
	}
	s.sdk.AddTool(mt, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.callSession(ctx, req.ClientInfo(), spec.Name, req.Params.Arguments), nil
	})
}

// lockedToolCalls answers a tools/call of a session tool the client was not
// shown (a mutating tool before validation) with the loop's own refusal,
// through Dispatch, instead of the SDK's "unknown tool": the second half of
// the spec gate, for a client that calls a tool it was not offered.
func (s *Server) lockedToolCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		name := call.Params.Name
		if _, known := s.byName[name]; !known || s.isListed(name) {
			return next(ctx, method, req)
		}
		return s.callSession(ctx, call.ClientInfo(), name, call.Params.Arguments), nil
	}
}

// callSession runs one session tool call. A call that needs a change
// session opens one first (openSession); a read-only call outside a session
// runs on a session of its own; a call of a locked tool outside a session is
// refused by Dispatch without opening anything. After the call the tool list
// follows the session (syncTools), and a call that ended the session closes
// it.
func (s *Server) callSession(ctx context.Context, client *mcp.Implementation, name string, args json.RawMessage) *mcp.CallToolResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.syncTools()
	s.calls++
	call := llm.ToolCall{ID: fmt.Sprintf("mcp-%d", s.calls), Name: name, Args: args}
	if s.sess == nil {
		t := s.byName[name]
		if readOnlyTools[name] || (t != nil && t.Mutating()) {
			return s.toolResult(SessionResult{}, tool.Dispatch(ctx, s.standalone(), s.tools, call))
		}
		if err := s.openSession(ctx, client); err != nil {
			return s.toolResult(SessionResult{}, tool.Errorf("%s not run: no change session could start: %s", name, err.Error()))
		}
	}
	if st := s.sess.State(); st.ChangeID != "" {
		// The commit is headed by the change the client proposed.
		s.sess.SetSubject("copperhead mcp: " + st.ChangeID)
	}
	res, out := s.sess.Call(ctx, call)
	st := s.sess.State()
	sr := SessionResult{Session: &st}
	if out != nil {
		sr.Ended = ending(out)
		res.Text = strings.TrimRight(res.Text, "\n") + "\n\n" + endingLine(out)
		s.closeSession(ctx)
	}
	return s.toolResult(sr, res)
}

// standalone is a session of its own for a read-only call outside a change
// session: the repository, its config and project, the same path gate and
// redactor; no run, no ledger that anything reads.
func (s *Server) standalone() *tool.Session {
	o := s.opts
	return &tool.Session{Repo: o.Repo, Config: o.Config, Project: o.Project, KiCad: o.KiCad,
		Ledger: tool.NewLedger(), Redactor: s.red}
}

// openSession starts a change session: the one-writer lock, the snapshot
// (a dirty tree is refused, as `do` refuses it), a run whose reasoner is
// the client, and the agent session, which references the snapshot and
// writes the run-start before the first write. s.mu is held.
func (s *Server) openSession(ctx context.Context, client *mcp.Implementation) (err error) {
	o := s.opts
	unlock := func() {}
	if o.Lock != nil {
		if unlock, err = o.Lock(ctx); err != nil {
			return err
		}
	}
	defer func() {
		if err != nil {
			unlock()
		}
	}()
	tree, err := runs.OpenTree(ctx, o.Repo, false, false)
	if err != nil {
		return err
	}
	cfg := o.Config
	// The server opens no socket: a session has no research tools, whatever
	// the repository's research block says.
	cfg.Research.Enabled = false
	reasoner := "mcp client"
	if client != nil && client.Name != "" {
		reasoner = strings.TrimSpace(client.Name + " " + client.Version)
	}
	meta := runmeta.Input{Command: "mcp", Request: "MCP change session (" + reasoner + ")", Config: cfg}
	if o.Project != nil {
		meta.Schematic, meta.Board = o.Project.Rel(o.Project.Schematic), o.Project.Rel(o.Project.Board)
	}
	if o.KiCad != nil {
		meta.KicadCLIVersion = o.KiCad.Version()
	}
	rn, err := runs.Start(ctx, runs.Options{Repo: o.Repo, Reasoner: reasoner, Meta: meta, Version: o.Version, Probes: o.Probes})
	if err != nil {
		return err
	}
	sess, err := agent.Open(ctx, rn, agent.RunInput{Repo: o.Repo, Config: cfg, Project: o.Project, KiCad: o.KiCad,
		Tree: tree, Request: meta.Request, Tools: s.tools})
	if err != nil {
		rn.Abandon()
		return err
	}
	s.sess, s.unlock = sess, unlock
	s.logf("change session %s opened for %s", sess.RunID(), reasoner)
	return nil
}

// closeSession forgets an ended session and releases the lock. s.mu is held.
func (s *Server) closeSession(ctx context.Context) {
	if err := s.sess.Close(ctx); err != nil {
		s.logf("%v", err)
	}
	s.sess = nil
	if s.unlock != nil {
		s.unlock()
		s.unlock = nil
	}
}

// Shutdown closes the change session a departing client left open. One that
// wrote nothing ends as interrupted (there is nothing to restore). One that
// wrote is left as a killed run is left: its snapshot ref stays, `copperhead
// recover` restores the tree and keeps the work in a stash, and `do`
// refuses to start until it has.
func (s *Server) Shutdown(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess == nil {
		return
	}
	id := s.sess.RunID()
	if s.sess.Changed() {
		s.logf("the client left change session %s open with work in the tree: run 'copperhead recover' to restore the tree (the work is kept in a stash)", id)
		s.sess = nil
		if s.unlock != nil {
			s.unlock()
		}
		return
	}
	out := s.sess.End(ctx, transcript.ExitInterrupted, "the MCP client disconnected before changing anything")
	s.logf("change session %s ended: %s", id, out.ExitPath)
	s.closeSession(ctx)
}

// abortIn is abort's arguments.
type abortIn struct {
	Reason string `json:"reason,omitempty" jsonschema:"why the session stops, for the run record"`
}

// addAbortTool adds abort: the client stops its change session without
// finishing it. The loop's ending for an interrupted run restores the tree
// byte for byte and keeps the work in a "copperhead interrupted run" stash.
func (s *Server) addAbortTool() {
	mcp.AddTool(s.sdk, &mcp.Tool{Name: "abort",
		Description: "Stop the open change session without finishing it: the tree is restored byte for byte to its state before the session, the session's work is kept in a git stash, nothing is committed. Use finish with outcome refuse to refuse a request; abort is for stopping."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in abortIn) (*mcp.CallToolResult, SessionResult, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.sess == nil {
				res := tool.Errorf("abort: no change session is open: nothing to stop")
				tr := s.toolResult(SessionResult{}, res)
				return tr, tr.StructuredContent.(SessionResult), nil
			}
			defer s.syncTools()
			why := "aborted by the MCP client"
			if r := strings.TrimSpace(in.Reason); r != "" {
				why += ": " + r
			}
			out := s.sess.End(ctx, transcript.ExitInterrupted, why)
			st := s.sess.State()
			s.closeSession(ctx)
			sr := SessionResult{Result: endingLine(out), Session: &st, Ended: ending(out)}
			tr := s.toolResult(sr, tool.Result{Text: sr.Result})
			return tr, tr.StructuredContent.(SessionResult), nil
		})
}

// toolResult is res as an MCP tool result: the text, redacted, and sr with
// it as structured content.
func (s *Server) toolResult(sr SessionResult, res tool.Result) *mcp.CallToolResult {
	text := s.red.String(res.Text)
	sr.Result, sr.IsError = text, res.IsError
	if sr.Ended != nil {
		sr.Ended.Error = s.red.String(sr.Ended.Error)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: sr, IsError: res.IsError}
}

func ending(o *runs.Outcome) *Ending {
	return &Ending{ExitPath: string(o.ExitPath), Commit: o.Commit, StashRef: o.StashRef, Error: o.Error, Transcript: o.Transcript}
}

// endingLine is the session's ending in one line for the client's model.
func endingLine(o *runs.Outcome) string {
	parts := []string{"Change session " + o.RunID + " ended: " + string(o.ExitPath)}
	switch {
	case o.Commit != "":
		parts = append(parts, "committed "+o.Commit)
	case o.StashRef != "":
		parts = append(parts, "tree restored; work kept in "+o.StashRef)
	case o.ExitPath == transcript.ExitRefused:
		parts = append(parts, "tree restored, nothing committed")
	}
	if o.Error != "" {
		parts = append(parts, o.Error)
	}
	parts = append(parts, "transcript "+o.Transcript)
	return strings.Join(parts, "; ") + "."
}
