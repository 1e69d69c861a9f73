// Package eventlog owns a carter run's audit trail, event_log.jsonl: one JSON
// object per line, {"event_id", "ts", "type", "payload"}, appended and
// fsynced one event at a time and never rewritten. The file is a
// jsonl.Appender, the mechanism copperhead's transcript shares: created with
// O_EXCL, so an existing log can be neither truncated nor overwritten by a
// second run; fsynced line by line, so a crash loses at most the event being
// written; and every line passes through the redactor before it reaches
// disk.
//
// eventlog may import internal/redact, internal/jsonl, internal/ulids and
// the standard library; it must never import the packages whose decisions it records
// (orchestrator, synth, verify), so the log format cannot drift with them.
package eventlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"copperhead/internal/jsonl"
	"copperhead/internal/redact"
	"copperhead/internal/ulids"
)

// FileName is the log's name inside a run folder.
const FileName = "event_log.jsonl"

// Type is an event type, from the engineering spec §2.
type Type string

// The spec's event types, in the order a run emits them.
const (
	TaskCreated      Type = "TASK_CREATED"
	Searched         Type = "SEARCHED"
	SourceSelected   Type = "SOURCE_SELECTED"
	SnippetExtracted Type = "SNIPPET_EXTRACTED"
	OutlineDrafted   Type = "OUTLINE_DRAFTED"
	ClaimsBuilt      Type = "CLAIMS_BUILT"
	BriefRendered    Type = "BRIEF_RENDERED"
	Stopped          Type = "STOPPED"
	Error            Type = "ERROR"
)

// Known reports whether t is one of the spec's event types.
func Known(t Type) bool {
	switch t {
	case TaskCreated, Searched, SourceSelected, SnippetExtracted, OutlineDrafted, ClaimsBuilt, BriefRendered, Stopped, Error:
		return true
	}
	return false
}

// TimeFormat is the log's ISO 8601 timestamp: UTC, millisecond precision,
// fixed width so lines sort and diff cleanly.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Event is one line of the log.
type Event struct {
	ID      string          `json:"event_id"`
	TS      string          `json:"ts"`
	Type    Type            `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// Writer appends events to one run's log. It is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex // held from an event's id to its line: ids follow file order
	a   *jsonl.Appender
	now func() time.Time
	n   int
}

// Create starts a new log at path; it refuses to open a log that exists.
// now is the clock stamping events (nil: time.Now).
func Create(path string, r *redact.Redactor, now func() time.Time) (*Writer, error) {
	if now == nil {
		now = time.Now
	}
	a, err := jsonl.Create(path, jsonl.Options{
		Perm:     0o644,
		Redact:   func(line []byte) ([]byte, error) { return r.Bytes(line), nil },
		SyncEach: true,
	})
	if err != nil {
		return nil, fmt.Errorf("create event log: %w", err)
	}
	return &Writer{a: a, now: now}, nil
}

// Append writes one event and fsyncs it before returning. payload must
// marshal to a JSON object. After a write error every later Append returns
// that error: a log with a hole in it is worse than a log that stops.
func (w *Writer) Append(t Type, payload any) (Event, error) {
	if !Known(t) {
		return Event{}, fmt.Errorf("event log: unknown event type %q", t)
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return Event{}, fmt.Errorf("event log: %s payload: %w", t, err)
	}
	if len(body) == 0 || body[0] != '{' {
		return Event{}, fmt.Errorf("event log: %s payload is not a JSON object", t)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now().UTC()
	ev := Event{ID: ulids.New(now), TS: now.Format(TimeFormat), Type: t, Payload: body}
	line, err := json.Marshal(ev)
	if err != nil {
		return Event{}, fmt.Errorf("event log: %w", err)
	}
	switch err := w.a.Append(line); {
	case errors.Is(err, jsonl.ErrClosed):
		return Event{}, errors.New("event log: closed")
	case errors.Is(err, jsonl.ErrNotJSON):
		// Redaction replaces whole tokens with a quote-free marker, so this
		// cannot happen; refuse rather than write a line replay cannot read.
		return Event{}, fmt.Errorf("event log: %s event is not valid JSON after redaction", t)
	case err != nil:
		return Event{}, err
	}
	w.n++
	return ev, nil
}

// Len reports how many events were appended.
func (w *Writer) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// Close closes the file. Appending afterwards is an error.
func (w *Writer) Close() error { return w.a.Close() }

// maxLine bounds one event line when reading. Events carry ids, counts and
// short quotes; a megabyte-long line is corruption, not an event.
const maxLine = 4 << 20

// Read parses a log and checks its shape: every line a JSON event with a
// valid ULID, an ISO timestamp, a known type and an object payload, and
// event ids strictly increasing (the log was appended, never reordered).
func Read(path string) ([]Event, error) {
	r, err := jsonl.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read event log: %w", err)
	}
	defer r.Close()
	var out []Event
	err = r.Each(maxLine, func(l jsonl.Line) error {
		var ev Event
		if err := json.Unmarshal(l.Text, &ev); err != nil {
			return fmt.Errorf("%s:%d: %w", path, l.N, err)
		}
		if !ulids.Valid(ev.ID) {
			return fmt.Errorf("%s:%d: event_id %q is not a ULID", path, l.N, ev.ID)
		}
		if _, err := time.Parse(TimeFormat, ev.TS); err != nil {
			return fmt.Errorf("%s:%d: ts %q is not an ISO 8601 UTC timestamp", path, l.N, ev.TS)
		}
		if !Known(ev.Type) {
			return fmt.Errorf("%s:%d: unknown event type %q", path, l.N, ev.Type)
		}
		if len(ev.Payload) == 0 || ev.Payload[0] != '{' {
			return fmt.Errorf("%s:%d: payload is not an object", path, l.N)
		}
		if n := len(out); n > 0 && ev.ID <= out[n-1].ID {
			return fmt.Errorf("%s:%d: event_id %s does not follow %s", path, l.N, ev.ID, out[n-1].ID)
		}
		out = append(out, ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
