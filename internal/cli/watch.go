package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"copperhead/internal/llm"
	"copperhead/internal/runs"
	"copperhead/internal/viewer"
)

// This file is `copperhead watch`. (run.go's watch method is the terminal
// renderer of one run; this command is the browser's.)

func newWatchCmd(a *app) *cobra.Command {
	var port int
	var open bool
	var model string
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Serve the live viewer on 127.0.0.1: the design as SVG, ERC/DRC chips, and a chat that runs do",
		Long: `watch serves a page on http://127.0.0.1:<port>/ (loopback only) that shows
the schematic's sheets and the board as SVG, exported by kicad-cli and
re-exported after every change of a KiCad file (by anyone: an edit in
another terminal, KiCad, a run), with zoom (wheel) and pan (drag) kept
across renders and a selector for the sheets of a hierarchical design. The
status bar shows ERC and DRC as red/amber/green chips, re-run after each
change (results are cached by the design's content, like check's), and the
last run's reasoning lines. A before/after toggle flips between the render
taken when the last run started (or when watch started) and the current one.

The chat runs a change request as 'copperhead do' would, in-process, with
every gate (the dirty-tree rule, the spec gate, ERC/DRC, the finish gate),
one run at a time; its turns stream into the page as they happen and the
terminal shows them too. Stop, or Ctrl-C in the terminal, interrupts it: the
run is rolled back and its work stashed, as do's is on Ctrl-C.

Security: the server listens on 127.0.0.1 only; every request's Host must be
127.0.0.1:<port> or localhost:<port> (else 403, against DNS rebinding); the
WebSocket checks Origin; starting or stopping a run needs the per-session
token embedded in the page; nothing the page sends names a file.

--port 0 picks a free port; the first line printed says which. Exit 0 when
stopped with Ctrl-C, 1 when the port cannot be opened, 2 for bad usage or a
broken environment (no kicad-cli).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if port < 0 || port > 65535 {
				return usagef("--port %d: want 0 to 65535", port)
			}
			if a.json {
				return usagef("watch serves a page until stopped: --json has no object to print")
			}
			return a.runWatch(cmd.Context(), port, open, model)
		},
	}
	f := cmd.Flags()
	f.IntVar(&port, "port", viewer.DefaultPort, "the loopback port to serve on (0: any free port)")
	f.BoolVar(&open, "open", false, "open the page in the desktop's browser")
	f.StringVar(&model, "model", "", "the model the chat's runs use, as do --model")
	return cmd
}

func (a *app) runWatch(ctx context.Context, port int, open bool, model string) error {
	ws, kc, err := a.openKiCad(ctx)
	if err != nil {
		return err
	}
	// The chat needs a model: a bad --model is bad usage, no model at all
	// turns the chat off (the page says so) and leaves the viewer working.
	var run viewer.Runner
	if _, err := llm.Select(settingsFrom(model, ws.cfg)); err != nil {
		if errors.Is(err, llm.ErrInvalidModel) {
			return usagef("%v", err)
		}
		fmt.Fprintf(a.io.Err, "copperhead: watch: chat off: %v (see 'copperhead models')\n", err)
	} else {
		run = func(ctx context.Context, request string, attach func(*runs.Run)) error {
			return a.runDo(ctx, request, doOptions{model: model, onRun: attach, unattended: true})
		}
	}
	ln, err := viewer.Listen(port)
	if err != nil {
		return failf("%v", err)
	}
	srv, err := viewer.New(viewer.Options{Schematic: ws.proj.Schematic, Board: ws.proj.Board, Exporter: kc, Checker: kc,
		Run: run, OutcomeLine: outcomeLine, Log: a.io.Err})
	if err != nil {
		ln.Close()
		return failf("%v", err)
	}
	url := viewer.PageURL(ln)
	fmt.Fprintf(a.io.Out, "copperhead watch: serving %s (Ctrl-C to stop)\n", url)
	if open {
		if err := viewer.OpenBrowser(url); err != nil {
			fmt.Fprintf(a.io.Err, "copperhead: %v\n", err)
		}
	}
	if err := srv.Serve(ctx, ln); err != nil {
		return failf("watch: %v", err)
	}
	return nil
}
