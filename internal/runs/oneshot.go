package runs

import (
	"context"
	"time"

	"copperhead/internal/llm"
	"copperhead/internal/transcript"
)

// Call is a one-shot model call: models --probe, explain --phrase,
// create's diagnosis of a failed stage.
type Call struct {
	Message   string // what the model is sent
	System    string
	MaxTokens int
}

// OneShot makes c as a run like any other: a run-start, the chat, a
// run-end and summary.md. The error return is for a failure to record; a
// model failure comes back in the outcome's Err, its exit path
// provider-error (interrupted when ctx was cancelled: Ctrl-C is the user's,
// not the provider's), with the run fully recorded.
func (r *Run) OneShot(ctx context.Context, c Call) (*Outcome, error) {
	if err := r.Begin(); err != nil {
		return nil, err
	}
	turn, err := r.Provider.Chat(ctx, []llm.Message{{Role: llm.RoleUser, Text: c.Message}}, nil,
		llm.Options{System: c.System, MaxTokens: c.MaxTokens})
	o := r.Outcome()
	o.ExitPath, o.Turns = transcript.ExitDone, 1
	if err != nil {
		o.ExitPath, o.Err, o.Error = transcript.ExitProviderError, err, r.Redactor.String(err.Error())
		if ctx.Err() != nil {
			o.ExitPath = transcript.ExitInterrupted
		}
		o.PerTurn = []transcript.TurnTokens{}
	} else {
		o.Reply, o.Tokens = turn, turn.Usage
		o.PerTurn = []transcript.TurnTokens{{Turn: 1, Tokens: transcript.Tokens(turn.Usage)}}
	}
	o.Duration = time.Since(r.Began)
	if err := r.End(o, transcript.Summary{}); err != nil {
		return nil, err
	}
	return o, nil
}
