// Command copperhead is an AI co-designer for KiCad repositories. All logic
// lives in internal/cli; this file only wires the process to it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"copperhead/internal/cli"
)

func main() { os.Exit(run()) }

func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return cli.Main(ctx, os.Args[1:], cli.StdIO())
}
