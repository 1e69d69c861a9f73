package main

import (
	"encoding/json"
	"errors"
	"fmt"
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

// dryGitState is the repository as git sees it: status (staged and unstaged),
// the index, the stash list and every ref.
func dryGitState(t *testing.T, env []string, repo string) string {
	t.Helper()
	var parts []string
	for _, args := range [][]string{
		{"status", "--porcelain=v1", "--untracked-files=all"},
		{"diff", "--cached", "--binary"},
		{"stash", "list"},
		{"for-each-ref"},
		{"rev-parse", "HEAD"},
	} {
		parts = append(parts, gitIn(t, env, repo, args...))
	}
	return strings.Join(parts, "\n--\n")
}

// dryRunEdits is a run that proposes, validates and edits three files (the
// schematic, a doc, a new doc), then hangs in its next model call: the
// test kills it there, after the edit tools' results.
func dryRunEdits() []llmtest.Step {
	call := func(id, name, args string) llm.ToolCall {
		return llm.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
	}
	return []llmtest.Step{
		llmtest.Reply{Stop: llm.StopToolUse, ToolCalls: []llm.ToolCall{
			call("c1", "propose_change", `{"id": "rename-key-dah", "why": "Firmware names the dash net KEY_DASH.", "what_changes": "Rename KEY_DAH to KEY_DASH.", "tasks": ["Rename"],
				"deltas": [{"capability": "keyer-inputs", "kind": "ADDED", "requirements": [{"name": "Dash key net name", "text": "The dash paddle input SHALL be on the net KEY_DASH.", "scenarios": [{"name": "Dash", "when": "the dash paddle closes", "then": "KEY_DASH reads low"}]}]}]}`),
			call("c2", "validate_change", `{}`),
		}},
		llmtest.Reply{Stop: llm.StopToolUse, ToolCalls: []llm.ToolCall{
			call("c3", "edit_file", `{"path": "hardware/open-telegraph.kicad_sch", "old_string": "(global_label \"KEY_DAH\"", "new_string": "(global_label \"KEY_DASH\"", "replace_all": true}`),
			call("c4", "edit_file", `{"path": "docs/PINOUT.md", "old_string": "KEY_DAH", "new_string": "KEY_DASH", "replace_all": true}`),
			call("c5", "write_file", `{"path": "docs/EXTRA.md", "content": "# Extra\n"}`),
		}},
		llmtest.Slow{Delay: 10 * time.Minute},
	}
}

// TestDryRunKilledLeavesTheTree: `do --dry-run` killed with SIGKILL after
// its edit tools ran leaves every file of the user's tree (bytes and mode),
// git's status, the index, the stash list and the refs exactly as before,
// clean and with --allow-dirty: the run edited a scratch copy. The next
// command removes the copy the kill left, and the worktree entry with it.
// Interrupted with SIGINT instead (Ctrl-C), the run removes its copy itself
// and exits 130.
func TestDryRunKilledLeavesTheTree(t *testing.T) {
	bin, err := exec.LookPath("copperhead") // testscript.Main puts it on PATH
	if err != nil {
		t.Skip("copperhead command not on PATH")
	}
	if _, err := exec.LookPath("openspec"); err != nil {
		t.Skip("openspec is not installed")
	}
	for _, tc := range []struct {
		name  string
		dirty bool
		sig   syscall.Signal
	}{
		{"clean", false, syscall.SIGKILL},
		{"allow-dirty", true, syscall.SIGKILL},
		{"allow-dirty interrupted", true, syscall.SIGINT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			env := append(faultEnv(t), "TMPDIR="+tmp, "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "GIT_CONFIG_NOSYSTEM=1",
				"GIT_AUTHOR_NAME=Test Engineer", "GIT_AUTHOR_EMAIL=test@example.invalid",
				"GIT_COMMITTER_NAME=Test Engineer", "GIT_COMMITTER_EMAIL=test@example.invalid")
			repo := faultRepo(t)
			gitIn(t, env, repo, "init", "-q", "-b", "main")
			gitIn(t, env, repo, "add", "-A")
			gitIn(t, env, repo, "commit", "-qm", "open-telegraph")
			args := []string{"--repo", repo, "--plain", "do", "rename net KEY_DAH to KEY_DASH", "--model", "compat:scripted", "--dry-run"}
			if tc.dirty {
				// Staged, unstaged, both, untracked (one executable, one
				// private), and a staged deletion.
				appendTo := func(rel, line string) {
					f, err := os.OpenFile(filepath.Join(repo, rel), os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					fmt.Fprintln(f, line)
					f.Close()
				}
				appendTo("docs/BOM.md", "<!-- staged note -->")
				gitIn(t, env, repo, "add", "docs/BOM.md")
				appendTo("docs/PINOUT.md", "- staged pin note")
				gitIn(t, env, repo, "add", "docs/PINOUT.md")
				appendTo("docs/PINOUT.md", "- unstaged pin note")
				appendTo("docs/SPEC.md", "- note: hand-written")
				gitIn(t, env, repo, "rm", "-q", "docs/LAYOUT.md")
				os.WriteFile(filepath.Join(repo, "notes.txt"), []byte("bring-up notes\n"), 0o600)
				os.MkdirAll(filepath.Join(repo, "scripts"), 0o755)
				os.WriteFile(filepath.Join(repo, "scripts", "flash.sh"), []byte("#!/bin/sh\necho flash\n"), 0o755)
				args = append(args, "--allow-dirty")
			}
			tree, state := userFiles(t, repo), dryGitState(t, env, repo)

			srv := llmtest.NewServer(t, llmtest.OpenAI, dryRunEdits()...)
			cmd := exec.Command(bin, args...)
			cmd.Env = append(env, "COPPERHEAD_BASE_URL="+srv.URL+"/v1")
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			// Request 3 carries the edit tools' results.
			for deadline := time.Now().Add(2 * time.Minute); len(srv.Requests()) < 3; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the run never got past its edits (%d requests):\n%s", len(srv.Requests()), out.String())
				}
			}
			// The edits happened, in the scratch copy.
			copies, _ := filepath.Glob(filepath.Join(tmp, "copperhead-dryrun-*", "repo", "hardware", "open-telegraph.kicad_sch"))
			if len(copies) != 1 {
				t.Fatalf("want the run's one scratch copy in %s, found %v\n%s", tmp, copies, out.String())
			}
			if b, _ := os.ReadFile(copies[0]); !strings.Contains(string(b), `(global_label "KEY_DASH"`) {
				t.Fatalf("the scratch copy was not edited: the kill came too early\n%s", out.String())
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			werr := cmd.Wait()

			if d := testkit.DiffTrees(tree, userFiles(t, repo)); len(d) != 0 {
				t.Errorf("the killed dry run changed the user's tree: %v", d)
			}
			if st := dryGitState(t, env, repo); st != state {
				t.Errorf("the killed dry run changed git's state:\n%s\nwas\n%s", st, state)
			}

			if tc.sig == syscall.SIGINT {
				var exitErr *exec.ExitError
				if !errors.As(werr, &exitErr) || exitErr.ExitCode() != exitInterrupted {
					t.Errorf("exit: %v, want status %d\n%s", werr, exitInterrupted, out.String())
				}
				if left, _ := filepath.Glob(filepath.Join(tmp, "copperhead-dryrun-*")); len(left) != 0 {
					t.Errorf("the interrupted dry run left its scratch copy: %v\n%s", left, out.String())
				}
				if wts := gitIn(t, env, repo, "worktree", "list", "--porcelain"); strings.Count(wts, "worktree ") != 1 {
					t.Errorf("worktrees after the interrupted dry run:\n%s", wts)
				}
				return
			}

			// The next command removes the copy and its worktree entry.
			next, err := runCopperhead(env, repo, "parts")
			if err != nil {
				t.Fatalf("parts after the kill: %v\n%s", err, next)
			}
			if !strings.Contains(next, "removed the scratch copy an interrupted dry run left") {
				t.Errorf("the next command does not say it removed the copy:\n%s", next)
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "copperhead-dryrun-*")); len(left) != 0 {
				t.Errorf("scratch copies left after the next command: %v", left)
			}
			if wts := gitIn(t, env, repo, "worktree", "list", "--porcelain"); strings.Count(wts, "worktree ") != 1 {
				t.Errorf("worktrees after the next command:\n%s", wts)
			}
			if d := testkit.DiffTrees(tree, userFiles(t, repo)); len(d) != 0 {
				t.Errorf("after the next command the user's tree differs: %v", d)
			}
			if st := dryGitState(t, env, repo); st != state {
				t.Errorf("after the next command git's state differs:\n%s\nwas\n%s", st, state)
			}
		})
	}
}
