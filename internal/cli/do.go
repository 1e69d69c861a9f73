package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"copperhead/internal/agent"
	"copperhead/internal/kicadcli"
	"copperhead/internal/llm"
	"copperhead/internal/redact"
	"copperhead/internal/runmeta"
	"copperhead/internal/runs"
	"copperhead/internal/textfmt"
	"copperhead/internal/transcript"
)

type doOptions struct {
	model       string
	maxTurns    int
	allowDirty  bool
	dryRun      bool
	interactive bool
	// sync is a sync run (runSyncAgent): the KiCad-changing tools are
	// withheld for the whole run (agent.RunInput.Sync).
	sync bool
	// command names the run in its header and run-start ("do", "sync");
	// empty is "do".
	command string
	// subject is the commit subject of a run whose request is generated
	// (agent.RunInput.Subject).
	subject string
	// onRun, when set, is handed the run once it started, before its first
	// turn: the MCP server's do tool and watch's page subscribe to its
	// events there.
	onRun func(*runs.Run)
	// unattended: nobody answers questions at the terminal even when it is
	// one (the request came from watch's page), so no hook asks there.
	unattended bool
}

func newDoCmd(a *app) *cobra.Command {
	var o doOptions
	cmd := &cobra.Command{
		Use:   `do "<change request>"`,
		Short: "Make one design change with the agent: proposed, edited, verified, committed",
		Long: `do runs the agent loop on one change request. The agent reads the design
docs, writes an OpenSpec proposal and validates it (the edit tools stay
locked until it does), edits the KiCad files and docs surgically, runs ERC
and DRC until they pass, updates every doc the change touches, records its
decisions, and commits once. A request that would break a documented budget
or constraint is refused, citing it. No validated proposal, no commit: a run
that finishes having changed nothing (no design or doc edit beyond its own
proposal and decision bookkeeping) ends no-change with nothing written.

The working tree must be clean (--allow-dirty snapshots uncommitted work and
restores it exactly on failure). Every run is recorded in
.copperhead/runs/<run-id>/ (transcript.jsonl, summary.md). A run that fails
keeps its work in a git stash entry named "copperhead failed run <run-id>"
("copperhead refused run <run-id>" for a refusal) and restores the tree byte
for byte. Before its first write a run references its pre-run snapshot as
refs/copperhead/runs/<run-id>: a run killed outright (kill -9, a crash) is
restored by 'copperhead recover', and do refuses to start until it is.
--dry-run runs the agent on a scratch copy of the tree (a temporary git
worktree holding HEAD plus, with --allow-dirty, the uncommitted work), prints
the diff the run would commit, and removes the copy: the tree, the index, the
stash list and the refs are never written, even if the run is killed; only
the run record is kept.

Exit 0 when the change was committed or the agent refused the request, 1 when
the run failed (turn budget, repair cycles, stall, model error, commit
failure, no-change) or the tree is dirty, 2 for bad usage or a broken environment (no
model configured, no kicad-cli, a missing key, a saved-login CLI missing or
logged out, also when its login fails mid-run: rolled back first).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
				return withHint(usagef("do takes one change request, quoted"), `e.g. copperhead do "rename net KEY_DAH to KEY_DASH"`)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("max-turns") && o.maxTurns <= 0 {
				return usagef("--max-turns %d: must be at least 1", o.maxTurns)
			}
			return a.runDo(cmd.Context(), strings.TrimSpace(args[0]), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "", "the model, e.g. claude, gpt-5, compat:<model-id>, claude-code, codex:<id>, cursor, replay:<run-id>")
	f.IntVar(&o.maxTurns, "max-turns", 0, "the turn budget (default: maxTurns in config, else 40)")
	f.BoolVar(&o.allowDirty, "allow-dirty", false, "run on a tree with uncommitted changes (restored exactly on failure)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the diff the run would commit and write nothing")
	f.BoolVar(&o.interactive, "interactive", false, "ask before the edit tools unlock, after the proposal validates")
	return cmd
}

func (a *app) runDo(ctx context.Context, request string, o doOptions) error {
	out, err := a.doOutcome(ctx, request, o)
	if err != nil {
		return err
	}
	if out.OK() {
		return nil
	}
	hint := "transcript " + out.Transcript
	if out.StashRef != "" {
		hint = "work kept in " + out.StashRef + "; " + hint
	}
	msg := out.Error
	if msg == "" {
		msg = string(out.ExitPath)
	}
	code := ExitFailed
	if savedLoginFailure(out.Err) {
		// Rolled back like any failure, but the fix is a login or an
		// install, as when Open finds it: exit 2.
		code = ExitUsage
	}
	return &exitError{code: code, err: errors.New(redact.New(os.Environ()).String(msg)), hint: hint}
}

// doOutcome is one do run from the workspace to its outcome: the lock, the
// tree's preflight, kicad-cli and openspec, the model, the recorded and
// rendered agent run. The error is for a run that could not start.
func (a *app) doOutcome(ctx context.Context, request string, o doOptions) (*runs.Outcome, error) {
	ws, err := a.open("")
	if err != nil {
		return nil, err
	}
	unlock, err := a.lockRepo(ctx, ws.repo)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// The run's one preflight: a dirty tree is refused before anything is
	// created, run folder included (the run never started, so there is
	// nothing to record).
	tree, err := runs.OpenTree(ctx, ws.repo, o.allowDirty, o.dryRun)
	if err != nil {
		return nil, failf("%v", err) // a *gitrepo.DirtyError already says what to do
	}
	defer tree.Remove(ctx)
	kc, err := findKiCad(ctx)
	if err != nil {
		return nil, err
	}
	// The spec gate needs openspec: without it no run can pass
	// validate_change, so it ends here, before a run folder or a request.
	if err := findOpenSpec(); err != nil {
		return nil, err
	}
	kc.Boundary = ws.repo
	s := settingsFrom(o.model, ws.cfg)
	sel, err := llm.Select(s)
	if err != nil {
		if errors.Is(err, llm.ErrInvalidModel) {
			return nil, usagef("%v", err)
		}
		return nil, withHint(usagef("%v", err), "see 'copperhead models'")
	}
	return a.agentRun(ctx, ws, kc, a.runOptions(ws.repo, s, sel), tree, request, o)
}

// agentRun is one recorded, rendered agent loop run on an opened workspace
// and tree: do and sync run one. The error is for a run that could not
// start; a run that failed comes back with out.OK() false.
func (a *app) agentRun(ctx context.Context, ws *workspace, kc *kicadcli.Tool, ro runs.Options, tree *runs.Tree,
	request string, o doOptions) (*runs.Outcome, error) {
	command := cmp.Or(o.command, "do")
	ro.MaxTurns = o.maxTurns
	ro.Meta = runmeta.Input{Command: command, Request: request, Interactive: o.interactive, Config: ws.cfg,
		Schematic: ws.proj.Rel(ws.proj.Schematic), Board: ws.proj.Rel(ws.proj.Board), KicadCLIVersion: kc.Version()}
	rn, err := startRun(ctx, ro)
	if err != nil {
		return nil, err
	}
	if o.onRun != nil {
		o.onRun(rn)
	}
	in := agent.RunInput{
		Repo: ws.repo, Config: ws.cfg, Project: ws.proj, KiCad: kc, Tree: tree,
		Request: request, AllowDirty: o.allowDirty, DryRun: o.dryRun, Interactive: o.interactive, Sync: o.sync, Subject: o.subject,
	}
	stop := a.watch(ctx, rn, &in, o, command)
	out, err := agent.Run(ctx, rn, in)
	jsonErr := stop()
	if err != nil {
		// The run never started (no snapshot, no prompt): its folder holds
		// an empty transcript at most, which would only mislead.
		rn.Abandon()
		return nil, failf("%v", err) // a *gitrepo.DirtyError already says what to do
	}
	return out, jsonErr
}

// attended reports whether a human is at the terminal to answer a question:
// stdout and stdin are both terminals and the output is not --json/--plain.
// Only then is the turn-budget extension offered (AC-15.3).
func (a *app) attended() bool { return a.mode() == modeTTY && a.stdinTerminal() }

// stdinTerminal reports whether stdin is a terminal someone can type at.
func (a *app) stdinTerminal() bool {
	f, ok := a.io.In.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// defaultExtension is the extra turns offered when the human just presses
// Enter: enough for a repair cycle and the wrap-up.
const defaultExtension = 10

// askExtension shows the cost so far and asks for more turns (AC-15.4). Each
// call is a fresh decision with fresh numbers.
func askExtension(ctx context.Context, rr *runRenderer, st agent.BudgetStats) int {
	q := fmt.Sprintf("turn budget reached: %d/%d turns, %s touched, %s open, %s in / %s out tokens. More turns? [%d, 0 to stop] ",
		st.TurnsUsed, st.TurnBudget, textfmt.Count(len(st.FilesTouched), "file"), textfmt.Count(len(st.OpenObligations), "obligation"),
		compactCount(st.Tokens.Input), compactCount(st.Tokens.Output), defaultExtension)
	ans, ok := rr.Ask(ctx, q)
	switch {
	case !ok:
		return 0
	case ans == "":
		return defaultExtension
	}
	n, err := strconv.Atoi(ans)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// doHeader is the at most two lines printed before the first turn (AC-8.4).
// command is the run's command ("do", "sync", "create schematic").
func doHeader(m transcript.RunStart, o doOptions, command string) []string {
	first := fmt.Sprintf("copperhead %s · %s · %s via %s (selected by %s)", m.CopperheadVersion, command, m.Model, m.Provider, m.SelectionSource)
	second := fmt.Sprintf("run %s · turn budget %d · repair budget %d", m.RunID, m.Config.MaxTurns, m.Config.MaxRepairCycles)
	if o.dryRun {
		second += " · dry run"
	}
	if o.interactive {
		second += " · interactive"
	}
	if o.allowDirty {
		second += " · allow dirty"
	}
	return []string{first, second}
}

// outcomeLine is the run's one final line (AC-8.5): exit path, verification,
// commit, duration, tokens; where the work went when it failed.
func outcomeLine(r *runs.Outcome) string {
	parts := []string{string(r.ExitPath), transcript.VerificationWords(r.ExitPath, r.Verification)}
	switch {
	case r.Commit != "":
		parts = append(parts, "commit "+shortHash(r.Commit))
	case r.DryRun && r.ExitPath == transcript.ExitDone:
		parts = append(parts, "dry run: nothing written")
	}
	parts = append(parts,
		clockDuration(r.Duration.Truncate(time.Millisecond)),
		fmt.Sprintf("%s in / %s out tokens", compactCount(r.Tokens.Input), compactCount(r.Tokens.Output)),
		fmt.Sprintf("turns %d/%d", r.Turns, r.TurnBudget))
	if r.StashRef != "" {
		parts = append(parts, "work kept in "+r.StashRef)
	}
	parts = append(parts, "run "+r.RunDir)
	return strings.Join(parts, " · ")
}

func shortHash(h string) string { return h[:min(len(h), 12)] }
