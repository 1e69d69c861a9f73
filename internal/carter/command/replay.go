package command

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"copperhead/internal/carter/orchestrator"
	"copperhead/internal/ulids"
)

func (a *app) replayCmd() *cobra.Command {
	var runID, out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "replay --run-id ID",
		Short: "Rebuild a run's outputs from its cached artifacts (no network, no model) and compare them byte for byte",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !ulids.Valid(runID) {
				return usagef("--run-id %q is not a run id (a 26-character ULID)", runID)
			}
			dir := filepath.Join(out, runID)
			if _, err := os.Stat(dir); err != nil {
				return usagef("run %s: no such run under %s", runID, out)
			}
			res, err := orchestrator.Replay(cmd.Context(), dir)
			if err != nil {
				return fmt.Errorf("replay: %w", err)
			}
			if asJSON {
				if err := a.printJSON(res); err != nil {
					return err
				}
			} else {
				for _, f := range res.Files {
					state := "identical"
					if !f.Identical {
						state = "DIFFERS from the run's own"
					} else if !f.Recorded {
						state = "identical to the file, but not to the hash the event log recorded"
					}
					fmt.Fprintf(a.io.Out, "%s: %s\n", filepath.Join(res.OutDir, f.Name), state)
				}
			}
			if !res.Identical {
				if !asJSON {
					fmt.Fprintf(a.io.Out, "replay %s: outputs differ\n", runID)
				}
				return exitError{ExitFailed}
			}
			if !asJSON {
				fmt.Fprintf(a.io.Out, "replay %s: %d files identical, %d events checked\n", runID, len(res.Files), res.Events)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&runID, "run-id", "", "the run to replay (required)")
	cmd.Flags().StringVar(&out, "out", DefaultOut, "folder the run was written to")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	return cmd
}
