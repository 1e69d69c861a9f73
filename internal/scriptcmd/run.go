package scriptcmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// Cmd is a custom testscript command: `name args...` in a script, neg set
// when the script wrote `! name`.
type Cmd = func(ts *testscript.TestScript, neg bool, args []string)

// Condition returns testscript's Condition hook for a set of named
// conditions: `[name]` in a script asks conds[name]; a name not in conds is
// an error, so a typo fails the script instead of skipping it.
func Condition(conds map[string]func() bool) func(cond string) (bool, error) {
	return func(cond string) (bool, error) {
		if c, ok := conds[cond]; ok {
			return c(), nil
		}
		return false, fmt.Errorf("unknown condition %q", cond)
	}
}

// OnPath is a condition: program is on PATH.
func OnPath(program string) func() bool {
	return func() bool {
		_, err := exec.LookPath(program)
		return err == nil
	}
}

// Exists is a condition: path exists.
func Exists(path string) func() bool {
	return func() bool {
		_, err := os.Stat(path)
		return err == nil
	}
}

// RunScripts runs every testdata/script/*.txtar of the calling package with
// what s registers.
func RunScripts(t *testing.T, s Script) {
	testscript.Run(t, testscript.Params{
		Dir:       "testdata/script",
		Setup:     s.Setup,
		Condition: Condition(s.Conditions),
		Cmds:      s.Cmds,
	})
}

// AbsPath returns path made absolute, failing t if it cannot be.
func AbsPath(t testing.TB, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
