package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/gitrepo"
	"copperhead/internal/llm"
	"copperhead/internal/redact"
	"copperhead/internal/repl"
	"copperhead/internal/textfmt"
	"copperhead/internal/transcript"
)

// replOptions are the agent shell's flags: the model and the dirty-tree
// escape hatch every change request of the session runs with.
type replOptions struct {
	model      string
	allowDirty bool
	// commands lists copperhead's commands when the shell was reached as
	// copperhead with no command: its refusal off a terminal names them.
	commands string
}

const replLong = `repl is the agent shell, the default command: on a terminal, copperhead with
no command starts it. Each line typed at the prompt is one change request,
run exactly as 'copperhead do "<request>"' runs it (proposal and spec gate,
ERC/DRC, the obligations ledger, rollback, one commit; a dirty tree is
refused unless --allow-dirty), and then the prompt comes back. A line
starting with / is a slash command (/help lists them): the inspect commands
(/check, /parts, /nets, /sync, /drift, ...) only read, with no model call and
no write. An optional first request runs before the prompt.

The shell needs a terminal on stdin and stdout (and, like every command, a
repository holding a KiCad project). Off a terminal, with a request it runs
that one request as do does (same output, same exit codes) and exits;
without one, or with a slash command, it refuses (exit 2) and points at
copperhead do. A request given to copperhead itself must be quoted as one
argument with a space in it: a lone unknown word stays an unknown command. With no
model configured anywhere (or an ambiguous one), it offers a picker of the
ready backends (also /model).

Ctrl-C during a change interrupts it (rolled back, its work stashed, as do's
interrupt) and returns to the prompt; Ctrl-C or Ctrl-D at an empty prompt
leaves. History is kept per repository in .copperhead/runs/repl_history and
the session's output in .copperhead/runs/repl-<timestamp>.log, both redacted
and git-ignored with the runs.

Exit 0 when the session ends at the prompt (/quit, Ctrl-D, Ctrl-C), 130 when a
signal stopped it; off a terminal with a request, do's codes; 2 for bad usage
or no terminal.`

func newReplCmd(a *app) *cobra.Command {
	var o replOptions
	cmd := &cobra.Command{
		Use:   `repl ["<change request>"]`,
		Short: "The agent shell: a prompt where each line is one do change, plus slash commands (default on a terminal)",
		Long:  replLong,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return withHint(usagef("repl takes at most one change request, quoted"), `e.g. copperhead repl "rename net KEY_DAH to KEY_DASH"`)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			req := ""
			if len(args) == 1 {
				req = strings.TrimSpace(args[0])
			}
			return a.runRepl(cmd.Context(), req, o)
		},
	}
	replFlags(cmd, &o)
	return cmd
}

func replFlags(cmd *cobra.Command, o *replOptions) {
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "", "the model for the session's changes, as for 'do'")
	f.BoolVar(&o.allowDirty, "allow-dirty", false, "let each change run on a tree with uncommitted changes (restored exactly on failure)")
}

// defaultToRepl makes the root command the shell, as the spec's synopsis
// `copperhead [repl] ["<change request>"]` has it. A lone word that is not a
// command stays an unknown command (a typo must not start a model run): a
// request given to the root has to read as a sentence, with a space in it.
func defaultToRepl(root *cobra.Command, a *app) {
	var o replOptions
	replFlags(root, &o)
	root.Use = `copperhead ["<change request>"]`
	root.Long += `

With no command, on a terminal, it starts the agent shell (copperhead repl):
each line typed is one do change, and /help lists the slash commands.`
	root.RunE = func(cmd *cobra.Command, args []string) error {
		req := ""
		if len(args) == 1 {
			req = strings.TrimSpace(args[0])
		}
		o.commands = subcommandNames(cmd)
		return a.runRepl(cmd.Context(), req, o)
	}
}

// rootArgs is the root's positional-argument rule, applied after the
// contract's: a quoted sentence is the shell's first request.
func rootArgs(root *cobra.Command) {
	group := root.Args
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 1 && strings.ContainsAny(strings.TrimSpace(args[0]), " \t") {
			return nil
		}
		return group(cmd, args)
	}
}

// shellIO reports whether the shell can run here: stdin and stdout are both
// terminals and the output is not --json.
func (a *app) shellIO() bool { return !a.json && a.io.OutTTY && a.stdinTerminal() }

func (a *app) runRepl(ctx context.Context, request string, o replOptions) error {
	if !a.shellIO() {
		hint := `to run one change here: copperhead do "<change request>"`
		switch {
		case request == "" && o.commands != "":
			return withHint(usagef("no command given, and the agent shell needs a terminal on stdin and stdout: one of %s", o.commands), hint)
		case request == "":
			return withHint(usagef("the agent shell needs a terminal on stdin and stdout"), hint)
		case strings.HasPrefix(request, "/"):
			return withHint(usagef("%s is a slash command of the agent shell, which needs a terminal on stdin and stdout", strings.Fields(request)[0]),
				"each inspect command is also a command: see 'copperhead --help'")
		}
		// Off a terminal a request is one do run: nobody is there to type
		// the next line.
		return a.runDo(ctx, request, doOptions{model: o.model, allowDirty: o.allowDirty})
	}
	ws, err := a.open("")
	if err != nil {
		return err
	}
	s, err := a.newSession(ctx, ws, o)
	if err != nil {
		return err
	}
	defer s.close()
	return s.run(ctx, request)
}

// session is one agent shell: its streams (mirrored to the log), the model
// and flags every change request runs with, and the loop.
type session struct {
	a          *app
	ws         *workspace
	model      string // the --model every request passes; "" lets do select
	allowDirty bool
	red        *redact.Redactor

	streams IO // what the session's commands write to and read from
	editor  *repl.Editor
	history *repl.History // nil when the runs folder is not git-ignored
	log     *repl.Log
	mirrors []*repl.Mirror
	shell   *repl.Shell
}

// historyFile and the session logs live with the run records: git-ignored
// there already (copperhead init writes the entry), so the shell never makes
// the tree dirty and a request is never refused for the shell's own files.
const historyFile = config.RunsDir + "repl_history"

func (a *app) newSession(ctx context.Context, ws *workspace, o replOptions) (*session, error) {
	s := &session{a: a, ws: ws, model: o.model, allowDirty: o.allowDirty, red: redact.New(os.Environ())}
	s.streams = a.io
	var notes []string
	if recordable(ctx, ws.repo) {
		runs := transcript.RunsDir(ws.repo)
		if err := os.MkdirAll(runs, 0o755); err != nil {
			return nil, failf("create %s: %v", config.RunsDir, err)
		}
		h, err := repl.OpenHistory(filepath.Join(ws.repo, filepath.FromSlash(historyFile)), s.red)
		if err != nil {
			return nil, failf("%v", err)
		}
		s.history = h
		lg, err := repl.CreateLog(filepath.Join(runs, repl.LogName(time.Now())), s.red)
		if err != nil {
			return nil, failf("%v", err)
		}
		s.log = lg
		out, errw := lg.Mirror(a.io.Out), lg.Mirror(a.io.Err)
		s.mirrors = []*repl.Mirror{out, errw}
		s.streams.Out, s.streams.Err = out, errw
	} else {
		notes = append(notes, config.RunsDir+" is not git-ignored here (copperhead init adds it): this session keeps no history or log file")
	}
	hist := func() []string { return nil }
	if s.history != nil {
		hist = s.history.Lines
	}
	commands := s.commands()
	s.editor = repl.NewEditor(a.io.Out, hist, commands)
	s.streams.Lines = s.ask
	s.shell = &repl.Shell{
		Lines:    s.editor,
		Out:      s.streams.Out,
		Prompt:   shellPrompt(a.mode() == modeTTY),
		Commands: commands,
		Request:  s.request,
		Attend:   a.io.Interrupts.Claim,
		Typed:    s.typed,
	}
	s.banner(notes)
	return s, nil
}

// recordable reports whether the runs folder is git-ignored in the
// repository, which the history and the log need.
func recordable(ctx context.Context, repo string) bool {
	_, err := gitrepo.Run(ctx, repo, "check-ignore", "-q", historyFile)
	return err == nil
}

func shellPrompt(colour bool) string {
	if colour {
		return sgrCopper + "copperhead" + sgrReset + "> "
	}
	return "copperhead> "
}

func (s *session) banner(notes []string) {
	out := s.streams.Out
	fmt.Fprintf(out, "copperhead %s · agent shell · %s\n", version(), s.ws.proj.Rel(s.ws.proj.Schematic))
	for _, n := range notes {
		fmt.Fprintln(out, "-- "+n)
	}
}

func (s *session) run(ctx context.Context, request string) error {
	s.chooseModel(ctx, false)
	fmt.Fprintln(s.streams.Out, "Type a change request, or /help for the commands. Ctrl-D leaves.")
	if request != "" {
		s.typed(request)
		_ = s.shell.Do(ctx, request)
	}
	err := s.shell.Run(ctx)
	if err != nil && ctx.Err() != nil {
		return quietf(ExitFailed, "agent shell: %v", context.Cause(ctx))
	}
	return err
}

func (s *session) close() {
	_ = s.editor.Close()
	for _, m := range s.mirrors {
		m.Close()
	}
	if s.log != nil {
		if err := s.log.Close(); err != nil {
			fmt.Fprintln(s.a.io.Err, "copperhead: "+err.Error())
		}
	}
}

// ask reads the answer to a question (a run's, the picker's) in the line
// editor; the log gets the question and the answer as the screen showed
// them (the editor writes to the terminal itself, past the mirrors).
func (s *session) ask(ctx context.Context, question string) (string, error) {
	ans, err := s.editor.ReadLine(ctx, question)
	if s.log != nil {
		s.log.Line(question + ans)
	}
	return ans, err
}

// typed records a line accepted at the prompt: the history (redacted, also
// what the up arrow brings back) and the log.
func (s *session) typed(line string) {
	if s.log != nil {
		s.log.Line("> " + line)
	}
	if s.history == nil {
		s.editor.AddHistory(line)
		return
	}
	stored, err := s.history.Add(line)
	if err != nil {
		fmt.Fprintln(s.streams.Err, "copperhead: "+err.Error())
	}
	s.editor.AddHistory(stored)
}

// sub runs one copperhead command in the session, exactly as it runs from
// the command line (its output, its one error line), and returns its exit
// code: the shell's commands and change requests are the real commands.
func (s *session) sub(ctx context.Context, args ...string) int {
	global := []string{"--repo", s.ws.repo}
	if s.a.plain {
		global = append(global, "--plain")
	}
	return Main(ctx, append(global, args...), s.streams)
}

// request runs one change request through do, with all of its gates.
func (s *session) request(ctx context.Context, line string) {
	args := []string{"do", line}
	if s.model != "" {
		args = append(args, "--model", s.model)
	}
	if s.allowDirty {
		args = append(args, "--allow-dirty")
	}
	s.sub(ctx, args...)
}

// commands is the slash-command table, in /help's order.
func (s *session) commands() []repl.Command {
	run := func(args ...string) func(context.Context, []string) error {
		return func(ctx context.Context, _ []string) error { s.sub(ctx, args...); return nil }
	}
	return []repl.Command{
		{Name: "help", Help: "list these commands"},
		{Name: "demo", Help: "a tour of what the agent does (demo --tour: no model, nothing written)", Run: run("demo", "--tour")},
		{Name: "examples", Help: "change requests to try", Run: s.examples},
		{Name: "status", Help: "the tools, the config and the session's model (doctor)", Run: s.status},
		{Name: "check", Help: "ERC, DRC, drift, constraints, OpenSpec (check)", Run: run("check")},
		{Name: "parts", Help: "the schematic's parts (parts)", Run: run("parts")},
		{Name: "nets", Help: "the nets and their pins (nets)", Run: run("nets")},
		{Name: "bom", Help: "the BOM table of docs/BOM.md", Run: s.bom},
		{Name: "sync", Help: "every inconsistency in the design state, report only (sync --dry-run)", Run: run("sync", "--dry-run")},
		{Name: "drift", Help: "the drift gate alone: BOM.md and PINOUT.md against the schematic", Run: s.drift},
		{Name: "constraints", Help: "the constraint registry, .copperhead/constraints.json", Run: s.constraints},
		{Name: "openspec", Help: "the OpenSpec changes in progress and the specs", Run: s.openspec},
		{Name: "config", Help: "the configuration in effect (.copperhead/config.json with defaults)", Run: s.config},
		{Name: "git", Help: "the branch, uncommitted changes and the last commits", Run: s.git},
		{Name: "runs", Help: "the recorded runs, newest first", Run: s.runs},
		{Name: "last", Help: "the last run's summary", Run: s.last},
		{Name: "model", Args: "[<model>]", Help: "show the session's model; pick one, or name it (as --model)", Run: s.modelCmd},
		{Name: "version", Help: "copperhead's version", Run: run("--version")},
		{Name: "clear", Help: "clear the screen", Run: s.clear},
		{Name: "quit", Help: "leave the shell (also Ctrl-D)", Run: func(context.Context, []string) error { return repl.ErrQuit }},
	}
}

// exampleRequests are requests the bundled open-telegraph board takes, each
// the kind of change the agent is for.
var exampleRequests = []string{
	"rename net KEY_DAH to KEY_DASH",
	"change R7 to 1M to cut the idle current through the dash pull-up",
	"set the MPN of U4 to AP2112K-3.3TRG1",
	"add a 100nF decoupling capacitor on the 3V3 rail next to U1",
	"lower the sleep-current budget to 20 uA and fix what no longer meets it",
}

func (s *session) examples(context.Context, []string) error {
	fmt.Fprintln(s.streams.Out, "Try, for example (each is one change, committed once it passes every gate):")
	for _, e := range exampleRequests {
		fmt.Fprintln(s.streams.Out, "  "+e)
	}
	return nil
}

func (s *session) status(ctx context.Context, _ []string) error {
	s.sub(ctx, "doctor")
	fmt.Fprintln(s.streams.Out, "model: "+s.describeModel())
	return nil
}

// describeModel says which model the session's requests use and why.
// A model that is selected but cannot run (its key or endpoint missing)
// says so, with the backend's hint, as 'copperhead models' does.
func (s *session) describeModel() string {
	st := settingsFrom(s.model, s.ws.cfg)
	sel, err := llm.Select(st)
	if err != nil {
		return "none: " + textfmt.OneLine(err.Error())
	}
	source := sel.Source
	if s.model != "" {
		source = "this session"
	}
	line := fmt.Sprintf("%s (backend %s, selected by %s)", describeSelection(sel), sel.Backend, source)
	if b, ok := backendStatus(llm.Backends(st), sel.Backend); ok && !b.Ready {
		line += "; not ready: " + textfmt.OneLine(b.Detail)
		if b.Hint != "" {
			line += " (" + b.Hint + ")"
		}
	}
	return line
}

func (s *session) bom(ctx context.Context, _ []string) error {
	bomPath := s.ws.cfg.DocPath("BOM.md")
	data, err := config.ReadRepoFile(s.ws.repo, bomPath)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(s.streams.Out, bomPath+" does not exist yet (copperhead init writes it); the parts:")
		s.sub(ctx, "parts")
		return nil
	}
	if err != nil {
		return config.ReadError(bomPath, err)
	}
	var rows []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "|") {
			rows = append(rows, strings.TrimSpace(line))
		}
	}
	if len(rows) == 0 {
		fmt.Fprintln(s.streams.Out, bomPath+" has no table rows")
		return nil
	}
	for _, r := range rows {
		fmt.Fprintln(s.streams.Out, r)
	}
	return nil
}

func (s *session) drift(ctx context.Context, _ []string) error {
	w, tool, err := s.a.openKiCad(ctx)
	if err != nil {
		return s.plainErr(err)
	}
	sch, err := w.schematic()
	if err != nil {
		return s.plainErr(err)
	}
	nl, err := w.netlist(ctx, tool)
	if err != nil {
		return s.plainErr(err)
	}
	files, err := design.ReadFiles(w.repo, w.cfg)
	if err != nil {
		return err
	}
	rep := design.Drift(files, w.cfg, sch, nl)
	var fs []baselined
	for _, m := range rep.Mismatches {
		fs = append(fs, baselined{message: m.Message})
	}
	printFindings(s.streams.Out, "drift", rep.Clean(), false, fs, "mismatch")
	return nil
}

// plainErr unwraps an exitError for the shell's one line.
func (s *session) plainErr(err error) error {
	var ee *exitError
	if errors.As(err, &ee) && ee.err != nil {
		if ee.hint != "" {
			return fmt.Errorf("%v (%s)", ee.err, ee.hint)
		}
		return ee.err
	}
	return err
}

func (s *session) constraints(context.Context, []string) error {
	data, err := config.ReadRepoFile(s.ws.repo, config.ConstraintsPath)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(s.streams.Out, config.ConstraintsPath+" does not exist yet: no constraints are recorded")
		return nil
	}
	if err != nil {
		return config.ReadError(config.ConstraintsPath, err)
	}
	fmt.Fprintln(s.streams.Out, strings.TrimRight(string(data), "\n"))
	return nil
}

func (s *session) openspec(context.Context, []string) error {
	root := filepath.Join(s.ws.repo, "openspec")
	if _, err := os.Stat(root); err != nil {
		fmt.Fprintln(s.streams.Out, "openspec/ does not exist yet (copperhead init or the first change creates it)")
		return nil
	}
	for _, part := range []struct{ dir, title string }{{"changes", "changes in progress"}, {"specs", "specs"}} {
		names, err := subfolders(filepath.Join(root, part.dir))
		if err != nil {
			return err
		}
		names = removeName(names, "archive")
		if len(names) == 0 {
			fmt.Fprintf(s.streams.Out, "%s: none\n", part.title)
			continue
		}
		fmt.Fprintf(s.streams.Out, "%s: %s\n", part.title, strings.Join(names, ", "))
	}
	archived, err := subfolders(filepath.Join(root, "changes", "archive"))
	if err != nil {
		return err
	}
	fmt.Fprintf(s.streams.Out, "archived changes: %d\n", len(archived))
	return nil
}

func subfolders(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

func removeName(names []string, name string) []string {
	out := names[:0]
	for _, n := range names {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}

func (s *session) config(context.Context, []string) error {
	cfg, found, err := config.LoadConfig(s.ws.repo)
	if err != nil {
		return err
	}
	if !found {
		fmt.Fprintln(s.streams.Out, config.ConfigPath+" does not exist: the defaults are in effect")
		cfg = config.DefaultConfig()
	} else {
		fmt.Fprintln(s.streams.Out, config.ConfigPath+", with the defaults for what it leaves out:")
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the config: %w", err)
	}
	fmt.Fprintln(s.streams.Out, string(data))
	return nil
}

func (s *session) git(ctx context.Context, _ []string) error {
	status, err := gitrepo.Run(ctx, s.ws.repo, "status", "--short", "--branch")
	if err != nil {
		return err
	}
	fmt.Fprintln(s.streams.Out, status)
	log, err := gitrepo.Run(ctx, s.ws.repo, "log", "--oneline", "--no-decorate", "-n", "10")
	if err != nil {
		return err
	}
	fmt.Fprintln(s.streams.Out, log)
	return nil
}

// shownRuns is how many runs /runs lists: a screenful.
const shownRuns = 15

// recordedRuns lists the repository's runs, newest first, saying so when
// there are none.
func (s *session) recordedRuns() ([]transcript.RunInfo, error) {
	list, err := transcript.List(s.ws.repo)
	if err == nil && len(list) == 0 {
		fmt.Fprintln(s.streams.Out, "no runs recorded yet in "+config.RunsDir)
	}
	return list, err
}

func (s *session) runs(context.Context, []string) error {
	list, err := s.recordedRuns()
	if err != nil || len(list) == 0 {
		return err
	}
	tw := tabwriter.NewWriter(s.streams.Out, 0, 4, 2, ' ', 0)
	for _, r := range list[:min(len(list), shownRuns)] {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Started.Local().Format("2006-01-02 15:04"), dash(r.Command), textfmt.Clip(textfmt.OneLine(r.Request), 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(list) > shownRuns {
		fmt.Fprintf(s.streams.Out, "(and %d older)\n", len(list)-shownRuns)
	}
	return nil
}

func (s *session) last(context.Context, []string) error {
	list, err := s.recordedRuns()
	if err != nil || len(list) == 0 {
		return err
	}
	r := list[0]
	data, err := os.ReadFile(filepath.Join(r.Dir, transcript.SummaryFile))
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(s.streams.Out, "run %s (%s) has no summary: it has not ended, or was killed (copperhead recover closes it)\n", r.ID, dash(r.Command))
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the summary of run %s: %w", r.ID, err)
	}
	fmt.Fprintln(s.streams.Out, strings.TrimRight(s.red.String(string(data)), "\n"))
	return nil
}

func (s *session) clear(context.Context, []string) error {
	if s.a.mode() == modeTTY {
		fmt.Fprint(s.a.io.Out, "\x1b[H\x1b[2J")
	}
	return nil
}

// modelCmd is /model: with a name, the session's model (checked as --model
// is); without one, what is selected and the picker.
func (s *session) modelCmd(ctx context.Context, args []string) error {
	if len(args) > 0 {
		spec := strings.Join(args, " ")
		if _, err := llm.Select(settingsFrom(spec, s.ws.cfg)); err != nil {
			return err
		}
		s.model = spec
		fmt.Fprintln(s.streams.Out, "model: "+s.describeModel())
		return nil
	}
	fmt.Fprintln(s.streams.Out, "model: "+s.describeModel())
	s.chooseModel(ctx, true)
	return nil
}

// chooseModel offers the picker of the ready backends: at the start when no
// model is configured anywhere (or the choice is ambiguous), and on /model
// (always).
func (s *session) chooseModel(ctx context.Context, asked bool) {
	out := s.streams.Out
	st := settingsFrom(s.model, s.ws.cfg)
	_, err := llm.Select(st)
	if !asked {
		if err == nil {
			fmt.Fprintln(out, "model: "+s.describeModel())
			return
		}
		if !errors.Is(err, llm.ErrNoModel) && !errors.Is(err, llm.ErrAmbiguousModel) {
			fmt.Fprintln(out, "copperhead: "+textfmt.OneLine(err.Error()))
			return
		}
		fmt.Fprintln(out, "model: none: "+textfmt.OneLine(err.Error()))
	}
	var ready []llm.BackendStatus
	for _, b := range llm.Backends(st) {
		if b.Ready {
			ready = append(ready, b)
		}
	}
	if len(ready) == 0 {
		fmt.Fprintln(out, "no backend is ready to pick ('copperhead models' says what each one needs)")
		return
	}
	fmt.Fprintln(out, "Ready backends:")
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for i, b := range ready {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", i+1, b.Backend, dash(b.DefaultModel), b.Detail)
	}
	_ = tw.Flush()
	ans, err := s.ask(ctx, fmt.Sprintf("Pick one for this session [1-%d, Enter to keep %s]: ", len(ready), s.currentWords()))
	ans = strings.TrimSpace(ans)
	if err != nil || ans == "" {
		return
	}
	n, convErr := strconv.Atoi(ans)
	if convErr != nil || n < 1 || n > len(ready) {
		fmt.Fprintf(out, "copperhead: /model: %q is not one of 1-%d; nothing changed\n", ans, len(ready))
		return
	}
	spec, ok := s.specFor(ctx, ready[n-1])
	if !ok {
		return
	}
	if _, err := llm.Select(settingsFrom(spec, s.ws.cfg)); err != nil {
		fmt.Fprintln(out, "copperhead: /model: "+textfmt.OneLine(err.Error()))
		return
	}
	s.model = spec
	fmt.Fprintln(out, "model: "+s.describeModel()+"; to keep it, set \"model\" in "+config.ConfigPath+" or "+llm.EnvModel)
}

func (s *session) currentWords() string {
	if _, err := llm.Select(settingsFrom(s.model, s.ws.cfg)); err != nil {
		return "none"
	}
	return "the current one"
}

// specFor is the --model spelling of a picked backend; a compatible endpoint
// has no default model, so its id is asked for.
func (s *session) specFor(ctx context.Context, b llm.BackendStatus) (string, bool) {
	switch b.Backend {
	case llm.BackendAnthropic:
		return "claude", true
	case llm.BackendOpenAI:
		return llm.DefaultOpenAIModel, true
	case llm.BackendCompat:
		id, err := s.ask(ctx, "model id at that endpoint: ")
		if id = strings.TrimSpace(id); err != nil || id == "" {
			return "", false
		}
		return llm.BackendCompat + ":" + id, true
	}
	return b.Backend, true
}
