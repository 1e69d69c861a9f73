package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/create"
)

func newDemoCmd(a *app) *cobra.Command {
	var tour bool
	var o createOptions
	cmd := &cobra.Command{
		Use:   "demo [DIR]",
		Short: "Explain the create pipeline (--tour, no model), or run create on the packaged USB-C power breakout brief",
		Long: `demo --tour explains, with no model and no files written, what 'create' does
with a brief, stage by stage, and prints the packaged brief.

demo DIR (default copperhead-demo) makes DIR a fresh git repository, writes
the packaged brief (a USB-C power breakout) and runs 'create' on it: a model
must be configured (see 'copperhead models'). Run it again to resume.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return withHint(usagef("demo takes at most one folder"), "see 'copperhead demo --help'")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if tour {
				if a.mode() == modeJSON {
					return writeJSON(a.io.Out, tourResult())
				}
				printTour(a)
				return nil
			}
			dir := "copperhead-demo"
			if len(args) == 1 {
				dir = args[0]
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return usagef("demo: %v", err)
			}
			demo := *a
			demo.repo = dir
			fmt.Fprintf(a.io.Err, "demo: building the packaged USB-C power breakout in %s\n", dir)
			return demo.runCreate(cmd.Context(), o, create.DemoBrief)
		},
	}
	cmd.Flags().BoolVar(&tour, "tour", false, "explain the pipeline; no model, nothing written")
	cmd.Flags().StringVar(&o.model, "model", "", "the model, as for 'do'")
	cmd.Flags().BoolVar(&o.noStep, "no-step", false, "skip the STEP export")
	cmd.Flags().BoolVar(&o.noRender, "no-render", false, "skip the 3D render")
	o.fab = "jlcpcb"
	return cmd
}

// TourResult is `demo --tour --json`: the pipeline and the packaged brief.
type TourResult struct {
	OK      bool           `json:"ok"`
	Stages  []create.Stage `json:"stages"`
	Brief   string         `json:"brief"`   // the packaged brief (a USB-C power breakout), Markdown
	Engines []string       `json:"engines"` // the stages' engines as commands a person can run
	Report  string         `json:"report"`  // where create writes its report
}

func tourResult() TourResult {
	return TourResult{
		OK:      true,
		Stages:  create.Stages,
		Brief:   string(create.DemoBrief),
		Engines: tourEngines,
		Report:  filepath.ToSlash(filepath.Join(create.ReportDir, "REPORT.md")),
	}
}

// tourEngines are the deterministic stages' own commands.
var tourEngines = []string{"copperhead draft schematic --intent FILE", "copperhead draft layout", "copperhead outputs", "copperhead firmware"}

func printTour(a *app) {
	o := a.io.Out
	fmt.Fprintln(o, "copperhead create: a product brief to a verified output package, in eight stages.")
	fmt.Fprintln(o, "Each stage ends only when its gate, checked from the files in the repository, passes;")
	fmt.Fprintln(o, "everything lives in the repository, so a stopped run resumes where it stopped.")
	fmt.Fprintln(o)
	for i, st := range create.Stages {
		kind := "deterministic engine, no model"
		if st.Model {
			kind = "one gated agent run (proposal, edits, checks, one commit)"
		}
		fmt.Fprintf(o, "%d. %s: %s\n   %s\n", i+1, st.Name, st.Title, kind)
	}
	fmt.Fprintln(o)
	fmt.Fprintln(o, "The packaged brief ('copperhead demo DIR' builds it with a configured model):")
	fmt.Fprintln(o)
	for _, l := range strings.Split(strings.TrimSpace(string(create.DemoBrief)), "\n") {
		fmt.Fprintln(o, "    "+l)
	}
	fmt.Fprintln(o)
	fmt.Fprintf(o, "Engines you can run yourself: %s,\n%s. Reports: %s.\n", strings.Join(tourEngines[:2], ", "), strings.Join(tourEngines[2:], ", "), tourResult().Report)
}
