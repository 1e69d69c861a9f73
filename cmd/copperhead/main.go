// Command copperhead is an AI co-designer for KiCad repositories. All logic
// lives in internal/cli; this file only wires the process to it.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"copperhead/internal/cli"
)

// exitInterrupted is the exit status of a command stopped by SIGINT or
// SIGTERM (128 + SIGINT, the shell's convention).
const exitInterrupted = 130

// graceAfterSignal is how long a command may take to wind down after the
// first SIGINT or SIGTERM (every kicad-cli run is killed at once; an edit
// may still be rolling its files back) before the process exits anyway. A
// second signal exits at once.
const graceAfterSignal = 10 * time.Second

func main() { os.Exit(run()) }

func run() int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(context.Canceled)
	streams := cli.StdIO()
	streams.Interrupts = &cli.Interrupts{}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go routeSignals(sigs, streams.Interrupts, cancel)
	code := cli.Main(ctx, os.Args[1:], streams)
	if code != 0 && context.Cause(ctx) != context.Canceled && ctx.Err() != nil {
		return exitInterrupted
	}
	return code
}

// routeSignals is the net under "honour signals everywhere". A SIGINT the
// agent shell has claimed ends only the shell's current step. Any other
// signal cancels the command's context with the signal as its cause; then
// the default signal behaviour comes back (a second Ctrl-C kills the
// process), and a command still running after graceAfterSignal ends the
// process with one line and exitInterrupted.
func routeSignals(sigs chan os.Signal, ints *cli.Interrupts, cancel context.CancelCauseFunc) {
	for sig := range sigs {
		cause := signalCause(sig)
		if sig == os.Interrupt && ints.Interrupt(cause) {
			continue
		}
		signal.Stop(sigs)
		cancel(cause)
		time.Sleep(graceAfterSignal)
		fmt.Fprintf(os.Stderr, "copperhead: %v: still running %v later, exiting\n", cause, graceAfterSignal)
		os.Exit(exitInterrupted)
	}
}

// signalCause words a signal as signal.NotifyContext does ("interrupt signal
// received"): the messages of every stopped command quote it.
func signalCause(sig os.Signal) error { return errors.New(sig.String() + " signal received") }
