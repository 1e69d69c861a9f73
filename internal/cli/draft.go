package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/config"
	"copperhead/internal/draft"
	"copperhead/internal/kicadcli"
)

// newDraftCmd groups the deterministic drafting engines the create pipeline
// runs, so a person can run them without a model.
func newDraftCmd(a *app) *cobra.Command {
	return groupCmd("draft", "Run a deterministic drafting engine (schematic from an intent file, first-draft layout)",
		newDraftSchematicCmd(a), newDraftLayoutCmd(a))
}

func newDraftSchematicCmd(a *app) *cobra.Command {
	var intentPath, out string
	var force bool
	cmd := &cobra.Command{
		Use:   "schematic --intent FILE",
		Short: "Draw a KiCad sheet from a schematic intent file (parts, nets as REF.PIN, no-connects)",
		Long: `draft schematic validates an intent file against KiCad's installed libraries
and draws it as one KiCad 9 sheet on the smallest paper it fits: parts grouped
by subsystem, a two-pin part on a short net (at most three parts) hung off
the pin it serves by a real wire, every other pin joined to its net by a stub
and a label (a power port, turned to point away from its pin, for nets the
power library names), no-connect flags, and a PWR_FLAG on each net that feeds
power inputs without a driver. The sheet must pass a legibility check (no
text over another text, a wire or a body) or nothing is written. The same
intent always gives the same bytes.

Every problem is reported at once (unknown symbols and footprints with the
closest names, unknown pins, pins on two nets, one-ended nets, pins left
undecided, parts missing from or differing with BOM.md) and nothing is
written. An existing sheet that differs from the draft is refused unless
--force. kicad-cli's ERC runs on the result when kicad-cli is installed.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if intentPath == "" {
				return withHint(usagef("draft schematic needs --intent FILE"), "see 'copperhead draft schematic --help'")
			}
			repo, err := a.repoDir()
			if err != nil {
				return err
			}
			unlock, err := a.lockRepo(cmd.Context(), repo)
			if err != nil {
				return err
			}
			defer unlock()
			cfg, _, err := config.LoadConfig(repo)
			if err != nil {
				return failf("%v", err)
			}
			in, err := draft.ReadIntent(intentPath)
			if err != nil {
				return failf("%v", err)
			}
			dir := out
			if out == "" {
				dir = draft.SheetDir(repo, cfg)
			}
			opts := draft.Options{BOM: draft.BOMValues(repo, cfg)}
			w, err := draft.WriteSchematic(in, filepath.Base(intentPath), dir, force, opts)
			if err != nil {
				return failf("%v", err)
			}
			abs, _ := filepath.Abs(w.Path)
			res := draftResult{Written: *w, Path: relTo(repo, abs)}
			if tool, err := findKiCad(cmd.Context()); err == nil {
				rep, err := tool.ERC(cmd.Context(), w.Path)
				if err != nil {
					return failf("ERC on %s: %v", res.Path, err)
				}
				n := len(rep.Violations)
				res.ERC = &n
				for _, v := range rep.Violations {
					res.ERCFindings = append(res.ERCFindings, v.Type+": "+kicadcli.OneLine(v.Description))
				}
			}
			if a.mode() == modeJSON {
				if err := writeJSON(a.io.Out, res); err != nil {
					return err
				}
			} else {
				printDraft(a, res)
			}
			if res.ERC != nil && *res.ERC > 0 {
				return failf("the drafted sheet has %d ERC violations", *res.ERC)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&intentPath, "intent", "", "the intent file (JSON), relative to the current folder")
	cmd.Flags().StringVar(&out, "out", "", "folder for the sheet, relative to the current folder (default: the configured schematic's folder in the repo, else its hardware/)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing sheet that differs from the draft")
	return cmd
}

// draftResult is what draft schematic prints with --json.
type draftResult struct {
	draft.Written
	Path        string   `json:"path"` // repo-relative
	ERC         *int     `json:"erc_violations"`
	ERCFindings []string `json:"erc_findings,omitempty"`
}

func printDraft(a *app, r draftResult) {
	o := a.io.Out
	verb := "drafted"
	if r.Unchanged {
		verb = "unchanged (already this draft)"
	}
	fmt.Fprintf(o, "%s %s: %d parts (%d units), %d nets on %s; %d labels, %d power ports, %d no-connects\n",
		verb, r.Path, r.Parts, r.Units, r.Nets, r.Paper, r.Labels, r.PowerPorts, r.NoConnects)
	if len(r.PowerFlags) > 0 {
		fmt.Fprintf(o, "PWR_FLAG on %s\n", strings.Join(r.PowerFlags, ", "))
	}
	fmt.Fprintf(o, "groups: %s\n", strings.Join(r.Groups, ", "))
	if r.Legible {
		wired := "none"
		if len(r.WiredNets) > 0 {
			wired = strings.Join(r.WiredNets, ", ")
		}
		fmt.Fprintf(o, "legible ✓ (no text over another text, a wire or a body); wired nets: %s; %d junctions\n", wired, r.Junctions)
	}
	switch {
	case r.ERC == nil:
		fmt.Fprintln(o, "ERC - skipped (kicad-cli not installed)")
	case *r.ERC == 0:
		fmt.Fprintln(o, "ERC ✓")
	default:
		fmt.Fprintf(o, "ERC ✗ %d violations\n", *r.ERC)
		for _, f := range r.ERCFindings {
			fmt.Fprintf(o, "  %s\n", f)
		}
	}
}

func relTo(repo, abs string) string {
	if rel, err := filepath.Rel(repo, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return abs
}
