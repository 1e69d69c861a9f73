package redact

import (
	"bytes"
	"io"
	"sync"
)

// maxPending bounds how much text without a line break a Writer holds back.
// Sized far above any log line: it exists only so a stream that never ends a
// line (a binary dump, a runaway progress bar) cannot grow memory without
// bound. Past it the held text is redacted and written as is, so a secret
// straddling that point of a megabyte-long line could be split.
const maxPending = 1 << 20

// Writer redacts everything written through it before passing it on. It is
// line-buffered: text is held until a line ends ('\n' or '\r'), then the
// complete lines are redacted and written together, so a secret split across
// two Write calls is still caught. Use it for stderr logs and session mirrors
// (the repl's .copperhead/runs/repl-<ts>.log).
//
// Call Flush (or Close) to push out a final line that lacks a line break.
// A Writer is safe for concurrent use; lines from concurrent Writes are not
// interleaved within a Write, but a line begun by one goroutine's Write may be
// finished by another's, exactly as with the unwrapped stream.
type Writer struct {
	r *Redactor

	mu      sync.Mutex
	w       io.Writer
	pending []byte
	err     error // first error from w; every later call returns it
}

// Writer returns a Writer that redacts with r and writes to w.
func (r *Redactor) Writer(w io.Writer) *Writer {
	return &Writer{r: r, w: w}
}

// Write holds p until its lines are complete, then writes them redacted. It
// reports len(p) written unless the underlying writer has failed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	w.pending = append(w.pending, p...)
	cut := bytes.LastIndexAny(w.pending, "\n\r") + 1
	if len(w.pending) > maxPending {
		cut = len(w.pending)
	}
	if cut > 0 {
		w.emit(cut)
	}
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// Flush writes any held partial line, redacted. A secret that continues in a
// later Write is then no longer recognised as a whole, so flush at points
// where the output is complete (end of a prompt, end of a status frame).
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil && len(w.pending) > 0 {
		w.emit(len(w.pending))
	}
	return w.err
}

// Close flushes. It does not close the underlying writer (which is usually
// os.Stderr); the Writer stays usable.
func (w *Writer) Close() error {
	return w.Flush()
}

// emit writes pending[:n] redacted and keeps the rest. Call with w.mu held.
func (w *Writer) emit(n int) {
	if _, err := w.w.Write(w.r.Bytes(w.pending[:n])); err != nil {
		w.err = err
	}
	rest := copy(w.pending, w.pending[n:])
	w.pending = w.pending[:rest]
}
