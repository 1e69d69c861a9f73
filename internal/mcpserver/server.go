package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"copperhead/internal/agent"
	"copperhead/internal/config"
	"copperhead/internal/kicadcli"
	"copperhead/internal/project"
	"copperhead/internal/redact"
	"copperhead/internal/runmeta"
	"copperhead/internal/runs"
	"copperhead/internal/tool"
	"copperhead/internal/tools"
	"copperhead/internal/verify"
)

// Options are what the server serves: the repository as the command opened
// it, and the CLI's own answers for the read tools and the do tool, handed
// in so this package never re-implements (or imports) them.
type Options struct {
	Repo    string           // repository root, absolute, symlinks resolved
	Config  config.Config    // the repository's config, read once
	Project *project.Project // the located KiCad project
	KiCad   *kicadcli.Tool   // kicad-cli, its boundary the repository
	Version string           // copperhead's version, for serverInfo and the run-start

	// Lock takes the repository's one-writer lock for a change session and
	// refuses while a killed run waits for `copperhead recover` (the CLI's
	// lockRepo); nil takes none (tests).
	Lock func(ctx context.Context) (unlock func(), err error)
	// Check runs every gate, exactly as `copperhead check --json` does.
	Check func(ctx context.Context, strict bool) (*verify.Result, error)
	// Command runs one copperhead command with --json and returns the JSON
	// object it printed (parts, nets, explain, diff); nil leaves those
	// tools out.
	Command func(ctx context.Context, args ...string) (json.RawMessage, error)
	// Do runs copperhead's own agent loop on one request with the
	// configured model (the `do` command's path), calling watch with every
	// event of the run; nil leaves the do tool out.
	Do func(ctx context.Context, request string, watch func(runs.Event)) (*runs.Outcome, error)

	// Probes replace the run-start metadata probes (tests); nil is the real
	// tools.
	Probes *runmeta.Probes
	// Log receives the server's own lines (stderr); nil discards them.
	Log io.Writer
}

// Server is one `copperhead mcp` server: one MCP connection and at most one
// change session at a time.
type Server struct {
	opts Options
	sdk  *mcp.Server
	log  io.Writer
	// red scrubs the secrets of the environment (and secret-shaped text)
	// from every session result before it leaves: the client's transcript
	// is a surface like any other.
	red *redact.Redactor

	// tools are the session tools in their fixed order (tools.All: no
	// research, the MCP server opens no socket).
	tools  []tool.Tool
	byName map[string]tool.Tool

	mu     sync.Mutex // serializes session calls and the tool list
	sess   *agent.Session
	unlock func()
	// listed are the session tools registered with the SDK now; syncTools
	// writes them (under mu too), lockedToolCalls reads them without
	// waiting for a session call in progress.
	listMu sync.Mutex
	listed []string
	calls  int // session tool calls so far: each call's id in the transcript
}

// afterValidation withholds a tool until the session's proposal validates,
// like the mutating tools. record_decision is one for MCP clients: do's loop
// offers it while planning, so a refused run's summary keeps the reasons,
// but a client's decision is part of the design record it commits, and the
// spec gate comes before anything that changes the record.
type afterValidation struct{ tool.Tool }

func (afterValidation) Mutating() bool { return true }

// New builds the server: the read tools, the session tools a client may
// call before any proposal, the resources and the prompt.
func New(o Options) *Server {
	s := &Server{opts: o, log: o.Log, tools: tools.All(), byName: map[string]tool.Tool{}, red: redact.New(os.Environ())}
	if s.log == nil {
		s.log = io.Discard
	}
	for i, t := range s.tools {
		if t.Spec().Name == "record_decision" {
			t = afterValidation{t}
			s.tools[i] = t
		}
		s.byName[t.Spec().Name] = t
	}
	s.sdk = mcp.NewServer(&mcp.Implementation{Name: "copperhead", Version: o.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       slog.New(slog.NewTextHandler(s.log, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
		},
	})
	s.addReadTools()
	s.addDoTool()
	s.addAbortTool()
	s.addResources()
	s.addPrompt()
	s.sdk.AddReceivingMiddleware(s.lockedToolCalls)
	s.mu.Lock()
	s.syncTools()
	s.mu.Unlock()
	return s
}

// instructions are the server's initialize instructions: how the gates
// apply, in the client model's words.
const instructions = `copperhead keeps a KiCad repository's design docs and its schematic and board in agreement.
Read tools (check, parts, nets, explain, drift, constraints, diff, read_file, list_nets, search_symbols, symbol_pins, ...) change nothing.
To change the design: propose_change, then validate_change; the edit tools appear only once the proposal validates.
After editing run run_erc (and run_drc for the board) and check_drift, then finish with outcome done (commits once) or refuse (restores the tree).
finish(done) is refused while an obligation is open or the last ERC/DRC predates the last edit; abort stops a session, restoring the tree.
Get the prompt "copperhead-rules" for the full rules.`

// Run serves one connection on t until the client disconnects or ctx ends,
// then closes any change session still open (Shutdown). When ctx ended it
// Run returns ctx's error. It is the SDK's Server.Run without its log line:
// that one logs an ERROR for a cancelled context, yet a signal stopping
// `copperhead mcp` is its normal shutdown, and a session that ended with an
// error is returned for the caller to report once.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	ss, err := s.sdk.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ctx.Done():
		_ = ss.Close()
		<-ended
		err = ctx.Err()
	case err = <-ended:
	}
	s.Shutdown(context.WithoutCancel(ctx))
	return err
}

// Connect serves one connection on t and returns at once (tests: the
// in-memory transport).
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.sdk.Connect(ctx, t, nil)
}

// syncTools makes the SDK's tool list the session tools the client may call
// now: tool.ToolList of the open session, or of a fresh one when none is
// open (the mutating tools absent either way until a proposal validates).
// Adding or removing a tool makes the SDK send
// notifications/tools/list_changed. s.mu is held.
func (s *Server) syncTools() {
	var want []string
	if s.sess != nil {
		for _, t := range s.sess.ToolList() {
			want = append(want, t.Name)
		}
	}
	if len(want) == 0 { // no session, or it just ended
		for _, t := range tool.ToolList(&tool.Session{}, s.tools) {
			want = append(want, t.Name)
		}
	}
	var gone []string
	for _, n := range s.listed {
		if !slices.Contains(want, n) {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		s.sdk.RemoveTools(gone...)
	}
	for _, n := range want {
		if !slices.Contains(s.listed, n) {
			s.addSessionTool(s.byName[n])
		}
	}
	s.listMu.Lock()
	s.listed = want
	s.listMu.Unlock()
}

// isListed reports whether the session tool name is in the SDK's list now.
func (s *Server) isListed(name string) bool {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	return slices.Contains(s.listed, name)
}

func (s *Server) logf(format string, args ...any) {
	fmt.Fprintf(s.log, "copperhead mcp: "+format+"\n", args...)
}
