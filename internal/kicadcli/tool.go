package kicadcli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"copperhead/internal/procgroup"
	"copperhead/internal/tempdir"
	"copperhead/internal/textfmt"
)

// DefaultTimeout bounds one kicad-cli run when Tool.Timeout is zero. It exists
// to end a hung kicad-cli, not to pace a slow one: DRC of the vme-wren demo
// (a 69 MB board) takes minutes on two shared cores.
const DefaultTimeout = 20 * time.Minute

// versionTimeout bounds `kicad-cli version`, which only starts the program
// (about 0.3 s when warm).
const versionTimeout = time.Minute

// minMajor is the oldest KiCad we accept. Our readers target KiCad 9 file
// formats and report shapes, and an older kicad-cli cannot load a file saved
// by KiCad 9 at all.
const minMajor = 9

// maxQuoted caps how much of kicad-cli's own output an error quotes, so a
// chatty failure still fits the CLI's one-line error.
const maxQuoted = 1000

// waitDelay is how long Wait waits for kicad-cli's output pipes to close once
// its process group has been killed.
const waitDelay = 5 * time.Second

// ErrUnavailable is wrapped by the errors Find returns when no usable
// kicad-cli exists (missing, or older than KiCad 9), so a caller can tell
// "the machine is not set up" from a failed check.
var ErrUnavailable = errors.New("kicad-cli unavailable")

// unavailableError keeps Find's message exactly as written while still
// matching errors.Is(err, ErrUnavailable).
type unavailableError struct{ msg string }

func (e *unavailableError) Error() string { return e.msg }
func (e *unavailableError) Unwrap() error { return ErrUnavailable }

// Tool runs one kicad-cli binary. Find returns a Tool ready to use; set the
// exported fields before the first call. A Tool is safe for concurrent use
// (check runs ERC and DRC at the same time).
type Tool struct {
	// Path is the kicad-cli binary, absolute.
	Path string
	// Timeout bounds each kicad-cli run; zero means DefaultTimeout. The
	// caller's context can end a run sooner.
	Timeout time.Duration
	// CacheDir holds cached results (see cache.go); "" disables the cache.
	CacheDir string
	// NoCache bypasses cached results: kicad-cli always runs, and its fresh
	// result replaces the cached one.
	NoCache bool
	// Boundary, when set, is the folder (the repository) whose designs stay
	// inside it: for an input inside Boundary, every design file of the run
	// (sheets, board, project and rules files; not libraries) must resolve
	// inside it too, so a sheet file the schematic names outside it, or a
	// project file linked out of it, is refused before kicad-cli runs. An
	// input outside Boundary (copperhead's scratch copy of an edit) is not
	// confined. Inputs that are not regular files (a named pipe) are refused
	// always.
	Boundary string

	version string // as kicad-cli printed it, e.g. "9.0.8"
	env     kicadEnv
	inputs  *inputMemo // input sets shared by the runs of one check (SharingInputs); nil: none
	yield   bool       // its kicad-cli runs yield the CPU (Yielding)
}

// Yielding returns a copy of t whose kicad-cli runs yield the CPU to those
// at normal priority (procgroup.Yield): for a run beside a longer one (ERC
// beside DRC, which is multithreaded and otherwise loses cores to it), so
// the longer run is not slowed and the shorter fills the cores it leaves
// idle.
func (t *Tool) Yielding() *Tool {
	c := *t
	c.yield = true
	return &c
}

// Find locates kicad-cli (COPPERHEAD_KICAD_CLI, else kicad-cli on PATH), asks
// it for its version (remembered per binary in the cache folder: see
// version.go) and refuses one older than KiCad 9. It also prepares the
// private KiCad environment every later run gets (see env.go).
func Find(ctx context.Context) (*Tool, error) {
	path, err := locate()
	if err != nil {
		return nil, err
	}
	t := &Tool{Path: path}
	t.CacheDir = defaultCacheDir()
	stdout, out, err := t.askVersion(ctx)
	if err != nil {
		return nil, err
	}
	v, major, minor, ok := parseVersion(stdout)
	if !ok {
		return nil, &unavailableError{fmt.Sprintf("kicad-cli at %s: cannot read a version from %s",
			path, quoteOutput(out.stdout, out.stderr))}
	}
	if major < minMajor {
		return nil, &unavailableError{fmt.Sprintf("kicad-cli %s at %s is too old: copperhead needs KiCad %d or newer",
			v, path, minMajor)}
	}
	t.version = v
	t.env = newKicadEnv(path, major, minor)
	return t, nil
}

// Version is the version kicad-cli reported, e.g. "9.0.8".
func (t *Tool) Version() string { return t.version }

// locate finds the kicad-cli binary to run.
func locate() (string, error) {
	if p := os.Getenv("COPPERHEAD_KICAD_CLI"); p != "" {
		found, err := exec.LookPath(p)
		if err != nil {
			return "", &unavailableError{fmt.Sprintf(
				"kicad-cli not found at %s (set by COPPERHEAD_KICAD_CLI): run scripts/setup.sh, or point COPPERHEAD_KICAD_CLI at kicad-cli", p)}
		}
		return filepath.Abs(found)
	}
	found, err := exec.LookPath("kicad-cli")
	if err != nil {
		return "", &unavailableError{
			"kicad-cli not found on PATH: run scripts/setup.sh to install KiCad 9, or set COPPERHEAD_KICAD_CLI to its path"}
	}
	return filepath.Abs(found)
}

// versionRE finds "major.minor[.patch]" in `kicad-cli version` output, which
// is "9.0.8" on release builds and may carry a distribution suffix
// ("9.0.8-1", "9.99.0-1234-g0123abcd").
var versionRE = regexp.MustCompile(`(\d+)\.(\d+)(?:\.\d+)?`)

// parseVersion reads the first line of `kicad-cli version` output.
func parseVersion(out []byte) (v string, major, minor int, ok bool) {
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	line = strings.TrimSpace(line)
	m := versionRE.FindStringSubmatch(line)
	if m == nil {
		return "", 0, 0, false
	}
	major, err1 := strconv.Atoi(m[1])
	minor, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil {
		return "", 0, 0, false
	}
	return line, major, minor, true
}

// output is what kicad-cli printed during one run.
type output struct{ stdout, stderr []byte }

// execute runs kicad-cli once with args and returns what it printed; label
// names the run in errors ("/usr/bin/kicad-cli version").
func (t *Tool) execute(ctx context.Context, timeout time.Duration, label string, args ...string) (output, error) {
	out, _, err := t.executeFile(ctx, timeout, label, "", nil, args...)
	return out, err
}

// outPlaceholder marks where the output path goes in an argument list.
const outPlaceholder = "\x00out"

// executeFile runs kicad-cli once in a fresh run folder (newRunFolder). When
// outName is set, the argument outPlaceholder is replaced by a path in the
// run folder named outName, and the file kicad-cli writes there is returned;
// a run that writes none is an error; with e, the file is parsed early
// (early.go). label names the run in errors ("kicad-cli sch erc
// hardware/x.kicad_sch").
func (t *Tool) executeFile(ctx context.Context, timeout time.Duration, label, outName string, e *early, args ...string) (output, []byte, error) {
	dir, env, err := t.newRunFolder(label)
	if err != nil {
		return output{}, nil, err
	}
	defer os.RemoveAll(dir)
	outPath := filepath.Join(dir, "out", outName)
	if outName != "" {
		if err := os.Mkdir(filepath.Dir(outPath), 0o755); err != nil {
			return output{}, nil, fmt.Errorf("%s: %w", label, err)
		}
	}
	argv := make([]string, len(args))
	for i, a := range args {
		if a == outPlaceholder {
			a = outPath
		}
		argv[i] = a
	}
	var whole []<-chan struct{}
	if e != nil && outName != "" {
		defer watchClosed(filepath.Dir(outPath), map[string]func(string){outName: e.closed})()
		whole = []<-chan struct{}{e.whole()}
	}
	out, err := runGroup(ctx, timeout, t.yield, label, dir, env, whole, t.Path, argv...)
	if err != nil || outName == "" {
		return out, nil, err
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		// kicad-cli 9 exits 0 after "Saved ... Report" even when it wrote nothing.
		return out, nil, fmt.Errorf("%s: kicad-cli wrote no output (it probably could not load the file): %s",
			label, quoteOutput(out.stdout, out.stderr))
	}
	return out, data, nil
}

// newRunFolder makes the fresh temporary folder one kicad-cli run works in
// (its working directory, HOME when unset, and private KiCad config) and
// returns it with the run's environment. The caller removes it.
func (t *Tool) newRunFolder(label string) (string, []string, error) {
	dir, err := tempdir.Make("kicad-cli")
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", label, err)
	}
	env, err := t.env.prepare(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("%s: prepare private KiCad config: %w", label, err)
	}
	return dir, env, nil
}

// runGroup runs a program (kicad-cli, or the Python of the zone filler) in
// dir with env (nil: ours), in its own process group, bounded by timeout
// (zero: DefaultTimeout): on timeout or cancellation the whole group is
// killed, so no child outlives the run. With yield it yields the CPU
// (Yielding). When every channel of whole is closed (each output written
// and parsed, early.go) before the program exits, the run is done: the
// group is killed rather than waited for, and the run succeeds. It returns
// what the program printed; errors quote it.
func runGroup(ctx context.Context, timeout time.Duration, yield bool, label, dir string, env []string, whole []<-chan struct{}, name string, args ...string) (output, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = env
	}
	procgroup.Own(cmd)
	cmd.WaitDelay = waitDelay
	stdout, stderr := &procgroup.Capped{Max: maxCaptured}, &procgroup.Capped{Max: maxCaptured}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	runErr := procgroup.Start(cmd, yield)
	if runErr == nil {
		runErr = waitOrEnd(cmd, whole)
	}
	out := output{stdout: stdout.Bytes(), stderr: stderr.Bytes()}

	if ctxErr := runCtx.Err(); ctxErr != nil {
		said := quoteOutput(out.stdout, out.stderr)
		if ctx.Err() == nil && errors.Is(ctxErr, context.DeadlineExceeded) {
			return out, fmt.Errorf("%s: timed out after %s and was killed: %s: %w", label, timeout, said, ctxErr)
		}
		if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
			// "interrupt signal received": say why the program was stopped.
			return out, fmt.Errorf("%s: stopped (%v): %w: %s", label, cause, ctx.Err(), said)
		}
		return out, fmt.Errorf("%s: %w: %s", label, ctx.Err(), said)
	}
	if runErr != nil {
		var exitErr *exec.ExitError
		if errors.As(runErr, &exitErr) {
			return out, fmt.Errorf("%s: %v: %s", label, exitErr, quoteOutput(out.stdout, out.stderr))
		}
		return out, fmt.Errorf("%s: %w", label, runErr)
	}
	return out, nil
}

// waitOrEnd waits for cmd, or, when it is still running once every channel
// of whole (none: never) is closed, ends its process group and reports
// success: what is left of the run is kicad-cli ending, not its result.
func waitOrEnd(cmd *exec.Cmd, whole []<-chan struct{}) error {
	if len(whole) == 0 {
		return cmd.Wait()
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for _, ch := range whole {
		select {
		case err := <-exited:
			return err
		case <-ch:
		}
	}
	select {
	case err := <-exited: // it ended on its own meanwhile
		return err
	default:
	}
	if cmd.Cancel() != nil { // procgroup.Own's: SIGKILL to the group
		return <-exited
	}
	err := <-exited
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return nil // our kill
		}
	}
	return err
}

// quoteOutput renders what kicad-cli said, stderr first, as one quoted line
// ("Failed to load schematic"), capped at maxQuoted bytes.
func quoteOutput(stdout, stderr []byte) string {
	s := textfmt.JoinLines(string(stderr)+"\n"+string(stdout), "; ")
	if s == "" {
		return "(kicad-cli printed nothing)"
	}
	return strconv.Quote(textfmt.ClipBytes(s, maxQuoted))
}

// maxCaptured caps each captured stream; kicad-cli prints a few lines, so
// this only guards against a runaway child.
const maxCaptured = 1 << 20
