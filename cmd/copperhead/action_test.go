package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"copperhead/internal/testkit"
)

// fakeGitHub is the part of GitHub's REST API the action's comment step
// uses: list, create and update the comments of one pull request.
type fakeGitHub struct {
	mu       sync.Mutex
	comments map[int]string
	next     int
	calls    []string // "METHOD path"
	tokens   []string
}

func (g *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, r.Method+" "+r.URL.Path)
	g.tokens = append(g.tokens, r.Header.Get("Authorization"))
	body := func() string {
		var v struct{ Body string }
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &v) != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
		}
		return v.Body
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/repos/o/r/issues/7/comments":
		var list []map[string]any
		for id, b := range g.comments {
			list = append(list, map[string]any{"id": id, "body": b})
		}
		list = append(list, map[string]any{"id": 999, "body": "someone else's comment"})
		json.NewEncoder(w).Encode(list)
	case r.Method == http.MethodPost && r.URL.Path == "/repos/o/r/issues/7/comments":
		g.next++
		g.comments[g.next] = body()
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id": %d}`, g.next)
	case r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/repos/o/r/issues/comments/"):
		var id int
		fmt.Sscan(strings.TrimPrefix(r.URL.Path, "/repos/o/r/issues/comments/"), &id)
		if _, ok := g.comments[id]; !ok {
			http.NotFound(w, r)
			return
		}
		g.comments[id] = body()
		fmt.Fprintf(w, `{"id": %d}`, id)
	default:
		http.NotFound(w, r)
	}
}

// TestActionSteps runs the GitHub Action's shell steps (scripts/action/
// run.sh, what action.yml's "Check and diff" step runs) against a fixture
// repository with two commits and a loopback GitHub API: it writes the
// SARIF file and the comment body, posts one comment and updates the same
// one on the next push, and records check's exit code for the gate step
// (0 for a rename, 1 once a new ERC violation appears).
func TestActionSteps(t *testing.T) {
	for _, tool := range []string{"kicad-cli", "jq", "curl", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	env := readmeEnv(t)
	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS("../../examples/open-telegraph")); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("git", "init", "-q", "-b", "main")
	run("git", "add", "-A")
	run("git", "commit", "-qm", "base")
	base := run("git", "rev-parse", "HEAD")
	run("copperhead", "edit", "rename-net", "KEY_DAH", "KEY_DASH")
	run("git", "commit", "-qam", "rename the dash key net")

	gh := &fakeGitHub{comments: map[int]string{}}
	srv := httptest.NewServer(gh)
	defer srv.Close()
	work := t.TempDir()
	event := filepath.Join(work, "event.json")
	writeFile(t, event, fmt.Sprintf(`{"pull_request": {"number": 7, "base": {"sha": %q}}}`, base))
	script, err := filepath.Abs("../../scripts/action/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	step := func(t *testing.T) (outputs map[string]string, comment string) {
		t.Helper()
		tmp := t.TempDir()
		outFile, summary := filepath.Join(tmp, "output"), filepath.Join(tmp, "summary")
		cmd := exec.Command("bash", script)
		cmd.Env = append(env, "COPPERHEAD=copperhead", "INPUT_PATH="+repo, "INPUT_COMMENT=true",
			"GITHUB_EVENT_PATH="+event, "GITHUB_REPOSITORY=o/r", "GITHUB_API_URL="+srv.URL, "GITHUB_TOKEN=test-token",
			"GITHUB_OUTPUT="+outFile, "GITHUB_STEP_SUMMARY="+summary, "RUNNER_TEMP="+tmp)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run.sh: %v\n%s", err, out)
		}
		b, err := os.ReadFile(outFile)
		if err != nil {
			t.Fatal(err)
		}
		outputs = map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			k, v, _ := strings.Cut(l, "=")
			outputs[k] = v
		}
		var sarif struct {
			Version string `json:"version"`
			Runs    []struct {
				Results []json.RawMessage `json:"results"`
			} `json:"runs"`
		}
		data, err := os.ReadFile(outputs["sarif"])
		if err != nil || json.Unmarshal(data, &sarif) != nil || sarif.Version != "2.1.0" || len(sarif.Runs) == 0 {
			t.Fatalf("the SARIF file %s is not SARIF 2.1.0 (%v): %.300s", outputs["sarif"], err, data)
		}
		c, err := os.ReadFile(outputs["comment"])
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := os.ReadFile(summary); string(s) != string(c) {
			t.Errorf("the job summary is not the comment")
		}
		return outputs, string(c)
	}

	out, comment := step(t)
	if out["check-exit"] != "0" {
		t.Errorf("check-exit = %q for a rename, want 0", out["check-exit"])
	}
	testkit.ContainsAll(t, "comment", comment, "<!-- copperhead: electrical diff and check -->", "copperhead check passed", "### copperhead diff", "KEY_DASH")
	if len(gh.comments) != 1 || gh.comments[1] != comment {
		t.Fatalf("after the first push the PR has comments %v, want the one comment body", gh.comments)
	}

	// The next push adds a new ERC violation: the same comment is updated
	// and the gate gets exit 1.
	run("copperhead", "edit", "disconnect", "U1.7")
	run("git", "commit", "-qam", "disconnect U1 pin 7")
	out, comment = step(t)
	if out["check-exit"] != "1" {
		t.Errorf("check-exit = %q after a new violation, want 1", out["check-exit"])
	}
	if !strings.Contains(comment, "copperhead check failed") {
		t.Errorf("comment does not say check failed:\n%s", comment)
	}
	if len(gh.comments) != 1 || gh.comments[1] != comment {
		t.Errorf("after the second push the PR has comments %v, want the first one updated", gh.comments)
	}
	if last := gh.calls[len(gh.calls)-1]; last != "PATCH /repos/o/r/issues/comments/1" {
		t.Errorf("calls %v: the second push did not update comment 1", gh.calls)
	}
	for _, tok := range gh.tokens {
		if tok != "Bearer test-token" {
			t.Errorf("a request carried %q, not the token", tok)
		}
	}
}

// TestActionYAML: action.yml runs the scripts that exist, builds from its
// own checkout, uploads SARIF even when check failed, and gates last.
func TestActionYAML(t *testing.T) {
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	y := string(b)
	order := []string{"using: composite", "actions/setup-go", "scripts/action/install.sh", "ACTION_REPOSITORY: ${{ github.action_repository }}", `scripts/action/build.sh "$RUNNER_TEMP/copperhead"`,
		"scripts/action/run.sh", "if: always()", "github/codeql-action/upload-sarif", `exit "${{ steps.run.outputs.check-exit }}"`}
	at := 0
	for _, s := range order {
		i := strings.Index(y[at:], s)
		if i < 0 {
			t.Fatalf("action.yml lacks %q after position %d", s, at)
		}
		at += i
	}
	for _, s := range []string{"install.sh", "build.sh", "run.sh"} {
		if _, err := os.Stat(filepath.Join("../../scripts/action", s)); err != nil {
			t.Error(err)
		}
	}
}

// TestActionBuild runs the action's build step (scripts/action/build.sh):
// the binary it builds names the action's repository as where copperhead
// comes from in its SARIF, and one built without a repository names none.
func TestActionBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds copperhead twice")
	}
	if _, err := exec.LookPath("kicad-cli"); err != nil {
		t.Skip("kicad-cli is not installed")
	}
	script, err := filepath.Abs("../../scripts/action/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	env := readmeEnv(t)
	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS("../../examples/open-telegraph")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ repository, want string }{
		{"octo/copperhead", `"informationUri": "https://github.com/octo/copperhead"`},
		{"", ""},
	} {
		bin := filepath.Join(t.TempDir(), "copperhead")
		cmd := exec.Command("bash", script, bin)
		cmd.Env = append(slices.Clone(env), "ACTION_REPOSITORY="+tc.repository)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build.sh: %v\n%s", err, out)
		}
		check := exec.Command(bin, "--repo", repo, "check", "--format", "sarif")
		check.Env = env
		out, err := check.Output()
		if err != nil {
			t.Fatalf("check --format sarif: %v", err)
		}
		switch {
		case tc.want != "" && !strings.Contains(string(out), tc.want):
			t.Errorf("ACTION_REPOSITORY=%s: SARIF lacks %s", tc.repository, tc.want)
		case tc.want == "" && strings.Contains(string(out), "informationUri"):
			t.Errorf("no ACTION_REPOSITORY: SARIF names an informationUri anyway")
		}
	}
}
