package kicadcli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"copperhead/internal/testkit"
)

// TestMain keeps the tests off the user's real folders: copperhead's KiCad
// config and cache go to a temporary folder for the whole package.
func TestMain(m *testing.M) { testkit.MainWithPrivateKiCad(m, "kicadcli-test-*") }

// fakeKicadCLI writes a shell script standing in for kicad-cli and points
// COPPERHEAD_KICAD_CLI at it. body runs for every command but `version`,
// which prints version.
func fakeKicadCLI(t *testing.T, version, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kicad-cli")
	script := "#!/bin/sh\nif [ \"$1\" = version ]; then\n" + version + "\nexit 0\nfi\n" + body + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("COPPERHEAD_KICAD_CLI", path)
	return path
}

func TestFindVersion(t *testing.T) {
	tests := []struct {
		name        string
		version     string // shell lines answering `kicad-cli version`
		want        string // Version(), when Find succeeds
		wantErr     string // with {path} for the fake's path
		unavailable bool   // errors.Is(err, ErrUnavailable)
	}{
		{name: "9.0.8", version: "echo 9.0.8", want: "9.0.8"},
		{name: "distribution suffix", version: "echo 9.0.8-1", want: "9.0.8-1"},
		{name: "nightly", version: "echo 9.99.0-1234-g0123abcd", want: "9.99.0-1234-g0123abcd"},
		{name: "10.0", version: "echo 10.0.1", want: "10.0.1"},
		{name: "8.x refused", version: "echo 8.0.4",
			wantErr: "kicad-cli 8.0.4 at {path} is too old: copperhead needs KiCad 9 or newer", unavailable: true},
		{name: "7.x refused", version: "echo 7.0.11",
			wantErr: "kicad-cli 7.0.11 at {path} is too old", unavailable: true},
		{name: "no version", version: "echo hello",
			wantErr: `kicad-cli at {path}: cannot read a version from "hello"`, unavailable: true},
		{name: "failing", version: "echo 'cannot open display' >&2; exit 2",
			wantErr: `{path} version: exit status 2: "cannot open display"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := fakeKicadCLI(t, tc.version, "exit 9")
			tool, err := Find(context.Background())
			if tc.wantErr != "" {
				want := strings.ReplaceAll(tc.wantErr, "{path}", path)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("err = %v, want it to contain %q", err, want)
				}
				if errors.Is(err, ErrUnavailable) != tc.unavailable {
					t.Errorf("errors.Is(err, ErrUnavailable) = %v, want %v", !tc.unavailable, tc.unavailable)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tool.Version() != tc.want || tool.Path != path {
				t.Errorf("Version() = %q, Path = %q; want %q, %q", tool.Version(), tool.Path, tc.want, path)
			}
		})
	}
}

func TestFindMissing(t *testing.T) {
	t.Run("COPPERHEAD_KICAD_CLI", func(t *testing.T) {
		t.Setenv("COPPERHEAD_KICAD_CLI", "/nonexistent/kicad-cli")
		_, err := Find(context.Background())
		if err == nil || !strings.Contains(err.Error(), "kicad-cli not found at /nonexistent/kicad-cli") ||
			!strings.Contains(err.Error(), "run scripts/setup.sh") || !errors.Is(err, ErrUnavailable) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("PATH", func(t *testing.T) {
		t.Setenv("COPPERHEAD_KICAD_CLI", "")
		t.Setenv("PATH", t.TempDir())
		_, err := Find(context.Background())
		if err == nil || err.Error() != "kicad-cli not found on PATH: run scripts/setup.sh to install KiCad 9, "+
			"or set COPPERHEAD_KICAD_CLI to its path" {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestPrivateEnvironment checks what kicad-cli gets to see: a fresh
// KICAD_CONFIG_HOME per run holding the library tables in 9.0/, library
// folders, and the -o path inside a temporary folder.
func TestPrivateEnvironment(t *testing.T) {
	logDir := t.TempDir()
	t.Setenv("FAKE_LOG", logDir)
	t.Setenv("KICAD_CONFIG_HOME", "/home/user/.config/kicad") // the GUI's, which must not leak in
	t.Setenv("KICAD9_SYMBOL_DIR", "")
	fakeKicadCLI(t, "echo 9.0.8", `
n=$(ls "$FAKE_LOG" | wc -l)
{ echo "config=$KICAD_CONFIG_HOME"; echo "sym=$KICAD9_SYMBOL_DIR"; echo "args=$*"; ls "$KICAD_CONFIG_HOME/9.0"; } > "$FAKE_LOG/run$n"
while [ $# -gt 1 ]; do if [ "$1" = -o ]; then out=$2; fi; shift; done
echo '{"kicad_version": "9.0.8", "coordinate_units": "mm", "sheets": []}' > "$out"
echo "Saved ERC Report to $out"`)
	tool, err := Find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tool.CacheDir = ""
	sch := filepath.Join(t.TempDir(), "x.kicad_sch")
	os.WriteFile(sch, []byte("(kicad_sch)"), 0o644)
	for range 2 {
		r, err := tool.ERC(context.Background(), sch)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Violations) != 0 || r.Cached {
			t.Errorf("report = %+v", r)
		}
	}
	var configs []string
	for i := range 2 {
		data, err := os.ReadFile(filepath.Join(logDir, "run"+strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		log := string(data)
		config := strings.TrimPrefix(strings.Split(log, "\n")[0], "config=")
		configs = append(configs, config)
		if !strings.HasPrefix(config, os.TempDir()) {
			t.Errorf("KICAD_CONFIG_HOME = %q, want a fresh folder under %s", config, os.TempDir())
		}
		if _, err := os.Stat("/usr/share/kicad/template/sym-lib-table"); err == nil {
			for _, want := range []string{"\nfp-lib-table\n", "\nsym-lib-table\n"} {
				if !strings.Contains(log, want) {
					t.Errorf("run %d: %s/9.0 lacks %s:\n%s", i, config, strings.TrimSpace(want), log)
				}
			}
		}
		if _, err := os.Stat("/usr/share/kicad/symbols"); err == nil && !strings.Contains(log, "sym=/usr/share/kicad/symbols\n") {
			t.Errorf("run %d: KICAD9_SYMBOL_DIR not set:\n%s", i, log)
		}
		if !strings.Contains(log, "args=sch erc --format json --units mm --severity-all -o "+os.TempDir()) ||
			!strings.HasSuffix(strings.Split(log, "\n")[2], " "+sch) {
			t.Errorf("run %d: args:\n%s", i, log)
		}
	}
	if configs[0] == configs[1] {
		t.Errorf("both runs shared KICAD_CONFIG_HOME %s", configs[0])
	}
	if _, err := os.Stat(configs[0]); !os.IsNotExist(err) {
		t.Errorf("run folder %s survived the run", configs[0])
	}
	seeded := filepath.Join(os.Getenv("COPPERHEAD_KICAD_CONFIG"), "9.0", "sym-lib-table")
	if _, err := os.Stat("/usr/share/kicad/template/sym-lib-table"); err == nil && !exists(seeded) {
		t.Errorf("%s was not seeded from KiCad's template", seeded)
	}
}

// TestTimeoutKillsProcessGroup: a kicad-cli that hangs (here, waiting on a
// child) is killed with its whole process group when the timeout fires or
// the caller cancels.
func TestTimeoutKillsProcessGroup(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		cancel  time.Duration // cancel the caller's context after this; 0: never
		want    string
		is      error
	}{
		{"timeout", 300 * time.Millisecond, 0, "timed out after 300ms and was killed", context.DeadlineExceeded},
		{"cancel", time.Minute, 300 * time.Millisecond, "context canceled", context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "child.pid")
			t.Setenv("FAKE_PIDFILE", pidFile)
			fakeKicadCLI(t, "echo 9.0.8", `echo loading >&2; sleep 300 & echo $! > "$FAKE_PIDFILE"; wait`)
			tool, err := Find(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			tool.Timeout, tool.CacheDir = tc.timeout, ""
			sch := filepath.Join(t.TempDir(), "x.kicad_sch")
			os.WriteFile(sch, []byte("(kicad_sch)"), 0o644)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel > 0 {
				time.AfterFunc(tc.cancel, cancel)
			}
			start := time.Now()
			_, err = tool.ERC(ctx, sch)
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("ERC returned after %s", took)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is) ||
				!strings.Contains(err.Error(), `"loading"`) || !strings.HasPrefix(err.Error(), "kicad-cli sch erc "+sch+": ") {
				t.Fatalf("err = %v, want %q quoting kicad-cli's output", err, tc.want)
			}
			data, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			waitGone(t, pid)
		})
	}
}

// waitGone fails unless process pid ends (or is a zombie waiting for a
// reaper, which in a container may never come) within a few seconds.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if _, rest, ok := strings.Cut(string(stat), ") "); ok && strings.HasPrefix(rest, "Z") {
				return
			}
		}
	}
	t.Errorf("child process %d of kicad-cli survived", pid)
	syscall.Kill(pid, syscall.SIGKILL)
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	sch := filepath.Join(dir, "x.kicad_sch")
	os.WriteFile(sch, []byte("(kicad_sch)"), 0o644)
	// kicad-cli's bare "Failed to load schematic" is followed by our own
	// parse: the file, line and column at fault, or word that it parses.
	truncated := filepath.Join(dir, "truncated.kicad_sch")
	os.WriteFile(truncated, []byte("(kicad_sch\n  (symbol (at 1 2)"), 0o644)
	top := filepath.Join(dir, "top.kicad_sch")
	os.WriteFile(top, []byte(`(kicad_sch (uuid "t") (sheet (uuid "s") (property "Sheetname" "S") (property "Sheetfile" "stray.kicad_sch")))`), 0o644)
	os.WriteFile(filepath.Join(dir, "stray.kicad_sch"), []byte("(kicad_sch (uuid \"u\")))\n"), 0o644)
	parses := `; copperhead's parser reads x.kicad_sch and its sheets, so the cause is something only KiCad checks (a token it does not know, a file format newer than this kicad-cli): open it in KiCad to see`
	tests := []struct {
		name, body, input, want string
	}{
		{"exit status", `echo "Failed to load schematic" >&2; exit 3`, sch,
			`kicad-cli sch erc ` + sch + `: exit status 3: "Failed to load schematic"` + parses},
		{"no report written", `echo "Found 1 violations"; echo "Saved ERC Report to /nowhere"`, sch,
			`kicad-cli sch erc ` + sch + `: kicad-cli wrote no output (it probably could not load the file): ` +
				`"Found 1 violations; Saved ERC Report to /nowhere"` + parses},
		{"silent failure", `exit 1`, sch, `kicad-cli sch erc ` + sch + `: exit status 1: (kicad-cli printed nothing)` + parses},
		{"truncated file", `echo "Failed to load schematic" >&2; exit 3`, truncated,
			`kicad-cli sch erc ` + truncated + `: exit status 3: "Failed to load schematic"; copperhead's parser: ` + truncated + `:2:19: unexpected end of file: list opened at 2:3 is not closed`},
		{"stray paren in a sheet", `echo "Failed to load schematic" >&2; exit 3`, top,
			`kicad-cli sch erc ` + top + `: exit status 3: "Failed to load schematic"; copperhead's parser: ` + dir + `/stray.kicad_sch:1:23: an unmatched ')' after the end of the file's top-level list (opened at 1:1, closed at 1:22): an extra ')' before that point closes it early, or the file was damaged`},
		{"missing input", `exit 0`, "nowhere/x.kicad_sch",
			"kicad-cli sch erc nowhere/x.kicad_sch: stat nowhere/x.kicad_sch: no such file or directory"},
		{"garbage report", `while [ $# -gt 1 ]; do if [ "$1" = -o ]; then echo '{' > "$2"; fi; shift; done`, sch,
			"kicad-cli sch erc " + sch + ": read ERC report: unexpected end of JSON input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fakeKicadCLI(t, "echo 9.0.8", tc.body)
			tool, err := Find(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			tool.CacheDir = ""
			_, err = tool.ERC(context.Background(), tc.input)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestQuoteOutput(t *testing.T) {
	long := strings.Repeat("é", maxQuoted)
	tests := []struct {
		stdout, stderr, want string
	}{
		{"", "", "(kicad-cli printed nothing)"},
		{"Found 0 violations\n", "Failed to load board\n\n", `"Failed to load board; Found 0 violations"`},
		{"", long, strconv.Quote(strings.Repeat("é", maxQuoted/2) + "…")},
	}
	for _, tc := range tests {
		if got := quoteOutput([]byte(tc.stdout), []byte(tc.stderr)); got != tc.want {
			t.Errorf("quoteOutput(%q, %q) = %s, want %s", tc.stdout, tc.stderr, got, tc.want)
		}
	}
}
