package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"copperhead/internal/editdocs"
	"copperhead/internal/kicad/schedit"
	"copperhead/internal/tool"
)

// The structured schematic edit tools (rename_net, set_field, swap_pins,
// add_part, remove_part, connect_pin, disconnect_pin, no_connect_pin) run
// one deterministic schedit operation each, in the order the CLI's copperhead
// edit does: load the whole schematic, plan, apply through editdocs (which
// keeps BOM.md and PINOUT.md in step), and report the written files as
// tool.Result.Changed so the post-call hook opens the ERC and drift obligations.
// They are mutating: withheld until the change validates, like edit_file.

// scheditOp plans one operation on the loaded design.
type scheditOp func(d *schedit.Design) (*schedit.Plan, error)

// scheditTool is a mutating structured edit tool whose whole body is one
// schedit operation on its arguments: the tool's file is then its arguments
// and that call.
func scheditTool[A any](name string, op func(d *schedit.Design, args A) (*schedit.Plan, error)) tool.Tool {
	return newTool(name, func(ctx context.Context, s *tool.Session, a A) (tool.Result, error) {
		return runSchedit(ctx, s, name, func(d *schedit.Design) (*schedit.Plan, error) { return op(d, a) })
	}, tool.Mutating)
}

// runSchedit is the shared body of the structured edit tools. A refusal, a
// missing schematic or a schematic that does not load is an IsError result
// the model can act on; "already applied" is a plain result that changes
// nothing.
func runSchedit(ctx context.Context, s *tool.Session, name string, op scheditOp) (tool.Result, error) {
	if s.Project == nil || s.Project.Schematic == "" {
		return tool.Errorf("%s: no schematic: the repository has no KiCad schematic to edit", name), nil
	}
	if s.KiCad == nil {
		return tool.Errorf("%s: kicad-cli is unavailable, and an edit is only written once KiCad's netlist confirms it; nothing changed", name), nil
	}
	l, err := editdocs.Open(ctx, s.Repo, s.Config, s.Project.Schematic, s.KiCad)
	if err != nil {
		return tool.Errorf("%s: %s; nothing changed", name, s.Scrub(err.Error())), nil
	}
	p, err := op(l.Design)
	if err != nil {
		if errors.Is(err, schedit.ErrRefused) {
			return tool.Errorf("%s refused, nothing changed: %s", name, strings.TrimPrefix(err.Error(), schedit.ErrRefused.Error()+": ")), nil
		}
		return tool.Errorf("%s: %s", name, s.Scrub(err.Error())), nil
	}
	if p.NoOp() {
		msg := fmt.Sprintf("%s: already applied, nothing to change.", p.Op)
		if len(p.Summary) > 0 {
			msg += "\n" + strings.Join(p.Summary, "\n")
		}
		return tool.Result{Text: msg}, nil
	}
	res, err := editdocs.Apply(ctx, editdocs.Input{
		Repo: s.Repo, Config: s.Config, Design: l.Design, Plan: p, KiCad: s.KiCad, Board: s.Project.Board, Redact: s.Redactor.Bytes, Docs: l.Docs,
	})
	if err != nil {
		// The edit is one transaction: on an error nothing was written.
		return tool.Errorf("%s: %s; nothing changed", name, s.Scrub(err.Error())), nil
	}
	changed := res.Paths()
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n", p.Op)
	for _, l := range res.Summary {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	fmt.Fprintf(&b, "changed: %s", strings.Join(changed, ", "))
	return tool.Result{Text: b.String(), Changed: changed}, nil
}
