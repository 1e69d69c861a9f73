package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/chzyer/readline"
)

// Editor is the shell's line editor: chzyer/readline on the process's
// terminal (editing keys, the up arrow through History, Ctrl-R search). It
// holds the terminal in raw mode only while a line is being read, so a run's
// output and a Ctrl-C during it behave as on any cooked terminal.
//
// It is the one reader of stdin for the session: the prompt and every
// question a run asks come through ReadLine.
type Editor struct {
	out      io.Writer
	history  func() []string
	complete readline.AutoCompleter

	mu sync.Mutex
	rl *readline.Instance // nil after a read was abandoned: rebuilt on the next read
	// stdin is rl's reader of the terminal. readline's Close does not stop
	// a read in progress (it closes only its own buffer in front of this
	// one), so abandoning a read closes this first: the pending read then
	// ends and Close does not wait forever.
	stdin *readline.CancelableStdin
}

// NewEditor opens the editor writing its prompt and echo to out (the
// terminal itself, not a mirror: the shell logs what was typed as a line of
// its own). history gives the lines the up arrow walks, oldest first; Tab
// completes the slash commands' names from commands.
func NewEditor(out io.Writer, history func() []string, commands []Command) *Editor {
	items := make([]readline.PrefixCompleterInterface, 0, len(commands))
	for _, c := range commands {
		items = append(items, readline.PcItem("/"+c.Name))
	}
	return &Editor{out: out, history: history, complete: readline.NewPrefixCompleter(items...)}
}

func (e *Editor) instance() (*readline.Instance, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.rl != nil {
		return e.rl, nil
	}
	stdin := readline.NewCancelableStdin(os.Stdin)
	rl, err := readline.NewEx(&readline.Config{
		Stdin:  stdin,
		Stdout: e.out,
		// The history file is ours (redacted, in the repository): readline
		// keeps only the in-memory list.
		DisableAutoSaveHistory: true,
		HistoryLimit:           HistoryLimit,
		AutoComplete:           e.complete,
	})
	if err != nil {
		_ = stdin.Close()
		return nil, fmt.Errorf("open the line editor: %w", err)
	}
	if e.history != nil {
		for _, l := range e.history() {
			_ = rl.SaveHistory(l)
		}
	}
	e.rl, e.stdin = rl, stdin
	return rl, nil
}

// AddHistory makes line the newest entry the up arrow reaches.
func (e *Editor) AddHistory(line string) {
	e.mu.Lock()
	rl := e.rl
	e.mu.Unlock()
	if rl != nil && line != "" {
		_ = rl.SaveHistory(line)
	}
}

// ReadLine reads one line after prompt. Ctrl-C is ErrInterrupt with the line
// typed so far, Ctrl-D at an empty line io.EOF. When ctx ends first the
// read is abandoned (the editor is closed and rebuilt for the next read; a
// keystroke already on its way to the abandoned read is lost).
func (e *Editor) ReadLine(ctx context.Context, prompt string) (string, error) {
	rl, err := e.instance()
	if err != nil {
		return "", err
	}
	rl.SetPrompt(prompt)
	type result struct {
		line string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		line, err := rl.Readline()
		got <- result{line, err}
	}()
	select {
	case r := <-got:
		if errors.Is(r.err, readline.ErrInterrupt) {
			return r.line, ErrInterrupt
		}
		return r.line, r.err
	case <-ctx.Done():
		e.abandon(rl)
		<-got
		return "", ctx.Err()
	}
}

func (e *Editor) abandon(rl *readline.Instance) {
	e.mu.Lock()
	stdin := e.stdin
	if e.rl == rl {
		e.rl, e.stdin = nil, nil
	}
	e.mu.Unlock()
	if stdin != nil {
		_ = stdin.Close()
	}
	_ = rl.Close()
	fmt.Fprintln(e.out)
}

// Close gives the terminal back (cooked mode, the reader stopped).
func (e *Editor) Close() error {
	e.mu.Lock()
	rl, stdin := e.rl, e.stdin
	e.rl, e.stdin = nil, nil
	e.mu.Unlock()
	if rl == nil {
		return nil
	}
	_ = stdin.Close()
	return rl.Close()
}
