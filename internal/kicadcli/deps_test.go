package kicadcli

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportBoundary enforces the package doc: kicadcli sits below design,
// llm and research and must never import them, even indirectly.
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
		for _, banned := range []string{"copperhead/internal/design", "copperhead/internal/llm", "copperhead/internal/research"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("kicadcli depends on %s", dep)
			}
		}
	}
}
