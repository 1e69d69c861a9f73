package research

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "copperhead"

// checkPath lists the packages `check` runs on. None of them, nor anything
// they import, may reach research code: that keeps `check` offline by
// construction (AC-2.1), not by discipline.
var checkPath = []string{
	module + "/internal/verify",
	module + "/internal/design",
	module + "/internal/kicad",
	module + "/internal/kicadcli",
	module + "/internal/sourcing",
	module + "/internal/datasheets",
}

// offlineHalves are the network-free halves of research that check reads
// research's results through: sourcing rules and the datasheet cache format.
// Beyond never importing research, they open no socket and run no program.
var offlineHalves = []string{
	module + "/internal/sourcing",
	module + "/internal/datasheets",
}

// httpAllowed lists the packages whose non-test code may import net/http:
// the LLM seam and the research tree (whose client is the egress package).
// Anything else importing net/http would be a second, unaudited way out.
func httpAllowed(pkg string) bool {
	for _, p := range []string{module + "/internal/llm", module + "/internal/research"} {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}

func goList(t *testing.T, args ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", append([]string{"list", "-e"}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list %v: %v\n%s", args, err, ee.Stderr)
		}
		t.Skipf("go unavailable: %v", err)
	}
	return string(out)
}

// TestCheckPathNeverImportsResearch proves the check path's whole dependency
// closure stays free of internal/research (and of internal/llm).
func TestCheckPathNeverImportsResearch(t *testing.T) {
	out := goList(t, append([]string{"-deps"}, checkPath...)...)
	for _, dep := range strings.Fields(out) {
		for _, banned := range []string{module + "/internal/research", module + "/internal/llm"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("the check path depends on %s", dep)
			}
		}
	}
}

// TestOfflineHalvesOpenNothing proves the offline halves' whole dependency
// closure has no socket and no subprocess package in it.
func TestOfflineHalvesOpenNothing(t *testing.T) {
	out := goList(t, append([]string{"-deps"}, offlineHalves...)...)
	for _, dep := range strings.Fields(out) {
		if dep == "net" || strings.HasPrefix(dep, "net/") || dep == "os/exec" || dep == "crypto/tls" {
			t.Errorf("an offline half of research depends on %s", dep)
		}
	}
}

// TestOnlyResearchAndLLMImportNetHTTP proves that outside internal/llm and
// internal/research no package's non-test code imports net/http, so the
// egress client is the only research network client. Test files (loopback
// fakes, the CLI test harness) are exempt: .Imports excludes them.
func TestOnlyResearchAndLLMImportNetHTTP(t *testing.T) {
	out := goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || httpAllowed(fields[0]) {
			continue
		}
		for _, imp := range fields[1:] {
			if imp == "net/http" || strings.HasPrefix(imp, "net/http/") {
				t.Errorf("%s imports %s: network I/O belongs in internal/research/egress (research) or internal/llm (models)", fields[0], imp)
			}
		}
	}
}

// researchtest is the tests' fake internet: it listens on loopback and never
// dials, and TestFakesNotInTheBinary keeps it out of the shipped binary.
const researchtestPkg = module + "/internal/research/researchtest"

// TestResearchHTTPOnlyInEgress narrows the rule inside the research tree:
// only the egress package constructs HTTP clients. Other research packages
// may use net/http types (http.NewRequest, http.Header) to hand requests to
// egress, but must not import the raw socket layer.
func TestResearchHTTPOnlyInEgress(t *testing.T) {
	out := goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/internal/research/...")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] == module+"/internal/research/egress" || fields[0] == researchtestPkg {
			continue
		}
		for _, imp := range fields[1:] {
			if imp == "net" || imp == "crypto/tls" || imp == "net/http/httptrace" {
				t.Errorf("%s imports %s: research sockets are opened only by internal/research/egress", fields[0], imp)
			}
		}
	}
}

// TestFakesNotInTheBinary proves the test fakes (the fake internet, the fake
// model server) are linked into no shipped command: the egress test options
// they set are reachable from test binaries only.
func TestFakesNotInTheBinary(t *testing.T) {
	out := goList(t, "-deps", module+"/cmd/...")
	for _, dep := range strings.Fields(out) {
		if dep == researchtestPkg || dep == module+"/internal/llm/llmtest" {
			t.Errorf("a shipped command depends on %s", dep)
		}
	}
}
