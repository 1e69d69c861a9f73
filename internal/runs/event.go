package runs

import (
	"time"

	"copperhead/internal/llm"
)

// EventKind says what an Event reports.
type EventKind string

const (
	EventTurn   EventKind = "turn"   // a model call is starting (in flight until EventReply)
	EventReply  EventKind = "reply"  // the model answered; Text is its prose
	EventTool   EventKind = "tool"   // a tool call ran; Text is its result's first line, Result the whole
	EventFiles  EventKind = "files"  // a tool call changed files; Files names them
	EventVerify EventKind = "verify" // an ERC or DRC ran; Tool names it, IsError when it failed
	EventNotice EventKind = "notice" // the run itself speaks: nudge, extension, rollback, commit, retry
	EventEnd    EventKind = "end"    // the run ended; Outcome is how
)

// Event is one step of a run as its watchers see it. Counters are as of the
// event; Tokens is cumulative.
type Event struct {
	Kind    EventKind
	Turn    int
	Budget  int
	Tokens  llm.Usage
	Text    string
	Tool    string   // EventTool, EventVerify: the tool's name
	IsError bool     // EventTool: the call failed; EventVerify: the check failed
	Result  string   // EventTool: the whole result the model got
	Files   []string // EventFiles: repo-relative, slash-separated
	Outcome *Outcome // EventEnd
	Elapsed time.Duration
}

// Subscribe adds f to the run's watchers; every later event reaches each
// watcher in the order they subscribed. The returned func removes f.
func (r *Run) Subscribe(f func(Event)) (cancel func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextSub++
	id := r.nextSub
	r.subs = append(r.subs, subscriber{id: id, f: f})
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for i, s := range r.subs {
			if s.id == id {
				r.subs = append(r.subs[:i:i], r.subs[i+1:]...)
				return
			}
		}
	}
}

// Emit sends e to every watcher.
func (r *Run) Emit(e Event) {
	r.mu.Lock()
	subs := append([]subscriber(nil), r.subs...)
	r.mu.Unlock()
	for _, s := range subs {
		s.f(e)
	}
}

// Notice is a line the run says outside the turn loop (a retry wait). With
// no watcher it goes to Options.Notify, so a one-shot call still shows it.
func (r *Run) Notice(line string) {
	r.mu.Lock()
	watched := len(r.subs) > 0
	r.mu.Unlock()
	if watched {
		r.Emit(Event{Kind: EventNotice, Text: line})
		return
	}
	if r.notify != nil {
		r.notify(r.Redactor.String(line))
	}
}

type subscriber struct {
	id int
	f  func(Event)
}
