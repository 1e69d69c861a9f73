package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"copperhead/internal/config"
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
	Exit     transcript.ExitPath // done, provider-error, or interrupted when ctx was cancelled
	Redactor *redact.Redactor
}

// recording is a run's open provider, its transcript and the run-start
// metadata: what every recorded model run sets up before its first call.
type recording struct {
	Provider llm.Provider
	Writer   *transcript.Writer
	Redactor *redact.Redactor
	Start    transcript.RunStart
	Began    time.Time
	// notify shows one line of the provider's retry waits; it starts as
	// a line on stderr, and a run with a renderer routes it there.
	notify func(string)
}

// Notify routes the run's retry lines ("rate limited by compat (HTTP
// 429), retrying in 5 s") to f.
func (r *recording) Notify(f func(string)) { r.notify = f }

// startRecording opens the selected provider, creates the run's transcript
// and collects the run-start metadata. meta carries what the caller knows
// (command, request, config, budgets); the run id, time, model, provider,
// selection source, version and repository are filled in here. The caller
// closes Writer.
func (a *app) startRecording(ctx context.Context, repo string, s llm.Settings, sel llm.Selection, meta runmeta.Input) (*recording, error) {
	red := redact.New(os.Environ())
	rec := &recording{Redactor: red}
	rec.notify = func(line string) { fmt.Fprintln(a.io.Err, "copperhead: "+red.String(line)) }
	onAttempt := func(at llm.Attempt) {
		if line := at.RetryLine(); line != "" {
			rec.notify(line)
		}
	}
	p, err := llm.Open(sel, s, llm.OpenOptions{RepoRoot: repo, CacheDir: llmCacheDir(), OnAttempt: onAttempt})
	if err != nil {
		return nil, providerErr(err)
	}
	began := time.Now()
	meta.RunID, meta.StartedAt = transcript.NewRunID(began), began
	meta.Model, meta.Provider, meta.SelectionSource = p.Model(), p.Name(), sel.Source
	meta.Version, meta.Repo, meta.HookMarker = version(), repo, hookMarker
	w, err := transcript.Create(repo, meta.RunID, red)
	if err != nil {
		return nil, failf("%v", err)
	}
	rec.Provider, rec.Writer, rec.Start, rec.Began = p, w, runmeta.Collect(ctx, meta, runmeta.DefaultProbes()), began
	return rec, nil
}

// runOneShot makes the call as a recorded run. The error return is for
// failures to open or record; a model failure comes back in Err with the run
// still fully recorded.
func (a *app) runOneShot(ctx context.Context, repo string, cfg config.Config, s llm.Settings, sel llm.Selection, q oneShot) (*oneShotResult, error) {
	r, err := a.startRecording(ctx, repo, s, sel, runmeta.Input{
		Command: q.Command, Request: q.Request, Config: cfg,
		Schematic: cfg.Schematic, Board: cfg.Board, MaxTurns: 1,
	})
	if err != nil {
		return nil, err
	}
	w, red, meta, start, runID := r.Writer, r.Redactor, r.Start, r.Began, r.Start.RunID
	defer w.Close()
	if err := w.Write(transcript.TypeRunStart, meta); err != nil {
		return nil, failf("%v", err)
	}
	p := r.Provider
	rec := llm.Record(p, w)
	turn, chatErr := rec.Chat(ctx, []llm.Message{{Role: llm.RoleUser, Text: q.Message}}, nil,
		llm.Options{System: q.System, MaxTokens: q.MaxTokens})
	res := &oneShotResult{RunID: runID, RunDir: config.RunsDir + runID, Model: rec.Model(), Provider: rec.Name(), Redactor: red, Exit: transcript.ExitDone}
	end := transcript.RunEnd{ExitPath: transcript.ExitDone, TurnBudget: 1, TurnsUsed: 1, DurationMS: time.Since(start).Milliseconds()}
	if chatErr != nil {
		msg := red.String(chatErr.Error())
		res.Exit = transcript.ExitProviderError
		if ctx.Err() != nil { // Ctrl-C is the user's, not the provider's
			res.Exit = transcript.ExitInterrupted
		}
		end.ExitPath, end.Error = res.Exit, &msg
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
