package cli

import (
	"context"
	"sync"
)

// Interrupts routes the process's SIGINT. Without a claim, main cancels the
// command's context (every command stops, exit 130). The agent shell claims
// it for one step at a time (a change, a slash command): Ctrl-C then ends
// that step only, rolled back exactly as do's interrupt is, and the prompt
// comes back. A claim takes one interrupt: a second Ctrl-C while the step
// is still winding down goes to the process as usual, so a stuck rollback
// can always be left.
type Interrupts struct {
	mu    sync.Mutex
	claim *claim // the claimed step's; nil when nothing claims
}

type claim struct{ cancel context.CancelCauseFunc }

// Claim returns a child of parent that the next interrupt cancels instead of
// the process's context, and release, which ends the claim (and the child).
// A nil *Interrupts hands out plain children: no signal reaches them.
func (i *Interrupts) Claim(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	if i == nil {
		return ctx, func() { cancel(context.Canceled) }
	}
	c := &claim{cancel: cancel}
	i.mu.Lock()
	i.claim = c
	i.mu.Unlock()
	return ctx, func() {
		i.mu.Lock()
		if i.claim == c {
			i.claim = nil
		}
		i.mu.Unlock()
		cancel(context.Canceled)
	}
}

// Interrupt delivers one SIGINT whose cause is cause. It reports whether a
// claim took it; the claim is then spent.
func (i *Interrupts) Interrupt(cause error) bool {
	if i == nil {
		return false
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.claim == nil {
		return false
	}
	i.claim.cancel(cause)
	i.claim = nil
	return true
}
