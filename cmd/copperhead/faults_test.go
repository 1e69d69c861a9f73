package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/testkit"
)

// faultEnv is the environment every copperhead run of the fault tests gets:
// a private HOME, cache and KiCad configuration, as the scripts have.
func faultEnv(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("kicad-cli"); err != nil {
		t.Skip("kicad-cli not installed")
	}
	base := t.TempDir()
	tmp := filepath.Join(base, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(),
		"HOME="+filepath.Join(base, "home"),
		"COPPERHEAD_CACHE_DIR="+filepath.Join(base, "cache"),
		"COPPERHEAD_KICAD_CONFIG="+filepath.Join(base, "kicadcfg"),
		"TMPDIR="+tmp,
	)
}

// leftTemp lists the copperhead folders in env's private TMPDIR: after a
// kill, the next command removes the ones the killed process left.
func leftTemp(t *testing.T, env []string) []string {
	t.Helper()
	var tmp string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			tmp = v // the last one wins, as for exec
		}
	}
	left, err := filepath.Glob(filepath.Join(tmp, "copperhead-*"))
	if err != nil {
		t.Fatal(err)
	}
	return left
}

// faultRepo copies the bundled board into a fresh folder and returns it.
func faultRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(repo, os.DirFS("../../examples/open-telegraph")); err != nil {
		t.Fatal(err)
	}
	return repo
}

func runCopperhead(env []string, repo string, args ...string) (string, error) {
	cmd := exec.Command("copperhead", append([]string{"--repo", repo}, args...)...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

var faultEdit = []string{"edit", "rename-net", "KEY_DAH", "KEY_DASH"}

// TestEditKilledAnywhere kills a real `copperhead edit` with SIGKILL at
// random moments of its run (planning, KiCad's check, the writes) and
// checks that every file is then wholly old or wholly new, and that after
// the next command (which completes an interrupted write) the repository
// is exactly as before the edit or exactly as a finished edit leaves it.
func TestEditKilledAnywhere(t *testing.T) {
	env := faultEnv(t)
	pristine := faultRepo(t)
	old := testkit.ReadTree(t, pristine, config.StateDir)

	// The finished edit, and how long it takes once kicad-cli's result for
	// the unchanged design is cached (as it is for the killed runs).
	done := faultRepo(t)
	if out, err := runCopperhead(env, done, faultEdit...); err != nil {
		t.Fatalf("reference edit: %v\n%s", err, out)
	}
	warm := faultRepo(t)
	start := time.Now()
	if out, err := runCopperhead(env, warm, faultEdit...); err != nil {
		t.Fatalf("reference edit: %v\n%s", err, out)
	}
	took := time.Since(start)
	want := testkit.ReadTree(t, done, config.StateDir)
	changed := testkit.DiffTrees(old, want)
	if len(changed) < 3 {
		t.Fatalf("the reference edit changed only %v; the test needs a multi-file edit", changed)
	}
	if out, err := runCopperhead(env, done, "check"); err != nil {
		t.Fatalf("check after the finished edit: %v\n%s", err, out)
	}

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, the edit takes %v and changes %v", seed, took, changed)
	rng := rand.New(rand.NewPCG(seed, 1))
	rounds := 10
	var k killTally
	for i := range rounds {
		repo := faultRepo(t)
		cmd := exec.Command("copperhead", append([]string{"--repo", repo}, faultEdit...)...)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Int64N(int64(took) * 3 / 2))
		time.Sleep(delay)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()

		k.judge(t, i, delay, env, repo, old, want, changed, "edit")
	}
	t.Logf("%d rounds: %d ended as before, %d as edited, %d were caught mid-write", rounds, k.old, k.new, k.mixed)
}

// TestNextCommandCompletesAnInterruptedWrite: a repository left as a
// SIGKILL between two file renames leaves it (the journal committed, one of
// three files new) is completed by the next command, whatever it is, which
// says so on stderr; the result is exactly the finished edit.
func TestNextCommandCompletesAnInterruptedWrite(t *testing.T) {
	env := faultEnv(t)
	old := testkit.ReadTree(t, faultRepo(t), config.StateDir)
	done := faultRepo(t)
	if out, err := runCopperhead(env, done, faultEdit...); err != nil {
		t.Fatalf("reference edit: %v\n%s", err, out)
	}
	want := testkit.ReadTree(t, done, config.StateDir)
	changed := testkit.DiffTrees(old, want)

	repo := faultRepo(t)
	// The journal as txn.Commit leaves it at its commit point.
	jdir := filepath.Join(repo, ".copperhead", "state", "txn", "0123456789abcdef")
	if err := os.MkdirAll(jdir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, ".copperhead", "state", ".gitignore"), []byte("*\n"), 0o644)
	type entry struct {
		Path   string `json:"path"`
		Blob   string `json:"blob"`
		SHA256 string `json:"sha256"`
	}
	var j struct {
		Files []entry `json:"files"`
	}
	for i, f := range changed {
		blob := fmt.Sprintf("%d.new", i)
		if err := os.WriteFile(filepath.Join(jdir, blob), []byte(want[f]), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(want[f]))
		j.Files = append(j.Files, entry{f, blob, hex.EncodeToString(sum[:])})
	}
	data, _ := json.Marshal(j)
	if err := os.WriteFile(filepath.Join(jdir, "journal.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	// One file was already renamed into place when the kill came.
	if err := os.WriteFile(filepath.Join(repo, changed[0]), []byte(want[changed[0]]), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCopperhead(env, repo, "parts")
	if err != nil {
		t.Fatalf("parts: %v\n%s", err, out)
	}
	if !strings.Contains(out, "copperhead: completed an interrupted change: ") {
		t.Errorf("the completion is not reported:\n%s", out)
	}
	if d := testkit.DiffTrees(want, testkit.ReadTree(t, repo, config.StateDir)); len(d) != 0 {
		t.Fatalf("after the next command the repository differs from the finished edit in %v", d)
	}
	if entries, _ := os.ReadDir(filepath.Dir(jdir)); len(entries) != 0 {
		t.Errorf("the journal is left behind: %v", entries)
	}
}

// TestConcurrentEditsBothLand: two edits started together both succeed
// and both changes are in the files (one waits for the other's lock).
func TestConcurrentEditsBothLand(t *testing.T) {
	env := faultEnv(t)
	for round := range 3 {
		repo := faultRepo(t)
		edits := [][]string{
			faultEdit,
			{"edit", "rename-net", "KEY_DIT", "KEY_DOT"},
		}
		var wg sync.WaitGroup
		errs := make([]error, len(edits))
		outs := make([]string, len(edits))
		for i, e := range edits {
			wg.Go(func() { outs[i], errs[i] = runCopperhead(env, repo, e...) })
		}
		wg.Wait()
		for i := range edits {
			if errs[i] != nil {
				t.Fatalf("round %d: %v: %v\n%s", round, edits[i], errs[i], outs[i])
			}
		}
		sch, err := os.ReadFile(filepath.Join(repo, "hardware", "open-telegraph.kicad_sch"))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"KEY_DASH", "KEY_DOT"} {
			if !bytes.Contains(sch, []byte(`"`+n+`"`)) {
				t.Fatalf("round %d: the change to %s was lost", round, n)
			}
		}
		if out, err := runCopperhead(env, repo, "check"); err != nil {
			t.Fatalf("round %d: check after both edits: %v\n%s", round, err, out)
		}
	}
}

// TestEditFaultsLeaveEverythingAsItWas: an edit that cannot complete (a
// damaged board, a docs path that is a file, docs that lead outside the
// repository) exits 1 with one line, and no file inside or outside the
// repository changed.
func TestEditFaultsLeaveEverythingAsItWas(t *testing.T) {
	env := faultEnv(t)
	faults := []struct {
		name  string
		apply func(t *testing.T, repo, outside string)
		want  string
	}{
		{"damaged board", func(t *testing.T, repo, outside string) {
			p := filepath.Join(repo, "hardware", "open-telegraph.kicad_pcb")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)/2], 0o644)
		}, "open-telegraph.kicad_pcb:"},
		{"docs is a file", func(t *testing.T, repo, outside string) {
			os.RemoveAll(filepath.Join(repo, "docs"))
			os.WriteFile(filepath.Join(repo, "docs"), []byte("not a folder\n"), 0o644)
		}, "docs"},
		{"sheet file outside the repository", func(t *testing.T, repo, outside string) {
			// The root names its power sheet by a path that leaves the
			// repository: a victim file there must not be read or written.
			victim := filepath.Join(outside, "power.kicad_sch")
			b, _ := os.ReadFile(filepath.Join(repo, "hardware", "power.kicad_sch"))
			os.WriteFile(victim, b, 0o644)
			root := filepath.Join(repo, "hardware", "open-telegraph.kicad_sch")
			src, _ := os.ReadFile(root)
			rel, _ := filepath.Rel(filepath.Join(repo, "hardware"), victim)
			os.WriteFile(root, bytes.Replace(src, []byte(`"Sheetfile" "power.kicad_sch"`), []byte(`"Sheetfile" "`+rel+`"`), 1), 0o644)
		}, "outside the repository"},
		{"docs symlink out of the repository", func(t *testing.T, repo, outside string) {
			os.CopyFS(filepath.Join(outside, "docs"), os.DirFS(filepath.Join(repo, "docs")))
			os.RemoveAll(filepath.Join(repo, "docs"))
			os.Symlink(filepath.Join(outside, "docs"), filepath.Join(repo, "docs"))
		}, "outside the repository"},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			repo := faultRepo(t)
			outside := t.TempDir()
			f.apply(t, repo, outside)
			before, beforeOut := testkit.ReadTree(t, repo, config.StateDir), testkit.ReadTree(t, outside, config.StateDir)
			out, err := runCopperhead(env, repo, faultEdit...)
			if err == nil {
				t.Fatalf("the edit succeeded despite the fault:\n%s", out)
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Errorf("exit %v, want 1", err)
			}
			if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) > 2 || !strings.Contains(out, f.want) {
				t.Errorf("want one line naming %q, got:\n%s", f.want, out)
			}
			if d := testkit.DiffTrees(before, testkit.ReadTree(t, repo, config.StateDir)); len(d) != 0 {
				t.Errorf("the failed edit changed %v", d)
			}
			if d := testkit.DiffTrees(beforeOut, testkit.ReadTree(t, outside, config.StateDir)); len(d) != 0 {
				t.Errorf("the failed edit changed %v outside the repository", d)
			}
		})
	}

}

// killTally counts how the rounds of a kill test ended.
type killTally struct{ old, new, mixed int }

// judge checks one round killed after delay: every file of changed is
// wholly old or wholly new (a killed atomic write may leave a ".tmp-" file
// beside it, nothing else changes), then the next command (parts)
// completes the interrupted write, and the repository is exactly as before
// or exactly as want. what names the change ("edit", "draft").
func (k *killTally) judge(t *testing.T, round int, delay time.Duration, env []string, repo string, old, want map[string]string, changed []string, what string) {
	t.Helper()
	now := testkit.ReadTree(t, repo, config.StateDir)
	nOld, nNew := 0, 0
	for _, f := range changed {
		switch now[f] {
		case old[f]:
			nOld++
		case want[f]:
			nNew++
		default:
			t.Fatalf("round %d (killed after %v): %s is neither wholly old nor wholly new", round, delay, f)
		}
	}
	for _, f := range testkit.DiffTrees(old, now) {
		if !slices.Contains(changed, f) && !strings.Contains(filepath.Base(f), ".tmp-") {
			t.Fatalf("round %d: a file outside the %s changed: %s", round, what, f)
		}
	}
	if nOld > 0 && nNew > 0 {
		k.mixed++
	}
	if out, err := runCopperhead(env, repo, "parts"); err != nil {
		t.Fatalf("round %d: parts after the kill: %v\n%s", round, err, out)
	}
	if left := leftTemp(t, env); len(left) > 0 {
		t.Fatalf("round %d (killed after %v): the next command left the killed %s's temporary folders: %v", round, delay, what, left)
	}
	after := testkit.ReadTree(t, repo, config.StateDir)
	switch {
	case len(testkit.DiffTrees(old, after)) == 0:
		k.old++
	case len(testkit.DiffTrees(want, after)) == 0:
		k.new++
	default:
		t.Fatalf("round %d (killed after %v): after recovery the repository is neither as before nor as %sed: %v differ from the %s", round, delay, strings.TrimSuffix(what, "e"), testkit.DiffTrees(want, after), what)
	}
}
