package kicadcli

import (
	"bytes"
	"os"
	"sync"
)

// Early parsing. kicad-cli writes its report and then spends a while
// ending (measured under strace: 80-130 ms after DRC's report was closed on
// the fixture and the video demo, 90 ms after a jobset copied its outputs):
// it saves its settings into the private config folder of the run, removes
// its instance lock there and unloads its libraries. Nothing of that is the
// result, and the project's own lock file is gone by then (kicad-cli drops
// it right after loading). So each report is parsed as soon as kicad-cli
// has closed it after writing (watchClosed), and once every output of a run
// has parsed, the run is ended there (runGroup kills its process group):
// a report that parses is whole (a JSON object or an XML document cut
// short does not), and kicad-cli writes its report as its last word on
// the job. A run whose outputs do not all parse waits for the exit as
// before and fails as before; the parse counts only for the very bytes
// the file holds after the run, and a file written again is parsed again.
// Where no watcher can be set up the parse simply waits for the exit.

// early is the parses of one output started while kicad-cli still ran.
type early struct {
	parse  func(data []byte) (any, error)
	mu     sync.Mutex
	runs   []*earlyRun
	parsed chan struct{} // closed when a parse succeeded
	once   sync.Once
}

// earlyRun is one parse of the bytes the output held when it was closed.
type earlyRun struct {
	data []byte
	done chan struct{}
	val  any
	err  error
}

// newEarly returns the early parses of an output parsed with parse.
func newEarly(parse func(data []byte) (any, error)) *early {
	return &early{parse: parse, parsed: make(chan struct{})}
}

// whole is closed once a close of the output parsed without error: the
// output is complete. It is nil (never ready) for a nil early.
func (e *early) whole() <-chan struct{} {
	if e == nil {
		return nil
	}
	return e.parsed
}

// closed starts a parse of the file at path, just closed after writing.
func (e *early) closed(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	r := &earlyRun{data: data, done: make(chan struct{})}
	e.mu.Lock()
	e.runs = append(e.runs, r)
	e.mu.Unlock()
	go func() {
		defer close(r.done)
		r.val, r.err = e.parse(data)
		if r.err == nil {
			e.once.Do(func() { close(e.parsed) })
		}
	}()
}

// result is the parse of final, kicad-cli's output after it exited, when
// an early parse had those very bytes (waiting for it to end); ok is false
// when none had.
func (e *early) result(final []byte) (val any, err error, ok bool) {
	if e == nil {
		return nil, nil, false
	}
	e.mu.Lock()
	runs := e.runs
	e.mu.Unlock()
	for i := len(runs) - 1; i >= 0; i-- {
		if r := runs[i]; bytes.Equal(r.data, final) {
			<-r.done
			return r.val, r.err, true
		}
	}
	return nil, nil, false
}

// parseOf is what parse makes of data: the early parse of these very bytes
// when there was one, else a parse now.
func parseOf[T any](e *early, data []byte, parse func([]byte) (T, error)) (T, error) {
	if v, err, ok := e.result(data); ok {
		t, _ := v.(T)
		return t, err
	}
	return parse(data)
}

// earlyFor is an early parse with parse (typed), or nil for a nil parse.
func earlyFor[T any](parse func([]byte) (T, error)) *early {
	if parse == nil {
		return nil
	}
	return newEarly(func(data []byte) (any, error) { return parse(data) })
}
