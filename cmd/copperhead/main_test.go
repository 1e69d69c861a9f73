package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"copperhead/internal/datasheets"
	"copperhead/internal/llm"
	"copperhead/internal/llm/llmtest"
	"copperhead/internal/research"
	"copperhead/internal/research/researchtest"
	"copperhead/internal/scriptcmd"
	"copperhead/internal/testkit"
)

// TestMain lets testscript run the real copperhead binary's main as the
// "copperhead" command inside scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, scriptPrograms)
}

// scriptPrograms are the programs scripts run in-process
// (testdata/script/README.md lists them).
var scriptPrograms = map[string]func(){
	"copperhead": func() { os.Exit(run()) },
	// The fake saved-login CLI that `fakecli` installs as claude, codex or
	// agent.
	"copperhead-fakecli": func() { os.Exit(llmtest.FakeCLIMain()) },
}

const demos = "/usr/share/kicad/demos"

// TestScripts runs every testdata/script/*.txtar end to end: the scripts are
// the readable specification of copperhead's command-line behaviour.
func TestScripts(t *testing.T) { scriptcmd.RunScripts(t, scripts(t)) }

// scripts is what the scripts may use beyond testscript's own commands
// (testdata/script/README.md lists it).
func scripts(t *testing.T) scriptcmd.Script {
	return scriptcmd.Script{Programs: scriptPrograms, Setup: scriptSetup(scriptcmd.AbsPath(t, "../../examples/open-telegraph")), Conditions: scriptConditions, Cmds: scriptCmds(t)}
}

// scriptSetup sets each script's environment (testdata/script/README.md
// lists it): a private home, caches and KiCad configuration in $WORK, the
// demos and the fixture, a fixed git identity.
func scriptSetup(fixture string) func(env *testscript.Env) error {
	return func(env *testscript.Env) error {
		home := scriptcmd.SetHome(env)
		env.Setenv("DEMOS", demos)
		env.Setenv("FIXTURE", fixture)
		env.Setenv("COPPERHEAD_CACHE_DIR", filepath.Join(env.WorkDir, ".cache"))
		env.Setenv("COPPERHEAD_KICAD_CONFIG", filepath.Join(env.WorkDir, ".kicadcfg"))
		env.Setenv("GIT_AUTHOR_NAME", "Test Engineer")
		env.Setenv("GIT_AUTHOR_EMAIL", "test@example.invalid")
		env.Setenv("GIT_COMMITTER_NAME", "Test Engineer")
		env.Setenv("GIT_COMMITTER_EMAIL", "test@example.invalid")
		env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
		return os.MkdirAll(home, 0o755)
	}
}

// scriptConditions are the custom [conditions] scripts may test
// (testdata/script/README.md lists them).
var scriptConditions = map[string]func() bool{
	"kicad": func() bool { return scriptcmd.OnPath("kicad-cli")() && scriptcmd.Exists(demos)() },
	// Live-model runs cost money: only with a key in the environment.
	"live": func() bool {
		return os.Getenv("ANTHROPIC_API_KEY") != "" || os.Getenv("OPENAI_API_KEY") != ""
	},
	"strace": scriptcmd.OnPath("strace"),
	// The official SARIF validator (scripts/setup.sh installs it).
	"sarif": scriptcmd.OnPath("sarif-multitool"),
}

// scriptCmds are the custom commands scripts may run
// (testdata/script/README.md lists them).
func scriptCmds(t *testing.T) map[string]scriptcmd.Cmd {
	return map[string]scriptcmd.Cmd{
		"fakemodel":     func(ts *testscript.TestScript, neg bool, args []string) { cmdFakeModel(t, ts, neg, args) },
		"fakerequest":   cmdFakeRequest,
		"fakerequests":  scriptcmd.FakeRequests,
		"fakewait":      cmdFakeWait,
		"nosecret":      cmdNoSecret,
		"globcp":        cmdGlobCp,
		"copytree":      cmdCopyTree,
		"bomrows":       cmdBOMRows,
		"noconnections": cmdNoConnections,
		"samebytes":     scriptcmd.SameBytes,
		"fakeinternet":  cmdFakeInternet,
		"makepdf":       cmdMakePDF,
		"fakedatasheet": cmdFakeDatasheet,
		"waitfile":      cmdWaitFile,
		"svgmarks":      cmdSVGMarks,
		"fakecli":       cmdFakeCLI,
		"fakeclicalls":  cmdFakeCLICalls,
	}
}

// copytree SRC DST copies a folder recursively (a demo project into $WORK).
func cmdCopyTree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: copytree SRC DST")
	}
	ts.Check(testkit.CopyTree(ts.MkAbs(args[1]), ts.MkAbs(args[0]), nil))
}

var bomRow = regexp.MustCompile(`(?m)^\|\s*([^|\s]+)\s*\|`)

// bomrows BOM.md NETLIST.xml asserts that the BOM has exactly one row per
// distinct component reference in kicad-cli's own netlist export.
func cmdBOMRows(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: bomrows BOM.md NETLIST.xml")
	}
	bom := ts.ReadFile(args[0])
	rows := map[string]bool{}
	for _, m := range bomRow.FindAllStringSubmatch(bom, -1) {
		ref := m[1]
		if ref == "Refdes" || strings.Trim(ref, "-: ") == "" {
			continue
		}
		if rows[ref] {
			ts.Fatalf("%s lists %s twice", args[0], ref)
		}
		rows[ref] = true
	}
	var nl struct {
		Comps []struct {
			Ref string `xml:"ref,attr"`
		} `xml:"components>comp"`
	}
	ts.Check(xml.Unmarshal([]byte(ts.ReadFile(args[1])), &nl))
	refs := map[string]bool{}
	for _, c := range nl.Comps {
		refs[c.Ref] = true
	}
	var missing, extra []string
	for r := range refs {
		if !rows[r] {
			missing = append(missing, r)
		}
	}
	for r := range rows {
		if !refs[r] {
			extra = append(extra, r)
		}
	}
	ok := len(missing) == 0 && len(extra) == 0 && len(rows) == len(refs)
	if ok == neg {
		ts.Fatalf("BOM rows %d, netlist references %d; missing from BOM %v; not in netlist %v", len(rows), len(refs), missing, extra)
	}
	ts.Logf("BOM rows %d = netlist references %d", len(rows), len(refs))
}

var inetConnect = regexp.MustCompile(`connect\(\d+, \{sa_family=AF_INET6?,`)

// noconnections TRACE asserts that an strace -e trace=connect log shows no
// connection attempt to any IPv4 or IPv6 address.
func cmdNoConnections(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: noconnections TRACE")
	}
	var hits []string
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		if inetConnect.MatchString(line) {
			hits = append(hits, line)
		}
	}
	if len(hits) > 0 {
		ts.Fatalf("network connections attempted:\n%s", strings.Join(hits, "\n"))
	}
}

// fakemodel anthropic|openai REPLY... starts a loopback server speaking that
// provider's real wire protocol, answering each request with the next reply,
// and sets $FAKEMODEL_URL (the base URL a client is pointed at).
//
// fakemodel anthropic|openai -script FILE reads the replies from FILE instead:
// a JSON array of steps, each {"text": "...", "tool_calls": [{"id", "name",
// "args"}], "stop": "tool_use"} or {"status": 429, "header": {...}}.
func cmdFakeModel(t *testing.T, ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: fakemodel anthropic|openai REPLY... | -script FILE")
	}
	var script []llmtest.Step
	if args[1] == "-script" {
		if len(args) != 3 {
			ts.Fatalf("usage: fakemodel anthropic|openai -script FILE")
		}
		var err error
		script, err = fakeSteps([]byte(ts.ReadFile(args[2])))
		ts.Check(err)
	} else {
		for _, r := range args[1:] {
			script = append(script, llmtest.Reply{Text: r, Usage: llm.Usage{Input: 21, Output: 1}})
		}
	}
	scriptcmd.StartFakeModel(t, ts, llmtest.Protocol(args[0]), script...)
}

// fakeSteps decodes a fake model's script: a JSON array of steps, each
// {"text": "...", "tool_calls": [{"id", "name", "args"}], "stop": "tool_use"},
// {"status": 429, "header": {...}} or {"delay_ms": N}. The scripts' fakemodel
// and the shell's tmux test share it.
func fakeSteps(data []byte) ([]llmtest.Step, error) {
	var steps []struct {
		Text      string            `json:"text"`
		ToolCalls []llm.ToolCall    `json:"tool_calls"`
		Stop      llm.StopReason    `json:"stop"`
		Status    int               `json:"status"`
		Header    map[string]string `json:"header"`
		DelayMS   int               `json:"delay_ms"`
	}
	if err := json.Unmarshal(data, &steps); err != nil {
		return nil, fmt.Errorf("fake model script: %w", err)
	}
	var script []llmtest.Step
	for i, st := range steps {
		if st.DelayMS > 0 {
			// A model that does not answer in time: the test kills
			// the run while it waits (see fakewait).
			script = append(script, llmtest.Slow{Delay: time.Duration(st.DelayMS) * time.Millisecond})
			continue
		}
		if st.Status != 0 {
			script = append(script, llmtest.Status{Code: st.Status, Header: st.Header})
			continue
		}
		for j := range st.ToolCalls {
			if st.ToolCalls[j].ID == "" {
				st.ToolCalls[j].ID = fmt.Sprintf("call_%d_%d", i+1, j+1)
			}
		}
		stop := st.Stop
		if stop == "" {
			stop = llm.StopEnd
			if len(st.ToolCalls) > 0 {
				stop = llm.StopToolUse
			}
		}
		script = append(script, llmtest.Reply{Text: st.Text, ToolCalls: st.ToolCalls, Stop: stop, Usage: llm.Usage{Input: 1200, Output: 80}})
	}
	return script, nil
}

// fakerequest N FILE writes the body of the fake model's Nth request (1-based)
// to FILE, for assertions on what the loop sent (the tool list, results).
func cmdFakeRequest(ts *testscript.TestScript, neg bool, args []string) {
	srv, ok := scriptcmd.FakeModel(ts)
	if neg || !ok || len(args) != 2 {
		ts.Fatalf("usage: fakerequest N FILE (after fakemodel)")
	}
	reqs := srv.Requests()
	var n int
	if _, err := fmt.Sscan(args[0], &n); err != nil || n < 1 || n > len(reqs) {
		ts.Fatalf("request %s of %d", args[0], len(reqs))
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), reqs[n-1].Body, 0o644))
}

// fakewait N waits (up to a minute) until the fake model has received N
// requests: a script can then act on a background run at a known point,
// e.g. kill it while the model is thinking.
func cmdFakeWait(ts *testscript.TestScript, neg bool, args []string) {
	srv, ok := scriptcmd.FakeModel(ts)
	if neg || !ok || len(args) != 1 {
		ts.Fatalf("usage: fakewait N (after fakemodel)")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if len(srv.Requests()) >= n {
			return
		}
	}
	ts.Fatalf("fake model received %d requests after a minute, want %d", len(srv.Requests()), n)
}

// waitfile PATH waits until PATH exists: a background command has reached
// the point that creates it (a fake kicad-cli started). A minute without it
// fails the script; that bound only detects a hang.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile PATH")
	}
	p := ts.MkAbs(args[0])
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(p); err == nil {
			return
		}
	}
	ts.Fatalf("%s did not appear within a minute", args[0])
}

// nosecret DIR VALUE asserts that no file below DIR contains VALUE.
func cmdNoSecret(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: nosecret DIR VALUE")
	}
	root := ts.MkAbs(args[0])
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte(args[1])) {
			ts.Fatalf("%s contains the secret", p)
		}
		return nil
	})
	ts.Check(err)
	if n == 0 {
		ts.Fatalf("no files below %s: nothing was checked", args[0])
	}
}

// globcp PATTERN DST copies the newest file matching PATTERN (file names
// holding run ids are not known to a script) to DST.
func cmdGlobCp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: globcp PATTERN DST")
	}
	m, err := filepath.Glob(ts.MkAbs(args[0]))
	ts.Check(err)
	if len(m) == 0 {
		ts.Fatalf("no file matches %s", args[0])
	}
	data, err := os.ReadFile(m[len(m)-1]) // run ids sort by time
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), data, 0o644))
}

// fakedatasheet REPO MPN TEXTFILE puts a datasheet into REPO's cache as
// fetch_datasheet would, without poppler or a network: a small fake PDF, its
// per-page text (TEXTFILE, with "=== page N ===" markers) and an index.json
// entry carrying the PDF's SHA-256. It sets $DATASHEET to the cited form of
// the PDF's path (.copperhead/datasheets/<mpn>-<sha8>.pdf).
func cmdFakeDatasheet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: fakedatasheet REPO MPN TEXTFILE")
	}
	dir := filepath.Join(ts.MkAbs(args[0]), filepath.FromSlash(datasheets.DirName))
	pdf := []byte("%PDF-1.4\n% fake datasheet of " + args[1] + "\n%%EOF\n")
	sum := sha256.Sum256(pdf)
	sha := hex.EncodeToString(sum[:])
	name := datasheets.FileName(args[1], sha)
	ts.Check(os.MkdirAll(dir, 0o755))
	ts.Check(os.WriteFile(filepath.Join(dir, name), pdf, 0o644))
	ts.Check(os.WriteFile(filepath.Join(dir, name+".txt"), []byte(ts.ReadFile(args[2])), 0o644))
	idx, err := datasheets.ReadIndex(dir)
	ts.Check(err)
	idx.Entries = append(idx.Entries, datasheets.Entry{MPN: args[1], URL: "https://datasheets.example.com/" + name, Retrieved: "2026-03-01T12:00:00Z",
		Status: datasheets.StatusCached, SHA256: sha, Size: int64(len(pdf)), File: name, TextFile: name + ".txt"})
	ts.Check(datasheets.WriteIndex(dir, idx))
	ts.Setenv("DATASHEET", datasheets.DirName+"/"+name)
}

// Environment variables through which a script's fake internet reaches the
// copperhead command it runs. Only this test binary reads them (init below):
// the shipped binary has no way to route research traffic to loopback.
const (
	fakeInternetAddrEnv = "COPPERHEAD_TEST_FAKE_INTERNET"
	fakeInternetCertEnv = "COPPERHEAD_TEST_FAKE_INTERNET_CERT"
)

// init runs in every process of this test binary, including each
// "copperhead" command a script runs: when the script started a fake
// internet, every research egress client dials it and trusts its
// certificate (real URLs, real allowlist, loopback admitted by the egress
// test options only).
func init() {
	addr, certFile := os.Getenv(fakeInternetAddrEnv), os.Getenv(fakeInternetCertEnv)
	if addr == "" || certFile == "" {
		return
	}
	pem, err := os.ReadFile(certFile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake internet: %v\n", err)
		os.Exit(2)
	}
	research.SetEgressForTests(researchtest.Configure(addr, pem))
}

// fakeinternet HOST/PATH=SOURCE... starts a loopback HTTPS server that
// answers for the real hosts (api.search.brave.com, api.nexar.com,
// www.ti.com, ...) and routes the copperhead commands the script runs to it.
// SOURCE is a file in $WORK, or fixture:PKG/NAME for
// internal/research/PKG/testdata/NAME (the providers' real JSON). The
// content type follows the extension: .json, .html, .pdf, else text/plain.
func cmdFakeInternet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: fakeinternet HOST/PATH=FILE|fixture:PKG/NAME...")
	}
	n, err := researchtest.Start()
	ts.Check(err)
	ts.Defer(n.Close)
	for _, a := range args {
		route, src, ok := strings.Cut(a, "=")
		host, path, ok2 := strings.Cut(route, "/")
		if !ok || !ok2 {
			ts.Fatalf("fakeinternet: %q is not HOST/PATH=SOURCE", a)
		}
		file := ts.MkAbs(src)
		if rest, ok := strings.CutPrefix(src, "fixture:"); ok {
			pkg, name, _ := strings.Cut(rest, "/")
			file = filepath.Join("..", "..", "internal", "research", pkg, "testdata", name)
		}
		body, err := os.ReadFile(file)
		ts.Check(err)
		ct := map[string]string{".json": "application/json", ".html": "text/html; charset=utf-8", ".pdf": "application/pdf"}[filepath.Ext(file)]
		if ct == "" {
			ct = "text/plain; charset=utf-8"
		}
		n.Serve(host, "/"+path, ct, body)
	}
	certFile := ts.MkAbs(".fake-internet.pem")
	ts.Check(os.WriteFile(certFile, n.CertPEM(), 0o644))
	ts.Setenv(fakeInternetAddrEnv, n.Addr())
	ts.Setenv(fakeInternetCertEnv, certFile)
}

// makepdf FILE TITLE PAGE... writes a real multi-page PDF that poppler
// reads: one page per PAGE argument, its lines separated by "|".
func cmdMakePDF(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: makepdf FILE TITLE PAGE...")
	}
	var pages [][]string
	for _, p := range args[2:] {
		pages = append(pages, strings.Split(p, "|"))
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), researchtest.PDF(args[1], pages), 0o644))
}

// fakecli claude|codex|agent FILE [-logout] installs a fake saved-login CLI
// as $WORK/bin/NAME (first on PATH), answering each call with the next step
// of FILE in the real CLI's output format; -logout makes it report no login.
// Its calls are recorded in $WORK/fakecli-NAME/.
func cmdFakeCLI(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 || (len(args) == 3 && args[2] != "-logout") {
		ts.Fatalf("usage: fakecli claude|codex|agent FILE [-logout]")
	}
	name := args[0]
	if name != llmtest.FakeClaude && name != llmtest.FakeCodex && name != llmtest.FakeCursor {
		ts.Fatalf("fakecli: unknown CLI %q", name)
	}
	exe := ""
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(dir, "copperhead-fakecli"); scriptcmd.Exists(p)() {
			exe = p
			break
		}
	}
	if exe == "" {
		ts.Fatalf("fakecli: the copperhead-fakecli program is not on PATH")
	}
	bin, state := ts.MkAbs("bin"), ts.MkAbs("fakecli-"+name)
	_, err := llmtest.InstallFakeCLI(bin, name, name, exe, state, []byte(ts.ReadFile(args[1])))
	ts.Check(err)
	if len(args) == 3 {
		ts.Check(llmtest.SetFakeCLILoggedOut(state))
	}
	if path := ts.Getenv("PATH"); !strings.HasPrefix(path, bin+string(os.PathListSeparator)) {
		ts.Setenv("PATH", bin+string(os.PathListSeparator)+path)
	}
}

// fakeclicalls NAME N REPO asserts that the fake CLI NAME was asked N
// times, each in a fresh empty folder outside REPO that is gone afterwards,
// with no OPENAI_API_KEY or ANTHROPIC_API_KEY in its environment.
func cmdFakeCLICalls(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: fakeclicalls NAME N REPO")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	calls, err := llmtest.FakeCLICalls(ts.MkAbs("fakecli-" + args[0]))
	ts.Check(err)
	chats := llmtest.ChatCalls(calls)
	if len(chats) != want {
		ts.Fatalf("fake %s was asked %d times, want %d", args[0], len(chats), want)
	}
	repo := ts.MkAbs(args[2])
	for i, c := range chats {
		if len(c.DirEntries) != 0 || c.Dir == repo || strings.HasPrefix(c.Dir, repo+string(os.PathSeparator)) {
			ts.Fatalf("call %d ran in %s holding %v: want a fresh empty folder outside %s", i+1, c.Dir, c.DirEntries, args[2])
		}
		if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
			ts.Fatalf("call %d's folder %s is still there", i+1, c.Dir)
		}
		for _, kv := range c.Env {
			name, _, _ := strings.Cut(kv, "=")
			if name == llm.EnvOpenAIKey || name == llm.EnvAnthropicKey {
				ts.Fatalf("call %d was given %s", i+1, name)
			}
		}
	}
}
