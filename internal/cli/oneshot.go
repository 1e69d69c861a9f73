package cli

import (
	"context"
	"os"
	"time"

	"copperhead/internal/design"
	"copperhead/internal/llm"
	"copperhead/internal/redact"
	"copperhead/internal/runmeta"
	"copperhead/internal/transcript"
)

// oneShot is a single recorded model call outside the agent loop: `models
// --probe` and `explain --phrase`. It is a run like any other, with a
// run-start, the chat, a run-end and summary.md in .copperhead/runs/<run-id>/.
type oneShot struct {
	Command   string // recorded as the run's command
	Request   string // recorded as the run's request
	Message   string // what the model is sent
	System    string
	MaxTokens int
}

// oneShotResult is the call's outcome. Turn is nil when the call failed; Err
// is the provider's error, already recorded.
type oneShotResult struct {
	RunID    string
	RunDir   string // repo-relative
	Model    string
	Provider string
	Turn     *llm.Turn
	Err      error
	Redactor *redact.Redactor
}

// runOneShot opens the selected provider and makes the call as a recorded
// run. The error return is for failures to open or record; a model failure
// comes back in Err with the run still fully recorded.
func (a *app) runOneShot(ctx context.Context, repo string, cfg design.Config, s llm.Settings, sel llm.Selection, q oneShot) (*oneShotResult, error) {
	p, err := llm.Open(sel, s, llm.OpenOptions{RepoRoot: repo, CacheDir: llmCacheDir()})
	if err != nil {
		return nil, providerErr(err)
	}
	start := time.Now()
	runID := transcript.NewRunID(start)
	red := redact.New(os.Environ())
	w, err := transcript.Create(repo, runID, red)
	if err != nil {
		return nil, failf("%v", err)
	}
	defer w.Close()
	meta := runmeta.Collect(ctx, runmeta.Input{
		RunID: runID, StartedAt: start, Command: q.Command, Request: q.Request,
		Model: p.Model(), Provider: p.Name(), SelectionSource: sel.Source,
		Version: version(), Repo: repo, Config: cfg, Schematic: cfg.Schematic, Board: cfg.Board,
		MaxTurns: 1, HookMarker: hookMarker,
	}, runmeta.DefaultProbes())
	if err := w.Write(transcript.TypeRunStart, meta); err != nil {
		return nil, failf("%v", err)
	}
	rec := llm.Record(p, w)
	turn, chatErr := rec.Chat(ctx, []llm.Message{{Role: llm.RoleUser, Text: q.Message}}, nil,
		llm.Options{System: q.System, MaxTokens: q.MaxTokens})
	res := &oneShotResult{RunID: runID, RunDir: design.RunsDir + runID, Model: rec.Model(), Provider: rec.Name(), Redactor: red}
	end := transcript.RunEnd{ExitPath: transcript.ExitDone, TurnBudget: 1, TurnsUsed: 1, DurationMS: time.Since(start).Milliseconds()}
	if chatErr != nil {
		msg := red.String(chatErr.Error())
		end.ExitPath, end.Error = transcript.ExitProviderError, &msg
		res.Err = chatErr
	} else {
		res.Turn = turn
		end.Tokens = transcript.Tokens(turn.Usage)
		end.PerTurn = []transcript.TurnTokens{{Turn: 1, Tokens: transcript.Tokens(turn.Usage)}}
	}
	if err := w.Write(transcript.TypeRunEnd, end); err != nil {
		return nil, failf("%v", err)
	}
	if err := w.Close(); err != nil {
		return nil, failf("%v", err)
	}
	if err := transcript.WriteSummary(w.Dir(), transcript.Summary{Start: meta, End: end}, red); err != nil {
		return nil, failf("%v", err)
	}
	return res, nil
}
