package runs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/llm"
	"copperhead/internal/redact"
	"copperhead/internal/runmeta"
	"copperhead/internal/transcript"
)

// Options start a run.
type Options struct {
	Repo      string // repository root, absolute: the run folder goes in it
	Settings  llm.Settings
	Selection llm.Selection
	// Meta is what the caller knows of the run (command, request, config,
	// schematic and board, stage); Start fills in the rest.
	Meta runmeta.Input
	// MaxTurns is the --max-turns flag (0: the config's, else the default).
	// A one-shot call has a budget of one turn.
	MaxTurns int
	OneShot  bool
	// Version and HookMarker are recorded in the run-start (copperhead's
	// version, the marker of its pre-commit hook).
	Version, HookMarker string
	// CacheDir is the response cache's folder ("" disables it).
	CacheDir string
	// Notify shows a line the run says while nobody watches it (a retry
	// wait during a one-shot call); nil drops it.
	Notify func(string)
	// Probes replace the run-start metadata probes (tests); nil is the
	// real tools.
	Probes *runmeta.Probes
	// Provider, when set, is the model instead of the selected one: a
	// scripted model in tests. It is recorded like any other.
	Provider llm.Provider
	// Reasoner, when set, names a model outside copperhead that drives the
	// run by calling its tools itself: an MCP client ("claude-code 2.1").
	// No provider is opened and Run.Provider stays nil, because copperhead
	// makes no model call to record; the run-start names the reasoner as
	// its model, "mcp-client" as its provider and "mcp" as how it was
	// selected, so the record never claims a model copperhead did not use.
	Reasoner string
}

// Reasoner names, as a run driven from outside records them.
const (
	ReasonerProvider = "mcp-client"
	ReasonerSource   = string(transcript.SourceMCP)
)

// Run is one model run in progress: its id and folder, its recorded
// provider, its transcript and its watchers.
type Run struct {
	ID       string
	Repo     string
	Dir      string // the run folder, absolute
	Provider llm.Provider
	Redactor *redact.Redactor
	Start    transcript.RunStart
	Began    time.Time
	// TurnBudget and RepairBudget are the run's budgets, resolved once:
	// the flag over the config over the defaults (AC-8.2).
	TurnBudget, RepairBudget int

	w       *transcript.Writer
	tree    *Tree // the tree the run changes (OpenTree); nil for a one-shot call
	notify  func(string)
	mu      sync.Mutex
	subs    []subscriber
	nextSub int
	ended   bool
}

// ProviderError is a provider that could not be opened (no key, no login,
// a CLI not installed): the run never started.
type ProviderError struct{ Err error }

func (e *ProviderError) Error() string { return e.Err.Error() }
func (e *ProviderError) Unwrap() error { return e.Err }

// Budgets resolves a run's turn and repair-cycle budgets: the flag over the
// config over the defaults.
func Budgets(flagTurns int, cfg config.Config) (turns, repair int) {
	return firstPositive(flagTurns, cfg.MaxTurns, config.DefaultMaxTurns),
		firstPositive(cfg.MaxRepairCycles, config.DefaultMaxRepairCycles)
}

func firstPositive(vs ...int) int {
	for _, v := range vs {
		if v > 0 {
			return v
		}
	}
	return 0
}

// Start opens the selected provider, wraps it so every chat turn is
// recorded, creates the run folder and its transcript, and collects the
// run-start metadata (written by the run's Begin, or by OneShot). The
// caller ends the run with End, or Abandon when it never began.
func Start(ctx context.Context, o Options) (*Run, error) {
	red := redact.New(os.Environ())
	r := &Run{Repo: o.Repo, Redactor: red, notify: o.Notify}
	onAttempt := func(at llm.Attempt) {
		if line := at.RetryLine(); line != "" {
			r.Notice(line)
		}
	}
	// A run reasoned outside copperhead opens no provider: there is no
	// model call to make or record.
	var p llm.Provider
	model, provider, source := o.Reasoner, ReasonerProvider, ReasonerSource
	if o.Reasoner == "" {
		if p = o.Provider; p == nil {
			var err error
			if p, err = llm.Open(o.Selection, o.Settings, llm.OpenOptions{RepoRoot: o.Repo, CacheDir: o.CacheDir, OnAttempt: onAttempt}); err != nil {
				return nil, &ProviderError{Err: err}
			}
		}
		model, provider, source = p.Model(), p.Name(), o.Selection.Source
	}
	r.TurnBudget, r.RepairBudget = Budgets(o.MaxTurns, o.Meta.Config)
	if o.OneShot {
		r.TurnBudget, r.RepairBudget = 1, 0
	}
	r.Began = time.Now()
	meta := o.Meta
	meta.RunID, meta.StartedAt = transcript.NewRunID(r.Began), r.Began
	meta.Model, meta.Provider, meta.SelectionSource = model, provider, source
	meta.Version, meta.Repo, meta.HookMarker = o.Version, o.Repo, o.HookMarker
	meta.MaxTurns, meta.MaxRepairCycles = r.TurnBudget, r.RepairBudget
	w, err := transcript.Create(o.Repo, meta.RunID, red)
	if err != nil {
		return nil, err
	}
	probes := runmeta.DefaultProbes()
	if o.Probes != nil {
		probes = *o.Probes
	}
	r.ID, r.w, r.Dir = meta.RunID, w, w.Dir()
	r.Start = runmeta.Collect(ctx, meta, probes)
	if p != nil {
		r.Provider = llm.Record(p, w)
	}
	return r, nil
}

// Begin writes the run-start event and makes it durable: from here on the
// run is on record and must End.
func (r *Run) Begin() error {
	if err := r.w.Write(transcript.TypeRunStart, r.Start); err != nil {
		return err
	}
	return r.w.Flush()
}

// Record appends one event of the run's own to its transcript (a tool
// call, a research request, a budget extension). Chat turns are recorded
// by the provider itself.
func (r *Run) Record(eventType string, payload any) error { return r.w.Write(eventType, payload) }

// Flush makes what the run recorded so far durable: the loop flushes at
// each turn boundary, so a live viewer sees the turn whole.
func (r *Run) Flush() error { return r.w.Flush() }

// Abandon closes a run that never began and removes its folder: an empty
// transcript would only mislead.
func (r *Run) Abandon() {
	_ = r.w.Close()
	_ = os.RemoveAll(r.Dir)
}

// Rel is p relative to the repository (slash-separated), or p itself when
// it lies outside.
func (r *Run) Rel(p string) string {
	if rel, err := filepath.Rel(r.Repo, p); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return p
}

// Outcome is a new outcome for this run, its identity filled in.
func (r *Run) Outcome() *Outcome {
	return &Outcome{RunID: r.ID, RunDir: r.Rel(r.Dir), Transcript: r.Rel(r.w.Path()), Request: r.Start.Request,
		Model: r.Start.Model, Provider: r.Start.Provider, Source: string(r.Start.SelectionSource),
		TurnBudget: r.TurnBudget, RepairBudget: r.RepairBudget, redactor: r.Redactor}
}

// End records how the run ended: the run-end event, the transcript closed,
// summary.md beside it; then the outcome goes to the watchers. sum carries
// what only the caller knows (plan, tools, decisions); its Start and End
// are filled in here. A failure to record is returned and also joined into
// o.Error, so what the user reads never claims a record that is not there.
func (r *Run) End(o *Outcome, sum transcript.Summary) error {
	r.mu.Lock()
	ended := r.ended
	r.ended = true
	r.mu.Unlock()
	if ended {
		return nil
	}
	end := o.End()
	var errs []string
	if err := r.w.Write(transcript.TypeRunEnd, end); err != nil {
		errs = append(errs, err.Error())
	}
	if err := r.w.Close(); err != nil {
		errs = append(errs, err.Error())
	}
	sum.Start, sum.End = r.Start, end
	if err := transcript.WriteSummary(r.Dir, sum, r.Redactor); err != nil {
		errs = append(errs, err.Error())
	}
	// The run has ended and says so: its way back is no longer needed. A
	// ref that outlived its run would read as an interrupted one.
	if r.tree != nil {
		if err := r.tree.unreference(); err != nil {
			errs = append(errs, err.Error())
		}
	}
	var recErr error
	if len(errs) > 0 {
		recErr = errors.New("record run: " + join(errs))
		o.Error = joinErr(o.Error, recErr.Error())
	}
	r.Emit(Event{Kind: EventEnd, Outcome: o, Turn: o.Turns, Budget: o.TurnBudget, Tokens: o.Tokens, Elapsed: o.Duration})
	return recErr
}

func join(parts []string) string {
	s := ""
	for _, p := range parts {
		s = joinErr(s, p)
	}
	return s
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
