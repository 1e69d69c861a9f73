package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"copperhead/internal/jsonl"
)

// Event is one line of a transcript.
type Event struct {
	Type string
	Time time.Time
	Raw  json.RawMessage // the whole line, type and time included, without the newline
}

// Decode unmarshals the event's payload into v (a *RunStart, *ToolEvent,
// the llm package's chat type, ...). The envelope keys type and time are
// ignored by any struct that does not name them.
func (e Event) Decode(v any) error {
	if err := json.Unmarshal(e.Raw, v); err != nil {
		return fmt.Errorf("decode %s event: %w", e.Type, err)
	}
	return nil
}

// Read returns every event of the transcript in runDir, in file order. A
// final line cut short by a crash (no newline, not valid JSON) is skipped,
// so the record of a killed run can still be read and replayed; any other
// malformed line is an error naming its line number.
func Read(runDir string) ([]Event, error) {
	path := filepath.Join(runDir, TranscriptFile)
	r, err := jsonl.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	defer r.Close()
	var events []Event
	err = r.Each(0, func(l jsonl.Line) error {
		ev, err := parseEvent(l.Text)
		switch {
		case err == nil:
			events = append(events, ev)
		case !l.Terminated:
			// The torn last line of an interrupted run.
		default:
			return fmt.Errorf("read %s: line %d: %w", path, l.N, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return events, nil
}

func parseEvent(line []byte) (Event, error) {
	var head struct {
		Type string    `json:"type"`
		Time time.Time `json:"time"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return Event{}, err
	}
	if head.Type == "" {
		return Event{}, errors.New(`event has no "type"`)
	}
	return Event{Type: head.Type, Time: head.Time, Raw: json.RawMessage(line)}, nil
}

// RunInfo describes one run folder.
type RunInfo struct {
	ID      string
	Dir     string
	Started time.Time // from the run id; the folder's modification time for other names
	// From the run-start event, when the transcript begins with one.
	Command string
	Request string
}

// List returns the runs recorded in the repo at repoRoot, newest first. A
// repo with no runs folder has no runs. Files beside the run folders (the
// repl's session logs) are not runs.
func List(repoRoot string) ([]RunInfo, error) {
	root := RunsDir(repoRoot)
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var runs []RunInfo
	for _, e := range entries {
		if !e.IsDir() || checkRunID(e.Name()) != nil {
			continue
		}
		info := RunInfo{ID: e.Name(), Dir: filepath.Join(root, e.Name())}
		if t, ok := RunIDTime(e.Name()); ok {
			info.Started = t
		} else if fi, err := e.Info(); err == nil {
			info.Started = fi.ModTime().UTC()
		}
		if start, ok := readRunStart(info.Dir); ok {
			info.Command, info.Request = start.Command, start.Request
		}
		runs = append(runs, info)
	}
	slices.SortFunc(runs, func(a, b RunInfo) int {
		if c := b.Started.Compare(a.Started); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return runs, nil
}

// readRunStart decodes the first line of a run's transcript when it is a
// run-start event. Reading one line keeps List cheap on a repo with many
// runs.
func readRunStart(dir string) (RunStart, bool) {
	r, err := jsonl.Open(filepath.Join(dir, TranscriptFile))
	if err != nil {
		return RunStart{}, false
	}
	defer r.Close()
	var start RunStart
	ok := false
	_ = r.Each(0, func(l jsonl.Line) error {
		if ev, err := parseEvent(l.Text); l.N == 1 && l.Terminated && err == nil && ev.Type == TypeRunStart {
			ok = ev.Decode(&start) == nil
		}
		return errStop
	})
	return start, ok
}

// errStop ends a walk of a transcript's lines early.
var errStop = errors.New("stop reading")

// recentInErrors is how many run ids a not-found error lists: enough to spot
// a typo, short enough for one terminal line.
const recentInErrors = 5

// Find returns the folder of the run runID. A unique prefix of a run id
// (case-insensitive) is enough, so `--replay 01JX4` works. When nothing
// matches, the error lists the most recent run ids.
func Find(repoRoot, runID string) (string, error) {
	if err := checkRunID(runID); err != nil {
		return "", err
	}
	dir := filepath.Join(RunsDir(repoRoot), runID)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir, nil
	}
	runs, err := List(repoRoot)
	if err != nil {
		return "", err
	}
	var matches []string
	for _, r := range runs {
		if len(r.ID) >= len(runID) && strings.EqualFold(r.ID[:len(runID)], runID) {
			matches = append(matches, r.ID)
		}
	}
	switch {
	case len(matches) == 1:
		return filepath.Join(RunsDir(repoRoot), matches[0]), nil
	case len(matches) > 1:
		return "", fmt.Errorf("run id %q is ambiguous: it starts %s", runID, listIDs(matches))
	case len(runs) == 0:
		return "", fmt.Errorf("run %q not found: no runs recorded in %s yet", runID, RunsDir(repoRoot))
	}
	ids := make([]string, 0, recentInErrors)
	for _, r := range runs[:min(len(runs), recentInErrors)] {
		ids = append(ids, r.ID)
	}
	return "", fmt.Errorf("run %q not found in %s; most recent: %s", runID, RunsDir(repoRoot), listIDs(ids))
}

func listIDs(ids []string) string {
	if len(ids) > recentInErrors {
		return strings.Join(ids[:recentInErrors], ", ") + fmt.Sprintf(" (and %d more)", len(ids)-recentInErrors)
	}
	return strings.Join(ids, ", ")
}
