package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/gitrepo"
	"copperhead/internal/kicadcli"
	"copperhead/internal/llm"
	"copperhead/internal/openspec"
	"copperhead/internal/project"
	"copperhead/internal/research"
	"copperhead/internal/research/egress"
	"copperhead/internal/runs"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
	"copperhead/internal/tools"
	"copperhead/internal/transcript"
)

// Loop limits with their reasons.
const (
	// DefaultTurnTimeout is the per-turn watchdog: one model call (retries
	// and failover included) that takes longer is hung, not thinking. The
	// slowest legitimate turns (a long reasoning reply after 3 rate-limit
	// backoffs) finish in a few minutes.
	DefaultTurnTimeout = 10 * time.Minute
	// stallLimit is how many consecutive replies without a tool call end a
	// run as stalled (AC-15.27): one is a slip the nudge corrects, three is
	// a model that has stopped working.
	stallLimit = 3
	// budgetNudgeAt is how many turns before the budget runs out the model
	// is told to batch and wrap up (AC-15.6).
	budgetNudgeAt = 5
)

// EventBudgetExtended is the transcript event of a granted turn-budget
// extension (AC-15.1); its payload is BudgetExtension.
const EventBudgetExtended = "budget-extended"

// RunInput is what one agent run works on: the repository, the request and
// the run's callbacks. The run itself (model, transcript, redactor, budgets,
// watchers) is the *runs.Run that Run is given.
type RunInput struct {
	Repo    string           // repository root, absolute
	Config  config.Config    // the repository's config (defaults when it has none)
	Project *project.Project // the located KiCad project; nil when the repo has none yet
	KiCad   *kicadcli.Tool

	Request    string
	AllowDirty bool // snapshot a dirty tree instead of refusing it (spec §7)
	// DryRun runs on a scratch copy of the tree (runs.OpenTree) instead of
	// the tree itself: the tools, KiCad and the prompt see the copy, the
	// transcript stays in Repo, and at the end the copy's diff is returned
	// and the copy removed. The user's tree, index, refs and stash list are
	// never written, even by a kill (AC-3.9).
	DryRun bool
	// Tree is the tree the run works on, opened by the caller (whose one
	// preflight refused a dirty tree before any run folder existed); nil:
	// Run opens it (runs.OpenTree with AllowDirty and DryRun).
	Tree *runs.Tree
	// Interactive (--interactive) requires Approve: the human approves the
	// validated proposal before the edit tools unlock (spec §2.6).
	Interactive bool
	// Sync is a sync run: the tools that change KiCad files are withheld
	// for the whole run, and edit_file/write_file refuse KiCad files
	// (Session.Sync).
	Sync bool
	// Subject is the commit's subject line when the request is not the
	// person's own words (sync: "copperhead sync: resolve 3
	// inconsistencies"); the request then goes into the body. Empty:
	// "copperhead: <request>".
	Subject string
	// Approve is asked between proposal validation and unlocking the edit
	// tools; nil approves automatically (the proposal is marked AUTO).
	Approve func(changeID string) bool
	// Extend is offered the run's stats when the turn budget runs out, in
	// an attended run; it returns how many more turns to grant (0 or less
	// declines). nil in CI and pipes: exhaustion fails (AC-15.3).
	Extend func(BudgetStats) int
	// Clock is the wall clock; nil means time.Now.
	Clock func() time.Time
	// Tools is the tool set; nil means tools.All(). When
	// Config.Research.Enabled, Run adds the research tools the provider keys
	// allow (tools.Research) before the first mutating tool.
	Tools []tool.Tool
	// Getenv reads the research providers' keys; nil means os.Getenv.
	Getenv func(string) string
	// TurnTimeout is the per-turn watchdog; zero means DefaultTurnTimeout.
	TurnTimeout time.Duration
}

// BudgetStats is what an attended run shows at the turn-budget decision
// point (AC-15.4): a fresh look at the cost before spending more.
type BudgetStats struct {
	TurnsUsed       int       `json:"turns_used"`
	TurnBudget      int       `json:"turn_budget"`
	FilesTouched    []string  `json:"files_touched"`
	OpenObligations []string  `json:"open_obligations"`
	Tokens          llm.Usage `json:"tokens"`
}

// BudgetExtension is the budget-extended event.
type BudgetExtension struct {
	BudgetStats
	Extra     int `json:"extra"`
	NewBudget int `json:"new_budget"`
}

// Run drives one agent run (spec §4.1): snapshot the tree, build the system
// prompt, loop model turns and tool calls until the model finishes or a budget
// runs out, then commit (done), restore (refused) or keep the work in a stash
// and restore (every failure). A dry run does all of it on a scratch copy and
// ends with the copy's diff and the copy removed. It returns an error only when the run
// could not start (the tree could not be snapshotted, the prompt not built);
// once the run-start event is written, every ending is an Outcome with a
// run-end event and summary.md behind it. The caller abandons rn when Run
// returns an error (it never began).
func Run(ctx context.Context, rn *runs.Run, in RunInput) (*runs.Outcome, error) {
	r, err := newRun(ctx, rn, in)
	if err != nil {
		return nil, err
	}
	defer r.tree.Remove(ctx) // end removes it; this is the net
	return r.run(ctx), nil
}

// run is one Run in progress.
type run struct {
	in    RunInput
	rn    *runs.Run
	now   func() time.Time
	start time.Time
	tools []tool.Tool
	// tree is what the run changes: the repository, or a dry run's copy,
	// which in.Repo names.
	tree *runs.Tree
	s    *tool.Session
	// kit is the run's research (one egress client, one URL menu); nil when
	// the run has no research tools.
	kit *research.Kit

	system    string
	msgs      []llm.Message
	turn      int
	budget    int
	maxRepair int
	tokens    llm.Usage
	perTurn   []transcript.TurnTokens
	toolCalls map[string]int
	plan      string
	// providerErr is the model call's error that ended the run (the
	// outcome's Err), nil otherwise.
	providerErr error

	out *runs.Outcome
}

func newRun(ctx context.Context, rn *runs.Run, in RunInput) (_ *run, err error) {
	if rn == nil {
		return nil, errors.New("agent run: no run")
	}
	if in.Interactive && in.Approve == nil {
		// An interactive run that approved on its own would be a lie.
		return nil, errors.New("agent run: interactive without an approval prompt")
	}
	tree := in.Tree
	if tree == nil {
		if tree, err = runs.OpenTree(ctx, in.Repo, in.AllowDirty, in.DryRun); err != nil {
			return nil, err
		}
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, tree.Remove(ctx))
		}
	}()
	// A dry run is a run on a scratch copy: from here on in.Repo, the
	// project and KiCad's boundary name the copy. Its snapshot is the
	// copy's, so the diff is relative to the user's uncommitted state.
	if tree.Scratch != nil {
		in = onScratch(in, tree)
	}
	r := &run{in: in, rn: rn, now: in.Clock, toolCalls: map[string]int{}, tree: tree}
	if r.now == nil {
		r.now = time.Now
	}
	r.start = r.now()
	r.budget, r.maxRepair = rn.TurnBudget, rn.RepairBudget
	if in.TurnTimeout <= 0 {
		r.in.TurnTimeout = DefaultTurnTimeout
	}
	r.tools = in.Tools
	if r.tools == nil {
		r.tools = tools.All()
	}
	r.addResearch()
	cfg := in.Config
	cfg.MaxTurns, cfg.MaxRepairCycles = r.budget, r.maxRepair
	r.s = &tool.Session{Repo: in.Repo, Config: cfg, Project: in.Project, KiCad: in.KiCad, Redactor: rn.Redactor,
		RunID: rn.ID, Request: in.Request, Approve: in.Approve, Sync: in.Sync, Ledger: tool.NewLedger()}

	// The prompt first: it only reads, so a failure here leaves nothing
	// to restore. Then the way back, and the run goes on record.
	sys, left, err := systemPrompt(PromptInput{Repo: in.Repo, Config: cfg, RunID: rn.ID,
		MaxTurns: r.budget, MaxRepairCycles: r.maxRepair, ResearchTools: r.researchToolNames()})
	if err != nil {
		return nil, fmt.Errorf("build system prompt: %w", err)
	}
	r.system = sys
	if err := rn.Protect(ctx, tree); err != nil {
		return nil, err
	}
	r.out = rn.Outcome()
	r.out.DryRun = tree.Scratch != nil
	for _, w := range left {
		r.progress(runs.Event{Kind: runs.EventNotice, Text: "warning: " + w})
	}
	if names := r.researchToolNames(); len(names) > 0 {
		r.progress(runs.Event{Kind: runs.EventNotice, Text: "research tools: " + strings.Join(names, ", ")})
	}
	// Revisits an earlier run deferred until their artifact existed are due
	// now if it does (spec §2.6). A registry that cannot be read is not a
	// reason to refuse the run that may be asked to fix it: the model hears
	// of it through the tools that read the registry.
	if n, err := tools.OpenDeferredRevisits(r.s); err != nil {
		r.progress(runs.Event{Kind: runs.EventNotice, Text: "deferred revisits not checked: " + err.Error()})
	} else if n > 0 {
		r.progress(runs.Event{Kind: runs.EventNotice, Text: fmt.Sprintf("%d deferred revisits are due: their artifacts exist now", n)})
	}
	return r, nil
}

// onScratch is in with every path into the repository moved into the
// scratch copy. The run record stays where it is.
func onScratch(in RunInput, s *runs.Tree) RunInput {
	in.Repo = s.Map(in.Repo)
	if in.Project != nil {
		p := *in.Project
		p.Repo, p.Schematic, p.Board, p.Pro = s.Map(p.Repo), s.Map(p.Schematic), s.Map(p.Board), s.Map(p.Pro)
		in.Project = &p
	}
	if in.KiCad != nil {
		kc := *in.KiCad
		kc.Boundary = in.Repo
		in.KiCad = &kc
	}
	return in
}

// addResearch builds the run's research when the repository opted in
// (research.enabled) and adds the tools its provider keys allow (design D2:
// without keys they are absent, and the run is exactly one without
// research). Every request of the run's one egress client, and every
// refusal, becomes a research-request event in the transcript.
func (r *run) addResearch() {
	if !r.in.Config.Research.Enabled {
		return
	}
	getenv := r.in.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	kit := research.New(r.in.Config.Research, getenv, func(rec egress.Record) {
		// A lost line resurfaces as the next write's error.
		_ = r.rn.Record(transcript.TypeResearchRequest, tools.ResearchRequestEvent(rec))
	})
	found := tools.Research(kit)
	if len(found) == 0 {
		return
	}
	// URLs the person wrote in the request are theirs to have fetched.
	kit.AllowTextURLs(r.in.Request, "request")
	r.kit = kit
	r.tools = tools.WithResearch(r.tools, found)
}

// researchToolNames names the run's research tools in list order.
func (r *run) researchToolNames() []string {
	if r.kit == nil {
		return nil
	}
	var names []string
	for _, t := range tools.Research(r.kit) {
		names = append(names, t.Spec().Name)
	}
	return names
}

func (r *run) progress(e runs.Event) {
	e.Turn, e.Budget, e.Tokens, e.Elapsed = r.turn, r.budget, r.tokens, r.now().Sub(r.start)
	r.rn.Emit(e)
}

// run loops turns until an exit path is decided, then ends the run.
func (r *run) run(ctx context.Context) *runs.Outcome {
	r.msgs = []llm.Message{{Role: llm.RoleUser, Text: mustPrompt("request.md", struct{ Request string }{r.in.Request})}}
	exit, failure := r.loop(ctx)
	return r.end(ctx, exit, failure)
}

// loop is the turn loop. It returns the exit path and, for failures, what
// failed in words a user can act on.
func (r *run) loop(ctx context.Context) (transcript.ExitPath, string) {
	stalls := 0
	nudged := false // the budget nudge was given for the current budget
	for {
		var note []string // what the loop tells the model with the next results
		if err := ctx.Err(); err != nil {
			return transcript.ExitInterrupted, "interrupted: " + context.Cause(ctx).Error()
		}
		if r.turn >= r.budget {
			extra := 0
			if r.in.Extend != nil {
				extra = r.in.Extend(r.stats())
			}
			if extra <= 0 {
				return transcript.ExitTurnBudgetExhausted, fmt.Sprintf("turn budget exhausted: %d of %d turns used without finishing", r.turn, r.budget)
			}
			ext := BudgetExtension{BudgetStats: r.stats(), Extra: extra, NewBudget: r.budget + extra}
			_ = r.rn.Record(EventBudgetExtended, ext) // a lost line resurfaces as the next chat's record error
			r.budget += extra
			nudged = false
			// The last message is the user turn not yet sent (the loop
			// appends one after every reply): the model hears of the
			// extension with its tool results.
			last := &r.msgs[len(r.msgs)-1]
			last.Text = joinText(last.Text, mustPrompt("nudge_extended.md", struct{ Extra, Budget, TurnsLeft int }{extra, r.budget, r.budget - r.turn}))
			r.progress(runs.Event{Kind: runs.EventNotice, Text: fmt.Sprintf("turn budget extended by %d to %d", extra, r.budget)})
		}

		r.turn++
		tools := tool.ToolList(r.s, r.tools)
		r.progress(runs.Event{Kind: runs.EventTurn})
		tctx, cancel := context.WithTimeout(ctx, r.in.TurnTimeout)
		t, err := r.rn.Provider.Chat(tctx, r.msgs, tools, llm.Options{System: r.system})
		timedOut := errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
		cancel()
		if err != nil {
			r.perTurn = append(r.perTurn, transcript.TurnTokens{Turn: r.turn})
			var pe *llm.Error
			switch {
			case timedOut:
				return transcript.ExitProviderError, fmt.Sprintf("model call exceeded the %v turn watchdog: %v", r.in.TurnTimeout, err)
			case ctx.Err() != nil:
				return transcript.ExitInterrupted, "interrupted: " + context.Cause(ctx).Error()
			case errors.As(err, &pe) && pe.Hint != "":
				r.providerErr = err
				return transcript.ExitProviderError, fmt.Sprintf("%v (%s)", err, pe.Hint)
			}
			r.providerErr = err
			return transcript.ExitProviderError, err.Error()
		}
		r.tokens = r.tokens.Add(t.Usage)
		r.perTurn = append(r.perTurn, transcript.TurnTokens{Turn: r.turn, Tokens: transcript.Tokens(t.Usage)})
		r.msgs = append(r.msgs, t.Message())
		if r.plan == "" && strings.TrimSpace(t.Text) != "" {
			r.plan = strings.TrimSpace(t.Text)
		}
		r.progress(runs.Event{Kind: runs.EventReply, Text: t.Text})

		next := llm.Message{Role: llm.RoleUser}
		if len(t.ToolCalls) == 0 {
			stalls++
			if stalls >= stallLimit {
				return transcript.ExitStalled, fmt.Sprintf("stalled: %d consecutive replies without a tool call", stalls)
			}
			note = append(note, mustPrompt("nudge_stall.md", struct{ Left int }{stallLimit - stalls}))
			r.progress(runs.Event{Kind: runs.EventNotice, Text: "reply without a tool call: nudged to use tools or finish"})
		} else {
			stalls = 0
			var fatal error
			next.ToolResults, fatal = r.dispatch(ctx, t.ToolCalls)
			if exit, failure, over := r.afterCalls(ctx, fatal); over {
				return exit, failure
			}
		}
		if left := r.budget - r.turn; !nudged && left > 0 && left <= budgetNudgeAt {
			nudged = true
			note = append(note, mustPrompt("nudge_budget.md", struct{ TurnsLeft, Budget int }{left, r.budget}))
			r.progress(runs.Event{Kind: runs.EventNotice, Text: fmt.Sprintf("%d turns left: nudged to batch and finish", left)})
		}
		next.Text = strings.Join(note, "\n\n")
		r.msgs = append(r.msgs, next)
	}
}

// afterCalls decides whether the tool calls just dispatched ended the run
// (over), and how: an interruption, a tool that broke, the repair budget
// spent, or an accepted finish. The loop and a Session ask it after every
// batch of calls, so a run ends the same way whoever reasons.
func (r *run) afterCalls(ctx context.Context, fatal error) (exit transcript.ExitPath, failure string, over bool) {
	switch {
	case ctx.Err() != nil:
		return transcript.ExitInterrupted, "interrupted: " + context.Cause(ctx).Error(), true
	case fatal != nil:
		// No exit path names a broken tool; like a failed model
		// call, the run cannot go on through no fault of the design.
		return transcript.ExitProviderError, fatal.Error(), true
	case r.s.RepairCycles > r.maxRepair:
		return transcript.ExitRepairCyclesExhausted, fmt.Sprintf("repair cycles exhausted: %d failing ERC/DRC runs, budget %d%s", r.s.RepairCycles, r.maxRepair, r.lastViolations()), true
	case r.s.Finished != nil && r.s.Finished.Outcome == tool.OutcomeRefuse:
		return transcript.ExitRefused, "", true
	case r.s.Finished != nil:
		return transcript.ExitDone, "", true
	}
	return "", "", false
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

// dispatch runs a turn's tool calls in order, recording one tool event each.
// Once finish is accepted, or the repair budget is spent, the remaining calls
// are answered without running: the run is over and must not change further.
func (r *run) dispatch(ctx context.Context, calls []llm.ToolCall) (results []llm.ToolResult, fatal error) {
	results = make([]llm.ToolResult, 0, len(calls))
	for _, c := range calls {
		var res tool.Result
		began := r.now()
		switch {
		case r.s.Finished != nil:
			res = tool.Errorf("not run: finish was accepted earlier in this reply")
		case r.s.RepairCycles > r.maxRepair:
			res = tool.Errorf("not run: the repair-cycle budget is spent")
		case fatal != nil:
			res = tool.Errorf("not run: an earlier call in this reply ended the run")
		default:
			res = tool.Dispatch(ctx, r.s, r.tools, c)
			r.toolCalls[c.Name]++
			if res.Fatal != nil && fatal == nil {
				fatal = fmt.Errorf("tool %s: %w", c.Name, res.Fatal)
			}
		}
		dur := r.now().Sub(began)
		_ = r.rn.Record(transcript.TypeTool, transcript.ToolEvent{
			Turn: r.turn, CallID: c.ID, Name: c.Name, Args: jsonArgs(c.Args),
			Result: res.Text, IsError: res.IsError, DurationMS: dur.Milliseconds(),
		})
		results = append(results, llm.ToolResult{CallID: c.ID, Content: res.Text, IsError: res.IsError})
		r.progress(runs.Event{Kind: runs.EventTool, Tool: c.Name, Text: resultLine(res), Result: res.Text, IsError: res.IsError})
		if len(res.Changed) > 0 {
			r.progress(runs.Event{Kind: runs.EventFiles, Tool: c.Name, Files: res.Changed})
		}
		if v := verificationOf(r.s, c.Name); v != nil && !res.IsError {
			r.progress(runs.Event{Kind: runs.EventVerify, Tool: c.Name, Text: resultLine(res), IsError: !v.Clean})
		}
	}
	// Flushed at the turn boundary: a live viewer sees the turn whole.
	_ = r.rn.Flush()
	return results, fatal
}

// jsonArgs is a call's arguments as valid JSON for the transcript: a model
// can send arguments that are not JSON, which are recorded as a string.
func jsonArgs(a json.RawMessage) json.RawMessage {
	if len(strings.TrimSpace(string(a))) == 0 {
		return json.RawMessage(`{}`)
	}
	if json.Valid(a) {
		return a
	}
	b, _ := json.Marshal(string(a))
	return b
}

// resultLine is a tool result as the one line a person watching the run
// reads: its first line, the first of its "- " detail lines with how many
// more there are, and the files the call wrote. A result that says what it
// changed only further down ("set-field R7 Value 1M:" then the old and new
// value) would otherwise show nothing of it.
func resultLine(res tool.Result) string {
	lines := strings.Split(strings.TrimSpace(res.Text), "\n")
	line := strings.TrimSpace(lines[0])
	var details []string
	more := false
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "- "):
			if d := strings.TrimPrefix(l, "- "); !slices.Contains(res.Changed, d) {
				details = append(details, d)
			}
		case l != "" && !strings.HasPrefix(l, "changed: "):
			more = true
		}
	}
	line = strings.TrimSuffix(line, ":")
	switch {
	case len(details) > 0:
		line += ": " + details[0]
		if len(details) > 1 {
			line += fmt.Sprintf(" (+%d more)", len(details)-1)
		}
	case more && len(res.Changed) == 0:
		line += " …"
	}
	if n := len(res.Changed); n > 0 {
		names := make([]string, 0, n)
		for _, c := range res.Changed {
			names = append(names, path.Base(c))
		}
		line += fmt.Sprintf(" · %s written: %s", textfmt.CountForms(n, "file", "files"), strings.Join(names, ", "))
	}
	return line
}

func (r *run) stats() BudgetStats {
	return BudgetStats{TurnsUsed: r.turn, TurnBudget: r.budget, FilesTouched: append([]string{}, r.s.Touched...),
		OpenObligations: r.openObligations(), Tokens: r.tokens}
}

func (r *run) openObligations() []string {
	out := []string{}
	for _, o := range r.s.Ledger.Pending() {
		out = append(out, o.String())
	}
	return out
}

// lastViolations names the failing verification for the error line.
func (r *run) lastViolations() string {
	var parts []string
	for _, v := range []*tool.Verification{r.s.LastERC, r.s.LastDRC} {
		if v == nil || v.Clean || v.Report == nil {
			continue
		}
		c := v.Report.Counts()
		parts = append(parts, fmt.Sprintf("%s %d errors", strings.ToUpper(v.Report.Tool), c.Errors))
		for i, x := range v.Report.Violations {
			if i == 3 {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, kicadcli.OneLine(x.Description))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; last: " + strings.Join(parts, "; ")
}

// end carries out the exit path and records it: commit, restore, or keep the
// work in a stash; then the run-end event and summary.md.
func (r *run) end(ctx context.Context, exit transcript.ExitPath, failure string) *runs.Outcome {
	// The ending must complete even when the run was interrupted: a
	// half-restored tree is the one outcome worse than a failed run.
	ctx = context.WithoutCancel(ctx)
	out := r.out
	out.ChangeID = r.s.ChangeID
	if r.s.Finished != nil {
		out.Summary = r.s.Finished.Summary
	}
	out.Verification = r.verification()
	var errs []string
	if failure != "" {
		errs = append(errs, failure)
	}

	var changed []string // what a done run changed, scanned once for the gate and the commit
	if exit == transcript.ExitDone {
		var e transcript.ExitPath
		var why string
		if changed, e, why = r.committable(ctx); e != exit {
			exit = e
			errs = append(errs, why)
		}
	}

	switch {
	case r.tree.Scratch != nil:
		// A dry run ends as any run would, then its copy goes: no commit,
		// no stash, no rollback (the user's tree was never touched).
		if exit == transcript.ExitDone {
			diff, err := r.dryRunDiff(ctx, changed)
			out.Diff = diff
			if err != nil {
				errs = append(errs, err.Error())
			}
		}
		if err := r.tree.Remove(ctx); err != nil {
			errs = append(errs, err.Error())
		}
		r.progress(runs.Event{Kind: runs.EventNotice, Text: "dry run: ran on a scratch copy, nothing written"})
	case exit == transcript.ExitDone:
		hash, err := r.commit(ctx, changed)
		if err != nil {
			exit = transcript.ExitCommitFailed
			errs = append(errs, err.Error())
			out.StashRef, err = r.tree.Snap.Rollback(ctx, r.rn.ID)
			if err != nil {
				errs = append(errs, "restore: "+err.Error())
			}
		} else {
			out.Commit = hash
		}
	default:
		// refused and every failure: keep whatever changed, restore the rest.
		msg := gitrepo.FailedRunMessage(r.rn.ID)
		switch exit {
		case transcript.ExitRefused:
			msg = gitrepo.RefusedRunMessage(r.rn.ID)
		case transcript.ExitInterrupted:
			msg = gitrepo.InterruptedRunMessage(r.rn.ID)
		}
		ref, err := r.tree.Snap.RollbackAs(ctx, r.rn.ID, msg)
		out.StashRef = ref
		if err != nil {
			errs = append(errs, "restore: "+err.Error())
		}
	}
	if out.StashRef != "" {
		r.progress(runs.Event{Kind: runs.EventNotice, Text: "work kept in " + out.StashRef + "; tree restored"})
	}

	out.ExitPath = exit
	out.Error = strings.Join(errs, "; ")
	out.Err = r.providerErr
	out.Tokens, out.Turns, out.TurnBudget, out.RepairCycles = r.tokens, r.turn, r.budget, r.s.RepairCycles
	out.Duration = r.now().Sub(r.start)

	out.PerTurn = r.perTurn
	sum := transcript.Summary{ChangeID: r.s.ChangeID, Plan: r.plan,
		ToolCalls: r.toolCalls, FilesTouched: r.s.Touched, OpenObligations: r.openObligations()}
	for _, d := range r.s.Decisions {
		sum.Decisions = append(sum.Decisions, transcript.Decision{Decision: d.Decision, Rationale: d.Rationale, Affects: d.Affects})
	}
	if r.kit != nil {
		total, refused := r.kit.Requests()
		sum.Research = &transcript.ResearchStats{Requests: total, Refused: refused}
	}
	_ = r.rn.End(out, sum) // a failure to record is in out.Error
	return out
}

// verification is the gates' verdict from the run's last ERC and DRC.
func (r *run) verification() transcript.Verification {
	v := transcript.Verification{Status: transcript.VerifyNotRun}
	for _, x := range []struct {
		name    string
		v       *tool.Verification
		editSeq int // the last edit this check must postdate
	}{{"erc", r.s.LastERC, r.s.SchematicEditSeq}, {"drc", r.s.LastDRC, r.s.BoardEditSeq}} {
		if x.v == nil {
			continue
		}
		c := transcript.CheckOutcome{Name: x.name, Status: transcript.VerifyPassed}
		if x.v.Report != nil {
			n := x.v.Report.Counts()
			c.Violations = n.Errors
			c.Detail = fmt.Sprintf("%d errors, %d warnings", n.Errors, n.Warnings)
		}
		stale := x.v.AfterEdit < x.editSeq
		if !x.v.Clean || stale {
			c.Status = transcript.VerifyFailed
			if stale {
				c.Detail = strings.TrimPrefix(c.Detail+"; stale: a KiCad edit came after it", "; ")
			}
		}
		v.Checks = append(v.Checks, c)
	}
	// Drift and the proposal as the ledger and the session saw them: a
	// check that ran and whose obligations are all closed passed.
	drift := 0
	for _, o := range r.s.Ledger.All() {
		if o.Kind == tool.OblDrift && !o.Deferred {
			drift++
		}
	}
	if drift > 0 {
		c := transcript.CheckOutcome{Name: "drift", Status: transcript.VerifyPassed}
		for _, o := range r.s.Ledger.Pending() {
			if o.Kind == tool.OblDrift {
				c.Status = transcript.VerifyFailed
				c.Violations++
			}
		}
		if c.Violations > 0 {
			c.Detail = fmt.Sprintf("%d changed files not drift-checked since", c.Violations)
		}
		v.Checks = append(v.Checks, c)
	}
	if q := r.s.LastRequirements; q != nil {
		c := transcript.CheckOutcome{Name: "constraints", Status: transcript.VerifyPassed, Violations: q.Findings, Detail: q.Detail}
		if q.Findings > 0 {
			c.Status = transcript.VerifyFailed
		}
		v.Checks = append(v.Checks, c)
	}
	if r.s.ChangeID != "" {
		c := transcript.CheckOutcome{Name: "openspec", Status: transcript.VerifyPassed, Detail: "change " + r.s.ChangeID + " validates"}
		if !r.s.Validated {
			c.Status, c.Detail = transcript.VerifyFailed, "change "+r.s.ChangeID+" has not validated"
		}
		v.Checks = append(v.Checks, c)
	}
	for _, c := range v.Checks {
		if v.Status != transcript.VerifyFailed {
			v.Status = c.Status
		}
	}
	return v
}

// checkLabels name the gates in prose.
var checkLabels = map[string]string{"erc": "ERC", "drc": "DRC", "drift": "drift", "constraints": "constraints", "openspec": "OpenSpec"}

// verificationLine is the verification as the commit message and the
// changelog state it.
func (r *run) verificationLine() string {
	v := r.out.Verification
	if len(v.Checks) == 0 {
		return "ERC/DRC not run (no KiCad file changed)"
	}
	var parts []string
	for _, c := range v.Checks {
		s := checkLabels[c.Name] + " " + c.Status
		if c.Detail != "" {
			s += " (" + c.Detail + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// committable decides whether a done run may commit: only a validated
// proposal and a change to the design or its docs beyond the run's own
// bookkeeping (the proposal, DECISIONS.md, CHANGELOG.md) make a commit. A
// run that changed nothing ends no-change, one whose change has no validated
// proposal commit-failed; either way nothing is written. It returns what
// the run changed, and ExitDone and "" when the run may commit.
func (r *run) committable(ctx context.Context) ([]string, transcript.ExitPath, string) {
	changed, err := r.tree.Snap.Changed(ctx)
	if err != nil {
		return nil, transcript.ExitCommitFailed, err.Error()
	}
	cfg := r.s.Config
	work := slices.DeleteFunc(slices.Clone(changed), func(p string) bool {
		return strings.HasPrefix(p, "openspec/changes/") || p == cfg.DocPath(design.DecisionsDoc) || p == cfg.DocPath(design.ChangelogDoc)
	})
	switch {
	case len(work) == 0:
		why := "no change: the run finished without changing the design or its docs, so nothing is committed"
		if n := len(r.s.Decisions); n > 0 {
			noun := "decisions"
			if n == 1 {
				noun = "decision"
			}
			why += fmt.Sprintf(" (%d recorded %s not written: a decision needs a change)", n, noun)
		}
		return changed, transcript.ExitNoChange, why
	case !r.s.Validated: // validate_change sets it, for the proposal in ChangeID
		return changed, transcript.ExitCommitFailed, fmt.Sprintf("no validated OpenSpec proposal for the changed files (%s): nothing is committed", strings.Join(work, ", "))
	}
	return changed, transcript.ExitDone, ""
}

// commit is the done path: the OpenSpec archive, the DECISIONS.md and
// CHANGELOG.md entries, then one commit holding all of it. The archive
// comes first so the archived change and the specs it merged into are part
// of the same commit ("committed once") and of the changelog's file list.
// changed is what committable found.
func (r *run) commit(ctx context.Context, changed []string) (string, error) {
	if len(changed) == 0 && len(r.s.Decisions) == 0 {
		r.progress(runs.Event{Kind: runs.EventNotice, Text: "nothing changed: no commit"})
		return "", nil
	}
	if id := r.s.ChangeID; id != "" {
		if err := openspec.Archive(ctx, r.in.Repo, id); err != nil {
			return "", fmt.Errorf("archive OpenSpec change %s: %w", id, err)
		}
		if _, err := os.Stat(filepath.Join(r.in.Repo, "openspec", "changes", id)); err == nil {
			return "", fmt.Errorf("archive OpenSpec change %s: openspec/changes/%s is still there after openspec archive", id, id)
		}
		var err error
		if changed, err = r.tree.Snap.Changed(ctx); err != nil { // the archive moved the proposal
			return "", err
		}
	}
	if err := r.writeDocEntries(changed); err != nil {
		return "", err
	}
	summary := ""
	if r.s.Finished != nil {
		summary = r.s.Finished.Summary
	}
	// The message quotes the request and the model's summary: it goes
	// through the session's redactor like every other byte the run writes
	// (AC-4.1), so no key reaches a git object. The parts are redacted
	// before the subject is cut, so a cut cannot leave a key's head behind
	// too short to match; then the whole message once more.
	red := r.rn.Redactor
	msg := red.String(gitrepo.MessageWithSubject(red.String(r.in.Subject), red.String(r.in.Request), red.String(summary), red.String(r.verificationLine())))
	hash, err := gitrepo.CommitAll(ctx, r.in.Repo, msg)
	if err != nil {
		return "", err
	}
	r.progress(runs.Event{Kind: runs.EventNotice, Text: "committed " + hash})
	return hash, nil
}

// dryRunDiff is the change a done run would commit, doc entries included
// (the archive is left out: it only moves the proposal).
func (r *run) dryRunDiff(ctx context.Context, changed []string) (string, error) {
	if len(changed) > 0 || len(r.s.Decisions) > 0 {
		if err := r.writeDocEntries(changed); err != nil {
			return "", err
		}
	}
	return r.tree.Snap.Diff(ctx)
}

// writeDocEntries appends the run's decisions to DECISIONS.md and its entry
// to CHANGELOG.md (design D12, D13), creating either from its scaffold when
// the repository lacks it.
func (r *run) writeDocEntries(changed []string) error {
	cfg := r.s.Config
	name := filepath.Base(r.in.Repo)
	if r.in.Project != nil && r.in.Project.Name != "" {
		name = r.in.Project.Name
	}
	date := r.now().UTC().Format(time.DateOnly)
	if len(r.s.Decisions) > 0 {
		entries := make([]design.DecisionEntry, 0, len(r.s.Decisions))
		for _, d := range r.s.Decisions {
			entries = append(entries, design.DecisionEntry{Date: date, RunID: r.rn.ID,
				Decision: d.Decision, Rationale: d.Rationale, Affects: d.Affects})
		}
		if err := r.updateDoc(cfg.DocPath(design.DecisionsDoc), design.GenerateDecisions(name), func(doc []byte) []byte {
			return design.AppendDecisions(doc, entries)
		}); err != nil {
			return err
		}
	}
	// The proposal is named by the entry's change id; its files (moved to
	// the archive by now) would only bury the design files in the list.
	files := slices.DeleteFunc(slices.Clone(changed), func(p string) bool { return strings.HasPrefix(p, "openspec/changes/") })
	if p := cfg.DocPath(design.ChangelogDoc); !slices.Contains(files, p) {
		files = append(files, p)
	}
	if p := cfg.DocPath(design.DecisionsDoc); len(r.s.Decisions) > 0 && !slices.Contains(files, p) {
		files = append(files, p)
	}
	entry := design.ChangelogEntry{Date: date, ChangeID: r.s.ChangeID, RunID: r.rn.ID, Request: r.in.Request,
		Files: files, Verification: r.verificationLine()}
	return r.updateDoc(cfg.DocPath(design.ChangelogDoc), design.GenerateChangelog(name), func(doc []byte) []byte {
		return design.AddChangelog(doc, entry)
	})
}

// updateDoc rewrites one doc atomically through edit, starting from scaffold
// when the doc does not exist.
func (r *run) updateDoc(rel string, scaffold []byte, edit func([]byte) []byte) error {
	p := filepath.Join(r.in.Repo, filepath.FromSlash(rel))
	doc, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		doc, err = scaffold, os.MkdirAll(filepath.Dir(p), 0o755)
	}
	if err != nil {
		return fmt.Errorf("update %s: %w", rel, err)
	}
	if err := r.s.WriteFile(p, edit(doc)); err != nil {
		return fmt.Errorf("update %s: %w", rel, err)
	}
	return nil
}

// verificationOf is the check the tool call named name just ran (run_erc,
// run_drc), for the run's verify event; nil for any other tool.
func verificationOf(s *tool.Session, name string) *tool.Verification {
	var v *tool.Verification
	switch name {
	case "run_erc":
		v = s.LastERC
	case "run_drc":
		v = s.LastDRC
	}
	if v == nil || v.AfterEdit != s.KiCadEditSeq {
		return nil
	}
	return v
}
