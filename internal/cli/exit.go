package cli

import (
	"errors"
	"fmt"
)

// Exit codes are part of copperhead's contract (README, "Exit codes").
const (
	ExitOK     = 0 // success: every gate passed, or the command did its job
	ExitFailed = 1 // a check failed, or the command refused (hand-edited docs, no schematic)
	ExitUsage  = 2 // bad usage or a broken environment (unknown flag, missing kicad-cli)
)

// exitError carries an exit code and an optional hint up to Main.
type exitError struct {
	code int
	err  error
	hint string
	// quiet: the command already printed why (a failed check prints its
	// gates), so the message is not repeated on stderr; --json's object
	// still carries it as "error".
	quiet bool
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// failf reports a failed check or a refusal (exit 1).
func failf(format string, args ...any) error {
	return &exitError{code: ExitFailed, err: fmt.Errorf(format, args...)}
}

// usagef reports bad usage or a broken environment (exit 2).
func usagef(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// withHint attaches a next step to an error shown to the user.
func withHint(err error, hint string) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return &exitError{code: ee.code, err: ee.err, hint: hint, quiet: ee.quiet}
	}
	return &exitError{code: ExitFailed, err: err, hint: hint}
}

// quietf ends the command with code after the command has reported why
// itself: stderr gets no second line, and the message becomes the "error"
// of the --json object.
func quietf(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...), quiet: true}
}
