package repl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"copperhead/internal/atomicfile"
	"copperhead/internal/redact"
	"copperhead/internal/textfmt"
)

// HistoryLimit is how many lines the history keeps: a few months of a
// person's requests and commands at the prompt, small enough to load at
// every start without noticing.
const HistoryLimit = 1000

// History is the shell's line history for one repository, persisted one
// line per entry. Every line is redacted before it is stored, in memory as
// on disk, so what the up arrow brings back is what the file holds and a
// secret typed at the prompt is in neither.
type History struct {
	path string
	red  *redact.Redactor

	mu    sync.Mutex
	lines []string
	// onDisk counts the lines the file holds, the ones beyond lines
	// included: past twice the limit the file is rewritten to the limit.
	onDisk int
}

// OpenHistory reads the history file at path (a missing one is an empty
// history) and keeps its last HistoryLimit lines.
func OpenHistory(path string, red *redact.Redactor) (*History, error) {
	h := &History{path: path, red: red}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read the shell history %s: %w", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			h.lines = append(h.lines, line)
		}
	}
	h.onDisk = len(h.lines)
	if len(h.lines) > HistoryLimit {
		h.lines = h.lines[len(h.lines)-HistoryLimit:]
	}
	return h, nil
}

// Lines returns the history, oldest first.
func (h *History) Lines() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.lines...)
}

// Add redacts line, appends it to the file and returns the stored form.
func (h *History) Add(line string) (string, error) {
	line = strings.TrimSpace(h.red.String(textfmt.OneLine(line)))
	if line == "" {
		return "", nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lines = append(h.lines, line)
	if len(h.lines) > HistoryLimit {
		h.lines = h.lines[len(h.lines)-HistoryLimit:]
	}
	h.onDisk++
	if h.onDisk > 2*HistoryLimit {
		h.onDisk = len(h.lines)
		if err := atomicfile.Write(h.path, []byte(strings.Join(h.lines, "\n")+"\n"), 0o600); err != nil {
			return line, fmt.Errorf("rewrite the shell history %s: %w", h.path, err)
		}
		return line, nil
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return line, fmt.Errorf("write the shell history: %w", err)
	}
	_, err = f.WriteString(line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return line, fmt.Errorf("write the shell history %s: %w", h.path, err)
	}
	return line, nil
}
