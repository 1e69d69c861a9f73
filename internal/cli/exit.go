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
		return &exitError{code: ee.code, err: ee.err, hint: hint}
	}
	return &exitError{code: ExitFailed, err: err, hint: hint}
}

// silentFailure ends the command with exit 1 without printing an error line:
// the command already reported why (a failed check prints its gates).
var silentFailure = &exitError{code: ExitFailed}
