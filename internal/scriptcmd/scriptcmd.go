// Package scriptcmd holds the testscript commands and setup that both
// command-line tools' end-to-end scripts use (cmd/copperhead and
// cmd/carter): a per-script fake model speaking a provider's real wire
// protocol, the count of what it received, a byte-for-byte file comparison,
// and a home folder inside the script's work folder; the one way both run
// their scripts (RunScripts, Condition) and the check that each
// testdata/script/README.md lists what its test binary registers
// (CheckScriptREADME).
//
// scriptcmd is for tests only: it imports testscript and llm/llmtest, and
// no shipped binary may link it. It must never import a package under test
// beyond llmtest.
package scriptcmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"copperhead/internal/llm/llmtest"
)

// SetHome points $HOME at .home inside the script's work folder, so no
// script reads or writes the real user's configuration, and returns it.
func SetHome(env *testscript.Env) string {
	home := filepath.Join(env.WorkDir, ".home")
	env.Setenv("HOME", home)
	return home
}

// fakeModels holds each script's fake model server.
var fakeModels sync.Map // *testscript.TestScript -> *llmtest.Server

// StartFakeModel starts a loopback server speaking protocol p that answers
// each request with the next step of script, records it as this script's
// fake model (see FakeModel) and sets $FAKEMODEL_URL to the base URL a
// client is pointed at (with /v1 for the OpenAI protocol).
func StartFakeModel(t testing.TB, ts *testscript.TestScript, p llmtest.Protocol, script ...llmtest.Step) *llmtest.Server {
	srv := llmtest.NewServer(t, p, script...)
	fakeModels.Store(ts, srv)
	url := srv.URL
	if p == llmtest.OpenAI {
		url += "/v1"
	}
	ts.Setenv("FAKEMODEL_URL", url)
	return srv
}

// FakeModel returns the fake model the script started, if it started one.
func FakeModel(ts *testscript.TestScript) (*llmtest.Server, bool) {
	v, ok := fakeModels.Load(ts)
	if !ok {
		return nil, false
	}
	return v.(*llmtest.Server), true
}

// FakeRequests is the command `fakerequests N`: it asserts how many
// requests the script's fake model received.
func FakeRequests(ts *testscript.TestScript, neg bool, args []string) {
	srv, ok := FakeModel(ts)
	if !ok || len(args) != 1 {
		ts.Fatalf("usage: fakerequests N (after fakemodel)")
	}
	got := fmt.Sprint(len(srv.Requests()))
	if (got == args[0]) == neg {
		ts.Fatalf("fake model received %s requests, want %s", got, args[0])
	}
}

// SameBytes is the command `samebytes A B`: it asserts two files are
// byte-identical (a stronger cmp for binary-safe comparisons and clearer
// failure text for large files).
func SameBytes(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: samebytes A B")
	}
	a, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	if bytes.Equal(a, b) == neg {
		ts.Fatalf("%s and %s: equal=%v", args[0], args[1], !neg)
	}
}
