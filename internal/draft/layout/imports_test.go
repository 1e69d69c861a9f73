package layout

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportBoundary enforces the package doc: the layout engine needs no
// model and must never import llm, agent, research or cli, even indirectly.
func TestImportBoundary(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go toolchain not on PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v: %s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"copperhead/internal/llm", "copperhead/internal/agent", "copperhead/internal/research", "copperhead/internal/cli"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("layout depends on %s", dep)
			}
		}
	}
}
