// Package command is the carter CLI: one file per command (run, replay,
// regress), flag parsing with cobra, output modes (plain lines or --json),
// and exit codes. It turns flags into a task and options and hands them to
// the orchestrator; no research logic lives here.
//
// command may import every carter package, internal/llm and
// internal/redact; nothing imports it but cmd/carter.
package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"copperhead/internal/carter/retrieve"
	"copperhead/internal/carter/task"
	"copperhead/internal/redact"
	"copperhead/internal/research/egress"
	"copperhead/internal/textfmt"
)

// Exit codes (documented in README.md).
const (
	ExitOK     = 0 // the brief was written (complete or partial); replay identical; every regression case passed
	ExitFailed = 1 // the run failed, a replay differed, or a regression case fell below its bar
	ExitUsage  = 2 // bad input: unknown flag, empty question, missing corpus, no model credential
)

// IO is the streams a command talks to.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// StdIO returns the process's own streams.
func StdIO() IO { return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr} }

// Deps are what the commands take from the process; tests replace them.
type Deps struct {
	Getenv func(string) string
	Now    func() time.Time
	// Web builds the web retriever for a normalized task; nil: the
	// provider whose key is set (web.FromEnv). Tests pass a loopback one.
	Web func(spec task.Spec, log func(egress.Record)) (retrieve.Retriever, error)
}

func (d Deps) getenv(k string) string {
	if d.Getenv == nil {
		return os.Getenv(k)
	}
	return d.Getenv(k)
}

// EnvCorpus names the corpus folder when --corpus is not given.
const EnvCorpus = "CARTER_CORPUS"

// DefaultCorpus is used when neither --corpus nor CARTER_CORPUS names one
// and it exists: the KiCad manuals Debian's kicad-doc-en installs.
const DefaultCorpus = "/usr/share/doc/kicad/help/en"

// DefaultOut is where runs are written when --out is not given.
const DefaultOut = ".carter/runs"

// usageError marks bad input (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitError carries a non-zero exit without another message (the command
// already printed its result).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

type app struct {
	io       IO
	deps     Deps
	redactor *redact.Redactor
}

// Main runs carter with args and returns the exit code. Errors are one
// line on stderr, "carter: <what failed>: <why>", redacted.
func Main(ctx context.Context, args []string, streams IO, deps Deps) int {
	a := &app{io: streams, deps: deps, redactor: redact.New(os.Environ())}
	root := &cobra.Command{
		Use:           "carter",
		Short:         "Citation-grounded research briefs: every claim traces to a quoted snippet of a retrieved source",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetArgs(args)
	root.SetOut(streams.Out)
	root.SetErr(streams.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(a.runCmd(), a.replayCmd(), a.regressCmd())
	root.CompletionOptions.DisableDefaultCmd = true
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ex exitError
	if errors.As(err, &ex) {
		return ex.code
	}
	msg := a.redactor.String(textfmt.OneLine(err.Error()))
	code := ExitFailed
	var ue usageError
	if errors.As(err, &ue) || errors.Is(err, task.ErrInvalid) || strings.HasPrefix(err.Error(), "unknown command") ||
		strings.HasPrefix(err.Error(), "unknown flag") || strings.Contains(err.Error(), "arg(s)") {
		code = ExitUsage
	}
	fmt.Fprintf(streams.Err, "carter: %s\n", msg)
	return code
}

// printJSON writes v to stdout as indented JSON, the --json form of every
// command.
func (a *app) printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintln(a.io.Out, string(b))
	return nil
}
