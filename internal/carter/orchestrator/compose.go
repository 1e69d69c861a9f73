package orchestrator

import (
	"context"
	"fmt"
	"time"

	"copperhead/internal/carter/artifact"
	"copperhead/internal/carter/evaluate"
	"copperhead/internal/carter/eventlog"
	"copperhead/internal/carter/render"
	"copperhead/internal/carter/synth"
	"copperhead/internal/carter/verify"
)

// Outputs are a run's rendered files.
type Outputs = render.Outputs

// Compose turns a run record into its outputs: draft the claims (the
// extractive synthesizer, or the recorded model turns served by a Replay
// provider: no model is ever called here), verify them against the stored
// texts, evaluate, render. It is deterministic in its inputs.
func Compose(ctx context.Context, rec artifact.Record, store *artifact.Store) (Outputs, error) {
	var s synth.Synthesizer = synth.Extractive{}
	if rec.Synthesizer == (synth.LLM{}).Name() {
		turns, err := store.ModelTurns()
		if err != nil {
			return Outputs{}, err
		}
		s = synth.LLM{Provider: &synth.Replay{Turns: turns}}
	}
	in := synth.Input{RunID: rec.RunID, Question: rec.Spec.Question, Sources: rec.Sources, Evidence: rec.Evidence, Weights: rec.Weights}
	start, err := startTime(rec)
	if err != nil {
		return Outputs{}, err
	}
	in.Start = start
	draft, err := s.Synthesize(ctx, in)
	if err != nil {
		return Outputs{}, fmt.Errorf("compose: %w", err)
	}
	v := verify.Run(verify.Input{Claims: draft.Claims, Evidence: rec.Evidence, Sources: rec.Sources, Text: store.Text})
	f := rec.Facts
	ev := evaluate.EvaluateWeighted(rec.Spec.Question, rec.Weights, v, f.Cost, f.StopReason)
	// The stop reason is the final brief's, not the loop's draft's: a
	// model that drafted nothing verifiable is NO_EVIDENCE, whatever the
	// extractive draft during the search covered.
	if final := evaluate.FinalStop(f.StopReason, len(v.Grounded), ev); final != f.StopReason {
		rec.Facts.StopDetail = fmt.Sprintf("final brief: coverage %.2f, %d grounded claims (the search loop stopped with %s)", ev.Coverage, len(v.Grounded), f.StopReason)
		rec.Facts.StopReason = final
		ev.StopReason = final
	}
	return render.Render(render.Input{Record: rec, Verified: v, Evaluation: ev, EventLog: eventlog.FileName, Notes: rec.Notes})
}

// startTime reads the run's start back from its record: derived ids use it,
// at the millisecond precision ULIDs keep.
func startTime(rec artifact.Record) (time.Time, error) {
	t, err := time.Parse(eventlog.TimeFormat, rec.Facts.StartedAt)
	if err != nil {
		return time.Time{}, fmt.Errorf("run record: started_at %q: %w", rec.Facts.StartedAt, err)
	}
	return t, nil
}
