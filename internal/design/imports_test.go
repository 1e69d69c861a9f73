package design

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoForbiddenImports keeps check LLM-free and network-free by
// construction: design, and everything it depends on, must never import the
// LLM, research or kicad-cli packages.
func TestNoForbiddenImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"copperhead/internal/llm", "copperhead/internal/research", "copperhead/internal/kicadcli"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("design depends on %s", dep)
			}
		}
	}
}
