package runs

import (
	"errors"
	"os"
	"path/filepath"

	"copperhead/internal/llm"
	"copperhead/internal/redact"
	"copperhead/internal/transcript"
)

// EndKilled writes the ending of a run that was killed before it could
// (copperhead recover): the run-end, exit path interrupted with why as its
// error, appended to the transcript the run left in dir, and summary.md.
// events are what the run recorded; a folder that went with the kill is
// started again with the ending, under the same id in the repository top.
func EndKilled(top, dir, runID string, events []transcript.Event, why, stashRef string, red *redact.Redactor) error {
	var start transcript.RunStart
	var w *transcript.Writer
	var err error
	if len(events) > 0 && events[0].Type == transcript.TypeRunStart {
		_ = events[0].Decode(&start)
	}
	if _, serr := os.Stat(filepath.Join(dir, transcript.TranscriptFile)); serr == nil {
		w, err = transcript.Reopen(dir, red)
	} else {
		w, err = transcript.Create(top, runID, red)
	}
	if err != nil {
		return err
	}
	dir = w.Dir()
	turns := 0
	for _, e := range events {
		if e.Type == llm.ChatEventType {
			turns++
		}
	}
	end := transcript.RunEnd{
		ExitPath: transcript.ExitInterrupted, TurnsUsed: turns,
		TurnBudget: start.Config.MaxTurns, RepairCycleBudget: start.Config.MaxRepairCycles,
		Verification: transcript.Verification{Status: transcript.VerifyNotRun},
		StashRef:     orNil(stashRef), Error: &why,
	}
	if n := len(events); n > 0 && !start.StartedAt.IsZero() {
		// Until the last event the run recorded: the kill came after it.
		end.DurationMS = max(0, events[n-1].Time.Sub(start.StartedAt).Milliseconds())
	}
	werr := w.Write(transcript.TypeRunEnd, end)
	cerr := w.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return err
	}
	if start.RunID == "" {
		start.RunID = runID
	}
	return transcript.WriteSummary(dir, transcript.Summary{Start: start, End: end}, red)
}
