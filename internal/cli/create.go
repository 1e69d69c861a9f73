package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/agent"
	"copperhead/internal/config"
	"copperhead/internal/create"
	"copperhead/internal/llm"
	"copperhead/internal/runs"
)

type createOptions struct {
	brief       string
	model       string
	interactive bool
	force       bool
	fab         string
	noStep      bool
	noRender    bool
	status      bool
}

func newCreateCmd(a *app) *cobra.Command {
	var o createOptions
	cmd := &cobra.Command{
		Use:   "create --brief FILE",
		Short: "Run the whole pipeline: brief to spec, parts, schematic, draft board, fab outputs, firmware and dev plan",
		Long: `create turns a product brief into a complete, verified output package in
eight stages:

  1 spec-seed       SPEC.md with budgets and ASSUMED flags, OpenSpec requirements  (model)
  2 architecture    SUBSYSTEMS.md block diagram, LAYOUT.md board intent            (model)
  3 part-selection  BOM.md: real KiCad symbols, a rationale per row                (model)
  4 schematic       an intent file drawn by the deterministic engine; ERC, drift   (model)
  5 layout-draft    placed by rule, routed where simple, DRC clean, Draft quality  (engine)
  6 outputs         gerbers + drill per fab, DXF, STEP, SVGs, 3D render, BOM CSV   (engine)
  7 firmware        scaffold, pins.h from PINOUT.md, built when the toolchain is here (engine)
  8 devplan         DEVPLAN.md: bring-up, test points, what to measure, risks      (engine)

Each model stage is one gated agent run (like 'do': proposal, edits, checks,
one commit). A stage is complete only when its gate, checked from the files in
the repository, passes; a failed gate gets a diagnosis and up to
maxStageRetries retries (config.json, default 2). Everything lives in the
repository, so create resumes where it stopped: run it again (the brief is
kept in docs/BRIEF.md). stageMaxTurns in config.json sets per-stage turn
budgets. It runs to completion by default; --interactive asks for approval of
the spec and before the exports. The last step is 'check'. The run writes
.copperhead/runs/REPORT.md and report.json: per-stage status, runs, turns,
tokens and time.

--status prints each stage's gate without running anything.

Exit 0 when every stage is complete, 1 when a stage stopped (the exact resume
command is printed), 2 for bad usage or a broken environment.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runCreate(cmd.Context(), o, nil)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.brief, "brief", "", "the product brief (markdown); omit to resume")
	f.StringVar(&o.model, "model", "", "the model, as for 'do'")
	f.BoolVar(&o.interactive, "interactive", false, "ask for approval of the spec and before the exports")
	f.BoolVar(&o.force, "force", false, "start over from a brief that differs from docs/BRIEF.md")
	f.StringVar(&o.fab, "fab", "jlcpcb", "the board house: its rules for the drafted board, its profile for the gerbers (jlcpcb or pcbway)")
	f.BoolVar(&o.noStep, "no-step", false, "skip the STEP export")
	f.BoolVar(&o.noRender, "no-render", false, "skip the 3D render")
	f.BoolVar(&o.status, "status", false, "print each stage's gate and run nothing")
	return cmd
}

// createResult is create --json.
type createResult struct {
	Complete  bool                 `json:"complete"`
	StoppedAt string               `json:"stopped_at,omitempty"`
	Resume    string               `json:"resume,omitempty"`
	Stages    []create.StageReport `json:"stages"`
	Report    string               `json:"report"`
	Check     string               `json:"check,omitempty"`
}

func (a *app) runCreate(ctx context.Context, o createOptions, brief []byte) error {
	repo, err := a.repoDir()
	if err != nil {
		return err
	}
	unlock, err := a.lockRepo(ctx, repo)
	if err != nil {
		return err
	}
	defer unlock()
	if brief == nil && o.brief != "" {
		if brief, err = os.ReadFile(o.brief); err != nil {
			return usagef("--brief: %v", err)
		}
		if strings.TrimSpace(string(brief)) == "" {
			return usagef("--brief %s is empty", o.brief)
		}
	}
	kc, err := findKiCad(ctx)
	if err != nil {
		return err
	}
	kc.Boundary = repo
	if o.status {
		cfg, _, err := config.LoadConfig(repo)
		if err != nil {
			return failf("%v", err)
		}
		st, err := create.Status(ctx, create.Env{Repo: repo, Config: cfg, KiCad: kc})
		if err != nil {
			return failf("%v", err)
		}
		if a.mode() == modeJSON {
			return writeJSON(a.io.Out, st)
		}
		for i, s := range st {
			line := fmt.Sprintf("%d %-15s %s", i+1, s.Stage, s.Status)
			if len(s.Problems) > 0 {
				line += ": " + strings.Join(s.Problems, "; ")
			}
			fmt.Fprintln(a.io.Out, line)
		}
		return nil
	}
	cfg, err := create.Prepare(ctx, repo, brief, o.force)
	if err != nil {
		if errors.Is(err, create.ErrBriefDiffers) {
			return failf("%v", err)
		}
		return failf("create: %v", err)
	}

	var model *runs.Options
	s, err := a.modelSettings(o.model)
	if err != nil {
		return err
	}
	sel, selErr := llm.Select(s)
	if selErr == nil {
		ro := a.runOptions(repo, s, sel)
		model = &ro
	} else if errors.Is(selErr, llm.ErrInvalidModel) {
		return usagef("%v", selErr)
	}
	retries := create.DefaultMaxStageRetries
	if cfg.MaxStageRetries != nil {
		retries = *cfg.MaxStageRetries
	}
	in := create.Input{
		Env: create.Env{Repo: repo, Config: cfg, KiCad: kc}, Model: model, Watch: a.watchStage(ctx, o), MaxStageRetries: retries,
		Fab: o.fab, SkipSTEP: o.noStep, SkipRender: o.noRender,
		Progress: func(line string) {
			if a.mode() != modeJSON {
				fmt.Fprintln(a.io.Err, "create: "+line)
			}
		},
	}
	if o.interactive {
		in.Approve = func(q string) bool {
			fmt.Fprint(a.io.Err, q)
			var ans string
			_, _ = fmt.Fscanln(a.io.In, &ans)
			return strings.EqualFold(ans, "y") || strings.EqualFold(ans, "yes")
		}
	}
	if model == nil && selErr != nil {
		in.Progress("no model configured (" + selErr.Error() + "): model stages cannot run")
	}
	rep, runErr := create.Run(ctx, in)
	res := createResult{Report: create.ReportDir + "/REPORT.md"}
	if rep != nil {
		res.Complete, res.StoppedAt, res.Stages = rep.Complete, rep.StoppedAt, rep.Stages
	}
	if runErr != nil && !errors.Is(runErr, create.ErrStopped) {
		return failf("create: %v", runErr)
	}
	resume := resumeCommand(a, o)
	if !res.Complete {
		res.Resume = resume
	} else {
		// check runs last: the pipeline's own verdict on the whole repo.
		if err := a.createCheck(ctx); err != nil {
			res.Check = err.Error()
		} else {
			res.Check = "ok"
		}
	}
	if a.mode() == modeJSON {
		if err := writeJSON(a.io.Out, res); err != nil {
			return err
		}
	} else {
		printCreate(a, res)
	}
	switch {
	case !res.Complete:
		return withHint(failf("create stopped at %s", res.StoppedAt), "resume with: "+resume)
	case res.Check != "ok":
		return failf("create finished, but check fails: %s", res.Check)
	}
	return nil
}

// createCheck runs check's gates and returns an error naming what fails.
func (a *app) createCheck(ctx context.Context) error {
	res, err := a.runCheck(ctx, checkOptions{})
	if err != nil {
		return err
	}
	if res.OK {
		return nil
	}
	var b strings.Builder
	printCheck(&b, res)
	var bad []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "✗") {
			bad = append(bad, strings.TrimSpace(l))
		}
	}
	return errors.New(strings.Join(bad, "; "))
}

func resumeCommand(a *app, o createOptions) string {
	cmd := "copperhead"
	if a.repo != "" && a.repo != "." {
		cmd += " --repo " + a.repo
	}
	cmd += " create"
	if o.model != "" {
		cmd += " --model " + o.model
	}
	return cmd
}

func printCreate(a *app, r createResult) {
	o := a.io.Out
	for i, s := range r.Stages {
		line := fmt.Sprintf("%d %-15s %s", i+1, s.Stage, s.Status)
		if s.Note != "" {
			line += " · " + s.Note
		}
		if len(s.Problems) > 0 && s.Status == "failed" {
			line += ": " + strings.Join(s.Problems, "; ")
		}
		fmt.Fprintln(o, line)
	}
	if r.Complete {
		fmt.Fprintf(o, "create complete · check %s · report %s\n", r.Check, r.Report)
		return
	}
	fmt.Fprintf(o, "create stopped at %s · report %s\nresume: %s\n", r.StoppedAt, r.Report, r.Resume)
}

// watchStage renders each of create's stage runs as do renders its run;
// under --json its result object goes to stderr, so stdout holds only
// create's one object.
func (a *app) watchStage(ctx context.Context, o createOptions) func(rn *runs.Run, in *agent.RunInput) func() error {
	return func(rn *runs.Run, in *agent.RunInput) func() error {
		return a.nested().watch(ctx, rn, in, doOptions{model: o.model}, rn.Start.Command)
	}
}
