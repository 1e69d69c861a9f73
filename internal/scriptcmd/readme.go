package scriptcmd

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The sections of a testdata/script/README.md, in order: what a script may
// run, test and read beyond testscript's own commands.
var scriptSections = []string{"Programs", "Commands", "Conditions", "Environment"}

// ReadScriptREADME returns the names a testscript README lists in each of
// its sections: an item "- `fakemodel PROVIDER REPLY...`: ..." under
// "## Commands" names fakemodel, "- `[kicad]`" under "## Conditions" names
// kicad, "- `$FIXTURE`" under "## Environment" names FIXTURE; an item may
// name several ("- `$GIT_AUTHOR_NAME`, `$GIT_COMMITTER_NAME`: ...").
func ReadScriptREADME(md string) map[string][]string {
	listed := map[string][]string{}
	section := ""
	for _, line := range strings.Split(md, "\n") {
		if title, ok := strings.CutPrefix(line, "## "); ok {
			section = strings.TrimSpace(title)
			continue
		}
		item, ok := strings.CutPrefix(line, "- `")
		if !ok || section == "" {
			continue
		}
		head, _, ok := strings.Cut(item, "`:")
		if !ok {
			head, _, _ = strings.Cut(item, "`")
		}
		for _, code := range strings.Split(head, "`, `") {
			name, _, _ := strings.Cut(code, " ")
			listed[section] = append(listed[section], strings.TrimPrefix(strings.Trim(name, "[]"), "$"))
		}
	}
	return listed
}

// DiffScriptREADME compares what a README lists with what the test binary
// registers, section by section, and returns one line per difference.
func DiffScriptREADME(listed, registered map[string][]string) []string {
	var diffs []string
	for _, sec := range scriptSections {
		for _, name := range slices.Sorted(slices.Values(registered[sec])) {
			if !slices.Contains(listed[sec], name) {
				diffs = append(diffs, fmt.Sprintf("%s: %s is registered but missing from the README", sec, name))
			}
		}
		for _, name := range listed[sec] {
			if !slices.Contains(registered[sec], name) {
				diffs = append(diffs, fmt.Sprintf("%s: the README lists %s, which is not registered", sec, name))
			}
		}
	}
	for sec := range listed {
		if !slices.Contains(scriptSections, sec) {
			diffs = append(diffs, fmt.Sprintf("the README's section %q is none of %s", sec, strings.Join(scriptSections, ", ")))
		}
	}
	slices.Sort(diffs)
	return diffs
}

// Script is what a testscript test binary registers: the programs of
// testscript.Main, and the Setup, Condition and Cmds of the Params
// RunScripts gives testscript.Run (the conditions as a map Condition looks
// up).
type Script struct {
	Programs   map[string]func()
	Setup      func(*testscript.Env) error
	Conditions map[string]func() bool
	Cmds       map[string]Cmd
}

// CheckScriptREADME fails t for every program, command, condition or
// environment variable (what Setup sets) registered but missing from the
// README at path, or listed there but not registered.
func CheckScriptREADME(t testing.TB, path string, s Script) {
	t.Helper()
	md, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := &testscript.Env{WorkDir: t.TempDir()}
	if err := s.Setup(env); err != nil {
		t.Fatalf("setup: %v", err)
	}
	registered := map[string][]string{
		"Programs":    slices.Collect(maps.Keys(s.Programs)),
		"Commands":    slices.Collect(maps.Keys(s.Cmds)),
		"Conditions":  slices.Collect(maps.Keys(s.Conditions)),
		"Environment": EnvNames(env.Vars),
	}
	for _, d := range DiffScriptREADME(ReadScriptREADME(string(md)), registered) {
		t.Errorf("%s: %s", path, d)
	}
}

// EnvNames returns the names of KEY=VALUE pairs, sorted and without repeats.
func EnvNames(vars []string) []string {
	var names []string
	for _, kv := range vars {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return names
}
