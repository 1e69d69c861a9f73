package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"copperhead/internal/config"
	"copperhead/internal/gitrepo"
	"copperhead/internal/kicadcli"
	"copperhead/internal/runmeta"
	"copperhead/internal/testkit"
	"copperhead/internal/tools/toolstest"
	"copperhead/internal/transcript"
)

func TestMain(m *testing.M) { testkit.MainWithPrivateKiCad(m, "mcpserver-test-") }

// offlineProbes keep the run-start metadata off the tools.
var offlineProbes = runmeta.Probes{
	KicadCLIVersion: func(context.Context) (string, error) { return "", errors.New("offline") },
	NodeVersion:     func(context.Context) (string, error) { return "", errors.New("offline") },
	Executable:      func() (string, error) { return "", errors.New("offline") },
	Git:             gitrepo.Run,
}

// mutatingNames are the tools the spec gate withholds (tools.All's
// Mutating ones).
var mutatingNames = []string{"edit_file", "write_file", "record_constraint", "resolve_affected", "rename_net", "set_field",
	"swap_pins", "add_part", "remove_part", "connect_pin", "disconnect_pin", "no_connect_pin", "draft_schematic", "record_decision"}

// fixture is a git repository holding the bundled open-telegraph board,
// one commit, with a fixed identity for the commits the tests make.
type fixture struct {
	t      *testing.T
	repo   string
	head   string
	before map[string]string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	testkit.GitIdentity(t)
	f := &fixture{t: t, repo: toolstest.CopyFixture(t)}
	f.git("init", "-q", "-b", "main")
	f.git("add", "-A")
	f.git("commit", "-q", "-m", "fixture")
	f.head = f.git("rev-parse", "HEAD")
	var err error
	if f.before, err = gitrepo.TreeHashes(context.Background(), f.repo); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = f.repo
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// assertUnchanged: the tree is byte for byte the fixture's commit, and HEAD
// has not moved.
func (f *fixture) assertUnchanged() {
	f.t.Helper()
	after, err := gitrepo.TreeHashes(context.Background(), f.repo)
	if err != nil {
		f.t.Fatal(err)
	}
	// The run records live in the git-ignored runs folder.
	maps.DeleteFunc(after, func(p, _ string) bool { return strings.HasPrefix(p, config.RunsDir) })
	if d := testkit.DiffTrees(f.before, after); len(d) > 0 {
		f.t.Errorf("tree changed:\n%s", strings.Join(d, "\n"))
	}
	if h := f.git("rev-parse", "HEAD"); h != f.head {
		f.t.Errorf("HEAD moved from %s to %s", f.head, h)
	}
}

// server is a Server on f with the real kicad-cli (skipping without it).
func (f *fixture) server(needOpenSpec bool) *Server {
	f.t.Helper()
	testkit.NeedKiCadCLI(f.t)
	if needOpenSpec {
		if _, err := exec.LookPath("openspec"); err != nil {
			f.t.Skip("openspec not installed")
		}
	}
	kc, err := kicadcli.Find(context.Background())
	if err != nil {
		f.t.Skip(err)
	}
	kc.Boundary = f.repo
	cfg, proj := toolstest.Locate(f.t, f.repo)
	return New(Options{Repo: f.repo, Config: cfg, Project: proj, KiCad: kc, Version: "test", Probes: &offlineProbes})
}

// client is an SDK client connected to srv in memory; listChanged receives
// one value per notifications/tools/list_changed.
type client struct {
	t           *testing.T
	cs          *mcp.ClientSession
	listChanged chan struct{}
}

func connect(t *testing.T, srv *Server, version string) *client {
	t.Helper()
	ctx := context.Background()
	c := &client{t: t, listChanged: make(chan struct{}, 16)}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cl := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { c.listChanged <- struct{}{} },
	})
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	if c.cs, err = cl.Connect(ctx, ct, opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.cs.Close() })
	return c
}

func (c *client) tools() []string {
	c.t.Helper()
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		c.t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// call calls tool name with args (a JSON object) and returns its text and
// structured result.
func (c *client) call(name, args string) (string, SessionResult, bool) {
	c.t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		c.t.Fatalf("call %s: %v", name, err)
	}
	var text []string
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	var sr SessionResult
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &sr)
	}
	return strings.Join(text, "\n"), sr, res.IsError
}

// mustCall is call that fails the test on an error result.
func (c *client) mustCall(name, args string) (string, SessionResult) {
	c.t.Helper()
	text, sr, isErr := c.call(name, args)
	if isErr {
		c.t.Fatalf("%s refused: %s", name, text)
	}
	return text, sr
}

// waitListChanged waits for one tools/list_changed notification (the
// test's own deadline bounds it).
func (c *client) waitListChanged() {
	c.t.Helper()
	<-c.listChanged
}

const proposal = `{"id":"rename-key-dah","why":"The dah paddle net should read KEY_DASH, matching the operator manual.",` +
	`"what_changes":"- Rename net KEY_DAH to KEY_DASH in the schematic\n- Update PINOUT.md",` +
	`"tasks":["Rename the global labels","Update PINOUT.md","Run ERC and the drift check"],` +
	`"deltas":[{"capability":"connectivity","kind":"ADDED","requirements":[{"name":"Dash key net name",` +
	`"text":"The dah paddle input SHALL be carried on a net named KEY_DASH.",` +
	`"scenarios":[{"name":"Dah paddle closed","when":"the dah paddle closes","then":"U1 pin 5 sees KEY_DASH pulled low"}]}]}]}`

// validated proposes and validates the rename, waiting for the tool list
// to change.
func (c *client) validated() {
	c.t.Helper()
	c.mustCall("propose_change", proposal)
	if text, sr := c.mustCall("validate_change", `{}`); sr.Session == nil || !sr.Session.Validated {
		c.t.Fatalf("validate_change did not validate: %s", text)
	}
	c.waitListChanged()
}

// TestInitialize: both handshakes (the legacy initialize and the current
// revision's discover) reach copperhead, with tool list changes announced.
func TestInitialize(t *testing.T) {
	f := newFixture(t)
	srv := f.server(false)
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("version="+version, func(t *testing.T) {
			c := connect(t, srv, version)
			init := c.cs.InitializeResult()
			if init.ServerInfo == nil || init.ServerInfo.Name != "copperhead" {
				t.Errorf("server info %+v", init.ServerInfo)
			}
			if init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged {
				t.Errorf("tools capability %+v: want listChanged", init.Capabilities.Tools)
			}
			if version != "" && init.ProtocolVersion != version {
				t.Errorf("protocol %s, want %s", init.ProtocolVersion, version)
			}
			if !strings.Contains(init.Instructions, "validate_change") {
				t.Errorf("instructions do not say how the gates apply: %q", init.Instructions)
			}
		})
	}
}

// TestToolListFollowsTheSpecGate: the mutating tools are absent from
// tools/list until the proposal validates, present after (with
// list_changed), and gone again when the session ends.
// Both protocol generations hear of it: the legacy session channel
// (2025-11-25) and the current revision's subscriptions/listen.
func TestToolListFollowsTheSpecGate(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("version="+version, func(t *testing.T) { toolListFollowsTheSpecGate(t, version) })
	}
}

func toolListFollowsTheSpecGate(t *testing.T, version string) {
	f := newFixture(t)
	c := connect(t, f.server(true), version)
	before := c.tools()
	for _, want := range []string{"propose_change", "validate_change", "finish", "run_erc", "run_drc", "check_drift", "read_file", "search_symbols", "symbol_pins"} {
		if !slices.Contains(before, want) {
			t.Errorf("tools/list lacks %s before the proposal: %v", want, before)
		}
	}
	for _, m := range mutatingNames {
		if slices.Contains(before, m) {
			t.Errorf("tools/list offers %s before the proposal validates", m)
		}
	}
	c.validated()
	after := c.tools()
	for _, m := range mutatingNames {
		if !slices.Contains(after, m) {
			t.Errorf("tools/list lacks %s after validation: %v", m, after)
		}
	}
	c.mustCall("finish", `{"outcome":"refuse","summary":"test: refused after validating"}`)
	c.waitListChanged()
	for _, m := range mutatingNames {
		if slices.Contains(c.tools(), m) {
			t.Errorf("tools/list still offers %s after the session ended", m)
		}
	}
	f.assertUnchanged()
}

// TestRenameSession: a full change session on the fixture, the client as
// the reasoner: propose, validate, rename_net, ERC, drift, a decision,
// finish(done), ending in one commit with the run on record.
func TestRenameSession(t *testing.T) {
	f := newFixture(t)
	c := connect(t, f.server(true), "")
	c.validated()
	// finish(done) before the checks is refused, exactly like the loop.
	c.mustCall("rename_net", `{"old":"KEY_DAH","new":"KEY_DASH"}`)
	if text, _, isErr := c.call("finish", `{"outcome":"done","summary":"early"}`); !isErr || !strings.Contains(text, "run_erc") {
		t.Errorf("finish(done) before ERC: error=%v %s", isErr, text)
	}
	c.mustCall("run_erc", `{}`)
	c.mustCall("run_drc", `{}`)
	c.mustCall("check_drift", `{}`)
	c.mustCall("record_decision", `{"decision":"KEY_DAH is renamed KEY_DASH","rationale":"matches the operator manual","affects":["KEY_DASH"]}`)
	text, sr := c.mustCall("finish", `{"outcome":"done","summary":"Renamed net KEY_DAH to KEY_DASH; ERC clean, drift clean."}`)
	if sr.Ended == nil || sr.Ended.ExitPath != string(transcript.ExitDone) || sr.Ended.Commit == "" {
		t.Fatalf("session did not end done with a commit: %+v\n%s", sr.Ended, text)
	}
	if parent := f.git("rev-parse", "HEAD~1"); parent != f.head || f.git("rev-parse", "HEAD") != sr.Ended.Commit {
		t.Errorf("not exactly one commit on top of the fixture")
	}
	if st := f.git("status", "--porcelain"); st != "" {
		t.Errorf("tree not clean after the commit:\n%s", st)
	}
	files := f.git("show", "--name-only", "--format=", "HEAD")
	for _, want := range []string{"hardware/open-telegraph.kicad_sch", "docs/DECISIONS.md", "docs/CHANGELOG.md", "openspec/changes/archive/"} {
		if !strings.Contains(files, want) {
			t.Errorf("commit lacks %s:\n%s", want, files)
		}
	}
	if msg := f.git("log", "-1", "--format=%B"); !strings.HasPrefix(msg, "copperhead mcp: rename-key-dah\n") || !strings.Contains(msg, "Verification: ERC passed") {
		t.Errorf("commit message:\n%s", msg)
	}
	if refs := f.git("for-each-ref", gitrepo.RunRefPrefix); refs != "" {
		t.Errorf("run ref left after the session ended: %s", refs)
	}
	// The run is on record: the client as its model, each call a tool event.
	evs, err := transcript.Read(filepath.Join(f.repo, filepath.Dir(sr.Ended.Transcript)))
	if err != nil {
		t.Fatal(err)
	}
	var start transcript.RunStart
	if len(evs) == 0 || evs[0].Decode(&start) != nil || start.Model != "test-client 1.0" || start.Provider != "mcp-client" {
		t.Errorf("run-start %+v: want the MCP client as the model", start)
	}
	var called []string
	for _, e := range evs {
		if e.Type == transcript.TypeTool {
			var te transcript.ToolEvent
			_ = e.Decode(&te)
			called = append(called, te.Name)
		}
	}
	want := []string{"propose_change", "validate_change", "rename_net", "finish", "run_erc", "run_drc", "check_drift", "record_decision", "finish"}
	if !slices.Equal(called, want) {
		t.Errorf("tool events %v, want %v", called, want)
	}
	if evs[len(evs)-1].Type != transcript.TypeRunEnd {
		t.Errorf("transcript does not end with the run-end")
	}
}

// TestRefusedSessionRestored: a session that edited and then refused leaves
// the tree byte for byte as it was, the work in a "refused run" stash.
func TestRefusedSessionRestored(t *testing.T) {
	f := newFixture(t)
	c := connect(t, f.server(true), "")
	c.validated()
	c.mustCall("edit_file", `{"path":"docs/PINOUT.md","old_string":"| U1 | 5 | IO5 | KEY_DAH |","new_string":"| U1 | 5 | IO5 | KEY_DASH |"}`)
	c.mustCall("rename_net", `{"old":"KEY_DAH","new":"KEY_DASH"}`)
	_, sr := c.mustCall("finish", `{"outcome":"refuse","summary":"test: the change would break the pinout"}`)
	if sr.Ended == nil || sr.Ended.ExitPath != string(transcript.ExitRefused) || sr.Ended.Commit != "" {
		t.Fatalf("ended %+v, want refused without a commit", sr.Ended)
	}
	f.assertUnchanged()
	if l := f.git("stash", "list"); !strings.Contains(l, "copperhead refused run") {
		t.Errorf("stash list %q, want the refused run's entry", l)
	}
}

// TestEditBeforeValidationRefused: a mutating tool called before the
// proposal validates is refused by the spec gate, outside a session and
// inside one, and nothing changes.
func TestEditBeforeValidationRefused(t *testing.T) {
	f := newFixture(t)
	c := connect(t, f.server(true), "")
	edit := `{"path":"docs/PINOUT.md","old_string":"| U1 | 5 | IO5 | KEY_DAH |","new_string":"| U1 | 5 | IO5 | KEY_DASH |"}`
	text, _, isErr := c.call("edit_file", edit)
	if !isErr || !strings.Contains(text, "locked until validate_change passes") {
		t.Errorf("edit_file before any proposal: error=%v %q", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(f.repo, config.RunsDir)); err == nil {
		t.Errorf("a refused call outside a session started a run")
	}
	c.mustCall("propose_change", proposal)
	text, sr, isErr := c.call("edit_file", edit)
	if !isErr || !strings.Contains(text, "locked") || sr.Session == nil || sr.Session.Validated {
		t.Errorf("edit_file after the proposal, before validation: error=%v %q %+v", isErr, text, sr.Session)
	}
	if b, _ := os.ReadFile(filepath.Join(f.repo, "docs", "PINOUT.md")); !strings.Contains(string(b), "| U1 | 5 | IO5 | KEY_DAH |") {
		t.Errorf("PINOUT.md changed by a refused edit")
	}
	// A decision is part of the design record a client commits: gated too.
	text, _, isErr = c.call("record_decision", `{"decision":"rename KEY_DAH","rationale":"the manual says dash"}`)
	if !isErr || !strings.Contains(text, "locked") {
		t.Errorf("record_decision before validation: error=%v %q", isErr, text)
	}
	c.mustCall("finish", `{"outcome":"refuse","summary":"test over"}`)
	f.assertUnchanged()
}

// TestPathOutsideRepoRefused: a tool argument naming a path outside the
// repository is refused by the path gate, with and without a session.
func TestPathOutsideRepoRefused(t *testing.T) {
	f := newFixture(t)
	c := connect(t, f.server(true), "")
	for _, p := range []string{"../../etc/passwd", "/etc/passwd"} {
		text, _, isErr := c.call("read_file", `{"path":"`+p+`"}`)
		if !isErr || !strings.Contains(text, "outside the repository") {
			t.Errorf("read_file %s: error=%v %q", p, isErr, text)
		}
	}
	c.validated()
	text, _, isErr := c.call("write_file", `{"path":"../escaped.md","content":"x"}`)
	if !isErr || !strings.Contains(text, "outside the repository") {
		t.Errorf("write_file ../escaped.md: error=%v %q", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(f.repo), "escaped.md")); err == nil {
		t.Errorf("write_file wrote outside the repository")
	}
	c.mustCall("finish", `{"outcome":"refuse","summary":"test over"}`)
	f.assertUnchanged()
}

// TestResourcesAndPrompt: the design docs, the registry and the config are
// resources, and the rules prompt carries the spec's system-prompt rules.
func TestResourcesAndPrompt(t *testing.T) {
	f := newFixture(t)
	c := connect(t, f.server(false), "")
	ctx := context.Background()
	res, err := c.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	for _, want := range []string{constraintsURI, configURI, docsPrefix + "SPEC.md", docsPrefix + "PINOUT.md"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources lack %s: %v", want, uris)
		}
	}
	rr, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: docsPrefix + "PINOUT.md"})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.repo, "docs", "PINOUT.md")); len(rr.Contents) != 1 || rr.Contents[0].Text != string(b) {
		t.Errorf("PINOUT.md resource differs from the file")
	}
	p, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: rulesPrompt})
	if err != nil {
		t.Fatal(err)
	}
	tc, ok := p.Messages[0].Content.(*mcp.TextContent)
	if !ok || !strings.Contains(tc.Text, "You cannot edit any file until your change proposal validates") {
		t.Errorf("prompt lacks the spec's rules")
	}
}

// TestAbortRestores: abort stops a session that edited: the tree is
// restored byte for byte, the work kept in an "interrupted run" stash, the
// edit tools gone from the list.
func TestAbortRestores(t *testing.T) {
	f := newFixture(t)
	c := connect(t, f.server(true), "")
	if text, _, isErr := c.call("abort", `{}`); !isErr || !strings.Contains(text, "no change session is open") {
		t.Errorf("abort without a session: error=%v %q", isErr, text)
	}
	c.validated()
	c.mustCall("rename_net", `{"old":"KEY_DAH","new":"KEY_DASH"}`)
	_, sr := c.mustCall("abort", `{"reason":"test"}`)
	if sr.Ended == nil || sr.Ended.ExitPath != string(transcript.ExitInterrupted) || sr.Ended.StashRef == "" {
		t.Fatalf("ended %+v, want interrupted with the work in a stash", sr.Ended)
	}
	c.waitListChanged()
	if slices.Contains(c.tools(), "rename_net") {
		t.Errorf("rename_net still listed after abort")
	}
	f.assertUnchanged()
	if l := f.git("stash", "list"); !strings.Contains(l, "copperhead interrupted run") {
		t.Errorf("stash list %q, want the interrupted run's entry", l)
	}
}

// TestDirtyTreeRefused: a change session needs a clean tree, as do does:
// on a dirty one the first session call is refused, no run starts, and the
// uncommitted work is untouched; read-only calls still answer.
func TestDirtyTreeRefused(t *testing.T) {
	f := newFixture(t)
	spec := filepath.Join(f.repo, "docs", "SPEC.md")
	b, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	dirty := append(b, []byte("\nuncommitted note\n")...)
	if err := os.WriteFile(spec, dirty, 0o644); err != nil {
		t.Fatal(err)
	}
	c := connect(t, f.server(false), "")
	text, _, isErr := c.call("propose_change", proposal)
	if !isErr || !strings.Contains(text, "no change session could start") {
		t.Errorf("propose_change on a dirty tree: error=%v %q", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(f.repo, config.RunsDir)); err == nil {
		t.Errorf("a refused session left a run folder")
	}
	if _, err := os.Stat(filepath.Join(f.repo, "openspec", "changes", "rename-key-dah")); err == nil {
		t.Errorf("the refused proposal was written")
	}
	if got, _ := os.ReadFile(spec); string(got) != string(dirty) {
		t.Errorf("the uncommitted work changed")
	}
	if text, _, isErr := c.call("read_file", `{"path":"docs/SPEC.md"}`); isErr || !strings.Contains(text, "uncommitted note") {
		t.Errorf("read_file on a dirty tree: error=%v", isErr)
	}
}

// TestResultsRedacted: a secret of the server's environment never leaves
// in a session result, even when a file the client reads holds it.
func TestResultsRedacted(t *testing.T) {
	secret := "sk-" + "test-0123456789abcdefghijklmnop"
	t.Setenv("COPPERHEAD_TEST_API_KEY", secret)
	f := newFixture(t)
	if err := os.WriteFile(filepath.Join(f.repo, "docs", "NOTES.md"), []byte("key: "+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := connect(t, f.server(false), "")
	text, sr, isErr := c.call("read_file", `{"path":"docs/NOTES.md"}`)
	if isErr || strings.Contains(text, secret) || strings.Contains(sr.Result, secret) || !strings.Contains(text, "[REDACTED]") {
		t.Errorf("read_file of a file holding a secret: error=%v %q", isErr, text)
	}
}

// TestRunEnds: Run returns when the client leaves (nil) or when its context
// ends (the context's error: a signal stopping `copperhead mcp`), and
// neither is logged as an error: both are a normal end of serving.
func TestRunEnds(t *testing.T) {
	for _, how := range []string{"context cancelled", "client left"} {
		t.Run(how, func(t *testing.T) {
			var log syncBuffer
			srv := New(Options{Repo: t.TempDir(), Version: "test", Log: &log, Probes: &offlineProbes})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			st, ct := mcp.NewInMemoryTransports()
			ran := make(chan error, 1)
			go func() { ran <- srv.Run(ctx, st) }()
			cl := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0"}, nil)
			cs, err := cl.Connect(context.Background(), ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want error
			if how == "client left" {
				_ = cs.Close()
			} else {
				cancel()
				want = context.Canceled
				defer cs.Close()
			}
			if err := <-ran; !errors.Is(err, want) && !(want == nil && err == nil) {
				t.Errorf("Run = %v, want %v", err, want)
			}
			if strings.Contains(log.String(), "level=") {
				t.Errorf("Run logged through the SDK's logger:\n%s", log.String())
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
