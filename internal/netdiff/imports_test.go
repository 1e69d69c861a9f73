package netdiff

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoForbiddenImports keeps the diff pure: netdiff, and everything it
// depends on, runs nothing and reads no files of its own, so it must never
// import kicad-cli, git, the LLM or the CLI.
func TestNoForbiddenImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"copperhead/internal/kicadcli", "copperhead/internal/gitrepo", "copperhead/internal/llm", "copperhead/internal/cli", "os/exec", "net/http"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("netdiff depends on %s", dep)
			}
		}
	}
}
