// Package jsonl owns the mechanism beneath every append-only JSON Lines
// record of the module: copperhead's transcript.jsonl (internal/transcript)
// and carter's event_log.jsonl (internal/carter/eventlog). A record is
// created once (O_EXCL: never truncated, never overwritten by a second run),
// appended one whole line at a time, redacted at write time (the caller's
// redactor runs on every line before it is buffered or written, never as a
// later clean-up), checked to still be one JSON value, and either fsynced
// line by line (an audit log) or buffered until Flush and Close (a
// transcript, whose Close fsyncs). Reading walks the lines with their
// numbers and says whether a newline ended each, so a reader can tolerate
// the torn last line of a killed process or refuse it.
//
// jsonl imports only the standard library. It must never import the
// packages whose records it carries (transcript, eventlog) nor a redactor:
// the envelope of a line and its redaction are the caller's, the file is
// this package's.
package jsonl

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
)

var (
	// ErrClosed is returned by Append after Close.
	ErrClosed = errors.New("record closed")
	// ErrNotJSON is returned by Append for a line that is not one JSON
	// value after redaction. Nothing is written.
	ErrNotJSON = errors.New("line is not valid JSON after redaction")
)

// IOError is a failed write, sync or close of the file. The first one sticks:
// every later Append, Flush and Close returns it, because a record with a
// hole in it is worse than a record that stops.
type IOError struct {
	Op   string // "write", "sync" or "close"
	Path string
	Err  error
}

func (e *IOError) Error() string { return fmt.Sprintf("%s %s: %v", e.Op, e.Path, e.Err) }
func (e *IOError) Unwrap() error { return e.Err }

// Options say how an Appender writes.
type Options struct {
	// Perm is the mode of a file Create makes (before umask).
	Perm os.FileMode
	// Redact rewrites every line before it is written; nil writes lines as
	// they are. It must keep the line one JSON value.
	Redact func(line []byte) ([]byte, error)
	// SyncEach writes and fsyncs every line before Append returns (a crash
	// loses at most the line being written). Otherwise lines are buffered in
	// memory and reach the file when the buffer fills, on Flush and on Close.
	SyncEach bool
}

// bufferSize holds a typical agent turn (model reply plus tool results)
// without a system call; bigger lines go straight through.
const bufferSize = 64 << 10

// Appender appends lines to one record. It is safe for concurrent use: each
// Append lands as one whole line.
type Appender struct {
	path string
	o    Options

	mu     sync.Mutex
	f      *os.File
	buf    *bufio.Writer // emptied after every line when SyncEach
	err    error         // first I/O error
	closed bool
}

// Create makes a new record at path, refusing one that exists (the error
// then matches fs.ErrExist). Errors are the operating system's, unwrapped,
// for the caller to name.
func Create(path string, o Options) (*Appender, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, o.Perm)
	if err != nil {
		return nil, err
	}
	return newAppender(path, f, o), nil
}

func newAppender(path string, f *os.File, o Options) *Appender {
	return &Appender{path: path, o: o, f: f, buf: bufio.NewWriterSize(f, bufferSize)}
}

// Path is the record's file.
func (a *Appender) Path() string { return a.path }

// Append redacts line (one JSON value, no newline; Append may reuse its
// memory), checks it is still JSON
// and appends it with a newline. Redaction runs outside the lock, so
// concurrent writers only serialize on the copy. Errors: Redact's own,
// ErrNotJSON, ErrClosed, or the sticky *IOError.
func (a *Appender) Append(line []byte) error {
	if a.o.Redact != nil {
		var err error
		if line, err = a.o.Redact(line); err != nil {
			return err
		}
	}
	if !json.Valid(line) {
		return ErrNotJSON
	}
	line = append(line, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.closed:
		return ErrClosed
	case a.err != nil:
		return a.err
	}
	_, err := a.buf.Write(line)
	a.fail("write", err)
	if a.o.SyncEach {
		a.flushLocked()
		if a.err == nil {
			a.fail("sync", a.f.Sync())
		}
	}
	return a.err
}

// fail records the first I/O error; the caller holds the lock.
func (a *Appender) fail(op string, err error) {
	if err != nil && a.err == nil {
		a.err = &IOError{op, a.path, err}
	}
}

// Flush hands buffered lines to the operating system (no fsync), so a reader
// such as a live viewer sees them. After Close it does nothing.
func (a *Appender) Flush() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.closed {
		a.flushLocked()
	}
	return a.err
}

func (a *Appender) flushLocked() {
	if a.err == nil {
		a.fail("write", a.buf.Flush())
	}
}

// Close flushes, fsyncs (unless SyncEach already did, line by line) and
// closes the record. Later Appends fail with
// ErrClosed; closing twice returns nil.
func (a *Appender) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	a.closed = true
	a.flushLocked()
	if a.err == nil && !a.o.SyncEach { // SyncEach: every line is on disk already
		a.fail("sync", a.f.Sync())
	}
	if err := a.f.Close(); a.err == nil {
		a.fail("close", err)
	}
	return a.err
}
