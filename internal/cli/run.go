package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"copperhead/internal/agent"
	"copperhead/internal/config"
	"copperhead/internal/llm"
	"copperhead/internal/runmeta"
	"copperhead/internal/runs"
)

// runOptions is what every model run the CLI starts shares: the model, the
// version and hook marker recorded in its run-start, the response cache, and
// stderr for a retry wait nobody else is watching.
func (a *app) runOptions(repo string, s llm.Settings, sel llm.Selection) runs.Options {
	return runs.Options{Repo: repo, Settings: s, Selection: sel, Version: version(), HookMarker: hookMarker,
		CacheDir: llmCacheDir(), Notify: func(line string) { fmt.Fprintln(a.io.Err, "copperhead: "+line) }}
}

// startRun starts a run, in the CLI's exit codes: a provider that cannot be
// opened is the provider's error (usage for a missing key or login).
func startRun(ctx context.Context, o runs.Options) (*runs.Run, error) {
	rn, err := runs.Start(ctx, o)
	var pe *runs.ProviderError
	switch {
	case errors.As(err, &pe):
		return nil, providerErr(pe.Err)
	case err != nil:
		return nil, failf("%v", err)
	}
	return rn, nil
}

// runOneShot makes one recorded model call outside the agent loop (`models
// --probe`, `explain --phrase`): a run like any other, with a run-start,
// the chat, a run-end and summary.md. The error return is for failures to
// open or record; a model failure comes back in the outcome's Err.
func (a *app) runOneShot(ctx context.Context, repo string, cfg config.Config, s llm.Settings, sel llm.Selection,
	command, request string, c runs.Call) (*runs.Outcome, error) {
	o := a.runOptions(repo, s, sel)
	o.OneShot = true
	o.Meta = runmeta.Input{Command: command, Request: request, Config: cfg, Schematic: cfg.Schematic, Board: cfg.Board}
	rn, err := startRun(ctx, o)
	if err != nil {
		return nil, err
	}
	out, err := rn.OneShot(ctx, c)
	if err != nil {
		return nil, failf("%v", err)
	}
	return out, nil
}

// watch renders rn as it goes: the header and the status line, each turn
// and tool call, then at its end the agent's summary, a dry run's diff, the
// outcome line and, under --json, the outcome object. It gives in the hooks
// only a person at the terminal can answer (approval, more turns). The
// returned func stops watching; its error is the outcome object's write.
func (a *app) watch(ctx context.Context, rn *runs.Run, in *agent.RunInput, o doOptions, command string) (stop func() error) {
	rr := a.newRunRenderer(rn.Redactor)
	rr.Header(doHeader(rn.Start, o, command)...)
	rr.Begin(rn.TurnBudget)
	var jsonErr error
	cancel := rn.Subscribe(func(e runs.Event) {
		if e.Kind != runs.EventEnd {
			rr.Event(e)
			return
		}
		out := e.Outcome
		if out.Summary != "" {
			rr.Text(out.Summary)
		}
		if out.DryRun && out.Diff != "" && a.mode() != modeJSON {
			rr.Text(out.Diff)
		}
		rr.Outcome(outcomeLine(out), out.OK())
		if a.mode() == modeJSON {
			jsonErr = writeJSON(a.io.Out, out)
		}
	})
	if o.interactive && !o.unattended {
		in.Approve = func(id string) bool {
			ans, _ := rr.Ask(ctx, fmt.Sprintf("OpenSpec change %s validated: unlock the edit tools and apply it? [y/N] ", id))
			return strings.EqualFold(ans, "y") || strings.EqualFold(ans, "yes")
		}
	}
	if a.attended() && !o.unattended {
		in.Extend = func(st agent.BudgetStats) int { return askExtension(ctx, rr, st) }
	}
	return func() error {
		cancel()
		rr.Close()
		return jsonErr
	}
}
