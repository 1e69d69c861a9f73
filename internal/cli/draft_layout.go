package cli

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/draft/layout"
	"copperhead/internal/fab"
	"copperhead/internal/kicad/kigen"
	"copperhead/internal/project"
	"copperhead/internal/textfmt"
)

// newDraftLayoutCmd is `copperhead draft layout`: the deterministic layout
// draft engine (create stage 5) run directly, with no model.
func newDraftLayoutCmd(a *app) *cobra.Command {
	var board, fabName string
	var force, strict bool
	cmd := &cobra.Command{
		Use:   "layout",
		Short: "Draft a DRC-clean first layout from the schematic and LAYOUT.md (no model needed)",
		Long: `layout writes a first-draft board from the schematic, the footprints its
symbols name (the project's fp-lib-table, then KiCad's installed libraries;
one in neither is taken from the project's existing board, which embeds every
footprint placed on it) and docs/LAYOUT.md: an Edge.Cuts rectangle (the size LAYOUT.md states, e.g.
"Board: 40 x 25 mm", else one computed from footprint area), every footprint
placed by rule (connectors on edges, decoupling caps next to their IC,
crystals next to the MCU, antenna ends on an edge behind a keepout), then
every net routed on F.Cu and B.Cu by a grid maze router with vias (signal
nets shortest first, power nets at the Power class width, ground last; up to
three passes, each routing the last one's failures first; then rip-up and
retry: a connection still unrouted may take the way of other nets' tracks,
which are ripped up and routed again, kept only when more connections end up
routed), a GND pour on B.Cu with thermal reliefs filled by KiCad's zone
filler, what the router cannot reach left as ratsnest. DRC runs on the result and any net whose tracks it faults is
unrouted again. The ## Draft quality section of
LAYOUT.md is rewritten with exactly what is fine and what a human or an
autorouter must redo.

The drafted board is recorded in .copperhead/config.json ("board"), so check
runs DRC on it, outputs finds it and init keeps it; init does not count the
## Draft quality section as a hand edit. Before init there is no config.json:
none is created, and the output says so (check and outputs find the board
beside its schematic; init records it, and takes a LAYOUT.md the draft created
as its own). Every file (the board, the .kicad_pro, LAYOUT.md, config.json) is
computed first, with DRC run on a scratch copy, then written in one journaled
transaction: a failure leaves every file as it was, and a kill during the
writes is completed by the next copperhead command. While the board is a draft its
unrouted nets are DRC warnings (the project's .kicad_pro sets
unconnected_items to warning, and the redo list says to set it back);
--strict leaves them errors.

--fab names the board house (jlcpcb, the default, or pcbway): its published
standard 2-layer capabilities become the .kicad_pro's design rules
(clearance, track width, via diameter and drill, minimum hole, annular ring,
hole-to-hole) and the Default and Power net classes the draft routes with, so
DRC checks the board against what that house can make.

The same schematic and LAYOUT.md always give the same board, byte for byte.
An existing board copperhead did not draft (no draft mark in its title
block: a hand layout, KiCad 5 (module ...) syntax, an empty or unreadable
file) is never overwritten without --force.

Exit codes: 0 the gate passed (DRC shows nothing but unconnected items and
the Draft quality section is written); 1 the gate failed, the board would be
overwritten, or footprints are missing; 2 usage or environment (kicad-cli).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if _, err := fab.Lookup(fabName); err != nil {
				return withHint(usagef("--fab: %v", err), "see 'copperhead draft layout --help'")
			}
			w, boardPath, err := a.openForLayout()
			if err == nil {
				var unlock func()
				if unlock, err = a.lockRepo(cmd.Context(), w.repo); err == nil {
					defer unlock()
				}
			}
			if err != nil {
				return err
			}
			t, err := findKiCad(ctx)
			if err != nil {
				return err
			}
			projectBoard := boardPath // footprints no library holds come from it
			switch {
			case board != "" && filepath.IsAbs(board):
				boardPath = board
			case board != "":
				boardPath = filepath.Join(w.repo, filepath.FromSlash(board))
			}
			opts := layout.Options{
				Schematic:    w.proj.Schematic,
				Board:        boardPath,
				LayoutDoc:    filepath.Join(w.repo, filepath.FromSlash(w.cfg.DocPath(design.LayoutDoc))),
				Force:        force,
				ProjectBoard: projectBoard,
				Display:      w.proj.Rel,
				MarkDraft:    !strict,
				Repo:         w.repo,
				Record:       true,
				Fab:          fabName,
			}
			if !w.cfgFound {
				// Before init: a LAYOUT.md the draft creates is the one init
				// would write (the Draft quality section aside), so init then
				// takes it as its own rather than as a hand edit.
				cfg := w.cfg
				cfg.Schematic, cfg.Board = w.proj.Rel(w.proj.Schematic), w.proj.Rel(boardPath)
				opts.LayoutSeed = design.GenerateLayout(w.proj.Name, cfg)
			}
			rep, err := layout.Draft(ctx, t, opts)
			if errors.Is(err, layout.ErrNotDraft) {
				return withHint(failf("%v", w.relErr(err)), "--force overwrites it; or pass --board NEW.kicad_pcb")
			}
			if err != nil {
				return failf("draft layout: %v", w.relErr(err))
			}
			if rep.RecordedBoard != "" {
				w.cfg.Board = rep.RecordedBoard
			}
			if rep.NotRecorded != "" {
				rep.NotRecorded = notRecordedNote(w, boardPath, rep.NotRecorded)
			}
			if a.mode() == modeJSON {
				if err := writeJSON(a.io.Out, struct {
					OK bool `json:"ok"`
					*layout.Report
				}{rep.OK(), rep}); err != nil {
					return err
				}
			} else {
				printDraftLayout(a, rep)
				if rep.RecordedBoard != "" {
					fmt.Fprintf(a.io.Out, "recorded board %s in %s\n", rep.RecordedBoard, config.ConfigPath)
				}
				if rep.NotRecorded != "" {
					fmt.Fprintf(a.io.Out, "board not recorded: %s\n", rep.NotRecorded)
				}
			}
			if !rep.OK() {
				return quietf(ExitFailed, "draft layout: the draft does not pass (see LAYOUT.md ## Draft quality)")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&board, "board", "", "the .kicad_pcb `file` to write (default: the project's board)")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite a board copperhead did not draft")
	cmd.Flags().StringVar(&fabName, "fab", fab.Default, "the board `house` whose published rules the .kicad_pro gets and the draft routes within: "+strings.Join(fab.Names(), ", "))
	cmd.Flags().BoolVar(&strict, "strict", false, "leave unconnected items DRC errors in the .kicad_pro (by default a draft's unrouted nets are warnings, listed in Draft quality)")
	return cmd
}

// openForLayout opens the repository like a.open, except that the board
// config.json names may not exist yet: drafting it is the point. It returns
// the board to write: the configured one, else the project's, else
// <schematic name>.kicad_pcb beside the root schematic (where DRC's
// schematic parity looks).
func (a *app) openForLayout() (*workspace, string, error) {
	repo, err := a.repoDir()
	if err != nil {
		return nil, "", err
	}
	cfg, found, err := config.LoadConfig(repo)
	if err != nil {
		return nil, "", failf("%v", err)
	}
	if !found || cfg.Board == "" {
		w, err := a.open("")
		if err != nil {
			return nil, "", err
		}
		if w.proj.Board != "" {
			return w, w.proj.Board, nil
		}
		return w, filepath.Join(filepath.Dir(w.proj.Schematic), w.proj.Name+".kicad_pcb"), nil
	}
	pr, err := project.Locate(repo, "", cfg.Schematic, "")
	if err != nil {
		if errors.Is(err, project.ErrNoSchematic) && !errors.Is(err, project.ErrLegacySchematic) {
			return nil, "", withHint(failf("%v", err), "draft the schematic first: copperhead draft schematic --intent FILE")
		}
		return nil, "", failf("%v", err)
	}
	board := filepath.Join(repo, filepath.FromSlash(cfg.Board))
	pr.Board = board
	return &workspace{repo: repo, cfg: cfg, cfgFound: true, proj: pr}, board, nil
}

// printDraftLayout renders a draft report as plain lines.
func printDraftLayout(a *app, rep *layout.Report) {
	out := a.io.Out
	src := "computed from footprint area"
	if rep.Outline.Stated {
		src = "as LAYOUT.md states"
	}
	fmt.Fprintf(out, "drafted %s: %s x %s mm (%s), %s\n", rep.Board,
		kigen.Num(rep.Outline.WidthMM), kigen.Num(rep.Outline.HeightMM), src, textfmt.Count(len(rep.Parts), "footprint"))
	for _, b := range rep.FromBoard {
		fmt.Fprintf(out, "footprint %s for %s: in no library, taken from %s (%s, %s)\n", b.Footprint, strings.Join(b.Refdes, ", "), b.Board, b.BoardRefdes, b.BoardFootprint)
	}
	met := 0
	var unmet []string
	for _, r := range rep.Rules {
		if r.Met {
			met++
		} else {
			unmet = append(unmet, r.Refdes+" ("+r.Detail+")")
		}
	}
	fmt.Fprintf(out, "placement rules: %d of %d met", met, len(rep.Rules))
	if len(unmet) > 0 {
		fmt.Fprintf(out, "; not met: %s", strings.Join(unmet, ", "))
	}
	fmt.Fprintln(out)
	for _, k := range rep.Keepouts {
		fmt.Fprintf(out, "antenna %s on the %s edge: keepout from %s\n", k.Refdes, k.Edge, k.Source)
	}
	fmt.Fprintf(out, "board rules: %s\n", rep.BoardRules)
	switch {
	case rep.Pour.Net != "" && rep.Pour.Filled:
		fmt.Fprintf(out, "ground pour: %s on %s, thermal reliefs, filled by KiCad's zone filler\n", rep.Pour.Net, rep.Pour.Layer)
	case rep.Pour.Net != "":
		fmt.Fprintf(out, "ground pour: %s on %s, unfilled (%s): fill zones in KiCad before plotting\n", rep.Pour.Net, rep.Pour.Layer, rep.Pour.Unfilled)
	}
	fmt.Fprintf(out, "routed %d of %d connections (%d%%): %s (%s, %s)", rep.RoutedConnections, rep.Connections, int(math.Floor(rep.RoutedShare*100)),
		textfmt.Count(len(rep.Routed), "net"), textfmt.Count(rep.Tracks, "track"), textfmt.Count(rep.Vias, "via"))
	if len(rep.Partial) > 0 {
		fmt.Fprintf(out, ", %d partly", len(rep.Partial))
	}
	fmt.Fprintf(out, "; %s left as ratsnest", textfmt.Count(len(rep.Unrouted), "net"))
	if len(rep.Unrouted) > 0 {
		fmt.Fprintf(out, ": %s", strings.Join(rep.Unrouted, ", "))
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "DRC: %s, %s, %s\n", textfmt.Count(rep.DRC.Violations, "violation"),
		textfmt.Count(rep.DRC.Unconnected, "unconnected item"), textfmt.Count(rep.DRC.Parity, "parity issue"))
	for _, d := range rep.DRC.Details {
		fmt.Fprintf(out, "  %s\n", d)
	}
	if rep.LayoutDoc != "" {
		fmt.Fprintf(out, "wrote %s ## %s: %s to redo\n", rep.LayoutDoc, layout.DraftQualityHeading, textfmt.Count(len(rep.Redo), "item"))
	}
	if rep.OK() {
		fmt.Fprintln(out, "gate: passed")
		return
	}
	fmt.Fprintf(out, "gate: failed: %s\n", strings.Join(rep.Gate, "; "))
}

// notRecordedNote says what a board left out of config.json means for the
// commands that look for it: before init, check and outputs find the board
// beside the schematic by its name, and init records it; any other board
// they do not find.
func notRecordedNote(w *workspace, board, why string) string {
	rel := w.proj.Rel(board)
	if strings.TrimSuffix(w.proj.Schematic, ".kicad_sch")+".kicad_pcb" == board {
		return fmt.Sprintf("%s; check and outputs find %s beside its schematic, and copperhead init records it", why, rel)
	}
	return fmt.Sprintf("%s; check and outputs look only for %s beside the schematic, so they will not find %s: run copperhead init, then draft layout --board %s again", why,
		w.proj.Rel(strings.TrimSuffix(w.proj.Schematic, ".kicad_sch")+".kicad_pcb"), rel, rel)
}
