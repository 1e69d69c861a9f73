package repl

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"copperhead/internal/redact"
)

// LogName is the session log's file name for a session started at t:
// repl-20261202T063248Z.log, sorting by start time beside the run folders.
func LogName(t time.Time) string {
	return "repl-" + t.UTC().Format("20060102T150405Z") + ".log"
}

// Log mirrors a session's terminal output to a file as the plain lines a
// person read, each redacted before it is written. Writes go straight to
// the file (no buffer), so a session that is killed keeps its log up to the
// last complete line.
type Log struct {
	red *redact.Redactor

	mu  sync.Mutex
	f   *os.File
	err error // the first write error; later lines are dropped
}

// CreateLog creates the log file at path (0600: it holds what the session
// showed, redacted but private to its owner). An existing file is refused.
func CreateLog(path string, red *redact.Redactor) (*Log, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create the session log: %w", err)
	}
	return &Log{red: red, f: f}, nil
}

// Line writes one line of the session's own (a typed line, a marker).
func (l *Log) Line(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writeLocked(s)
}

func (l *Log) writeLocked(s string) {
	if l.f == nil || l.err != nil {
		return
	}
	_, l.err = l.f.WriteString(l.red.String(s) + "\n")
}

// Close ends the log; the partial lines of its mirrors are written first by
// their own Close.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return l.err
	}
	err := l.f.Close()
	l.f = nil
	if l.err != nil {
		return fmt.Errorf("write the session log: %w", l.err)
	}
	return err
}

// Mirror returns a writer that writes to w unchanged and mirrors what it
// shows to the log. Each stream (stdout, stderr) needs its own mirror: a
// mirror keeps the line its stream has not ended yet.
func (l *Log) Mirror(w io.Writer) *Mirror { return &Mirror{w: w, log: l} }

// Mirror is one stream's tee into the session log.
type Mirror struct {
	w   io.Writer
	log *Log

	mu      sync.Mutex
	line    []rune // the line being shown, as the terminal would show it
	esc     escState
	pending []byte // an incomplete UTF-8 sequence from the previous write
}

type escState int

const (
	escNone escState = iota
	escStart
	escCSI // ESC [ ... final byte in 0x40–0x7e
	escOSC // ESC ] ... BEL or ESC \
	escOSCEsc
)

func (m *Mirror) Write(p []byte) (int, error) {
	n, err := m.w.Write(p)
	m.mu.Lock()
	m.feed(p[:n])
	m.mu.Unlock()
	return n, err
}

// feed interprets the bytes the way a terminal shows them, as far as the
// log needs: printable text extends the line, "\n" ends it, "\r" returns to
// its start (the renderer always clears what it redraws, so the line starts
// over), backspace takes a character back, and escape sequences (colour,
// cursor, clear) show nothing.
func (m *Mirror) feed(p []byte) {
	data := append(m.pending, p...)
	m.pending = nil
	s := string(data)
	// Keep a trailing incomplete UTF-8 sequence for the next write.
	if cut := incompleteUTF8(data); cut > 0 {
		m.pending = append([]byte(nil), data[len(data)-cut:]...)
		s = string(data[:len(data)-cut])
	}
	for _, r := range s {
		switch m.esc {
		case escStart:
			switch r {
			case '[':
				m.esc = escCSI
			case ']':
				m.esc = escOSC
			default:
				m.esc = escNone // a two-byte sequence (ESC 7, ESC =): nothing shown
			}
			continue
		case escCSI:
			if r >= 0x40 && r <= 0x7e {
				m.esc = escNone
			}
			continue
		case escOSC:
			switch r {
			case '\a':
				m.esc = escNone
			case 0x1b:
				m.esc = escOSCEsc
			}
			continue
		case escOSCEsc:
			m.esc = escNone
			continue
		}
		switch {
		case r == 0x1b:
			m.esc = escStart
		case r == '\n':
			m.log.Line(strings.TrimRight(string(m.line), " "))
			m.line = m.line[:0]
		case r == '\r':
			m.line = m.line[:0]
		case r == '\b':
			if len(m.line) > 0 {
				m.line = m.line[:len(m.line)-1]
			}
		case r == '\t' || r >= 0x20 && r != 0x7f:
			m.line = append(m.line, r)
		}
	}
}

// Close writes the line the stream left unended (a prompt's question).
func (m *Mirror) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.line) > 0 {
		m.log.Line(strings.TrimRight(string(m.line), " "))
		m.line = m.line[:0]
	}
}

// incompleteUTF8 returns how many trailing bytes of b start a UTF-8
// sequence that b does not finish (0 when it ends on a whole rune).
func incompleteUTF8(b []byte) int {
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c&0xc0 == 0x80 {
			continue // a continuation byte: look further back
		}
		need := 0
		switch {
		case c&0xe0 == 0xc0:
			need = 2
		case c&0xf0 == 0xe0:
			need = 3
		case c&0xf8 == 0xf0:
			need = 4
		}
		if need > i {
			return i
		}
		return 0
	}
	return 0
}
