package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"copperhead/internal/textdist"
)

// Command is one slash command: its name without the slash, its arguments as
// /help shows them ("" for none), one line of help, and what it does. Run's
// error is printed as one line and the shell carries on; ErrQuit leaves.
type Command struct {
	Name string
	Args string
	Help string
	Run  func(ctx context.Context, args []string) error
}

// ErrQuit is what a command returns to end the session (/quit).
var ErrQuit = errors.New("quit")

// ErrInterrupt is what a LineReader returns for Ctrl-C; the line typed so far
// comes with it. io.EOF is Ctrl-D at an empty line.
var ErrInterrupt = errors.New("interrupted at the prompt")

// LineReader reads one line a person types after prompt. It returns
// ErrInterrupt (with the partial line) for Ctrl-C, io.EOF for Ctrl-D, and
// ctx's error when ctx ends first.
type LineReader interface {
	ReadLine(ctx context.Context, prompt string) (string, error)
}

// Shell is the prompt loop. A typed line starting with "/" is a slash
// command looked up in Commands; any other non-blank line is one change
// request, handed to Request. Both run under a context from Attend, so an
// interrupt ends that one step and the prompt comes back.
type Shell struct {
	Lines  LineReader
	Out    io.Writer // where /help, errors and the loop's own lines go
	Prompt string
	// Commands is the slash-command table in /help's order. "help" is the
	// shell's own when the table has no Run for it.
	Commands []Command
	// Request runs one change request (do's path, with all of its gates).
	Request func(ctx context.Context, request string)
	// Attend gives the context one step runs under and ends it; nil is a
	// plain cancellable child of the session's context.
	Attend func(ctx context.Context) (context.Context, func())
	// Typed is told every line accepted at the prompt (history, log).
	Typed func(line string)
}

// Run reads and runs lines until /quit, Ctrl-D, Ctrl-C at an empty prompt or
// the end of ctx. It returns nil for a person leaving and ctx's error when
// the session was stopped from outside (a signal).
func (s *Shell) Run(ctx context.Context) error {
	for {
		line, err := s.Lines.ReadLine(ctx, s.Prompt)
		switch {
		case errors.Is(err, ErrInterrupt) && strings.TrimSpace(line) != "":
			continue // Ctrl-C on a typed line discards it, as a shell does
		case errors.Is(err, ErrInterrupt), errors.Is(err, io.EOF):
			return nil
		case err != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("read the prompt: %w", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if s.Typed != nil {
			s.Typed(line)
		}
		if err := s.Do(ctx, line); errors.Is(err, ErrQuit) {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// Do runs one accepted line: a slash command or a change request. Its error
// is ErrQuit or nil: a command's own failure is printed here.
func (s *Shell) Do(ctx context.Context, line string) error {
	attend := s.Attend
	if attend == nil {
		attend = func(ctx context.Context) (context.Context, func()) { return context.WithCancel(ctx) }
	}
	if !strings.HasPrefix(line, "/") {
		stepCtx, done := attend(ctx)
		defer done()
		s.Request(stepCtx, line)
		return nil
	}
	fields := strings.Fields(line[1:])
	name := ""
	if len(fields) > 0 {
		name = strings.ToLower(fields[0])
	}
	cmd, ok := s.lookup(name)
	if !ok {
		fmt.Fprintln(s.Out, s.unknown(name))
		return nil
	}
	if cmd.Run == nil && cmd.Name == "help" {
		s.Help()
		return nil
	}
	stepCtx, done := attend(ctx)
	defer done()
	err := cmd.Run(stepCtx, fields[1:])
	switch {
	case errors.Is(err, ErrQuit):
		return ErrQuit
	case err != nil:
		fmt.Fprintln(s.Out, "copperhead: /"+cmd.Name+": "+err.Error())
	}
	return nil
}

func (s *Shell) lookup(name string) (Command, bool) {
	for _, c := range s.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// maxSuggestDistance is how far a mistyped command name may be from a real
// one to be suggested: one or two slips ("/chek", "/nest"), not a guess.
const maxSuggestDistance = 2

// unknown is the one line for a slash command the table lacks: its name, the
// closest real one when it is a near miss, and where the list is.
func (s *Shell) unknown(name string) string {
	if name == "" {
		return "a slash command needs a name: /help lists them"
	}
	var names []string
	for _, c := range s.Commands {
		names = append(names, c.Name)
	}
	msg := "unknown command /" + name
	if best := textdist.Closest(name, names, 1); len(best) == 1 && textdist.Levenshtein(name, best[0]) <= maxSuggestDistance {
		msg += " (did you mean /" + best[0] + "?)"
	}
	return msg + ": /help lists the commands"
}

// Help prints the slash-command table, then how a change request and leaving
// work.
func (s *Shell) Help() {
	fmt.Fprintln(s.Out, "Type a change request to run it as one do change (proposed, edited, verified, committed),")
	fmt.Fprintln(s.Out, "or a slash command:")
	tw := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
	for _, c := range s.Commands {
		usage := "/" + c.Name
		if c.Args != "" {
			usage += " " + c.Args
		}
		fmt.Fprintf(tw, "  %s\t%s\n", usage, c.Help)
	}
	_ = tw.Flush()
	fmt.Fprintln(s.Out, "Tab completes a command, the up arrow walks the history, Ctrl-R searches it.")
	fmt.Fprintln(s.Out, "Ctrl-C stops a running change (rolled back, its work stashed); Ctrl-C or Ctrl-D at an empty prompt leaves.")
}
