package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/testkit"
)

// The README is copperhead's contract with the people who use it. This test
// reads its tables (commands, global flags, exit codes, environment
// variables, config keys) and holds the built binary to each row: a row
// that names a command, flag or variable that does not exist, or an exit
// code no scenario produces, fails here (issue 13, "every surface tells the
// truth").

const readmePath = "../../README.md"

// readmeDoc is what the test reads out of README.md.
type readmeDoc struct {
	commands    []readmeCommand
	globalFlags []string
	exitRows    map[int]string // code -> meaning
	envVars     []string
	configKeys  []string
}

// readmeCommand is one documented command: a row of the command table, a
// "### `copperhead ...`" heading, or an edit operation.
type readmeCommand struct {
	bin     string   // "copperhead", or "carter" for carter's table
	path    []string // words after the binary's name: ["parts", "search"]
	syntax  string   // the synopsis as written
	flags   []string // flags the synopsis names, "--strict"
	aliases []string
	text    string // the synopsis and its description
}

func (c readmeCommand) name() string { return strings.Join(c.path, " ") }

var (
	backtickSpan = regexp.MustCompile("`([^`]+)`")
	flagName     = regexp.MustCompile(`--[a-z][a-z0-9-]*`)
	aliasRE      = regexp.MustCompile("\\(alias `([a-z-]+)`\\)")
	pathWord     = regexp.MustCompile(`^[a-z][a-z-]*$`)
	editOpSpan   = regexp.MustCompile(`^([a-z]+(?:-[a-z]+)*) [A-Z]`)
	envName      = regexp.MustCompile(`^[A-Z][A-Z0-9_]*[A-Z0-9]$`)
	configKeyRE  = regexp.MustCompile(`^[a-z][A-Za-z0-9]*(?:\.[a-z][A-Za-z0-9]*)?$`)
	exitCodeRow  = regexp.MustCompile(`^\| (\d+) \| (.*) \|$`)
	// Exit codes in a command's own text: "exit 1", "Exits 1", "Exit 0 when
	// ..., 1 when ..., 2 for ...", "Exit codes: `0` ...; `1` ...".
	exitWord = regexp.MustCompile(`(?i)\bexits?\s+(\d+)\b`)
	exitNext = regexp.MustCompile(`,\s+(\d)\s+(?:when|for|stopped|otherwise|usage)\b`)
	exitList = regexp.MustCompile("Exit codes: (.*)")
	exitItem = regexp.MustCompile("`(\\d+)`")
)

// splitRow splits a Markdown table row into cells; `\|` is a literal bar.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// commandPath reads the command words of a synopsis span ("copperhead parts
// search <mpn|query> ...").
func commandPath(span string) []string {
	f := strings.Fields(span)
	if len(f) == 0 || f[0] != "copperhead" && f[0] != "carter" {
		return nil
	}
	var path []string
	for _, w := range f[1:] {
		if !pathWord.MatchString(w) {
			break
		}
		path = append(path, w)
	}
	return path
}

func parseREADME(t *testing.T, path string) readmeDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	doc := readmeDoc{exitRows: map[int]string{}}
	section, heading := "", ""
	var headed *readmeCommand
	flush := func() {
		if headed != nil {
			doc.commands = append(doc.commands, *headed)
			headed = nil
		}
	}
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, "## "):
			flush()
			section, heading = strings.TrimPrefix(line, "## "), ""
			continue
		case strings.HasPrefix(line, "### "):
			flush()
			heading = strings.TrimPrefix(line, "### ")
			if m := backtickSpan.FindStringSubmatch(heading); m != nil && strings.HasPrefix(m[1], "copperhead ") {
				headed = &readmeCommand{bin: "copperhead", path: commandPath(m[1]), syntax: m[1], flags: flagName.FindAllString(m[1], -1), text: m[1]}
			}
			continue
		case strings.HasPrefix(line, "Global flags"):
			heading = "Global flags"
			continue
		}
		if headed != nil {
			headed.text += "\n" + line
		}
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := splitRow(line)
		first := cells[0]
		switch {
		case section == "Commands" && heading == "Global flags" && strings.HasPrefix(first, "`--"):
			doc.globalFlags = append(doc.globalFlags, flagName.FindString(first))
		case strings.HasPrefix(first, "`copperhead ") || strings.HasPrefix(first, "`carter "):
			c := readmeCommand{bin: strings.Fields(strings.Trim(first, "`"))[0], syntax: first, flags: flagName.FindAllString(first, -1), text: strings.Join(cells, " | ")}
			c.path = commandPath(backtickSpan.FindStringSubmatch(first)[1])
			for _, m := range aliasRE.FindAllStringSubmatch(first, -1) {
				c.aliases = append(c.aliases, m[1])
			}
			doc.commands = append(doc.commands, c)
			if c.name() == "edit" && len(cells) > 1 {
				// The operations are spelled out in the description.
				for _, m := range backtickSpan.FindAllStringSubmatch(cells[1], -1) {
					if op := editOpSpan.FindStringSubmatch(m[1]); op != nil {
						doc.commands = append(doc.commands, readmeCommand{bin: "copperhead", path: []string{"edit", op[1]}, syntax: m[1],
							flags: flagName.FindAllString(m[1], -1), text: m[1]})
					}
				}
			}
		case section == "Exit codes":
			if m := exitCodeRow.FindStringSubmatch(line); m != nil {
				if code, err := strconv.Atoi(m[1]); err == nil {
					doc.exitRows[code] = m[2]
				}
			}
		case section == "Environment variables":
			for _, m := range backtickSpan.FindAllStringSubmatch(first, -1) {
				if envName.MatchString(m[1]) {
					doc.envVars = append(doc.envVars, m[1])
				}
			}
		case section == "Configuration" && heading == "":
			for _, m := range backtickSpan.FindAllStringSubmatch(first, -1) {
				if configKeyRE.MatchString(m[1]) {
					doc.configKeys = append(doc.configKeys, m[1])
				}
			}
		}
	}
	flush()
	if len(doc.commands) < 15 || len(doc.globalFlags) < 4 || len(doc.exitRows) < 3 || len(doc.envVars) < 10 || len(doc.configKeys) < 10 {
		t.Fatalf("README parse found too little (the tables moved?): %d commands, %d global flags, %d exit rows, %d variables, %d config keys",
			len(doc.commands), len(doc.globalFlags), len(doc.exitRows), len(doc.envVars), len(doc.configKeys))
	}
	return doc
}

// documentedExitCodes are the exit codes a command's own text names.
func documentedExitCodes(text string) []int {
	var codes []int
	add := func(s string) {
		if n, err := strconv.Atoi(s); err == nil && !slices.Contains(codes, n) {
			codes = append(codes, n)
		}
	}
	for _, m := range exitWord.FindAllStringSubmatch(text, -1) {
		add(m[1])
	}
	for _, m := range exitNext.FindAllStringSubmatch(text, -1) {
		add(m[1])
	}
	for _, m := range exitList.FindAllStringSubmatch(text, -1) {
		for _, it := range exitItem.FindAllStringSubmatch(m[1], -1) {
			add(it[1])
		}
	}
	slices.Sort(codes)
	return codes
}

// readmeEnv is the environment of every run: private HOME, caches and KiCad
// configuration, and no model or provider credentials.
func readmeEnv(t *testing.T) []string {
	t.Helper()
	base := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "COPPERHEAD_") || strings.HasSuffix(name, "_API_KEY") || strings.HasPrefix(name, "NEXAR_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+filepath.Join(base, "home"),
		"COPPERHEAD_CACHE_DIR="+filepath.Join(base, "cache"),
		"COPPERHEAD_KICAD_CONFIG="+filepath.Join(base, "kicadcfg"),
		"GIT_AUTHOR_NAME=Test Engineer", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=Test Engineer", "GIT_COMMITTER_EMAIL=test@example.invalid",
		"GIT_CONFIG_NOSYSTEM=1",
	)
}

type runResult struct {
	code           int
	stdout, stderr string
}

func runBinary(t *testing.T, env []string, dir string, args ...string) runResult {
	t.Helper()
	return runProgram(t, "copperhead", env, dir, args...)
}

func runProgram(t *testing.T, prog string, env []string, dir string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env, cmd.Dir = env, dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("copperhead %v: %v", args, err)
	}
	return runResult{code, out.String(), errb.String()}
}

// helpFlags reads the flags a command's --help lists, each with a value it
// parses ("" for a switch): cobra prints a flag's type ("--model string",
// "--limit int").
var helpFlagLine = regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z0-9-]+)(?: (\S+))?\s\s`)

func helpFlags(help string) map[string]string {
	out := map[string]string{}
	for _, m := range helpFlagLine.FindAllStringSubmatch(help, -1) {
		switch {
		case m[2] == "":
			out["--"+m[1]] = ""
		case strings.HasPrefix(m[2], "int") || strings.HasPrefix(m[2], "uint") || strings.HasPrefix(m[2], "float"):
			out["--"+m[1]] = "1"
		case m[2] == "duration":
			out["--"+m[1]] = "1s"
		default:
			out["--"+m[1]] = "x"
		}
	}
	return out
}

// TestREADMECommandsAndFlags: every documented command exists (its own
// --help, exit 0), answers --version, and accepts every flag the README
// gives it and every global flag.
func TestREADMECommandsAndFlags(t *testing.T) {
	doc := parseREADME(t, readmePath)
	env := readmeEnv(t)
	dir := t.TempDir()
	var names []string
	for _, c := range doc.commands {
		names = append(names, c.name())
	}
	t.Logf("README commands: %s; global flags %v; variables %v; config keys %v", strings.Join(names, ", "), doc.globalFlags, doc.envVars, doc.configKeys)
	// carter is documented in the same README: build it too.
	bins := map[string]string{"copperhead": "copperhead", "carter": filepath.Join(t.TempDir(), "carter")}
	if out, err := exec.Command("go", "build", "-o", bins["carter"], "../carter").CombinedOutput(); err != nil {
		t.Fatalf("build carter: %v\n%s", err, out)
	}
	for _, c := range doc.commands {
		t.Run(c.bin+" "+c.name(), func(t *testing.T) {
			for _, p := range commandProblems(t, bins[c.bin], env, dir, c, doc.globalFlags) {
				t.Error(p)
			}
		})
	}
}

// commandProblems runs one documented command's synopsis against prog, the
// built binary. Global flags and --version are copperhead's contract only.
func commandProblems(t *testing.T, prog string, env []string, dir string, c readmeCommand, globalFlags []string) []string {
	t.Helper()
	if len(c.path) == 0 {
		return []string{fmt.Sprintf("README row %q names no command", c.syntax)}
	}
	run := func(args ...string) runResult { return runProgram(t, prog, env, dir, args...) }
	var problems []string
	help := run(append(slices.Clone(c.path), "--help")...)
	usage := "\n  " + c.bin + " " + c.name()
	if help.code != 0 || !strings.Contains(help.stdout, usage) {
		// cobra answers --help after an unknown command with the parent's
		// help: only the command's own usage line proves it exists.
		return []string{fmt.Sprintf("README documents `%s %s` (%q), which does not exist: its --help exits %d without %q",
			c.bin, c.name(), c.syntax, help.code, usage)}
	}
	if c.bin != "copperhead" {
		globalFlags = nil
	}
	known := helpFlags(help.stdout)
	for _, alias := range c.aliases {
		r := run(append(slices.Clone(c.path[:len(c.path)-1]), alias, "--help")...)
		if r.code != 0 || !strings.Contains(r.stdout, usage) {
			problems = append(problems, fmt.Sprintf("README names the alias %s for %s: exit %d, and its help is not %s's", alias, c.name(), r.code, c.name()))
		}
	}
	for _, f := range append(slices.Clone(c.flags), globalFlags...) {
		value, listed := known[f]
		args := append(slices.Clone(c.path), f)
		if value != "" {
			args = append(args, value)
		}
		r := run(append(args, "--help")...)
		if r.code != 0 || !listed {
			problems = append(problems, fmt.Sprintf("README gives `%s %s` the flag %s, which it does not accept: exit %d %s", c.bin, c.name(), f, r.code, strings.TrimSpace(r.stderr)))
		}
	}
	if c.bin != "copperhead" {
		return problems
	}
	v := run(append(slices.Clone(c.path), "--version")...)
	if v.code != 0 || !strings.HasPrefix(v.stdout, "copperhead ") {
		problems = append(problems, fmt.Sprintf("--version (a global flag) after %s: exit %d, %q %q", c.name(), v.code, v.stdout, v.stderr))
	}
	return problems
}

// TestREADMETestCatchesFalseRows: the checks above fail for rows that name a
// command, flag, alias, variable or config key that does not exist (a test
// that cannot fail is a defect).
func TestREADMETestCatchesFalseRows(t *testing.T) {
	real, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	fake := strings.Replace(string(real), "| `copperhead doctor` |",
		"| `copperhead frobnicate [--zap]` | not a command |\n"+
			"| `copperhead check` (alias `inspect`) `[--frobnicate]` | a flag and an alias check lacks |\n"+
			"| `copperhead doctor` |", 1)
	fake = strings.Replace(fake, "| `FUZZTIME` |", "| `COPPERHEAD_NO_SUCH_VARIABLE` | read by nothing |\n| `FUZZTIME` |", 1)
	fake = strings.Replace(fake, "| `budgets` |", "| `noSuchKey` | read by nothing | none |\n| `budgets` |", 1)
	path := filepath.Join(t.TempDir(), "README.md")
	writeFile(t, path, fake)
	doc := parseREADME(t, path)
	env := readmeEnv(t)
	dir := t.TempDir()
	var got []string
	for _, c := range doc.commands {
		if c.name() == "frobnicate" || c.name() == "check" && slices.Contains(c.flags, "--frobnicate") {
			got = append(got, commandProblems(t, "copperhead", env, dir, c, doc.globalFlags)...)
		}
	}
	got = append(got, envProblems(doc.envVars)...)
	got = append(got, configKeyProblems(doc.configKeys)...)
	all := strings.Join(got, "\n")
	for _, want := range []string{"`copperhead frobnicate` (", "the flag --frobnicate", "the alias inspect", "COPPERHEAD_NO_SUCH_VARIABLE", `"noSuchKey"`} {
		if !strings.Contains(all, want) {
			t.Errorf("a false README row went unnoticed: no problem mentions %q; problems:\n%s", want, all)
		}
	}
	if len(got) != 5 {
		t.Errorf("want exactly the 5 false rows reported, got %d:\n%s", len(got), all)
	}
}

// scenario produces one documented exit code of one command.
type scenario struct {
	cmd    string // the README command, as readmeCommand.name
	code   int
	why    string   // what the README promises
	repo   string   // "empty", "fixture" (shared, read-only use), "scratch" (a private copy)
	args   []string // after --repo REPO
	env    []string
	prep   func(t *testing.T, repo string)
	stderr string // a substring of stderr
}

// elsewhere names the test that produces an exit code this file cannot
// produce cheaply (a scripted model, the network, a slow export); the named
// file must exist and contain the text.
type elsewhere struct{ file, contains string }

var coveredElsewhere = map[string]elsewhere{
	"parts search 0":    {"testdata/script/parts_search.txtar", "copperhead --repo repo parts search TPS63020DSJR"},
	"datasheet fetch 0": {"testdata/script/datasheet_fetch.txtar", "copperhead --repo repo --json datasheet fetch"},
	"do 0":              {"testdata/script/do_refuse_repair.txtar", "copperhead --repo repo --plain do 'drop the no-connect flag on U1 IO17'"},
	"do 1":              {"testdata/script/do_no_change.txtar", "! copperhead --repo repo --plain do 'change R7 to 1M'"},
	"sync 2":            {"testdata/script/sync.txtar", "grep '^exit 2$' code.txt"},
	"create 0":          {"testdata/script/create.txtar", "copperhead --repo repo create"},
	"draft schematic 0": {"testdata/script/draft_schematic.txtar", "copperhead --repo repo draft schematic --intent opamp.json"},
	"draft layout 0":    {"testdata/script/draft_layout.txtar", "copperhead --repo repo draft layout"},
	"outputs 0":         {"testdata/script/outputs.txtar", "copperhead --repo repo outputs"},
	"130":               {"signal_test.go", "func TestInterruptExitStatus"},
	"do 130":            {"testdata/script/do_interrupted.txtar", "kill -INT"},
	"diff 0":            {"testdata/script/diff.txtar", "copperhead --repo repo diff --base base --head HEAD"},
	"diff 1":            {"testdata/script/diff.txtar", "grep '^copperhead: working tree: .*power.kicad_sch' err.txt"},
	"diff 2":            {"testdata/script/diff.txtar", "copperhead --repo repo diff --base nosuchrev 2> err.txt"},
	"recover 0":         {"testdata/script/recover.txtar", "copperhead --repo repo recover"},
	"watch 0":           {"testdata/script/watch_open.txtar", "kill -INT watch"},
	"repl 0":            {"repl_tmux_test.go", `sh.wantExit("/quit", "0")`},
	"recover 1":         {"testdata/script/recover.txtar", "! copperhead --repo repo recover 01KAAAAAAAAAAAAAAAAAAAAAAA"},
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

var readmeScenarios = []scenario{
	{cmd: "init", code: 0, why: "re-running changes nothing", repo: "fixture", args: []string{"init", "--no-hooks"}},
	{cmd: "init", code: 1, why: "no schematic found", repo: "empty", args: []string{"init"}, stderr: "no KiCad schematic"},
	{cmd: "init", code: 1, why: "hand-edited docs without --force", repo: "scratch", args: []string{"init", "--no-hooks"},
		prep: func(t *testing.T, repo string) {
			f, err := os.OpenFile(filepath.Join(repo, "docs", "PINOUT.md"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			f.WriteString("\n| extra | row | by | hand |\n")
		}, stderr: "PINOUT.md"},
	{cmd: "init", code: 2, why: "unknown flag", repo: "empty", args: []string{"init", "--bogus"}, stderr: "unknown flag: --bogus"},
	{cmd: "check", code: 0, why: "every gate passed", repo: "fixture", args: []string{"check"}},
	{cmd: "check", code: 1, why: "a check failed", repo: "scratch", args: []string{"check"},
		prep: func(t *testing.T, repo string) {
			p := filepath.Join(repo, "docs", "BOM.md")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out := regexp.MustCompile(`(?m)^(\| R6 \| )10k `).ReplaceAll(b, []byte("${1}100k "))
			if bytes.Equal(out, b) {
				t.Fatal("the fixture's BOM.md has no R6 10k row to edit")
			}
			writeFile(t, p, string(out))
		}},
	{cmd: "check", code: 2, why: "kicad-cli missing", repo: "fixture", args: []string{"check"}, env: []string{"COPPERHEAD_KICAD_CLI=/nonexistent/kicad-cli"}, stderr: "kicad-cli"},
	{cmd: "check", code: 2, why: "kicad-cli older than 9", repo: "fixture", args: []string{"check"}, env: []string{"COPPERHEAD_KICAD_CLI=@old-kicad-cli"}, stderr: "8.0.4"},
	{cmd: "check", code: 2, why: "bad --repo", repo: "missing", args: []string{"check"}, stderr: "--repo"},
	{cmd: "check", code: 2, why: "unknown command", repo: "empty", args: []string{"chekc"}, stderr: `unknown command "chekc"`},
	{cmd: "doctor", code: 0, why: "everything required is there", repo: "empty", args: []string{"doctor"}},
	{cmd: "doctor", code: 1, why: "required dependency failing", repo: "empty", args: []string{"doctor"}, env: []string{"COPPERHEAD_KICAD_CLI=/nonexistent/kicad-cli"}},
	{cmd: "parts", code: 0, why: "the parts", repo: "fixture", args: []string{"parts"}},
	{cmd: "parts search", code: 2, why: "no provider key", repo: "fixture", args: []string{"parts", "search", "TPS63020DSJR"}, stderr: "NEXAR_CLIENT_ID"},
	{cmd: "datasheet fetch", code: 1, why: "a refusal names the reason", repo: "fixture", args: []string{"datasheet", "fetch", "https://example.invalid/x.pdf", "--mpn", "X1"}, stderr: "allowlist"},
	{cmd: "datasheet fetch", code: 2, why: "no pdftotext", repo: "fixture", args: []string{"datasheet", "fetch", "https://www.ti.com/lit/ds/symlink/tps63020.pdf", "--mpn", "X1"}, env: []string{"PATH=@nopdftotext"}, stderr: "pdftotext"},
	{cmd: "do", code: 1, why: "a dirty tree", repo: "scratch", args: []string{"do", "add a pullup", "--model", "compat:m"},
		env:  []string{"COPPERHEAD_BASE_URL=http://127.0.0.1:9/v1"},
		prep: func(t *testing.T, repo string) { writeFile(t, filepath.Join(repo, "notes.txt"), "uncommitted\n") }, stderr: "--allow-dirty"},
	{cmd: "do", code: 2, why: "no model configured", repo: "fixture", args: []string{"do", "add a pullup"}, stderr: "no model selected"},
	{cmd: "do", code: 2, why: "openspec missing", repo: "fixture", args: []string{"do", "add a pullup", "--model", "compat:m"},
		env: []string{"COPPERHEAD_BASE_URL=http://127.0.0.1:9/v1", "COPPERHEAD_OPENSPEC=/nonexistent/openspec"}, stderr: "openspec CLI not found"},
	{cmd: "sync", code: 0, why: "no inconsistencies", repo: "fixture", args: []string{"sync"}},
	{cmd: "sync", code: 1, why: "--dry-run with something resolvable", repo: "scratch", args: []string{"sync", "--dry-run"},
		prep: func(t *testing.T, repo string) {
			p := filepath.Join(repo, "docs", "BOM.md")
			b, _ := os.ReadFile(p)
			writeFile(t, p, regexp.MustCompile(`(?m)^(\| R6 \| )10k `).ReplaceAllString(string(b), "${1}100k "))
			gitCommit(t, repo, "R6 is 100k in the BOM")
		}},
	{cmd: "explain", code: 0, why: "a part", repo: "fixture", args: []string{"explain", "R6"}},
	{cmd: "explain", code: 1, why: "an unknown subject", repo: "fixture", args: []string{"explain", "NOPE123"}, stderr: `"NOPE123"`},
	{cmd: "edit", code: 0, why: "a dry run", repo: "fixture", args: []string{"edit", "set-field", "R6", "Value", "4.7k", "--dry-run"}},
	{cmd: "edit", code: 1, why: "a refusal", repo: "fixture", args: []string{"edit", "set-field", "NOPE9", "Value", "1k"}, stderr: "NOPE9"},
	{cmd: "edit", code: 2, why: "kicad-cli missing", repo: "fixture", args: []string{"edit", "set-field", "R6", "Value", "4.7k"}, env: []string{"COPPERHEAD_KICAD_CLI=/nonexistent/kicad-cli"}, stderr: "kicad-cli"},
	{cmd: "edit", code: 2, why: "an unknown operation", repo: "fixture", args: []string{"edit", "frobnicate"}, stderr: `unknown command "frobnicate"`},
	{cmd: "create", code: 1, why: "stopped: no model for the first model stage", repo: "gitempty", args: []string{"--plain", "create", "--brief", "@brief"}, stderr: ""},
	{cmd: "create", code: 2, why: "usage", repo: "empty", args: []string{"create", "--brief", "/nonexistent/brief.md"}, stderr: "--brief"},
	{cmd: "draft schematic", code: 1, why: "an intent with problems", repo: "empty", args: []string{"draft", "schematic", "--intent", "@badintent"}, stderr: "problem"},
	{cmd: "draft layout", code: 1, why: "nothing to draft", repo: "empty", args: []string{"draft", "layout"}, stderr: "no KiCad schematic"},
	{cmd: "mcp", code: 0, why: "the client disconnects (stdin closed)", repo: "fixture", args: []string{"mcp"}, stderr: "serving"},
	{cmd: "mcp", code: 1, why: "no .kicad_sch in the repository", repo: "empty", args: []string{"mcp"}},
	{cmd: "mcp", code: 2, why: "--json does not apply", repo: "fixture", args: []string{"--json", "mcp"}},
	{cmd: "mcp", code: 2, why: "bad usage", repo: "fixture", args: []string{"mcp", "extra"}},
	{cmd: "draft layout", code: 2, why: "an unknown --fab", repo: "fixture", args: []string{"draft", "layout", "--fab", "oshpark"}, stderr: "unknown fab"},
	{cmd: "repl", code: 2, why: "off a terminal without a request", repo: "fixture", args: []string{"repl"}, stderr: "needs a terminal"},
	{cmd: "watch", code: 1, why: "no schematic is found", repo: "empty", args: []string{"watch", "--port", "0"}},
	{cmd: "watch", code: 2, why: "--port outside 0-65535", repo: "fixture", args: []string{"watch", "--port", "70000"}},
	{cmd: "models", code: 0, why: "a model is selected", repo: "empty", args: []string{"models", "--model", "gpt-5"}, env: []string{"OPENAI_API_KEY=test-openai-credential-value"}},
	{cmd: "models", code: 1, why: "none is selected", repo: "empty", args: []string{"models"}},
	{cmd: "models", code: 2, why: "a missing credential", repo: "empty", args: []string{"models", "--model", "gpt-5"}, stderr: "OPENAI_API_KEY is not set"},
	{cmd: "models", code: 2, why: "a malformed --model", repo: "empty", args: []string{"models", "--model", "compat"}, stderr: "invalid model"},
	{cmd: "outputs", code: 1, why: "nothing to export", repo: "empty", args: []string{"outputs"}, stderr: "no KiCad schematic"},
	{cmd: "outputs", code: 2, why: "kicad-cli missing", repo: "fixture", args: []string{"outputs"}, env: []string{"COPPERHEAD_KICAD_CLI=/nonexistent/kicad-cli"}, stderr: "kicad-cli"},
	{cmd: "outputs", code: 2, why: "usage", repo: "fixture", args: []string{"outputs", "--fab", "nowhere"}, stderr: "--fab"},
	{cmd: "export bom", code: 0, why: "written", repo: "scratch", args: []string{"export", "bom", "--supplier", "mouser"}},
	{cmd: "export bom", code: 1, why: "the schematic could not be read", repo: "empty", args: []string{"export", "bom", "--supplier", "mouser"}, stderr: "no KiCad schematic"},
	{cmd: "export bom", code: 2, why: "--supplier missing", repo: "fixture", args: []string{"export", "bom"}, stderr: "--supplier"},
	{cmd: "firmware", code: 0, why: "scaffolded, not compiled here", repo: "scratch", args: []string{"firmware", "--no-build"}},
	{cmd: "firmware", code: 1, why: "no schematic, so no MCU", repo: "empty", args: []string{"firmware"}, stderr: "no KiCad schematic"},
	{cmd: "firmware", code: 2, why: "usage", repo: "fixture", args: []string{"firmware", "extra"}, stderr: `unknown command "extra"`},
}

// exitClauses are the README exit-code table's promises, each with the
// scenarios that keep it ("cmd code why").
var exitClauses = map[int][]string{
	0: {"success", "for `check`, every gate passed"},
	1: {"a check failed", "hand-edited docs without `--force`", "no schematic found", "required dependency failing in `doctor`",
		"a dirty tree for `do`", "an agent run failed and was rolled back", "`sync` left inconsistencies"},
	2: {"unknown command or flag", "bad `--repo`", "`kicad-cli` missing or older than 9", "no model or credential configured",
		"openspec missing for an agent run", "`sync` found a requirement violation"},
}

func gitCommit(t *testing.T, repo, msg string) {
	t.Helper()
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-qm", msg}} {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Test Engineer", "GIT_AUTHOR_EMAIL=test@example.invalid",
			"GIT_COMMITTER_NAME=Test Engineer", "GIT_COMMITTER_EMAIL=test@example.invalid", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestREADMEExitCodes runs a scenario for every exit code the README
// documents for a command and for every promise of its exit-code table, and
// checks each again with --json: one JSON object on stdout whose "ok" is
// true exactly for exit 0, and the same exit code.
func TestREADMEExitCodes(t *testing.T) {
	if _, err := exec.LookPath("kicad-cli"); err != nil {
		t.Skip("kicad-cli not installed")
	}
	doc := parseREADME(t, readmePath)
	env := readmeEnv(t)
	base := t.TempDir()

	// The bundled board in a git repository, committed: the fixture.
	fixture := filepath.Join(base, "fixture")
	if err := os.CopyFS(fixture, os.DirFS("../../examples/open-telegraph")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", fixture, "init", "-q", "-b", "main").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	gitCommit(t, fixture, "open-telegraph")
	oldKiCad := filepath.Join(base, "old-kicad-cli")
	writeFile(t, oldKiCad, "#!/bin/sh\necho 8.0.4\n")
	os.Chmod(oldKiCad, 0o755)
	noPdf := filepath.Join(base, "nopdftotext")
	os.MkdirAll(noPdf, 0o755)
	for _, tool := range []string{"git", "kicad-cli", "openspec", "sh"} {
		if p, err := exec.LookPath(tool); err == nil {
			os.Symlink(p, filepath.Join(noPdf, tool))
		}
	}
	brief := filepath.Join(base, "brief.md")
	writeFile(t, brief, "# A blinking LED\n\nA coin cell, a resistor and an LED that blinks.\n")
	badIntent := filepath.Join(base, "bad-intent.json")
	writeFile(t, badIntent, `{"project": "x", "parts": [{"ref": "U1", "lib_id": "NoSuchLib:NoSuchPart"}], "nets": []}`)
	subst := func(s string) string {
		for k, v := range map[string]string{"@old-kicad-cli": oldKiCad, "@nopdftotext": noPdf, "@brief": brief, "@badintent": badIntent} {
			s = strings.ReplaceAll(s, k, v)
		}
		return s
	}

	produced := map[string]bool{} // "cmd code"
	clauseKept := map[string]bool{}
	for i, sc := range readmeScenarios {
		name := sc.cmd + " " + strconv.Itoa(sc.code) + " " + sc.why
		t.Run(name, func(t *testing.T) {
			var repo string
			switch sc.repo {
			case "fixture":
				repo = fixture
			case "empty":
				repo = t.TempDir()
			case "missing":
				repo = filepath.Join(base, "no-such-folder")
			case "gitempty":
				repo = filepath.Join(t.TempDir(), "repo")
				os.MkdirAll(repo, 0o755)
				exec.Command("git", "-C", repo, "init", "-q", "-b", "main").Run()
			case "scratch":
				repo = filepath.Join(base, "scratch", strconv.Itoa(i))
				if err := os.CopyFS(repo, os.DirFS(fixture)); err != nil {
					t.Fatal(err)
				}
			}
			if sc.prep != nil {
				sc.prep(t, repo)
			}
			runEnv := slices.Clone(env)
			for _, kv := range sc.env {
				runEnv = append(runEnv, subst(kv))
			}
			args := []string{"--repo", repo}
			for _, a := range sc.args {
				args = append(args, subst(a))
			}
			before := snapshotIfFixture(t, sc.repo, repo)
			r := runBinary(t, runEnv, base, args...)
			if r.code != sc.code {
				t.Fatalf("copperhead %s: exit %d, want %d (%s)\nstdout:\n%s\nstderr:\n%s", strings.Join(sc.args, " "), r.code, sc.code, sc.why, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, sc.stderr) {
				t.Errorf("stderr %q lacks %q", r.stderr, sc.stderr)
			}
			produced[sc.cmd+" "+strconv.Itoa(sc.code)] = true
			for _, cl := range exitClauses[sc.code] {
				if clauseMatches(cl, sc) {
					clauseKept[cl] = true
				}
			}
			if sc.repo == "scratch" || sc.repo == "gitempty" || sc.cmd == "init" && sc.code == 1 {
				return // --json again on a changed tree says nothing new
			}
			if sc.cmd == "mcp" || sc.cmd == "watch" {
				return // no object to print (JSON-RPC; a page): --json is usage, a scenario of its own
			}
			// The same scenario with --json: one object, same exit code.
			j := runBinary(t, runEnv, base, append(args, "--json")...)
			if j.code != sc.code {
				t.Errorf("with --json: exit %d, want %d", j.code, sc.code)
			}
			var obj map[string]any
			dec := json.NewDecoder(strings.NewReader(j.stdout))
			if err := dec.Decode(&obj); err != nil || dec.More() {
				t.Fatalf("with --json, stdout is not one JSON object (%v):\n%s", err, j.stdout)
			}
			if ok, isBool := obj["ok"].(bool); !isBool || ok != (sc.code == 0) {
				t.Errorf(`with --json, "ok" is %v for exit %d`, obj["ok"], sc.code)
			}
			if sc.code != 0 && sc.stderr != "" {
				if msg, _ := obj["error"].(string); msg == "" {
					t.Errorf(`with --json, a failure without "error": %s`, j.stdout)
				}
			}
			if before != nil {
				if d := testkit.DiffTrees(before, testkit.ReadTree(t, repo, config.StateDir)); len(d) > 0 {
					t.Errorf("a read-only scenario changed the shared fixture: %v", d)
				}
			}
		})
	}

	// Every exit code a command's README text names has a scenario here,
	// or a named test elsewhere that produces it.
	for _, c := range doc.commands {
		if c.bin != "copperhead" {
			continue // carter's exit codes: cmd/carter's own scripts
		}
		for _, code := range documentedExitCodes(c.text) {
			key := c.name() + " " + strconv.Itoa(code)
			if produced[key] {
				continue
			}
			if e, ok := coveredElsewhere[key]; ok {
				checkElsewhere(t, key, e)
				continue
			}
			t.Errorf("README documents exit %d for `copperhead %s`, and no scenario produces it (add one to readmeScenarios, or name the test that does in coveredElsewhere as %q)", code, c.name(), key)
		}
	}
	// Every row of the exit-code table: its promises are still written
	// there, and each has a scenario.
	for code, meaning := range doc.exitRows {
		clauses, ok := exitClauses[code]
		if !ok {
			if e, ok := coveredElsewhere[strconv.Itoa(code)]; ok {
				checkElsewhere(t, "exit "+meaning, e)
				continue
			}
			t.Errorf("the README's exit-code table documents %d (%s), and no scenario produces it", code, meaning)
			continue
		}
		for _, part := range strings.Split(meaning, ";") {
			covered := false
			for _, cl := range clauses {
				covered = covered || strings.Contains(part, cl)
			}
			if !covered {
				t.Errorf("exit %d: the README promises %q, which no scenario here keeps", code, strings.TrimSpace(part))
			}
		}
		for _, cl := range clauses {
			if !strings.Contains(meaning, cl) {
				t.Errorf("exit %d: the README no longer says %q (update exitClauses)", code, cl)
			}
			if !clauseKept[cl] && !keptElsewhere(t, cl) {
				t.Errorf("exit %d: no scenario produced %q", code, cl)
			}
		}
	}
}

// clauseMatches ties a scenario to the exit-table clause it demonstrates.
func clauseMatches(clause string, sc scenario) bool {
	switch clause {
	case "success":
		return sc.code == 0
	case "for `check`, every gate passed":
		return sc.cmd == "check" && sc.code == 0
	case "a check failed":
		return sc.cmd == "check" && sc.code == 1
	case "hand-edited docs without `--force`":
		return sc.cmd == "init" && sc.code == 1 && sc.repo == "scratch"
	case "no schematic found":
		return sc.code == 1 && sc.stderr == "no KiCad schematic"
	case "required dependency failing in `doctor`":
		return sc.cmd == "doctor" && sc.code == 1
	case "a dirty tree for `do`":
		return sc.cmd == "do" && sc.code == 1 && sc.why == "a dirty tree"
	case "`sync` left inconsistencies":
		return sc.cmd == "sync" && sc.code == 1
	case "unknown command or flag":
		return sc.code == 2 && (strings.Contains(sc.stderr, "unknown command") || strings.Contains(sc.stderr, "unknown flag"))
	case "bad `--repo`":
		return sc.code == 2 && sc.repo == "missing"
	case "`kicad-cli` missing or older than 9":
		return sc.code == 2 && strings.HasPrefix(sc.why, "kicad-cli")
	case "no model or credential configured":
		return sc.code == 2 && (sc.why == "no model configured" || sc.why == "a missing credential")
	case "openspec missing for an agent run":
		return sc.code == 2 && sc.why == "openspec missing"
	}
	return false
}

// keptElsewhere: exit-table promises that need a scripted model.
func keptElsewhere(t *testing.T, clause string) bool {
	e, ok := map[string]elsewhere{
		"an agent run failed and was rolled back": {"testdata/script/do_refuse_repair.txtar", "copperhead failed run"},
		"`sync` found a requirement violation":    {"testdata/script/sync.txtar", "grep '^exit 2$' code.txt"},
	}[clause]
	if ok {
		checkElsewhere(t, clause, e)
	}
	return ok
}

func checkElsewhere(t *testing.T, what string, e elsewhere) {
	t.Helper()
	b, err := os.ReadFile(e.file)
	if err != nil || !strings.Contains(string(b), e.contains) {
		t.Errorf("%s is said to be covered by %s (%q), which does not hold it (%v)", what, e.file, e.contains, err)
	}
}

// snapshotIfFixture reads the shared fixture before a run, so a scenario
// that should only read it is caught writing.
func snapshotIfFixture(t *testing.T, kind, repo string) map[string]string {
	if kind != "fixture" {
		return nil
	}
	return testkit.ReadTree(t, repo, config.StateDir)
}

// TestREADMEEnvironment: every variable the README documents is read
// somewhere in copperhead's own code (or, for the scripts' variables, in
// the scripts).
func TestREADMEEnvironment(t *testing.T) {
	for _, p := range envProblems(parseREADME(t, readmePath).envVars) {
		t.Error(p)
	}
}

func envProblems(names []string) []string {
	var sources []string
	for _, root := range []string{"../../internal", "../../cmd", "../../scripts", "../../bench"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if strings.HasSuffix(p, "_test.go") || strings.Contains(p, "/testdata/") {
				return nil
			}
			if strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".sh") {
				b, _ := os.ReadFile(p)
				sources = append(sources, string(b))
			}
			return nil
		})
	}
	all := strings.Join(sources, "\n")
	var problems []string
	for _, name := range names {
		// Read as a Go string ("NAME", "NAME=") or a shell expansion
		// ($NAME, ${NAME); KiCad's versioned variables may be built from
		// the major version ("KICAD%d_TEMPLATE_DIR").
		forms := regexp.QuoteMeta(name)
		if strings.HasPrefix(name, "KICAD9_") {
			forms += "|" + regexp.QuoteMeta("KICAD%d_"+strings.TrimPrefix(name, "KICAD9_"))
		}
		re := regexp.MustCompile(`"(?:` + forms + `)[="]|\$\{?(?:` + forms + `)\b`)
		if !re.MatchString(all) {
			problems = append(problems, fmt.Sprintf("README documents the variable %s, which nothing in internal/, cmd/, scripts/ or bench/ reads", name))
		}
	}
	return problems
}

// TestREADMEConfigKeys: every key the README's configuration table
// documents is one the config loader knows: given a value of the wrong type,
// it is refused by name (a key the loader does not know would be kept
// verbatim and never read).
func TestREADMEConfigKeys(t *testing.T) {
	for _, p := range configKeyProblems(parseREADME(t, readmePath).configKeys) {
		t.Error(p)
	}
}

func configKeyProblems(keys []string) []string {
	var problems []string
	for _, key := range keys {
		known := false
		var errs []string
		for _, wrong := range []string{`true`, `[]`, `"text"`} {
			var body string
			if top, sub, nested := strings.Cut(key, "."); nested {
				body = `{"` + top + `": {"` + sub + `": ` + wrong + `}}`
			} else {
				body = `{"` + key + `": ` + wrong + `}`
			}
			_, err := config.ParseConfig([]byte(body), "config.json")
			if err != nil {
				errs = append(errs, err.Error())
				if strings.Contains(err.Error(), `key "`+key+`"`) {
					known = true
				}
			}
		}
		if !known {
			problems = append(problems, fmt.Sprintf("README documents the config key %q, which the loader does not check (errors: %q)", key, errs))
		}
	}
	return problems
}

// TestREADMEDocumentsEveryCommand is the other direction of
// TestREADMECommandsAndFlags: every command the binaries offer (walked
// from their own --help) has a README row, and every flag a command takes
// is named in its row.
func TestREADMEDocumentsEveryCommand(t *testing.T) {
	doc := parseREADME(t, readmePath)
	env := readmeEnv(t)
	dir := t.TempDir()
	rows := map[string]readmeCommand{}
	for _, c := range doc.commands {
		rows[c.bin+" "+c.name()] = c
	}
	carter := filepath.Join(t.TempDir(), "carter")
	if out, err := exec.Command("go", "build", "-o", carter, "../carter").CombinedOutput(); err != nil {
		t.Fatalf("build carter: %v\n%s", err, out)
	}
	for bin, prog := range map[string]string{"copperhead": "copperhead", "carter": carter} {
		var walk func(path []string)
		walk = func(path []string) {
			help := runProgram(t, prog, env, dir, append(slices.Clone(path), "--help")...)
			if help.code != 0 {
				t.Fatalf("%s %s --help: exit %d\n%s", bin, strings.Join(path, " "), help.code, help.stderr)
			}
			subs := helpSection(help.stdout, "Available Commands:")
			for _, line := range subs {
				name := strings.Fields(line)[0]
				if name != "help" && name != "completion" {
					walk(append(slices.Clone(path), name))
				}
			}
			flags := helpSection(help.stdout, "Flags:")
			if len(path) == 0 || len(subs) > 0 && len(flags) <= 1 {
				return // the root, or a group that only holds subcommands (its one flag --help)
			}
			row, ok := rows[bin+" "+strings.Join(path, " ")]
			if !ok {
				t.Errorf("README has no row for `%s %s`", bin, strings.Join(path, " "))
				return
			}
			for _, line := range flags {
				for _, f := range flagName.FindAllString(line, 1) {
					if f != "--help" && !strings.Contains(row.text, f) {
						t.Errorf("README's row for `%s %s` does not name its flag %s", bin, strings.Join(path, " "), f)
					}
				}
			}
		}
		walk(nil)
	}
}

// helpSection returns the indented lines under a cobra help heading.
func helpSection(help, heading string) []string {
	_, rest, ok := strings.Cut(help, "\n"+heading+"\n")
	if !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "  ") {
			break
		}
		out = append(out, strings.TrimSpace(line))
	}
	return out
}
