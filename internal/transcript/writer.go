package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"copperhead/internal/redact"
)

// Writer appends events to one run's transcript.jsonl. It is safe for
// concurrent use: each Write lands as one whole line.
//
// Lines are buffered in memory and reach the file when the buffer fills, on
// Flush and on Close, so recording a turn costs no system call. A run that
// dies without Close loses at most the unflushed tail: the agent loop flushes
// at turn boundaries, and Close also fsyncs.
type Writer struct {
	dir string
	r   *redact.Redactor
	now func() time.Time // the clock; tests stub it

	mu     sync.Mutex
	f      *os.File
	buf    *bufio.Writer
	err    error // first write error; every later call returns it
	closed bool
}

// writeBufferSize holds a typical turn (model reply plus tool results)
// without a system call; bigger events go straight through.
const writeBufferSize = 64 << 10

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
	path := filepath.Join(dir, TranscriptFile)
	// 0600: the transcript holds whole tool outputs and model replies;
	// redaction removes credentials, not everything private.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("create transcript: run %s already has one", runID)
		}
		return nil, fmt.Errorf("create transcript: %w", err)
	}
	return &Writer{dir: dir, r: r, now: time.Now, f: f, buf: bufio.NewWriterSize(f, writeBufferSize)}, nil
}

// Reopen appends to the transcript of an existing run folder, for the
// run-end a killed run never wrote (`copperhead recover`). A last line cut
// short by the kill (no newline) is cut off first, so the file stays one
// JSON event per line; Read skipped it anyway.
func Reopen(runDir string, r *redact.Redactor) (*Writer, error) {
	path := filepath.Join(runDir, TranscriptFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reopen transcript: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("reopen transcript: %w", err)
	}
	if keep := bytes.LastIndexByte(data, '\n') + 1; keep < len(data) {
		if err := f.Truncate(int64(keep)); err != nil {
			f.Close()
			return nil, fmt.Errorf("reopen transcript: %w", err)
		}
	}
	return &Writer{dir: runDir, r: r, now: time.Now, f: f, buf: bufio.NewWriterSize(f, writeBufferSize)}, nil
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
	if err != nil {
		return fmt.Errorf("write %s event: %w", eventType, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.closed:
		return fmt.Errorf("write %s event: transcript closed", eventType)
	case w.err != nil:
		return w.err
	}
	if _, err := w.buf.Write(line); err != nil {
		w.err = fmt.Errorf("write %s: %w", w.Path(), err)
	}
	return w.err
}

// encode builds the redacted line, newline included. It runs outside the
// lock so concurrent writers only serialize on the buffer copy.
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
	line = append(line, '}')
	line, err = w.r.JSON(line)
	if err != nil {
		return nil, err
	}
	return append(line, '\n'), nil
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
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

func (w *Writer) flushLocked() error {
	if w.err == nil && !w.closed {
		if err := w.buf.Flush(); err != nil {
			w.err = fmt.Errorf("write %s: %w", w.Path(), err)
		}
	}
	return w.err
}

// Close flushes, fsyncs and closes the transcript. Later Writes fail;
// closing twice returns nil.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	err := w.flushLocked()
	if err == nil {
		if serr := w.f.Sync(); serr != nil {
			err = fmt.Errorf("sync %s: %w", w.Path(), serr)
		}
	}
	if cerr := w.f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("close %s: %w", w.Path(), cerr)
	}
	w.closed = true
	return err
}
