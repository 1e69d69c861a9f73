package recovery

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"copperhead/internal/gitrepo"
	"copperhead/internal/owner"
	"copperhead/internal/transcript"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// startRun makes a repository, a run folder with its run-start, and the run
// ref, as agent.newRun leaves them; owner names the run's process.
func startRun(t *testing.T, owner string) (repo, id string) {
	t.Helper()
	repo = t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".copperhead/runs/\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "BOM.md"), []byte("# BOM\n"), 0o644)
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-qm", "design")
	id = transcript.NewRunID(time.Now())
	w, err := transcript.Create(repo, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := transcript.RunStart{RunID: id, StartedAt: time.Now().UTC(), Command: "do", Request: "change the BOM"}
	start.Config.MaxTurns = 40
	if err := w.Write(transcript.TypeRunStart, start); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	snap, err := gitrepo.TakeSnapshot(context.Background(), repo, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := snap.Reference(context.Background(), gitrepo.RunNote{RunID: id, RunDir: ".copperhead/runs/" + id, Owner: owner}); err != nil {
		t.Fatal(err)
	}
	return repo, id
}

func lastEvent(t *testing.T, repo, id string) transcript.RunEnd {
	t.Helper()
	evs, err := transcript.Read(filepath.Join(transcript.RunsDir(repo), id))
	if err != nil {
		t.Fatal(err)
	}
	if evs[len(evs)-1].Type != transcript.TypeRunEnd {
		t.Fatalf("last event %s", evs[len(evs)-1].Type)
	}
	var end transcript.RunEnd
	if err := evs[len(evs)-1].Decode(&end); err != nil {
		t.Fatal(err)
	}
	return end
}

// TestRecoverRunThatCommitted: a kill between the run's commit and its
// run-end leaves HEAD moved; recover moves it back, the commit's work is in
// the interrupted-run stash, and the run-end says interrupted.
func TestRecoverRunThatCommitted(t *testing.T) {
	ctx := context.Background()
	repo, id := startRun(t, "")
	head := git(t, repo, "rev-parse", "HEAD")
	os.WriteFile(filepath.Join(repo, "BOM.md"), []byte("# BOM\n| R7 | 1M |\n"), 0o644)
	git(t, repo, "commit", "-qam", "copperhead: change R7")
	moved := git(t, repo, "rev-parse", "HEAD")

	runs, err := Interrupted(ctx, repo)
	if err != nil || len(runs) != 1 || runs[0].RunID != id || runs[0].Describe() != `do "change the BOM"` {
		t.Fatalf("Interrupted = %+v, %v", runs, err)
	}
	res, err := Recover(ctx, repo, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.HeadWas != moved || res.StashRef == "" || res.AlreadyEnded {
		t.Errorf("result %+v", res)
	}
	if got := git(t, repo, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD %s, want %s", got, head)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "BOM.md")); string(b) != "# BOM\n" {
		t.Errorf("BOM.md %q", b)
	}
	if show := git(t, repo, "stash", "show", "-p", "stash@{0}"); !strings.Contains(show, "+| R7 | 1M |") {
		t.Errorf("stash lacks the committed work:\n%s", show)
	}
	if list := git(t, repo, "stash", "list"); list != "stash@{0}: copperhead interrupted run "+id {
		t.Errorf("stash list %q", list)
	}
	end := lastEvent(t, repo, id)
	if end.ExitPath != transcript.ExitInterrupted || end.StashRef == nil || *end.StashRef != res.StashRef ||
		end.TurnBudget != 40 || end.Error == nil || !strings.Contains(*end.Error, "HEAD moved back") {
		t.Errorf("run-end %+v", end)
	}
	sum, err := os.ReadFile(filepath.Join(transcript.RunsDir(repo), id, transcript.SummaryFile))
	if err != nil || !strings.Contains(string(sum), "interrupted") {
		t.Errorf("summary.md: %v\n%s", err, sum)
	}
	if refs := git(t, repo, "for-each-ref", gitrepo.RunRefPrefix); refs != "" {
		t.Errorf("ref left: %s", refs)
	}
	if _, err := Recover(ctx, repo, id, nil); !errors.Is(err, ErrUnknownRun) {
		t.Errorf("second Recover: %v, want ErrUnknownRun", err)
	}
}

// TestRecoverRunThatEnded: a kill between the run-end and the ref's
// deletion: the run's ending is complete, so recover restores nothing (the
// commit stays) and only deletes the ref.
func TestRecoverRunThatEnded(t *testing.T) {
	ctx := context.Background()
	repo, id := startRun(t, "")
	os.WriteFile(filepath.Join(repo, "BOM.md"), []byte("# BOM\n| R7 | 1M |\n"), 0o644)
	git(t, repo, "commit", "-qam", "copperhead: change R7")
	head := git(t, repo, "rev-parse", "HEAD")
	w, err := transcript.Reopen(filepath.Join(transcript.RunsDir(repo), id), nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(transcript.TypeRunEnd, transcript.RunEnd{ExitPath: transcript.ExitDone})
	w.Close()

	res, err := Recover(ctx, repo, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.AlreadyEnded || res.ExitPath != transcript.ExitDone || res.StashRef != "" {
		t.Errorf("result %+v", res)
	}
	if got := git(t, repo, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved: %s, want %s", got, head)
	}
	if list := git(t, repo, "stash", "list"); list != "" {
		t.Errorf("stash %q", list)
	}
	if end := lastEvent(t, repo, id); end.ExitPath != transcript.ExitDone {
		t.Errorf("a second run-end was written: %+v", end)
	}
	if refs := git(t, repo, "for-each-ref", gitrepo.RunRefPrefix); refs != "" {
		t.Errorf("ref left: %s", refs)
	}
}

// TestLiveRunIsNotInterrupted: a run whose process still runs (here: this
// test's own) is neither listed nor recovered.
func TestLiveRunIsNotInterrupted(t *testing.T) {
	ctx := context.Background()
	repo, id := startRun(t, owner.Self())
	if runs, err := Interrupted(ctx, repo); err != nil || len(runs) != 0 {
		t.Errorf("Interrupted = %+v, %v; want none", runs, err)
	}
	if _, err := Recover(ctx, repo, id, nil); !errors.Is(err, ErrStillRunning) {
		t.Errorf("Recover of a live run: %v, want ErrStillRunning", err)
	}
}

// TestFind: whole ids and unique prefixes, case-insensitive.
func TestFind(t *testing.T) {
	runs := []Run{{RunID: "01KAAA1"}, {RunID: "01KAAB2"}}
	for _, tc := range []struct{ id, want, err string }{
		{"01KAAA1", "01KAAA1", ""},
		{"01kaab", "01KAAB2", ""},
		{"01KAA", "", "ambiguous"},
		{"01KZ", "", "no interrupted run 01KZ"},
	} {
		got, err := Find(runs, tc.id)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Find(%q) = %+v, %v; want error %q", tc.id, got, err, tc.err)
			}
			continue
		}
		if err != nil || got.RunID != tc.want {
			t.Errorf("Find(%q) = %+v, %v", tc.id, got, err)
		}
	}
}

// TestRecoverScratchRun: a run that worked on a linked worktree (a dry run
// on a scratch copy) shares its ref with the repository; recovering it
// from the repository leaves the repository's own tree alone.
func TestRecoverScratchRun(t *testing.T) {
	ctx := context.Background()
	repo, _ := startRun(t, "")
	id := transcript.NewRunID(time.Now())
	scratch := filepath.Join(t.TempDir(), "scratch")
	git(t, repo, "worktree", "add", "-q", "--detach", scratch)
	snap, err := gitrepo.TakeSnapshot(ctx, scratch, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := snap.Reference(ctx, gitrepo.RunNote{RunID: id, RunDir: ".copperhead/runs/" + id}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(scratch, "BOM.md"), []byte("# scratch edit\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "BOM.md"), []byte("# the user's own edit since\n"), 0o644)
	res, err := Recover(ctx, repo, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Scratch == "" || res.StashRef != "" {
		t.Errorf("result %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "BOM.md")); string(b) != "# the user's own edit since\n" {
		t.Errorf("the repository's BOM.md was touched: %q", b)
	}
	if list := git(t, repo, "stash", "list"); list != "" {
		t.Errorf("stash %q", list)
	}
	if end := lastEvent(t, repo, id); end.ExitPath != transcript.ExitInterrupted || !strings.Contains(*end.Error, "scratch copy") {
		t.Errorf("run-end %+v", end)
	}
}
