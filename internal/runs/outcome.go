package runs

import (
	"encoding/json"
	"time"

	"copperhead/internal/llm"
	"copperhead/internal/redact"
	"copperhead/internal/transcript"
)

// Outcome is how a run ended: the one type every surface renders (the run's
// last line, `do --json`, create's stage reports, the run-end record).
type Outcome struct {
	RunID string
	// RunDir and Transcript are repo-relative (slash-separated) when the
	// run folder is inside the repository, as it always is for copperhead's
	// own runs; absolute otherwise.
	RunDir     string
	Transcript string
	Request    string
	Model      string
	Provider   string
	Source     string // what selected the model (transcript.SelectionSource)

	ExitPath     transcript.ExitPath
	ChangeID     string
	Commit       string // "" when nothing was committed
	StashRef     string // the stash holding a failed run's work; "" when none
	Verification transcript.Verification
	Turns        int
	TurnBudget   int // after any extensions
	PerTurn      []transcript.TurnTokens
	RepairCycles int
	RepairBudget int
	Tokens       llm.Usage
	Duration     time.Duration
	DryRun       bool
	Diff         string // DryRun: the change the run would have committed
	Summary      string // the agent's own account (its finish summary)
	Error        string // what failed; "" for done and refused

	// Reply is a one-shot call's answer (nil when the call failed); Err
	// its provider error, already recorded, or the provider error that
	// ended an agent run.
	Reply *llm.Turn
	Err   error

	redactor *redact.Redactor
}

// Redact scrubs the run's secrets from s: a reply quoted on the terminal
// is redacted like the transcript.
func (o *Outcome) Redact(s string) string { return o.redactor.String(s) }

// OK reports whether the run ended as intended: done, or a refusal (the
// agent doing its job, AC-3.4).
func (o *Outcome) OK() bool {
	return o.ExitPath == transcript.ExitDone || o.ExitPath == transcript.ExitRefused
}

// JSON is an outcome as `do --json` prints it (Outcome.MarshalJSON): one
// object, commit and stash_ref null when there is none, the duration in
// milliseconds. Readers of that output decode into it.
type JSON struct {
	OK           bool                    `json:"ok"` // the run ended done or refused (exit 0)
	RunID        string                  `json:"run_id"`
	RunDir       string                  `json:"run_dir"`    // repo-relative
	Transcript   string                  `json:"transcript"` // repo-relative
	Request      string                  `json:"request"`
	Model        string                  `json:"model"`
	Provider     string                  `json:"provider"`
	Source       string                  `json:"source"`
	ExitPath     transcript.ExitPath     `json:"exit_path"`
	ChangeID     string                  `json:"change_id"`
	Commit       *string                 `json:"commit"`
	StashRef     *string                 `json:"stash_ref"`
	Verification transcript.Verification `json:"verification"`
	TurnsUsed    int                     `json:"turns_used"`
	TurnBudget   int                     `json:"turn_budget"`
	RepairCycles int                     `json:"repair_cycles_used"`
	RepairBudget int                     `json:"repair_cycle_budget"`
	Tokens       llm.Usage               `json:"tokens"`
	DurationMS   int64                   `json:"duration_ms"`
	DryRun       bool                    `json:"dry_run"`
	Diff         string                  `json:"diff,omitempty"` // dry run only
	Summary      string                  `json:"summary"`        // the agent's own account
	Error        string                  `json:"error,omitempty"`
}

// MarshalJSON writes o as JSON.
func (o Outcome) MarshalJSON() ([]byte, error) {
	return json.Marshal(JSON{
		o.OK(), o.RunID, o.RunDir, o.Transcript, o.Request, o.Model, o.Provider, o.Source,
		o.ExitPath, o.ChangeID, orNil(o.Commit), orNil(o.StashRef), o.Verification,
		o.Turns, o.TurnBudget, o.RepairCycles, o.RepairBudget, o.Tokens, o.Duration.Milliseconds(),
		o.DryRun, o.Diff, o.Summary, o.Error,
	})
}

// End is the outcome as the transcript's run-end event records it.
func (o *Outcome) End() transcript.RunEnd {
	return transcript.RunEnd{
		ExitPath: o.ExitPath, TurnsUsed: o.Turns, TurnBudget: o.TurnBudget,
		RepairCyclesUsed: o.RepairCycles, RepairCycleBudget: o.RepairBudget,
		Tokens: transcript.Tokens(o.Tokens), PerTurn: o.PerTurn,
		DurationMS: o.Duration.Milliseconds(), Verification: o.Verification,
		Commit: orNil(o.Commit), StashRef: orNil(o.StashRef), Error: orNil(o.Error),
	}
}

// Brief is an outcome as a report lists it among others (create's stages):
// which run, how it ended, what it cost.
type Brief struct {
	RunID    string        `json:"run_id"`
	Kind     string        `json:"kind"` // "run" or "diagnosis"
	OK       bool          `json:"ok"`
	Exit     string        `json:"exit"`
	Turns    int           `json:"turns"`
	Tokens   llm.Usage     `json:"tokens"`
	Duration time.Duration `json:"duration_ns"`
	Error    string        `json:"error,omitempty"`
}

// Brief is o in a report's list, as kind ("run" or "diagnosis").
func (o *Outcome) Brief(kind string) Brief {
	return Brief{RunID: o.RunID, Kind: kind, OK: o.OK(), Exit: string(o.ExitPath), Turns: o.Turns,
		Tokens: o.Tokens, Duration: o.Duration, Error: o.Error}
}

func orNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
