package cli

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"copperhead/internal/config"
	"copperhead/internal/llm"
	"copperhead/internal/textfmt"
)

// ModelsResult is `models --json`.
type ModelsResult struct {
	Selected *llm.Selection      `json:"selected"` // null when no model would be selected
	Error    string              `json:"error,omitempty"`
	Backends []llm.BackendStatus `json:"backends"`
}

func newModelsCmd(a *app) *cobra.Command {
	var model string
	var probe bool
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the model backends and which one an agent run would use, and why",
		Long: `models lists every model backend with whether it is ready (its credential
and settings are present: variables are named, never shown) and which model an
agent command would select, from: --model, then COPPERHEAD_MODEL, then "model"
in .copperhead/config.json, then whichever one of OPENAI_API_KEY and
ANTHROPIC_API_KEY is set (both set with no explicit choice is refused as
ambiguous). For the saved-login backends (claude-code, codex, cursor) it
shows the CLI found (its path), its --version, and whether it is logged in
where the CLI's own status says so offline (claude auth status, codex login
status; Cursor's needs its servers: "login state unknown"). It makes no
network connection.

With --probe it sends one tiny request ("Reply with the word: ready") to the
selected model as a recorded run: .copperhead/runs/<run-id>/ gets
transcript.jsonl and summary.md, and --model replay:<run-id> (or replay:last)
serves that run's turns again with no network.

Exit 0 when a model would be selected (and, with --probe, answered), 1 when
none would be or the model call failed (the reason is printed), 2 for a
malformed --model or a missing credential or endpoint.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.modelSettings(model)
			if err != nil {
				return err
			}
			res := ModelsResult{Backends: llm.Backends(s)}
			sel, selErr := llm.Select(s)
			if selErr == nil {
				res.Selected = &sel
			} else {
				if errors.Is(selErr, llm.ErrInvalidModel) {
					return usagef("%v", selErr)
				}
				res.Error = textfmt.OneLine(selErr.Error())
			}
			// A model that would be selected but cannot run (its key or
			// endpoint is missing) is an environment error, exit 2: the same
			// rule Open applies before an agent run.
			var notReady error
			if res.Selected != nil {
				if b, ok := backendStatus(res.Backends, sel.Backend); ok && !b.Ready {
					res.Error = textfmt.OneLine(b.Detail)
					notReady = withHint(usagef("model %s (backend %s, source %s) cannot run: %s", sel.Spec, sel.Backend, sel.Source, b.Detail), b.Hint)
				}
			}
			if probe {
				if res.Selected == nil {
					return failf("%s", res.Error)
				}
				pr, err := a.runProbe(cmd.Context(), s, sel)
				if err != nil {
					return err
				}
				if a.mode() == modeJSON {
					return writeJSON(a.io.Out, pr)
				}
				printProbe(a, pr)
				return nil
			}
			if a.mode() == modeJSON {
				if err := writeJSON(a.io.Out, res); err != nil {
					return err
				}
			} else {
				out := a.io.Out
				if res.Selected != nil {
					fmt.Fprintf(out, "selected: %s (backend %s, source %s)\n", describeSelection(sel), sel.Backend, sel.Source)
				} else {
					fmt.Fprintf(out, "selected: none: %s\n", res.Error)
				}
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "BACKEND\tREADY\tDEFAULT MODEL\tDETAIL")
				for _, b := range res.Backends {
					ready := "no"
					if b.Ready {
						ready = "yes"
					}
					line := fmt.Sprintf("%s\t%s\t%s\t%s", b.Backend, ready, dash(b.DefaultModel), b.Detail)
					if !b.Ready && b.Hint != "" {
						line += " (" + b.Hint + ")"
					}
					fmt.Fprintln(tw, line)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
			}
			if notReady != nil {
				return notReady
			}
			if res.Selected == nil {
				return quietf(ExitFailed, "%s", res.Error)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&probe, "probe", false, "send one tiny request to the selected model, recorded as a run")
	cmd.Flags().StringVar(&model, "model", "", "the model to select, e.g. claude, gpt-5, compat:<model-id>, claude-code, codex:<id>, cursor, replay:<run-id>")
	return cmd
}

// modelSettings gathers what model selection reads: the flag, the config's
// model keys and the environment.
func (a *app) modelSettings(flag string) (llm.Settings, error) {
	repo, err := a.repoDir()
	if err != nil {
		return llm.Settings{Flag: flag}, err
	}
	cfg, _, err := config.LoadConfig(repo)
	if err != nil {
		return llm.Settings{Flag: flag}, failf("%v", err)
	}
	return settingsFrom(flag, cfg), nil
}

// settingsFrom is modelSettings for a command that has read the config.
func settingsFrom(flag string, cfg config.Config) llm.Settings {
	return llm.Settings{Flag: flag, ConfigModel: cfg.Model, ConfigBaseURL: cfg.BaseURL, ConfigAPIKeyEnv: cfg.APIKeyEnv}
}

func describeSelection(sel llm.Selection) string {
	switch {
	case sel.Backend == llm.BackendReplay:
		return "replay of run " + sel.RunID
	case sel.Backend == llm.BackendCompat:
		return sel.ModelID + " at " + sel.BaseURL
	case sel.ModelID == "":
		return sel.Backend + " (its own default model)"
	}
	return sel.ModelID
}

// backendStatus finds a backend's row: replay has none (it needs no
// credential).
func backendStatus(rows []llm.BackendStatus, backend string) (llm.BackendStatus, bool) {
	for _, b := range rows {
		if b.Backend == backend {
			return b, true
		}
	}
	return llm.BackendStatus{}, false
}
