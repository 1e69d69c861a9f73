package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"copperhead/internal/design"
	"copperhead/internal/llm"
	"copperhead/internal/redact"
	"copperhead/internal/runmeta"
	"copperhead/internal/transcript"
)

// probeSystem and probeRequest are the one tiny exchange `models --probe`
// makes: enough to prove credentials, endpoint and wire format end to end.
const (
	probeSystem  = "You are copperhead's connectivity probe. Answer with exactly one word."
	probeRequest = "Reply with the word: ready"
)

// ProbeResult is `models --probe --json`.
type ProbeResult struct {
	RunID    string              `json:"run_id"`
	RunDir   string              `json:"run_dir"`
	Model    string              `json:"model"`
	Provider string              `json:"provider"`
	Source   string              `json:"source"`
	Reply    string              `json:"reply"`
	Cached   bool                `json:"cached"`
	Usage    llm.Usage           `json:"usage"`
	Error    string              `json:"error,omitempty"`
	ExitPath transcript.ExitPath `json:"exit_path"`
}

// llmCacheDir is where model turns are cached when COPPERHEAD_LLM_CACHE=1
// (off by default: a cached answer is not a fresh one); "" when off.
func llmCacheDir() string {
	if os.Getenv("COPPERHEAD_LLM_CACHE") != "1" {
		return ""
	}
	if d := os.Getenv("COPPERHEAD_CACHE_DIR"); d != "" {
		return filepath.Join(d, "llm")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "copperhead", "llm")
	}
	return ""
}

// runProbe sends one request to the selected model as a recorded run:
// .copperhead/runs/<run-id>/ gets transcript.jsonl and summary.md.
func (a *app) runProbe(ctx context.Context, s llm.Settings, sel llm.Selection) (*ProbeResult, error) {
	repo, err := a.repoDir()
	if err != nil {
		return nil, err
	}
	cfg, _, err := design.LoadConfig(repo)
	if err != nil {
		return nil, failf("%v", err)
	}
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
		RunID: runID, StartedAt: start, Command: "models --probe", Request: probeRequest,
		Model: p.Model(), Provider: p.Name(), SelectionSource: sel.Source,
		Version: version(), Repo: repo, Config: cfg, Schematic: cfg.Schematic, Board: cfg.Board,
		MaxTurns: 1, MaxRepairCycles: 0, HookMarker: hookMarker,
	}, runmeta.DefaultProbes())
	if err := w.Write(transcript.TypeRunStart, meta); err != nil {
		return nil, failf("%v", err)
	}

	rec := llm.Record(p, w)
	msgs := []llm.Message{{Role: llm.RoleUser, Text: probeRequest}}
	turn, chatErr := rec.Chat(ctx, msgs, nil, llm.Options{System: probeSystem, MaxTokens: 64})

	res := &ProbeResult{RunID: runID, RunDir: filepath.ToSlash(filepath.Join(design.RunsDir, runID)),
		Model: rec.Model(), Provider: rec.Name(), Source: sel.Source, ExitPath: transcript.ExitDone}
	end := transcript.RunEnd{ExitPath: transcript.ExitDone, TurnBudget: 1, TurnsUsed: 1, DurationMS: time.Since(start).Milliseconds()}
	if chatErr != nil {
		msg := red.String(chatErr.Error())
		res.Error, res.ExitPath = msg, transcript.ExitProviderError
		end.ExitPath, end.Error = transcript.ExitProviderError, &msg
	} else {
		// The terminal is a log too: the reply is redacted like the transcript.
		res.Reply, res.Cached, res.Usage = red.String(turn.Text), turn.Cached, turn.Usage
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
	if chatErr != nil {
		if a.mode() == modeJSON {
			_ = writeJSON(a.io.Out, res)
			return res, silentFailure
		}
		return res, providerErr(chatErr)
	}
	return res, nil
}

// providerErr turns a provider failure into the CLI's one line plus hint:
// configuration problems are environment errors (exit 2), the rest failures.
func providerErr(err error) error {
	var e *llm.Error
	if !errors.As(err, &e) {
		return failf("%v", err)
	}
	code := ExitFailed
	switch e.Kind {
	case llm.ErrAuth, llm.ErrNotConfigured, llm.ErrNotInstalled, llm.ErrNotLoggedIn:
		code = ExitUsage
	}
	return &exitError{code: code, err: e, hint: e.Hint}
}

func printProbe(a *app, r *ProbeResult) {
	out := a.io.Out
	cached := ""
	if r.Cached {
		cached = " (from the response cache)"
	}
	fmt.Fprintf(out, "reply: %s%s\n", oneLine(r.Reply), cached)
	fmt.Fprintf(out, "model: %s via %s (source %s)\n", r.Model, r.Provider, r.Source)
	fmt.Fprintf(out, "tokens: %d in / %d out (cache read %d, write %d)\n", r.Usage.Input, r.Usage.Output, r.Usage.CacheRead, r.Usage.CacheWrite)
	fmt.Fprintf(out, "run %s: %s/\n", r.RunID, r.RunDir)
}
