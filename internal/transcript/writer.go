package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"copperhead/internal/jsonl"
	"copperhead/internal/redact"
)

// Writer appends events to one run's transcript.jsonl. It is safe for
// concurrent use: each Write lands as one whole line.
//
// Lines are buffered in memory and reach the file when the buffer fills, on
// Flush and on Close, so recording a turn costs no system call. A run that
// dies without Close loses at most the unflushed tail: the agent loop flushes
// at turn boundaries, and Close also fsyncs. The file itself is a
// jsonl.Appender, the mechanism carter's event log shares.
type Writer struct {
	dir string
	now func() time.Time // the clock; tests stub it
	a   *jsonl.Appender
}

// options redact every line with r (a nil r applies redact's shape rules
// only) and buffer until Flush and Close. 0600: the transcript holds whole
// tool outputs and model replies; redaction removes credentials, not
// everything private.
func options(r *redact.Redactor) jsonl.Options {
	return jsonl.Options{Perm: 0o600, Redact: r.JSON}
}

// Create makes the run folder RunsDir(repoRoot)/runID and an empty
// transcript.jsonl in it, refusing to reuse a run id that already has one.
// Everything written is redacted with r (a nil r applies redact's shape rules
// only; pass redact.New(os.Environ()) in real runs).
func Create(repoRoot, runID string, r *redact.Redactor) (*Writer, error) {
	if err := checkRunID(runID); err != nil {
		return nil, err
	}
	dir := filepath.Join(RunsDir(repoRoot), runID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create run folder: %w", err)
	}
	a, err := jsonl.Create(filepath.Join(dir, TranscriptFile), options(r))
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("create transcript: run %s already has one", runID)
		}
		return nil, fmt.Errorf("create transcript: %w", err)
	}
	return &Writer{dir: dir, now: time.Now, a: a}, nil
}

// Reopen appends to the transcript of an existing run folder, for the
// run-end a killed run never wrote (`copperhead recover`). A last line cut
// short by the kill (no newline) is cut off first, so the file stays one
// JSON event per line; Read skipped it anyway.
func Reopen(runDir string, r *redact.Redactor) (*Writer, error) {
	a, err := jsonl.Reopen(filepath.Join(runDir, TranscriptFile), options(r))
	if err != nil {
		return nil, fmt.Errorf("reopen transcript: %w", err)
	}
	return &Writer{dir: runDir, now: time.Now, a: a}, nil
}

// Dir is the run folder.
func (w *Writer) Dir() string { return w.dir }

// Path is the transcript file.
func (w *Writer) Path() string { return filepath.Join(w.dir, TranscriptFile) }

// Write appends one event line:
//
//	{"type":<eventType>,"time":"<RFC 3339 UTC, nanoseconds>",<fields...>}
//
// fields is a struct or map that marshals to a JSON object (or nil for no
// fields); its members follow type and time in their own order (struct
// field order; sorted keys for a map). It must not set "type" or "time"
// itself. The whole line is redacted before it is buffered: every string,
// keys included, in decoded form (see redact.Redactor.JSON).
func (w *Writer) Write(eventType string, fields any) error {
	if eventType == "" {
		return errors.New("write transcript event: empty event type")
	}
	line, err := w.encode(eventType, fields)
	if err == nil {
		err = w.a.Append(line)
	}
	var ioErr *jsonl.IOError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jsonl.ErrClosed):
		return fmt.Errorf("write %s event: transcript closed", eventType)
	case errors.As(err, &ioErr):
		return err
	}
	return fmt.Errorf("write %s event: %w", eventType, err)
}

// encode builds the line, before redaction (the appender redacts it outside
// its lock, so concurrent writers only serialize on the buffer copy).
func (w *Writer) encode(eventType string, fields any) ([]byte, error) {
	body, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	body = bytes.TrimSpace(body)
	var members []byte
	switch {
	case bytes.Equal(body, []byte("null")):
	case len(body) >= 2 && body[0] == '{' && body[len(body)-1] == '}':
		members = bytes.TrimSpace(body[1 : len(body)-1])
		if err := checkReserved(body); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("fields must marshal to a JSON object, not %.20s", body)
	}
	typ, _ := json.Marshal(eventType)
	line := make([]byte, 0, len(members)+64)
	line = append(line, `{"type":`...)
	line = append(line, typ...)
	line = append(line, `,"time":"`...)
	line = w.now().UTC().AppendFormat(line, time.RFC3339Nano)
	line = append(line, '"')
	if len(members) > 0 {
		line = append(line, ',')
		line = append(line, members...)
	}
	return append(line, '}'), nil
}

// checkReserved rejects payloads that set the envelope's own keys: a second
// "type" would silently win over the first in most JSON readers.
func checkReserved(object []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(object, &keys); err != nil {
		return err
	}
	// Case-insensitively: encoding/json matches keys that way, so a
	// "Time" member would overwrite the envelope's time when read back.
	for k := range keys {
		if strings.EqualFold(k, "type") || strings.EqualFold(k, "time") {
			return fmt.Errorf("fields must not set %q", k)
		}
	}
	return nil
}

// Flush hands buffered lines to the operating system (no fsync), so a reader
// such as the live viewer sees them.
func (w *Writer) Flush() error { return w.a.Flush() }

// Close flushes, fsyncs and closes the transcript. Later Writes fail;
// closing twice returns nil.
func (w *Writer) Close() error { return w.a.Close() }
