// Command copperhead is an AI co-designer for KiCad repositories. All logic
// lives in internal/cli; this file only wires the process to it.
package main

import (
	"context"
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go watchdog(ctx, stop)
	code := cli.Main(ctx, os.Args[1:], cli.StdIO())
	if code != 0 && context.Cause(ctx) != context.Canceled && ctx.Err() != nil {
		return exitInterrupted
	}
	return code
}

// watchdog is the net under "honour signals everywhere": once a signal has
// cancelled ctx, the default signal behaviour comes back (a second Ctrl-C
// kills the process), and a command still running after graceAfterSignal
// ends the process with one line and exitInterrupted.
func watchdog(ctx context.Context, stop context.CancelFunc) {
	<-ctx.Done()
	cause := context.Cause(ctx)
	if cause == context.Canceled {
		return // stop was called: the command finished
	}
	stop()
	time.Sleep(graceAfterSignal)
	fmt.Fprintf(os.Stderr, "copperhead: %v: still running %v later, exiting\n", cause, graceAfterSignal)
	os.Exit(exitInterrupted)
}
