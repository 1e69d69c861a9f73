// Command carter writes citation-grounded research briefs. All logic lives
// in internal/carter; this file only wires the process to it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"copperhead/internal/carter/command"
)

func main() { os.Exit(run()) }

func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return command.Main(ctx, os.Args[1:], command.StdIO(), command.Deps{})
}
