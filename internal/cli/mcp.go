package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/mcpserver"
	"copperhead/internal/runs"
	"copperhead/internal/verify"
)

func newMCPCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve copperhead's tools to an MCP client (Claude Code, Cursor, Codex) over stdio, behind the same gates as do",
		Long: `mcp is an MCP server on stdin/stdout for the repository named by --repo.

Read tools (check, parts, nets, explain, drift, constraints, diff, and the
agent's read_file, search, list_symbols, list_nets, list_pins,
search_symbols, symbol_pins) change nothing and call no model.

A change session is the same machinery as do with the client's model as the
reasoner: the first call of a session tool (propose_change, validate_change,
run_erc, run_drc, check_drift, record_decision, finish, ...) takes the
one-writer lock, snapshots the tree (a dirty tree is refused), references
the snapshot as refs/copperhead/runs/<run-id> and starts a run recorded in
.copperhead/runs/<run-id>/. The edit tools are absent from tools/list until
the proposal validates (notifications/tools/list_changed says when they
appear and go). finish with outcome done is refused while the ledger has
open obligations or the last ERC/DRC predates the last edit; accepted, it
commits once. finish with outcome refuse restores the tree byte for byte and
keeps the work in a stash; abort stops the session the same way. A client
that disconnects after writing leaves the run for 'copperhead recover'.

The do tool runs copperhead's own agent with the configured model. stdout
carries protocol messages only; logs go to stderr. No network.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.json {
				return usagef("mcp speaks JSON-RPC on stdout: --json does not apply")
			}
			return a.runMCP(cmd.Context())
		},
	}
}

func (a *app) runMCP(ctx context.Context) error {
	// The protocol owns stdout. Everything reused below (check, the
	// commands, do's renderer) writes to stderr instead, so no stray line
	// can corrupt the stream.
	proto := a.io.Out
	if j, ok := proto.(*jsonStdout); ok {
		proto = j.w
	}
	in := a.io.In
	a.io.Out, a.io.OutTTY, a.plain = a.io.Err, false, true
	ws, kc, err := a.openKiCad(ctx)
	if err != nil {
		return err
	}
	repo := ws.repo
	srv := mcpserver.New(mcpserver.Options{
		Repo: repo, Config: ws.cfg, Project: ws.proj, KiCad: kc, Version: version(), Log: a.io.Err,
		Lock: func(ctx context.Context) (func(), error) { return a.lockRepo(ctx, repo) },
		Check: func(ctx context.Context, strict bool) (*verify.Result, error) {
			return a.runCheck(ctx, checkOptions{strict: strict, baselineFromConfig: true})
		},
		Command: func(ctx context.Context, args ...string) (json.RawMessage, error) {
			return a.jsonCommand(ctx, repo, args)
		},
		Do: func(ctx context.Context, request string, watch func(runs.Event)) (*runs.Outcome, error) {
			return a.doOutcome(ctx, request, doOptions{onRun: func(rn *runs.Run) { rn.Subscribe(watch) }})
		},
	})
	fmt.Fprintf(a.io.Err, "copperhead mcp: serving %s on stdio\n", repo)
	err = srv.Run(ctx, mcpserver.StdioTransport(in, proto))
	if ctx.Err() != nil {
		// A signal stopped the server: its normal shutdown, said in one
		// log line; main turns the quiet failure into exit 130.
		fmt.Fprintf(a.io.Err, "copperhead mcp: stopped (%v)\n", context.Cause(ctx))
		return quietf(ExitFailed, "mcp: stopped (%v)", context.Cause(ctx))
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return failf("mcp: %v", err)
	}
	return nil
}

// jsonCommand runs one copperhead command with --json in this process and
// returns the object it printed: the read tools answer with exactly what the
// command answers. A command that failed returns its error line.
func (a *app) jsonCommand(ctx context.Context, repo string, args []string) (json.RawMessage, error) {
	var out bytes.Buffer
	code := Main(ctx, append([]string{"--repo", repo, "--json"}, args...), IO{In: strings.NewReader(""), Out: &out, Err: a.io.Err})
	if code != ExitOK {
		var res struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(out.Bytes(), &res) == nil && res.Error != "" {
			return nil, errors.New(res.Error)
		}
		return nil, fmt.Errorf("copperhead %s exited %d", strings.Join(args, " "), code)
	}
	return json.RawMessage(bytes.TrimSpace(out.Bytes())), nil
}
