package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/spf13/cobra"

	"copperhead/internal/redact"
	"copperhead/internal/textfmt"
)

// IO is the set of streams a command talks to.
type IO struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	OutTTY bool // Out is a terminal: colour and redrawn status lines are allowed
	// Interrupts routes SIGINT to the agent shell's current step when it
	// claims it (main sets it; nil: a signal only cancels the context).
	Interrupts *Interrupts
	// Lines, when set, reads a person's answer after a prompt: the agent
	// shell's line editor, so a run's questions (more turns? apply?) share
	// the shell's terminal instead of a second reader of In.
	Lines func(ctx context.Context, prompt string) (string, error)
}

// StdIO returns the process's own streams.
func StdIO() IO {
	tty := false
	if fi, err := os.Stdout.Stat(); err == nil {
		tty = fi.Mode()&os.ModeCharDevice != 0
	}
	return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, OutTTY: tty}
}

// app is what every command shares: the streams and the global flags.
type app struct {
	io    IO
	repo  string
	json  bool
	plain bool
	// helpErr is a usage error found while showing help (an unknown
	// subcommand before --help), which cobra cannot return.
	helpErr error
}

// mode is how results are rendered.
type mode int

const (
	modeTTY mode = iota
	modePlain
	modeJSON
)

func (a *app) mode() mode {
	switch {
	case a.json:
		return modeJSON
	case a.plain || !a.io.OutTTY:
		return modePlain
	}
	return modeTTY
}

// repoDir is the absolute repository folder named by --repo.
func (a *app) repoDir() (string, error) {
	dir, err := filepath.Abs(a.repo)
	if err != nil {
		return "", usagef("--repo %s: %v", a.repo, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", usagef("--repo %s: %v", a.repo, errors.Unwrap(err))
	}
	if !fi.IsDir() {
		return "", usagef("--repo %s: not a folder", a.repo)
	}
	if err := a.recoverJournal(context.Background(), dir); err != nil {
		return "", err
	}
	a.pruneScratch(context.Background(), dir)
	return dir, nil
}

// Version is set at link time (-ldflags "-X copperhead/internal/cli.Version=v1.2.3");
// otherwise it is derived from the build's VCS stamp.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	v := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		var rev, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if rev != "" {
			v += " " + rev[:min(12, len(rev))] + dirty
		}
	}
	return v
}

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "copperhead",
		Short: "An AI co-designer for KiCad repositories",
		Long: `copperhead keeps a KiCad repository's design docs (SPEC, BOM, PINOUT,
SUBSYSTEMS, LAYOUT) true to its schematic and checks the design in CI
with KiCad's own ERC and DRC.`,
		Version:           version(),
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetVersionTemplate(versionTemplate)
	pf := root.PersistentFlags()
	pf.StringVar(&a.repo, "repo", ".", "the repository `folder` to work on")
	pf.BoolVar(&a.json, "json", false, "print machine-readable JSON on stdout")
	pf.BoolVar(&a.plain, "plain", false, "line-oriented output with no colour or redrawing")
	pf.Bool("version", false, "print the version and exit")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return withHint(usagef("%v", err), "see '"+c.CommandPath()+" --help'")
	})
	root.AddCommand(
		newInitCmd(a),
		newCheckCmd(a),
		newDoctorCmd(a),
		newPartsCmd(a),
		newDatasheetCmd(a),
		newNetsCmd(a),
		newModelsCmd(a),
		newSyncCmd(a),
		newExplainCmd(a),
		newDoCmd(a),
		newEditCmd(a),
		newDraftCmd(a),
		newCreateCmd(a),
		newDemoCmd(a),
		newOutputsCmd(a),
		newExportCmd(a),
		newFirmwareCmd(a),
		newRecoverCmd(a),
		newDiffCmd(a),
		newMCPCmd(a),
		newWatchCmd(a),
		newReplCmd(a),
	)
	defaultToRepl(root, a)
	wireContract(root, a)
	rootArgs(root)
	return root
}

// Main runs copperhead with args and returns the process exit code. It never
// panics outward: a panic is a bug, reported as one line with exit 2.
func Main(ctx context.Context, args []string, streams IO) (code int) {
	// stderr carries errors and progress, which can quote a provider's or a
	// tool's words: it is redacted like every other surface.
	red := redact.New(os.Environ())
	errW := red.Writer(streams.Err)
	defer errW.Flush()
	streams.Err = errW
	a := &app{io: streams}
	wantJSON := argsWantJSON(args)
	stdout := &jsonStdout{w: streams.Out, on: func() bool { return a.json || wantJSON }}
	a.io.Out = stdout
	var msg, hint string
	defer func() { _ = stdout.finish(code, red.String(msg), red.String(hint)) }()
	defer func() {
		if r := recover(); r != nil {
			msg, hint = fmt.Sprintf("internal error: %v", r), "please report this"
			fmt.Fprintf(streams.Err, "copperhead: %s (%s)\n", msg, hint)
			code = ExitUsage
		}
	}()
	root := newRoot(a)
	root.SetArgs(args)
	root.SetIn(streams.In)
	root.SetOut(a.io.Out)
	root.SetErr(streams.Err)
	err := root.ExecuteContext(ctx)
	if err == nil {
		err = a.helpErr
	}
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		ee = &exitError{code: ExitFailed, err: err}
	}
	if ee.err != nil {
		msg, hint = textfmt.OneLine(ee.err.Error()), ee.hint
		if !ee.quiet {
			line := "copperhead: " + msg
			if hint != "" {
				line += " (" + hint + ")"
			}
			fmt.Fprintln(streams.Err, line)
		}
	}
	return ee.code
}

// groupCmd is a command that only groups its subcommands.
func groupCmd(use, short string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short}
	cmd.AddCommand(subs...)
	return cmd
}

// noArgs rejects positional arguments as a usage error (exit 2).
func noArgs(cmd *cobra.Command, args []string) error {
	if err := cobra.NoArgs(cmd, args); err != nil {
		return withHint(usagef("%v", err), "see '"+cmd.CommandPath()+" --help'")
	}
	return nil
}
