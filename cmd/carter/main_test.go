package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"copperhead/internal/carter/command"
	"copperhead/internal/carter/corpus"
	"copperhead/internal/carter/retrieve"
	"copperhead/internal/carter/task"
	"copperhead/internal/carter/web"
	"copperhead/internal/llm"
	"copperhead/internal/llm/llmtest"
	"copperhead/internal/research/egress"
	"copperhead/internal/scriptcmd"
)

// TestMain lets testscript run carter's real main as the "carter" command.
func TestMain(m *testing.M) {
	testscript.Main(m, scriptPrograms)
}

// scriptPrograms are the programs scripts run in-process
// (testdata/script/README.md lists them). When a script has started a
// loopback search engine (fakesearch), --web uses it through egress with
// loopback admitted: the one hole egress keeps for tests, opened here in the
// test binary and never in the shipped one.
var scriptPrograms = map[string]func(){
	"carter": func() {
		base := os.Getenv("FAKESEARCH_URL")
		if base == "" {
			os.Exit(run())
		}
		deps := command.Deps{Web: func(spec task.Spec, log func(egress.Record)) (retrieve.Retriever, error) {
			client := func(allow []string) *egress.Client {
				return egress.New(egress.Config{AllowHosts: allow, AllowLoopbackForTests: true, Log: log, MaxBytes: 256 << 10})
			}
			return web.New(web.Config{
				Search:       web.SearXNG{BaseURL: base, Client: client([]string{"127.0.0.1"})},
				AllowDomains: spec.Constraints.AllowDomains, MaxBytes: 256 << 10, NewClient: client,
			})
		}}
		os.Exit(command.Main(context.Background(), os.Args[1:], command.StdIO(), deps))
	},
}

// TestScripts runs every testdata/script/*.txtar end to end: the scripts are
// the readable specification of carter's command-line behaviour.
func TestScripts(t *testing.T) { scriptcmd.RunScripts(t, scripts(t)) }

// scripts is what the scripts may use beyond testscript's own commands
// (testdata/script/README.md lists it).
func scripts(t *testing.T) scriptcmd.Script {
	return scriptcmd.Script{Programs: scriptPrograms, Setup: scriptSetup(scriptcmd.AbsPath(t, "../../tests/regression_cases.json")), Conditions: scriptConditions, Cmds: scriptCmds(t)}
}

// scriptSetup sets each script's environment (testdata/script/README.md
// lists it).
func scriptSetup(cases string) func(env *testscript.Env) error {
	return func(env *testscript.Env) error {
		scriptcmd.SetHome(env)
		env.Setenv("CASES", cases)
		env.Setenv("KICAD_DOCS", command.DefaultCorpus)
		return nil
	}
}

// scriptConditions are the custom [conditions] scripts may test
// (testdata/script/README.md lists them).
var scriptConditions = map[string]func() bool{
	"kicaddocs": scriptcmd.Exists(filepath.Join(command.DefaultCorpus, "pcbnew.html")),
	"pdftotext": scriptcmd.Exists("/usr/bin/pdftotext"),
}

// scriptCmds are the custom commands scripts may run
// (testdata/script/README.md lists them).
func scriptCmds(t *testing.T) map[string]scriptcmd.Cmd {
	return map[string]scriptcmd.Cmd{
		"fakemodel":    func(ts *testscript.TestScript, neg bool, args []string) { cmdFakeModel(t, ts, neg, args) },
		"fakerequests": scriptcmd.FakeRequests,
		"fakesearch":   func(ts *testscript.TestScript, neg bool, args []string) { cmdFakeSearch(t, ts, neg, args) },
		"lastrun":      cmdLastRun,
		"jsonfield":    cmdJSONField,
		"samebytes":    scriptcmd.SameBytes,
		"nofile":       cmdNoFile,
	}
}

// fakemodel REPLY... starts a loopback server speaking the OpenAI Chat
// Completions wire protocol that answers each request with the next reply,
// and sets $FAKEMODEL_URL for COPPERHEAD_BASE_URL (a compat: model).
func cmdFakeModel(t *testing.T, ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: fakemodel REPLY...")
	}
	var script []llmtest.Step
	for _, r := range args {
		script = append(script, llmtest.Reply{Text: r, Usage: llm.Usage{Input: 900, Output: 120}})
	}
	scriptcmd.StartFakeModel(t, ts, llmtest.OpenAI, script...)
}

// fakesearch DIR starts a loopback search engine over the documents in DIR:
// GET /search?q=...&format=json answers SearXNG's JSON with the corpus's
// BM25 ranking, and /doc/<name> serves each file (a file named
// <name>.redirect holding a URL answers 302 to that URL instead). It sets
// $FAKESEARCH_URL, which makes `carter run --web` use it.
func cmdFakeSearch(t *testing.T, ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fakesearch DIR")
	}
	dir := ts.MkAbs(args[0])
	c, err := corpus.Load(context.Background(), dir)
	ts.Check(err)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/search":
			hits, _ := c.Search(r.Context(), r.URL.Query().Get("q"), 20)
			type res struct {
				Title   string `json:"title"`
				URL     string `json:"url"`
				Content string `json:"content"`
			}
			out := struct {
				Results []res `json:"results"`
			}{[]res{}}
			for _, h := range hits {
				name := filepath.Base(strings.TrimPrefix(h.URL, "file://"))
				out.Results = append(out.Results, res{h.Title, srv.URL + "/doc/" + name, h.Snippet})
			}
			// Redirecting pages and PDFs the corpus could not index are
			// listed too: a search engine happily indexes both.
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				switch {
				case strings.HasSuffix(e.Name(), ".redirect"):
					out.Results = append(out.Results, res{"Moved page", srv.URL + "/doc/" + strings.TrimSuffix(e.Name(), ".redirect"), ""})
				case strings.HasSuffix(e.Name(), ".pdf") && !indexed(c, e.Name()):
					out.Results = append(out.Results, res{"Big PDF", srv.URL + "/doc/" + e.Name(), ""})
				}
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(out)
		case strings.HasPrefix(r.URL.Path, "/doc/"):
			name := filepath.Base(r.URL.Path)
			if target, err := os.ReadFile(filepath.Join(dir, name+".redirect")); err == nil {
				http.Redirect(w, r, strings.TrimSpace(string(target)), http.StatusFound)
				return
			}
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			ct := "text/plain; charset=utf-8"
			switch filepath.Ext(name) {
			case ".html":
				ct = "text/html; charset=utf-8"
			case ".md":
				ct = "text/markdown; charset=utf-8"
			case ".pdf":
				ct = "application/pdf"
			}
			w.Header().Set("Content-Type", ct)
			_, _ = w.Write(data)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	ts.Setenv("FAKESEARCH_URL", srv.URL)
}

func indexed(c *corpus.Corpus, name string) bool {
	for _, d := range c.Docs {
		if filepath.Base(d.Path) == name {
			return true
		}
	}
	return false
}

// lastrun OUTDIR sets $RUNID and $RUNDIR to the newest run under OUTDIR
// (run ids are ULIDs: they sort by time).
func cmdLastRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lastrun OUTDIR")
	}
	entries, err := os.ReadDir(ts.MkAbs(args[0]))
	ts.Check(err)
	last := ""
	for _, e := range entries {
		if e.IsDir() && len(e.Name()) == 26 {
			last = e.Name()
		}
	}
	if last == "" {
		ts.Fatalf("no run under %s", args[0])
	}
	ts.Setenv("RUNID", last)
	ts.Setenv("RUNDIR", filepath.Join(ts.MkAbs(args[0]), last))
}

// jsonfield FILE PATH WANT asserts that the JSON value at a dotted PATH in
// FILE prints as WANT (numbers as Go prints float64, strings bare).
func cmdJSONField(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: jsonfield FILE PATH WANT")
	}
	var v any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &v))
	for _, k := range strings.Split(args[1], ".") {
		m, ok := v.(map[string]any)
		if !ok {
			ts.Fatalf("%s: %s is not an object", args[0], k)
		}
		v = m[k]
	}
	got := fmt.Sprint(v)
	if (got == args[2]) == neg {
		ts.Fatalf("%s %s = %s, want %s%s", args[0], args[1], got, map[bool]string{true: "not ", false: ""}[neg], args[2])
	}
}

// nofile DIR asserts that DIR holds no files at all (bad input writes
// nothing).
func cmdNoFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: nofile DIR")
	}
	n := 0
	_ = filepath.WalkDir(ts.MkAbs(args[0]), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	if n > 0 {
		ts.Fatalf("%s holds %d files", args[0], n)
	}
}
