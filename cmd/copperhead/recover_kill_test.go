package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"copperhead/internal/llm"
	"copperhead/internal/llm/llmtest"
	"copperhead/internal/testkit"
)

// treeRecord is every file of a work tree, bytes and mode (symlinks as
// their target), outside .git and copperhead's ignored runs and state
// folders, plus git's view: HEAD, the index and status.
type treeRecord struct {
	files  map[string]string
	head   string
	index  string // git ls-files --stage: mode, blob and path of every staged entry
	status string
}

func recordTree(t *testing.T, repo string) treeRecord {
	t.Helper()
	rec := treeRecord{files: userFiles(t, repo)}
	rec.head = gitOut(t, repo, "rev-parse", "HEAD")
	rec.index = gitOut(t, repo, "ls-files", "--stage")
	rec.status = gitOut(t, repo, "status", "--porcelain=v1", "--untracked-files=all")
	return rec
}

// userFiles maps every file of the repository to its mode and bytes
// (symlinks to their target), leaving out .git and what copperhead keeps
// for itself: the run records (.copperhead/runs/, which a run must keep)
// and the lock folder (.copperhead/state/).
func userFiles(t *testing.T, repo string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(repo, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, repo+string(filepath.Separator)))
		if e.IsDir() {
			switch rel {
			case ".git", ".copperhead/runs", ".copperhead/state":
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			files[rel] = "symlink -> " + target
			return err
		}
		b, err := os.ReadFile(p)
		files[rel] = fmt.Sprintf("%v %x", fi.Mode(), b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func gitOut(t *testing.T, repo string, args ...string) string {
	t.Helper()
	return gitIn(t, nil, repo, args...)
}

// gitIn runs git in dir with env (nil: the test's own) and fails the test,
// quoting git, when it fails.
func gitIn(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// killSteps is the scripted model's run up to a kill point: the proposal,
// its validation, the rename, ERC; then the model answers after a minute
// (the test kills the run long before).
func killSteps(n int) []llmtest.Step {
	call := func(name, args string) llmtest.Step {
		return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("call_%s", name), Name: name, Args: json.RawMessage(args)}},
			Stop: llm.StopToolUse, Usage: llm.Usage{Input: 1200, Output: 80}}
	}
	steps := []llmtest.Step{
		call("propose_change", `{"id": "rename-key-dah",
		  "why": "The dash paddle net is called KEY_DASH in the firmware.",
		  "what_changes": "Rename net KEY_DAH to KEY_DASH.",
		  "tasks": ["Rename the net", "Run ERC and drift"],
		  "deltas": [{"capability": "keyer-inputs", "kind": "ADDED", "requirements": [{
		    "name": "Dash key net name",
		    "text": "The dash paddle input SHALL be on the net KEY_DASH at U1 pin 5.",
		    "scenarios": [{"name": "Dash paddle pressed", "when": "the dash paddle closes", "then": "KEY_DASH reads low at U1 IO5"}]}]}]}`),
		call("validate_change", `{}`),
		call("rename_net", `{"old": "KEY_DAH", "new": "KEY_DASH"}`),
		call("run_erc", `{}`),
	}
	return append(steps[:n:n], llmtest.Slow{Delay: time.Minute, Then: llmtest.Reply{Text: "late"}})
}

// TestKilledRunRecovers (issue #13 item 6): the real binary's `do`, driven
// by the scripted model over loopback, is killed with SIGKILL after the
// proposal validated, after an edit, and during ERC, on a clean tree and
// with --allow-dirty over staged, unstaged and untracked user work. Before
// recover every writer refuses (exit 1) naming the run; `copperhead
// recover` then exits 0 and every file's bytes and mode, the index, status
// and HEAD are exactly as before the run, with the run's work in a
// "copperhead interrupted run <id>" stash and its run-end written.
func TestKilledRunRecovers(t *testing.T) {
	if _, err := exec.LookPath("openspec"); err != nil {
		t.Skip("openspec not installed")
	}
	realKiCad, err := exec.LookPath("kicad-cli")
	if err != nil {
		t.Skip("kicad-cli not installed")
	}
	points := []struct {
		name   string
		steps  int  // scripted replies before the model stalls
		wait   int  // kill once the model got this many requests...
		erc    bool // ...or once kicad-cli's ERC started
		edited bool // the kill finds the schematic changed
	}{
		{name: "after the proposal validated", steps: 2, wait: 3},
		{name: "after an edit", steps: 3, wait: 4, edited: true},
		{name: "during ERC", steps: 4, erc: true, edited: true},
	}
	for _, dirty := range []bool{false, true} {
		for _, pt := range points {
			name := pt.name
			if dirty {
				name += " with allow-dirty"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				env := faultEnv(t)
				mark := filepath.Join(dir, "erc-started")
				wrapper := filepath.Join(dir, "kicad-cli")
				script := fmt.Sprintf("#!/bin/sh\nif [ \"$1 $2\" = \"sch erc\" ]; then : > %q; sleep 60; fi\nexec %q \"$@\"\n", mark, realKiCad)
				if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
				srv := llmtest.NewServer(t, llmtest.OpenAI, killSteps(pt.steps)...)
				env = append(env, "COPPERHEAD_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=",
					"COPPERHEAD_KICAD_CLI="+wrapper, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
					"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=t@example.invalid")
				repo := faultRepo(t)
				git := func(args ...string) string {
					t.Helper()
					return gitIn(t, env, repo, args...)
				}
				git("init", "-q", "-b", "main")
				git("add", "-A")
				git("commit", "-qm", "open-telegraph")
				args := []string{"--plain", "do", "rename net KEY_DAH to KEY_DASH", "--model", "compat:scripted"}
				if dirty {
					args = append(args, "--allow-dirty")
					userWork(t, repo, git)
				}
				before := recordTree(t, repo)

				cmd := exec.Command("copperhead", append([]string{"--repo", repo}, args...)...)
				cmd.Env = env
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // kicad-cli dies with it, as in a crash
				var out strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				pgid := cmd.Process.Pid
				t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
				for deadline := time.Now().Add(40 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					if pt.erc {
						if _, err := os.Stat(mark); err == nil {
							break
						}
					} else if len(srv.Requests()) >= pt.wait {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("the run never reached the kill point (%d requests)\n%s", len(srv.Requests()), out.String())
					}
				}
				if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				_ = cmd.Wait()

				killed := recordTree(t, repo)
				sch := "hardware/open-telegraph.kicad_sch"
				if pt.edited && killed.files[sch] == before.files[sch] {
					t.Fatalf("the kill found %s unchanged: the kill point was not reached", sch)
				}
				ids := strings.Fields(git("for-each-ref", "--format=%(refname:lstrip=3)", "refs/copperhead/runs/"))
				if len(ids) != 1 {
					t.Fatalf("run refs after the kill: %v", ids)
				}
				id := ids[0]

				// Writers refuse, exit 1, naming the run and recover.
				msg, err := runCopperhead(env, repo, "edit", "set-field", "R7", "Value", "4.7k")
				if code := exitCode(err); code != 1 || !strings.Contains(msg, "run "+id+" (do \"rename net KEY_DAH to KEY_DASH\") was interrupted") ||
					!strings.Contains(msg, "copperhead recover") {
					t.Errorf("edit with an interrupted run: exit %d\n%s", code, msg)
				}
				if msg, err := runCopperhead(env, repo, "recover", "01KNOSUCHRUN"); exitCode(err) != 2 || !strings.Contains(msg, "no interrupted run 01KNOSUCHRUN") {
					t.Errorf("recover of an unknown id: exit %d\n%s", exitCode(err), msg)
				}
				if !maps.Equal(recordTree(t, repo).files, killed.files) {
					t.Fatal("a refused command changed the tree")
				}

				msg, err = runCopperhead(env, repo, "recover")
				if err != nil {
					t.Fatalf("recover: %v\n%s", err, msg)
				}
				after := recordTree(t, repo)
				if diff := testkit.DiffTrees(before.files, after.files); len(diff) > 0 {
					t.Errorf("after recover these differ from before the run (bytes or mode): %v", diff)
				}
				if after.head != before.head || after.index != before.index || after.status != before.status {
					t.Errorf("git state after recover:\nHEAD %s index\n%s\nstatus\n%s\nwant HEAD %s index\n%s\nstatus\n%s",
						after.head, after.index, after.status, before.head, before.index, before.status)
				}
				list := git("stash", "list")
				if changed := len(testkit.DiffTrees(before.files, killed.files)) > 0; changed {
					if list != "stash@{0}: copperhead interrupted run "+id+"\n" {
						t.Errorf("stash list %q", list)
					}
					if show := git("stash", "show", "-p", "--include-untracked", "stash@{0}"); pt.edited && !strings.Contains(show, `"KEY_DASH"`) {
						t.Errorf("the stash lacks the run's rename:\n%s", show)
					}
				} else if list != "" {
					t.Errorf("a run that changed nothing left a stash: %q", list)
				}
				if refs := git("for-each-ref", "refs/copperhead/runs/"); refs != "" {
					t.Errorf("ref left after recover: %s", refs)
				}
				tr, err := os.ReadFile(filepath.Join(repo, ".copperhead", "runs", id, "transcript.jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(strings.TrimSpace(string(tr)), "\n")
				if last := lines[len(lines)-1]; !strings.Contains(last, `"type":"run-end"`) || !strings.Contains(last, `"exit_path":"interrupted"`) {
					t.Errorf("last transcript line %s", last)
				}
				if !strings.HasPrefix(lines[0], `{"type":"run-start"`) {
					t.Errorf("first transcript line %s", lines[0])
				}
				// And the repository is usable again.
				if msg, err := runCopperhead(env, repo, "recover"); err != nil || !strings.Contains(msg, "nothing to recover") {
					t.Errorf("second recover: %v\n%s", err, msg)
				}
			})
		}
	}
}

// userWork leaves uncommitted work of every kind in repo: a staged edit
// with a further unstaged edit on top, a staged new file, an unstaged
// edit, a deleted tracked file, a mode change, untracked files (one
// private, one executable) and an untracked symlink.
func userWork(t *testing.T, repo string, git func(...string) string) {
	t.Helper()
	write := func(rel, body string, perm os.FileMode) { testkit.WriteFile(t, repo, rel, body, perm) }
	appendTo := func(rel, body string) {
		b, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		write(rel, string(b)+body, 0o644)
	}
	appendTo("docs/SPEC.md", "\nStaged note.\n")
	git("add", "docs/SPEC.md")
	appendTo("docs/SPEC.md", "Unstaged note on top.\n")
	write("docs/NOTES.md", "a staged new file\n", 0o644)
	git("add", "docs/NOTES.md")
	appendTo("docs/BOM.md", "\nUnstaged BOM remark.\n")
	if err := os.Remove(filepath.Join(repo, "README.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(repo, ".copperhead", "README.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("scratch/ideas.txt", "untracked, private\n", 0o600)
	write("scratch/measure.sh", "#!/bin/sh\necho untracked, executable\n", 0o755)
	if err := os.Symlink("../docs/SPEC.md", filepath.Join(repo, "scratch", "spec-link")); err != nil {
		t.Fatal(err)
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
