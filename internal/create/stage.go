package create

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"copperhead/internal/agent"
	"copperhead/internal/config"
	"copperhead/internal/project"
	"copperhead/internal/runmeta"
	"copperhead/internal/runs"
)

// RunStage makes st's agent run: a run of its own ("create <stage>") on
// the repository as it is now (early stages have no schematic yet, which
// the agent's tools answer as "not applicable yet").
func RunStage(ctx context.Context, in Input, st Stage, request string, maxTurns int) (StageRun, error) {
	cfg, pr, err := current(in.Repo)
	if err != nil {
		return StageRun{}, err
	}
	o := *in.Model
	o.MaxTurns = maxTurns
	o.Meta = runmeta.Input{Command: "create " + st.Name, Request: request, Config: cfg,
		Schematic: pr.Rel(pr.Schematic), Board: pr.Rel(pr.Board)}
	if in.KiCad != nil {
		o.Meta.KicadCLIVersion = in.KiCad.Version()
	}
	rn, err := runs.Start(ctx, o)
	if err != nil {
		return StageRun{}, err
	}
	ain := agent.RunInput{Repo: in.Repo, Config: cfg, Project: pr, KiCad: in.KiCad, Request: request}
	stop := func() error { return nil }
	if in.Watch != nil {
		stop = in.Watch(rn, &ain)
	}
	out, err := agent.Run(ctx, rn, ain)
	watchErr := stop()
	if err != nil {
		rn.Abandon() // it never began: an empty transcript would only mislead
		return StageRun{}, err
	}
	return out.Brief("run"), watchErr
}

// runDiagnosis asks the model, in a one-shot run, why st's gate failed and
// what the next attempt must do instead. Without an answer the retry still
// gets the gate's findings.
func runDiagnosis(ctx context.Context, in Input, st Stage, problems []string, last StageRun) (string, StageRun, error) {
	cfg, _, err := current(in.Repo)
	if err != nil {
		return "", StageRun{}, err
	}
	o := *in.Model
	o.OneShot = true
	o.Meta = runmeta.Input{Command: "create diagnose", Request: "diagnose " + st.Name, Config: cfg,
		Schematic: cfg.Schematic, Board: cfg.Board}
	rn, err := runs.Start(ctx, o)
	if err != nil {
		return "", StageRun{}, err
	}
	msg := fmt.Sprintf("The create pipeline's %s stage (%s) ran (run %s, exit %s) but its completion gate, checked from the repository's files, failed:\n- %s\n\nIn at most ten lines: what most likely went wrong, and exactly what the next attempt must do differently to pass the gate.",
		st.Name, st.Title, last.RunID, last.Exit, strings.Join(problems, "\n- "))
	out, err := rn.OneShot(ctx, runs.Call{Message: msg,
		System: "You diagnose failed stages of a hardware design pipeline. Be concrete and brief.", MaxTokens: 600})
	if err != nil {
		return "", StageRun{}, err
	}
	if out.Err != nil {
		return "The gate reported: " + strings.Join(problems, "; "), out.Brief("diagnosis"), nil
	}
	return out.Reply.Text, out.Brief("diagnosis"), nil
}

// current is the repository's config and project as they are now: a stage
// may have written either.
func current(repo string) (config.Config, *project.Project, error) {
	cfg, _, err := config.LoadConfig(repo)
	if err != nil {
		return cfg, nil, err
	}
	pr, err := project.Locate(repo, "", cfg.Schematic, cfg.Board)
	if errors.Is(err, project.ErrNoSchematic) {
		pr, err = &project.Project{Repo: repo, Name: filepath.Base(repo)}, nil
	}
	return cfg, pr, err
}
