package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"

	"copperhead/internal/testkit"
)

// TestWatchUsage pins watch's exit codes for what ends it before it
// serves: bad flags are usage (2), a port it cannot listen on and a
// repository without a schematic are failures (1).
func TestWatchUsage(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"port too big", []string{"watch", "--port", "70000"}, ExitUsage, "--port 70000: want 0 to 65535"},
		{"negative port", []string{"watch", "--port", "-1"}, ExitUsage, "--port -1: want 0 to 65535"},
		{"not a number", []string{"watch", "--port", "web"}, ExitUsage, `invalid argument "web"`},
		{"json", []string{"--json", "watch"}, ExitUsage, "--json has no object to print"},
		{"extra argument", []string{"watch", "now"}, ExitUsage, `unknown command "now"`},
		{"no schematic", []string{"--repo", empty, "watch", "--port", "0"}, ExitFailed, "no KiCad schematic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d stderr %q, want %d and %q", code, stderr, tc.code, tc.stderr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("error is not one line: %q", stderr)
			}
			if tc.name == "json" {
				var obj struct {
					OK    bool   `json:"ok"`
					Error string `json:"error"`
				}
				if err := json.Unmarshal([]byte(stdout), &obj); err != nil || obj.OK || obj.Error == "" {
					t.Errorf("--json stdout %q, want one {ok: false, error} object", stdout)
				}
			}
		})
	}
}

// TestWatchPortInUse: a port another program holds is one line and exit 1,
// after nothing was served.
func TestWatchPortInUse(t *testing.T) {
	testkit.NeedKiCadCLI(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	t.Setenv("COPPERHEAD_CACHE_DIR", t.TempDir())
	code, stdout, stderr := runCLI(t, "--repo", "testdata/tiny", "watch", "--port", fmt.Sprint(port))
	if code != ExitFailed || !strings.Contains(stderr, fmt.Sprintf("listen on 127.0.0.1:%d", port)) || !strings.Contains(stderr, "address already in use") {
		t.Errorf("exit %d stderr %q, want 1 and the address in use", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout %q: nothing is served, so nothing says it is", stdout)
	}
}

// TestWatchModel: a malformed --model is bad usage before anything is
// served; no model at all serves the viewer with the chat off, said once on
// stderr.
func TestWatchModel(t *testing.T) {
	testkit.NeedKiCadCLI(t)
	t.Setenv("COPPERHEAD_CACHE_DIR", t.TempDir())
	code, stdout, stderr := runCLI(t, "--repo", "testdata/tiny", "watch", "--port", "0", "--model", "compat")
	if code != ExitUsage || !strings.Contains(stderr, `invalid model "compat"`) || stdout != "" {
		t.Errorf("--model compat: exit %d stdout %q stderr %q, want 2 and the model named", code, stdout, stderr)
	}
}
