package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/editdocs"
	"copperhead/internal/kicad/schedit"
)

// editOptions are the flags every edit operation shares.
type editOptions struct {
	dryRun bool
}

// editOps builds the edit subcommands. Each operation is one function
// returning its cobra command, whose RunE parses its own arguments and
// flags and hands runEdit a plan function; adding an operation is adding
// its constructor here.
var editOps = []func(a *app, o *editOptions) *cobra.Command{
	newEditRenameNetCmd,
	newEditSetFieldCmd,
	newEditSwapPinsCmd,
	newEditAddPartCmd,
	newEditRemovePartCmd,
	newEditConnectCmd,
	newEditDisconnectCmd,
	newEditNoConnectCmd,
}

func newEditCmd(a *app) *cobra.Command {
	o := &editOptions{}
	cmd := &cobra.Command{
		Use:   "edit",
		Short: "Edit the schematic deterministically (rename a net, set a field, add, remove or connect parts, swap pins)",
		Long: `edit changes the schematic through copperhead's edit engine: each operation
computes a plan of byte splices, so the diff shows only the expressions the
change needs and untouched UUIDs never change. Re-running an applied change
is a no-op. Without --dry-run the files are written, BOM.md and PINOUT.md rows
for the affected parts and pins are updated (hand-written cells kept), and the
changed files are listed; nothing is committed.

A refusal (unknown name, a rename that would merge nets, a per-instance change
KiCad cannot store) exits 1 with one line saying why.`,
	}
	cmd.PersistentFlags().BoolVar(&o.dryRun, "dry-run", false, "print the change and write nothing")
	for _, op := range editOps {
		cmd.AddCommand(op(a, o))
	}
	return cmd
}

func newEditRenameNetCmd(a *app, o *editOptions) *cobra.Command {
	var merge bool
	cmd := &cobra.Command{
		Use:   "rename-net OLD NEW",
		Short: "Rename a net: every label, sheet pin and power symbol carrying its name",
		Args:  exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runEdit(cmd.Context(), o, func(d *schedit.Design) (*schedit.Plan, error) {
				return schedit.RenameNet(d, args[0], args[1], merge)
			})
		},
	}
	cmd.Flags().BoolVar(&merge, "merge", false, "allow NEW to be an existing net (the two nets become one)")
	return cmd
}

func newEditSetFieldCmd(a *app, o *editOptions) *cobra.Command {
	var instance string
	cmd := &cobra.Command{
		Use:   "set-field REF FIELD VALUE",
		Short: "Set a symbol field (Value, Footprint, MPN, any property) or flag (dnp, in_bom, on_board)",
		Long: `set-field sets one field on every unit of a part. A missing property is added,
hidden. Flags take yes or no.

An empty VALUE ("") clears a property that is there (a Datasheet, an MPN) and
changes nothing when it is missing. A part's Value cannot be empty, and a
Footprint is cleared only on a part that is off the board (on_board no).
An empty REF or FIELD, an empty Value or a flag that is not yes or no is a
usage error (exit 2).

KiCad stores one value per symbol even when its sheet is used several times
(only the reference differs per instance), so a part in a reused sheet is
refused unless --instance all accepts changing every instance.`,
		Args: exactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Arguments no design could take are a usage error, found
			// before kicad-cli or the project is looked at.
			if err := schedit.CheckSetField(args[0], args[1], args[2]); err != nil {
				return withHint(usagef("%s", strings.TrimPrefix(err.Error(), schedit.ErrRefused.Error()+": ")), "see '"+cmd.CommandPath()+" --help'")
			}
			return a.runEdit(cmd.Context(), o, func(d *schedit.Design) (*schedit.Plan, error) {
				return schedit.SetField(d, args[0], args[1], args[2], instance)
			})
		},
	}
	cmd.Flags().StringVar(&instance, "instance", "", "the sheet instance path, or \"all\" for a part in a reused sheet")
	return cmd
}

func newEditSwapPinsCmd(a *app, o *editOptions) *cobra.Command {
	var net string
	cmd := &cobra.Command{
		Use:   "swap-pins REF.PIN_A REF.PIN_B",
		Short: "Swap the signals on two pins of one part (labels on stubs, no-connect flags)",
		Long: `swap-pins exchanges what two pins of one part carry: net labels on the pins
or at the end of a short stub, and no-connect flags. A pin wired to anything
else is refused.

A bare swap is its own inverse: running it twice swaps back. --net NET states
the intent instead (NET must end up on PIN_B), which makes it idempotent: when
PIN_B already carries NET nothing changes, and when neither pin does the swap
is refused.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			refA, pinA, okA := strings.Cut(args[0], ".")
			refB, pinB, okB := strings.Cut(args[1], ".")
			if !okA || !okB || refA != refB {
				return withHint(usagef("swap-pins takes two pins of one part, as U1.5 U1.6"), "see 'copperhead edit swap-pins --help'")
			}
			return a.runEdit(cmd.Context(), o, func(d *schedit.Design) (*schedit.Plan, error) {
				return schedit.SwapPins(d, refA, pinA, pinB, net)
			})
		},
	}
	cmd.Flags().StringVar(&net, "net", "", "the net that must end up on PIN_B (makes a re-run a no-op)")
	return cmd
}

// exactArgs requires n positional arguments (a usage error otherwise).
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return withHint(usagef("%v", err), "see '"+cmd.CommandPath()+" --help'")
		}
		return nil
	}
}

// editResult is what an edit prints with --json.
type editResult struct {
	Op      string   `json:"op"`
	Changed []string `json:"changed"` // repo-relative: schematics, then the board, then docs
	Summary []string `json:"summary"`
	Diff    []string `json:"diff,omitempty"` // dry run: "path:line", "-old" / "+new" lines per change
	DryRun  bool     `json:"dry_run"`
	NoOp    bool     `json:"no_op"`
}

// runEdit opens the project, plans the operation, and either previews it or
// applies it with the docs and board it changes. Both paths run the same
// editdocs.Prepare: the preview lists every file the write would change,
// each already checked against KiCad's netlist.
func (a *app) runEdit(ctx context.Context, o *editOptions, plan func(*schedit.Design) (*schedit.Plan, error)) error {
	tool, err := findKiCad(ctx)
	if err != nil {
		return withHint(err, "an edit is checked against KiCad's own netlist before anything is written")
	}
	w, err := a.open("")
	if err != nil {
		return err
	}
	if !o.dryRun {
		unlock, err := a.lockRepo(ctx, w.repo)
		if err != nil {
			return err
		}
		defer unlock()
	}
	tool.Boundary = w.repo
	l, err := editdocs.Open(ctx, w.repo, w.cfg, w.proj.Schematic, tool)
	if err != nil {
		return failf("%v", w.relErr(err))
	}
	p, err := plan(l.Design)
	if err != nil {
		if errors.Is(err, schedit.ErrRefused) {
			return failf("%s", strings.TrimPrefix(err.Error(), schedit.ErrRefused.Error()+": "))
		}
		return failf("%v", w.relErr(err))
	}
	res := editResult{Op: p.Op, Changed: []string{}, Summary: p.Summary, DryRun: o.dryRun, NoOp: p.NoOp()}
	if res.Summary == nil {
		res.Summary = []string{}
	}
	if !res.NoOp {
		in := editdocs.Input{Repo: w.repo, Config: w.cfg, Design: l.Design, Plan: p, KiCad: tool, Board: w.proj.Board, Docs: l.Docs}
		var r *editdocs.Result
		if o.dryRun {
			r, err = editdocs.Prepare(ctx, in)
		} else {
			r, err = editdocs.Apply(ctx, in)
		}
		if err != nil {
			return failf("%s: %v", p.Op, w.relErr(err))
		}
		res.Changed = r.Paths()
		res.Summary = r.Summary
		if o.dryRun {
			res.Diff = editdocs.Diff(r.Changes)
		}
	}
	if a.mode() == modeJSON {
		return writeJSON(a.io.Out, res)
	}
	printEdit(a, res)
	return nil
}

func printEdit(a *app, res editResult) {
	out := a.io.Out
	if res.NoOp {
		fmt.Fprintf(out, "%s: already applied, nothing to change\n", res.Op)
		return
	}
	for _, s := range res.Summary {
		fmt.Fprintln(out, s)
	}
	for _, l := range res.Diff {
		fmt.Fprintln(out, l)
	}
	verb := "changed"
	if res.DryRun {
		verb = "would change (dry run, nothing written)"
	}
	fmt.Fprintf(out, "%s: %s\n", verb, strings.Join(res.Changed, ", "))
}
