package scriptcmd

import (
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"copperhead/internal/llm/llmtest"
)

// TestCommands runs testdata/commands.txtar: the shared commands behave as
// both command-line tools' scripts rely on.
func TestCommands(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Files: []string{"testdata/commands.txtar"},
		Setup: func(env *testscript.Env) error {
			return os.MkdirAll(SetHome(env), 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"samebytes":    SameBytes,
			"fakerequests": FakeRequests,
			// fakeopenai|fakeanthropic REPLY starts a fake model; the URL
			// check is here because a script cannot test a suffix.
			"fakeopenai": func(ts *testscript.TestScript, neg bool, args []string) {
				StartFakeModel(t, ts, llmtest.OpenAI, llmtest.Reply{Text: args[0]})
				if u := ts.Getenv("FAKEMODEL_URL"); !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.HasSuffix(u, "/v1") {
					ts.Fatalf("FAKEMODEL_URL = %q, want a loopback URL ending in /v1", u)
				}
			},
			"fakeanthropic": func(ts *testscript.TestScript, neg bool, args []string) {
				srv := StartFakeModel(t, ts, llmtest.Anthropic, llmtest.Reply{Text: args[0]})
				if u := ts.Getenv("FAKEMODEL_URL"); u != srv.URL {
					ts.Fatalf("FAKEMODEL_URL = %q, want %q", u, srv.URL)
				}
			},
			"homeis": func(ts *testscript.TestScript, neg bool, args []string) {
				if got, want := ts.Getenv("HOME"), ts.MkAbs(".home"); got != want {
					ts.Fatalf("HOME = %q, want %q", got, want)
				}
			},
		},
	})
}
