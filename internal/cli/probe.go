package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"copperhead/internal/config"
	"copperhead/internal/llm"
	"copperhead/internal/runs"
	"copperhead/internal/textfmt"
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
	cfg, _, err := config.LoadConfig(repo)
	if err != nil {
		return nil, failf("%v", err)
	}
	r, err := a.runOneShot(ctx, repo, cfg, s, sel, "models --probe", probeRequest,
		runs.Call{Message: probeRequest, System: probeSystem, MaxTokens: 64})
	if err != nil {
		return nil, err
	}
	res := &ProbeResult{RunID: r.RunID, RunDir: r.RunDir, Model: r.Model, Provider: r.Provider, Source: sel.Source, ExitPath: transcript.ExitDone}
	if r.Err != nil {
		res.Error, res.ExitPath = r.Error, r.ExitPath
		if a.mode() == modeJSON {
			_ = writeJSON(a.io.Out, res)
		}
		return res, providerErr(r.Err)
	}
	// The terminal is a log too: the reply is redacted like the transcript.
	res.Reply, res.Cached, res.Usage = r.Redact(r.Reply.Text), r.Reply.Cached, r.Reply.Usage
	return res, nil
}

// providerErr turns a provider failure into the CLI's one line plus hint:
// configuration problems are environment errors (exit 2), the rest failures.
// savedLoginFailure reports whether a provider error that ended a run is a
// saved-login CLI logged out or gone: the environment's fault, exit 2, as
// when Open finds it before the run. (A keyed provider's refused key
// mid-run stays exit 1, spec §4.5.)
func savedLoginFailure(err error) bool {
	var e *llm.Error
	return errors.As(err, &e) && (e.Kind == llm.ErrNotLoggedIn || e.Kind == llm.ErrNotInstalled)
}

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
	fmt.Fprintf(out, "reply: %s%s\n", textfmt.OneLine(r.Reply), cached)
	fmt.Fprintf(out, "model: %s via %s (source %s)\n", r.Model, r.Provider, r.Source)
	fmt.Fprintf(out, "tokens: %d in / %d out (cache read %d, write %d)\n", r.Usage.Input, r.Usage.Output, r.Usage.CacheRead, r.Usage.CacheWrite)
	fmt.Fprintf(out, "run %s: %s/\n", r.RunID, r.RunDir)
}
