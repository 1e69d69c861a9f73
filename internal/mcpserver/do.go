package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"copperhead/internal/runs"
)

type doIn struct {
	Request string `json:"request" jsonschema:"the change request in the engineer's words, e.g. rename net KEY_DAH to KEY_DASH"`
}

// DoOut is the do tool's answer: how copperhead's own run ended.
type DoOut struct {
	OK bool `json:"ok" jsonschema:"the change was committed, or the agent refused it"`
	Ending
	RunID    string `json:"run_id"`
	ChangeID string `json:"change_id,omitempty"`
	Summary  string `json:"summary,omitempty"`
}

// addDoTool adds do: copperhead's own agent loop with the configured model,
// for clients that prefer to delegate (the `do` command's path, its gates
// and record). Each event of the run goes to the client as a progress
// notification when the call carries a progress token.
func (s *Server) addDoTool() {
	if s.opts.Do == nil {
		return
	}
	mcp.AddTool(s.sdk, &mcp.Tool{Name: "do",
		Description: "Delegate one change request to copperhead's own agent (the configured model): it proposes, validates, edits, runs ERC/DRC and the drift check, and commits once, or refuses. Progress arrives as MCP progress notifications. Refused while a change session of yours is open."},
		func(ctx context.Context, req *mcp.CallToolRequest, in doIn) (*mcp.CallToolResult, *DoOut, error) {
			request := strings.TrimSpace(in.Request)
			if request == "" {
				return nil, nil, errors.New("do: request is empty: say the change, e.g. rename net KEY_DAH to KEY_DASH")
			}
			s.mu.Lock()
			open := s.sess != nil
			s.mu.Unlock()
			if open {
				return nil, nil, errors.New("do: a change session is open on this server: finish it first (finish with outcome done or refuse)")
			}
			token := req.Params.GetProgressToken()
			n := 0
			watch := func(e runs.Event) {
				if token == nil {
					return
				}
				line := progressLine(e)
				if line == "" {
					return
				}
				n++
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: line})
			}
			out, err := s.opts.Do(ctx, request, watch)
			if err != nil {
				return nil, nil, fmt.Errorf("do: %w", err)
			}
			res := &DoOut{OK: out.OK(), Ending: *ending(out), RunID: out.RunID, ChangeID: out.ChangeID, Summary: out.Summary}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: endingLine(out)}}, IsError: !out.OK()}, res, nil
		})
}

// progressLine is one run event as a progress message ("" for the events
// a client need not see).
func progressLine(e runs.Event) string {
	switch e.Kind {
	case runs.EventTurn:
		return fmt.Sprintf("turn %d/%d", e.Turn, e.Budget)
	case runs.EventTool:
		return e.Tool + ": " + e.Text
	case runs.EventNotice:
		return e.Text
	case runs.EventEnd:
		if e.Outcome != nil {
			return "ended: " + string(e.Outcome.ExitPath)
		}
	}
	return ""
}
