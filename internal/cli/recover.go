package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"copperhead/internal/gitrepo"
	"copperhead/internal/recovery"
	"copperhead/internal/redact"
)

// RecoverList is `recover --list --json`.
type RecoverList struct {
	Interrupted []recovery.Run `json:"interrupted"` // oldest first; [] when none
}

func newRecoverCmd(a *app) *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "recover [RUN-ID]",
		Short: "Restore the tree an interrupted run (killed, crashed) left, keeping its work in a stash",
		Long: `recover finishes a run that was killed before it could end (kill -9, a
crash, power loss). Every run references its pre-run snapshot as
refs/copperhead/runs/<run-id> before its first write; recover keeps the tree
as the kill left it (untracked files included) in a stash entry named
"copperhead interrupted run <run-id>", restores the pre-run tree byte for
byte (tracked, staged and untracked files and their modes; HEAD too, if the
run had committed), writes the run's missing run-end (exit path
interrupted) and summary.md, and deletes the ref.

With no RUN-ID it recovers the one interrupted run; with several it asks
for one. --list lists them (run id, start time, command, request). Commands
that change the repository refuse to start while an interrupted run is
waiting here.

Exit 0 when the run was recovered, or there was none to recover; 1 when the
restore failed; 2 for an unknown RUN-ID or several runs and no RUN-ID.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return withHint(usagef("recover takes at most one run id"), "see 'copperhead recover --list'")
			}
			if list && len(args) == 1 {
				return usagef("recover --list takes no run id")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			id := ""
			if len(args) == 1 {
				id = strings.TrimSpace(args[0])
			}
			return a.runRecover(cmd.Context(), id, list)
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list the interrupted runs and change nothing")
	return cmd
}

func (a *app) runRecover(ctx context.Context, id string, list bool) error {
	repo, err := a.repoDir() // completes an interrupted txn journal first
	if err != nil {
		return err
	}
	if list {
		runs, err := recovery.Interrupted(ctx, repo)
		if err != nil {
			return failf("list interrupted runs: %v", err)
		}
		return a.printInterrupted(runs)
	}
	unlock, err := a.takeLock(ctx, repo)
	if err != nil {
		return err
	}
	defer unlock()
	runs, err := recovery.Interrupted(ctx, repo)
	if err != nil {
		return failf("list interrupted runs: %v", err)
	}
	var run recovery.Run
	switch {
	case id != "":
		if run, err = recovery.Find(runs, id); err != nil {
			return withHint(usagef("%v", err), "see 'copperhead recover --list'")
		}
	case len(runs) == 0:
		if a.mode() == modeJSON {
			return writeJSON(a.io.Out, RecoverList{Interrupted: []recovery.Run{}})
		}
		fmt.Fprintln(a.io.Out, "no interrupted runs: nothing to recover")
		return nil
	case len(runs) > 1:
		ids := make([]string, len(runs))
		for i, r := range runs {
			ids[i] = r.RunID
		}
		return withHint(usagef("%d interrupted runs (%s): name the one to recover", len(runs), strings.Join(ids, ", ")),
			"e.g. copperhead recover "+runs[0].RunID)
	default:
		run = runs[0]
	}
	res, err := recovery.Recover(ctx, repo, run.RunID, redact.New(os.Environ()))
	if err != nil {
		return failf("%v", err)
	}
	if a.mode() == modeJSON {
		return writeJSON(a.io.Out, res)
	}
	red := redact.New(os.Environ())
	if res.AlreadyEnded {
		fmt.Fprintln(a.io.Out, red.String(fmt.Sprintf("run %s (%s) had ended (%s) before it was killed: nothing to restore; its ref is deleted",
			res.RunID, res.Describe(), res.ExitPath)))
		return nil
	}
	if res.Scratch != "" {
		fmt.Fprintln(a.io.Out, red.String(fmt.Sprintf("recovered run %s (%s): it worked on the scratch copy %s; the repository was not changed",
			res.RunID, res.Describe(), res.Scratch)))
		return nil
	}
	line := fmt.Sprintf("recovered run %s (%s): pre-run tree restored", res.RunID, res.Describe())
	if res.HeadWas != "" {
		line += ", HEAD moved back from " + res.HeadWas[:min(12, len(res.HeadWas))]
	}
	if res.StashRef != "" {
		line += fmt.Sprintf("; the run's work is in %s %q", res.StashRef, "copperhead interrupted run "+res.RunID)
	} else {
		line += "; the run had changed nothing"
	}
	fmt.Fprintln(a.io.Out, red.String(line))
	fmt.Fprintln(a.io.Out, "transcript "+res.RunDir+"/transcript.jsonl")
	return nil
}

func (a *app) printInterrupted(runs []recovery.Run) error {
	if runs == nil {
		runs = []recovery.Run{}
	}
	if a.mode() == modeJSON {
		return writeJSON(a.io.Out, RecoverList{Interrupted: runs})
	}
	if len(runs) == 0 {
		fmt.Fprintln(a.io.Out, "no interrupted runs")
		return nil
	}
	red := redact.New(os.Environ())
	for _, r := range runs {
		started := "-"
		if !r.StartedAt.IsZero() {
			started = r.StartedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintln(a.io.Out, red.String(fmt.Sprintf("%s  %s  %s", r.RunID, started, r.Describe())))
	}
	return nil
}

// refuseInterrupted stops a command that would change the repository while
// an interrupted run waits for `copperhead recover`: its pre-run tree is
// only restorable while nothing else writes over the run's leftovers. The
// caller holds the lock, so no run it lists is live.
func refuseInterrupted(ctx context.Context, repo string) error {
	runs, err := recovery.Interrupted(ctx, repo)
	if err != nil || len(runs) == 0 {
		return nil // a repository git cannot list refs of has no runs to protect
	}
	r := runs[0]
	more := ""
	if len(runs) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(runs)-1)
	}
	if r.Damaged != "" {
		return withHint(failf("%s holds no copperhead snapshot (%s)%s: it blocks every command that writes until it is removed", gitrepo.RunRef(r.RunID), r.Damaged, more),
			"delete it with: "+gitrepo.DeleteRefHint(r.RunID))
	}
	return failf("run %s (%s) was interrupted before it ended%s: run copperhead recover first to restore the tree it left",
		r.RunID, redact.New(os.Environ()).String(r.Describe()), more)
}
