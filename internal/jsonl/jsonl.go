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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
)

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("record closed")

// ErrNotJSON is returned by Append for a line that is not one JSON value
// after redaction. Nothing is written.
var ErrNotJSON = errors.New("line is not valid JSON after redaction")

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
	Perm fs.FileMode
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
	w      io.Writer // f, or a buffer in front of it
	buf    *bufio.Writer
	err    error // first I/O error
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

// Reopen appends to an existing record. A last line cut short by a killed
// writer (no newline) is cut off first, so the file stays one JSON value per
// line.
func Reopen(path string, o Options) (*Appender, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	if keep := bytes.LastIndexByte(data, '\n') + 1; keep < len(data) {
		if err := f.Truncate(int64(keep)); err != nil {
			f.Close()
			return nil, err
		}
	}
	return newAppender(path, f, o), nil
}

func newAppender(path string, f *os.File, o Options) *Appender {
	a := &Appender{path: path, o: o, f: f, w: f}
	if !o.SyncEach {
		a.buf = bufio.NewWriterSize(f, bufferSize)
		a.w = a.buf
	}
	return a
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
	if _, err := a.w.Write(line); err != nil {
		a.err = &IOError{"write", a.path, err}
	} else if a.o.SyncEach {
		if err := a.f.Sync(); err != nil {
			a.err = &IOError{"sync", a.path, err}
		}
	}
	return a.err
}

// Flush hands buffered lines to the operating system (no fsync), so a reader
// such as a live viewer sees them. After Close it does nothing.
func (a *Appender) Flush() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.flushLocked()
}

func (a *Appender) flushLocked() error {
	if a.err == nil && !a.closed && a.buf != nil {
		if err := a.buf.Flush(); err != nil {
			a.err = &IOError{"write", a.path, err}
		}
	}
	return a.err
}

// Close flushes, fsyncs and closes the record. Later Appends fail with
// ErrClosed; closing twice returns nil.
func (a *Appender) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	err := a.flushLocked()
	if err == nil {
		if serr := a.f.Sync(); serr != nil {
			err = &IOError{"sync", a.path, serr}
		}
	}
	if cerr := a.f.Close(); cerr != nil && err == nil {
		err = &IOError{"close", a.path, cerr}
	}
	a.closed = true
	return err
}

// Line is one non-blank line of a record.
type Line struct {
	N          int    // 1-based line number, blank lines counted
	Text       []byte // without surrounding white space; the caller's to keep
	Terminated bool   // a newline ended it (false only for a last line)
}

// Reader reads a record line by line.
type Reader struct {
	path string
	f    *os.File
}

// Open opens the record at path for reading. Its error is the operating
// system's, unwrapped, for the caller to name.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &Reader{path: path, f: f}, nil
}

// Close closes the file.
func (r *Reader) Close() error { return r.f.Close() }

// Each calls fn for every non-blank line, in file order, and stops at fn's
// first error, which it returns as is. A line longer than maxLine bytes (0:
// no limit) fails with bufio.ErrTooLong; that and any error reading the file
// come back as "read <path>: ...".
func (r *Reader) Each(maxLine int, fn func(Line) error) error {
	br := bufio.NewReaderSize(r.f, bufferSize)
	for n := 1; ; n++ {
		text, err := readLine(br, maxLine)
		if err != nil && err != io.EOF {
			return fmt.Errorf("read %s: %w", r.path, err)
		}
		terminated := err == nil
		if trimmed := bytes.TrimSpace(text); len(trimmed) > 0 {
			if ferr := fn(Line{N: n, Text: trimmed, Terminated: terminated}); ferr != nil {
				return ferr
			}
		}
		if !terminated {
			return nil
		}
	}
}

// readLine returns the next line without its newline, in memory of its own;
// io.EOF means the file ended before a newline (the line, maybe empty, is
// the last).
func readLine(br *bufio.Reader, maxLine int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if maxLine > 0 && len(bytes.TrimSuffix(line, []byte("\n"))) > maxLine {
			return nil, bufio.ErrTooLong
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, err
		}
	}
}
