package llm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"copperhead/internal/procgroup"
	"copperhead/internal/redact"
	"copperhead/internal/tempdir"
	"copperhead/internal/textfmt"
)

// The saved-login backends run a coding CLI the engineer is already logged
// in to (Claude Code, Codex, Cursor Agent) as a single-turn reasoner: each
// Chat is one run of the CLI in print mode, in a fresh empty folder (never
// the repository), with its own tools off or read-only, a scrubbed
// environment and a timeout. copperhead reads none of their credential
// stores: the CLI finds its own login, and its own offline status command
// says whether it has one.

// EnvCursorPath names the Cursor Agent CLI when it is not `agent` on PATH.
const EnvCursorPath = "COPPERHEAD_CURSOR_PATH"

// EnvClaudeCodeToken is Claude Code's own long-lived login token; it is the
// one credential passed through to the claude CLI.
const EnvClaudeCodeToken = "CLAUDE_CODE_OAUTH_TOKEN"

// DefaultCLITimeout bounds one saved-login CLI call; the agent's turn
// watchdog bounds the turn, retries included.
const DefaultCLITimeout = 5 * time.Minute

// statusTimeout bounds `--version` and the offline login checks.
const statusTimeout = 10 * time.Second

// maxPromptArg is the largest prompt passed as one argument (cursor): Linux
// refuses a single argument over 128 KiB.
const maxPromptArg = 120 << 10

type loginState int

func (l loginState) String() string {
	switch l {
	case loginYes:
		return "logged-in"
	case loginNo:
		return "logged-out"
	}
	return "unknown"
}

const (
	loginUnknown loginState = iota
	loginYes
	loginNo
)

// savedLogin describes one CLI: how to find it, call it and read it.
type savedLogin struct {
	backend string
	program string   // the executable's name on PATH
	pathEnv string   // a variable naming the executable instead ("" for none)
	install string   // the hint when it is missing
	login   string   // the hint when it is logged out
	ownAuth []string // the CLI's own credential variables, kept in its environment
	// setEnv are variables set for every call (claude: no nonessential
	// traffic, so its status and version checks stay offline).
	setEnv []string
	// promptArg passes the prompt as the last argument instead of on stdin.
	promptArg bool
	// resumes: the CLI keeps a session across calls (--resume), so a later
	// call sends only what the session has not seen.
	resumes bool
	args    func(model, dir, session string) []string
	parse   func(stdout []byte) (cliReply, *Error)
	// status is the argv of the CLI's own offline login check (nil: it has
	// none that makes no network call); readStatus reads its answer.
	status     []string
	readStatus func(out []byte, exitCode int) loginState
}

// cliReply is what one CLI run answered.
type cliReply struct {
	text    string
	usage   Usage
	model   string
	session string
}

var savedLogins = map[string]*savedLogin{
	BackendClaudeCode: claudeCode,
	BackendCodex:      codexCLI,
	BackendCursor:     cursorCLI,
}

func isSavedLogin(backend string) bool { return savedLogins[backend] != nil }

// find locates the CLI: pathEnv when set, else program on the PATH that
// Settings sees.
func (sl *savedLogin) find(s Settings) (string, *Error) {
	if sl.pathEnv != "" {
		if p := s.env(sl.pathEnv); p != "" {
			if !isExecutable(p) {
				return "", &Error{Kind: ErrNotInstalled, Provider: sl.backend,
					Message: fmt.Sprintf("%s names %s, which is not an executable file", sl.pathEnv, p), Hint: sl.install}
			}
			return p, nil
		}
	}
	for _, dir := range filepath.SplitList(s.env("PATH")) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, sl.program); isExecutable(p) {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			return p, nil
		}
	}
	return "", &Error{Kind: ErrNotInstalled, Provider: sl.backend,
		Message: fmt.Sprintf("the %s CLI (%s) is not on PATH", sl.backend, sl.program), Hint: sl.install}
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// scrubbedEnv is the environment a CLI runs with: the process's, less every
// model key and secret-named variable (OPENAI_API_KEY, ANTHROPIC_API_KEY,
// *_KEY, *_TOKEN, *_SECRET, cloud credentials) except the CLI's own login
// variables, and less copperhead's own settings.
func scrubbedEnv(environ []string, keep []string) []string {
	out := []string{}
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if containsFold(keep, name) {
			out = append(out, kv)
			continue
		}
		if redact.IsSecretName(name) || isModelSetting(name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// modelPrefixes are variable families that carry model credentials or
// redirect a model client; a saved-login CLI must use its own login only.
var modelPrefixes = []string{"OPENAI_", "ANTHROPIC_", "AWS_", "AZURE_", "GOOGLE_", "GEMINI_", "VERTEX_",
	"MISTRAL_", "GROQ_", "COHERE_", "HF_", "HUGGING", "OPENROUTER_", "DEEPSEEK_", "XAI_", "COPPERHEAD_"}

func isModelSetting(name string) bool {
	up := strings.ToUpper(name)
	for _, p := range modelPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	return strings.Contains(up, "PASSWORD") || strings.Contains(up, "CREDENTIAL")
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// env is the environment one call of the CLI runs with.
func (sl *savedLogin) env() []string {
	return append(scrubbedEnv(os.Environ(), sl.ownAuth), sl.setEnv...)
}

// cliRun is one finished CLI process.
type cliRun struct {
	stdout, stderr []byte
	exitCode       int
	timedOut       bool
}

// runCLI runs path with args in a new empty folder (tempdir's, so one a
// kill left is pruned by the next command) that is removed afterwards, stdin as its input, the scrubbed environment and a timeout.
// args gets the folder's path (codex --cd, cursor --workspace).
func runCLI(ctx context.Context, path string, env []string, timeout time.Duration, stdin string,
	args func(dir string) []string) (cliRun, error) {
	dir, err := tempdir.Make("cli")
	if err != nil {
		return cliRun{}, fmt.Errorf("create the CLI's empty working folder: %w", err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args(dir)...)
	// Its own group: a timeout ends the node wrapper and the native binary
	// it runs, not the wrapper alone.
	procgroup.Own(cmd)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(stdin)
	stdout, stderr := &procgroup.Capped{Max: 64 << 20}, &procgroup.Capped{Max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()
	r := cliRun{stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.timedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		r.exitCode = -1
		return r, nil
	case errors.As(runErr, &exitErr):
		r.exitCode = exitErr.ExitCode()
	case runErr != nil:
		return r, fmt.Errorf("run %s: %w", path, runErr)
	}
	return r, nil
}

// quoteStderr is a CLI's stderr as an error quotes it: redacted, one line,
// clipped.
func quoteStderr(stderr []byte) string {
	s := textfmt.OneLine(redact.New(os.Environ()).String(strings.ToValidUTF8(string(stderr), "")))
	return textfmt.Clip(s, 300)
}

// cliStatus is what `models` shows for one saved-login backend.
type cliStatus struct {
	path    string
	version string
	login   loginState
	err     *Error // not found
}

// probe finds the CLI and asks it, offline, for its version and login.
func (sl *savedLogin) probe(ctx context.Context, s Settings) cliStatus {
	path, e := sl.find(s)
	if e != nil {
		return cliStatus{err: e}
	}
	st := cliStatus{path: path, login: sl.loginState(ctx, path)}
	r, err := runCLI(ctx, path, sl.env(), statusTimeout, "", func(string) []string { return []string{"--version"} })
	if err == nil && r.exitCode == 0 {
		line, _, _ := strings.Cut(strings.TrimSpace(string(r.stdout)), "\n")
		st.version = textfmt.Clip(strings.TrimSpace(line), 80)
	}
	return st
}

// loginState asks the CLI's own offline status command; loginUnknown when
// it has none or its answer cannot be read.
func (sl *savedLogin) loginState(ctx context.Context, path string) loginState {
	if sl.status == nil {
		return loginUnknown
	}
	r, err := runCLI(ctx, path, sl.env(), statusTimeout, "", func(string) []string { return sl.status })
	if err != nil || r.timedOut {
		return loginUnknown
	}
	return sl.readStatus(append(r.stdout, r.stderr...), r.exitCode)
}

// openSavedLogin builds a saved-login provider after the checks that need
// no network: the CLI is there, and its own status does not say logged out.
func openSavedLogin(sel Selection, s Settings, timeout time.Duration) (Provider, error) {
	sl := savedLogins[sel.Backend]
	path, e := sl.find(s)
	if e != nil {
		return nil, e
	}
	if sl.loginState(context.Background(), path) == loginNo {
		return nil, &Error{Kind: ErrNotLoggedIn, Provider: sl.backend,
			Message: fmt.Sprintf("the %s CLI (%s) is not logged in", sl.backend, path), Hint: sl.login}
	}
	if timeout <= 0 {
		timeout = DefaultCLITimeout
	}
	return &cliProvider{sl: sl, path: path, model: strings.TrimSpace(sel.ModelID), timeout: timeout}, nil
}

// cliProvider is a Provider over one saved-login CLI.
type cliProvider struct {
	sl      *savedLogin
	path    string
	model   string
	timeout time.Duration

	// A resuming CLI's session: its id, how many messages of the
	// conversation it has seen (its own last reply included), a hash of
	// them, and the tools and system prompt it was given.
	session   string
	seen      int
	seenHash  string
	toolsHash string
	sysHash   string
}

func (c *cliProvider) Name() string { return c.sl.backend }

// Model is the model id asked for, or "default": the CLI's own choice.
func (c *cliProvider) Model() string {
	if c.model == "" {
		return "default"
	}
	return c.model
}

func (c *cliProvider) fail(kind ErrorKind, msg string) *Error {
	e := &Error{Kind: kind, Provider: c.sl.backend, Message: msg}
	switch kind {
	case ErrNotLoggedIn, ErrAuth:
		e.Kind, e.Hint = ErrNotLoggedIn, c.sl.login
	case ErrNotInstalled:
		e.Hint = c.sl.install
	case ErrTransient:
		e.Hint = "the " + c.sl.backend + " CLI's answer was not usable; try again, or choose another model with --model"
	}
	return e
}

func (c *cliProvider) Chat(ctx context.Context, msgs []Message, tools []Tool, opts Options) (*Turn, error) {
	toolsHash, sysHash := hashJSON(tools), hashJSON(opts.System)
	prompt, session := "", ""
	if c.sl.resumes && c.session != "" && len(msgs) > c.seen && c.sysHash == sysHash && hashJSON(msgs[:c.seen]) == c.seenHash {
		session = c.session
		prompt = buildDelta(msgs, c.seen, tools, toolsHash != c.toolsHash)
	} else {
		prompt = buildPrompt(msgs, tools, opts)
	}
	stdin := prompt
	if c.sl.promptArg {
		if len(prompt) > maxPromptArg {
			return nil, &Error{Kind: ErrContextTooLong, Provider: c.sl.backend,
				Message: fmt.Sprintf("the prompt is %d KiB; the %s CLI takes it as one argument, at most %d KiB", len(prompt)>>10, c.sl.backend, maxPromptArg>>10),
				Hint:    "choose --model claude-code or --model codex, which read the prompt from stdin"}
		}
		stdin = ""
	}
	r, err := runCLI(ctx, c.path, c.sl.env(), c.timeout, stdin, func(dir string) []string {
		a := c.sl.args(c.model, dir, session)
		if c.sl.promptArg {
			a = append(a, prompt)
		}
		return a
	})
	if err != nil {
		return nil, c.fail(ErrNotInstalled, err.Error())
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if r.timedOut {
		msg := fmt.Sprintf("the %s CLI did not answer within %v", c.sl.backend, c.timeout)
		if q := quoteStderr(r.stderr); q != "" {
			msg += "; its stderr: " + q
		}
		return nil, c.fail(ErrTransient, msg)
	}
	reply, perr := c.sl.parse(r.stdout)
	if perr != nil || r.exitCode != 0 {
		return nil, c.runFailure(r, perr)
	}
	pr, err := parseProtocol(reply.text)
	if err != nil {
		return nil, c.fail(ErrTransient, err.Error())
	}
	t := &Turn{Text: pr.Text, Usage: reply.usage, Model: reply.model, Stop: StopEnd}
	if t.Model == "" {
		t.Model = c.Model()
	}
	for i, call := range pr.ToolCalls {
		call.ID = fmt.Sprintf("call_%d_%d", len(msgs), i+1)
		t.ToolCalls = append(t.ToolCalls, call)
	}
	if len(t.ToolCalls) > 0 {
		t.Stop = StopToolUse
	}
	if c.sl.resumes && reply.session != "" {
		seen := append(msgs[:len(msgs):len(msgs)], t.Message())
		c.session, c.seen, c.seenHash = reply.session, len(seen), hashJSON(seen)
		c.toolsHash, c.sysHash = toolsHash, sysHash
	}
	return t, nil
}

// runFailure is the error for a run that exited non-zero or whose output
// could not be read: the parser's own reading when it has one, else the
// stderr, classified as a login problem when it says so.
func (c *cliProvider) runFailure(r cliRun, perr *Error) *Error {
	stderr := quoteStderr(r.stderr)
	if perr != nil && perr.Kind != ErrTransient {
		return perr
	}
	msg := fmt.Sprintf("the %s CLI exited with status %d", c.sl.backend, r.exitCode)
	switch {
	case perr != nil && r.exitCode == 0:
		msg = perr.Message
	case perr != nil && len(bytes.TrimSpace(r.stdout)) > 0:
		msg += ": " + perr.Message
	}
	if stderr != "" {
		msg += "; its stderr: " + stderr
	}
	if saysLoggedOut(msg) {
		return c.fail(ErrNotLoggedIn, msg)
	}
	return c.fail(ErrTransient, msg)
}

// saysLoggedOut reports whether a CLI's own words are about its login.
func saysLoggedOut(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"not logged in", "log in", "login", "/login", "not authenticated", "authentication", "unauthorized", "invalid api key", "expired token", "token expired"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

func hashJSON(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// savedLoginStatus is a saved-login backend's row in Backends.
func savedLoginStatus(backend string, s Settings) BackendStatus {
	sl := savedLogins[backend]
	st := BackendStatus{Backend: backend}
	ctx, cancel := context.WithTimeout(context.Background(), 2*statusTimeout)
	defer cancel()
	p := sl.probe(ctx, s)
	if p.err != nil {
		st.Detail, st.Hint = p.err.Message, p.err.Hint
		return st
	}
	st.Path, st.Version, st.Login = p.path, p.version, p.login.String()
	detail := sl.program + " at " + p.path
	if sl.pathEnv != "" && s.env(sl.pathEnv) != "" {
		detail = sl.pathEnv + " " + p.path
	}
	if p.version != "" {
		detail += ", " + p.version
	} else {
		detail += ", version unknown"
	}
	switch p.login {
	case loginYes:
		st.Ready, detail = true, detail+", logged in"
	case loginNo:
		detail += ", not logged in"
		st.Hint = sl.login
	default:
		st.Ready, detail = true, detail+", login state unknown"
		st.Hint = "if a run says it is not logged in: " + sl.login
	}
	st.Detail = detail
	return st
}
