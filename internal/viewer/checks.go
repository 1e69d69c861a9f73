package viewer

import (
	"context"
	"fmt"

	"copperhead/internal/kicadcli"
	"copperhead/internal/textfmt"
)

// Checker is the part of kicadcli.Tool behind the status chips: the same
// ERC and DRC runs `check` gates on, whose results are cached by the
// design's content, so a chip for a design already checked costs nothing.
type Checker interface {
	ERC(ctx context.Context, schPath string) (*kicadcli.Report, error)
	DRC(ctx context.Context, pcbPath string) (*kicadcli.Report, error)
}

// Chip states. A chip is red when the gate fails as `check` fails it (a
// violation of severity error), amber when it passes with warnings, green
// when it is clean; pending while it runs, none when there is nothing to
// check (no board for DRC).
const (
	ChipPending = "pending"
	ChipGreen   = "green"
	ChipAmber   = "amber"
	ChipRed     = "red"
	ChipNone    = "none"
)

// Chip is one gate's state for one render generation.
type Chip struct {
	Gate     string `json:"gate"` // ERC or DRC
	State    string `json:"state"`
	Errors   int    `json:"errors"`
	Warnings int    `json:"warnings"`
	Text     string `json:"text"` // what the chip says
	Gen      int    `json:"gen"`  // the render generation it checked
}

// chipFor turns a kicad-cli report (or the reason it has none) into a chip.
func chipFor(gate string, gen int, r *kicadcli.Report, err error) Chip {
	c := Chip{Gate: gate, Gen: gen}
	switch {
	case err != nil:
		c.State, c.Text = ChipRed, gate+" could not run: "+textfmt.Clip(textfmt.OneLine(err.Error()), 200)
		return c
	case r == nil:
		c.State, c.Text = ChipNone, gate+": no board"
		return c
	}
	n := r.Counts()
	c.Errors, c.Warnings = n.Errors, n.Warnings
	switch {
	case r.Failed():
		c.State = ChipRed
		c.Text = fmt.Sprintf("%s %s", gate, textfmt.Count(n.Errors, "error"))
		if n.Warnings > 0 {
			c.Text += ", " + textfmt.Count(n.Warnings, "warning")
		}
	case n.Warnings > 0:
		c.State, c.Text = ChipAmber, fmt.Sprintf("%s %s", gate, textfmt.Count(n.Warnings, "warning"))
	default:
		c.State, c.Text = ChipGreen, gate+" ✓"
	}
	return c
}

// runChecks runs ERC and DRC on the design as generation gen shows it.
func runChecks(ctx context.Context, c Checker, schematic, board string, gen int) []Chip {
	erc, err := c.ERC(ctx, schematic)
	chips := []Chip{chipFor("ERC", gen, erc, err)}
	if board == "" {
		return append(chips, chipFor("DRC", gen, nil, nil))
	}
	drc, err := c.DRC(ctx, board)
	return append(chips, chipFor("DRC", gen, drc, err))
}
