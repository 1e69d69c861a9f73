package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/outputs"
	"copperhead/internal/testkit"

	"github.com/rogpeppe/go-internal/txtar"
)

// draftRepo is a fresh repository with the NE555 blinker of
// draft_flow.txtar drafted as a schematic and initialised, copied from a
// base made once per test.
func draftRepo(t *testing.T, env []string) func() string {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/script/draft_flow.txtar")
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "base")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	intent := filepath.Join(t.TempDir(), "blinker.json")
	for _, f := range ar.Files {
		if f.Name == "blinker.json" {
			if err := os.WriteFile(intent, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, args := range [][]string{{"draft", "schematic", "--intent", intent}, {"init"}} {
		if out, err := runCopperhead(env, base, args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	return func() string {
		repo := filepath.Join(t.TempDir(), "repo")
		if err := os.CopyFS(repo, os.DirFS(base)); err != nil {
			t.Fatal(err)
		}
		return repo
	}
}

// TestDraftLayoutKilledAnywhere kills a real `copperhead draft layout` with
// SIGKILL at random moments (reading, building, DRC on the scratch copy,
// the transaction) and checks that each of its files (the board, the
// .kicad_pro, LAYOUT.md, config.json) is then wholly old or wholly new, and
// that after the next command the repository is exactly as before the
// draft or exactly as a finished draft leaves it.
func TestDraftLayoutKilledAnywhere(t *testing.T) {
	env := faultEnv(t)
	fresh := draftRepo(t, env)
	pristine := fresh()
	old := testkit.ReadTree(t, pristine, config.StateDir)

	done := fresh()
	if out, err := runCopperhead(env, done, "draft", "layout"); err != nil {
		t.Fatalf("reference draft: %v\n%s", err, out)
	}
	warm := fresh()
	start := time.Now()
	if out, err := runCopperhead(env, warm, "draft", "layout"); err != nil {
		t.Fatalf("reference draft: %v\n%s", err, out)
	}
	took := time.Since(start)
	want := testkit.ReadTree(t, done, config.StateDir)
	changed := testkit.DiffTrees(old, want)
	if strings.Join(changed, " ") != ".copperhead/config.json docs/LAYOUT.md hardware/blinker.kicad_pcb hardware/blinker.kicad_pro" {
		t.Fatalf("the reference draft changed %v; want the board, .kicad_pro, LAYOUT.md and config.json", changed)
	}

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, the draft takes %v", seed, took)
	rng := rand.New(rand.NewPCG(seed, 2))
	rounds := 12
	var k killTally
	for i := range rounds {
		repo := fresh()
		cmd := exec.Command("copperhead", "--repo", repo, "draft", "layout")
		cmd.Env = env
		// Its own process group, killed as a kill of the terminal's group
		// would be; the kicad-cli it runs, in a group of its own, dies with
		// it (procgroup's parent-death signal).
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Late in the run most often: the writes are its last moments.
		delay := time.Duration(rng.Int64N(int64(took) * 3 / 2))
		time.Sleep(delay)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()

		k.judge(t, i, delay, env, repo, old, want, changed, "draft")
	}
	t.Logf("%d rounds: %d ended as before, %d as drafted, %d were caught mid-write", rounds, k.old, k.new, k.mixed)
}

// TestOutputsKilledAnywhere kills a real `copperhead outputs --fab pcbway`
// that replaces a JLCPCB package, with SIGKILL at random moments (the
// exports, the staging, the swap). After the next command the outputs
// folder is exactly the old package, or the new one, every file matching
// its manifest and none of the old package's files left: never a mix.
func TestOutputsKilledAnywhere(t *testing.T) {
	env := faultEnv(t)
	args := []string{"outputs", "--no-step", "--no-render"}
	base := faultRepo(t)
	if out, err := runCopperhead(env, base, args...); err != nil {
		t.Fatalf("first package: %v\n%s", err, out)
	}
	newArgs := append(slices.Clone(args), "--fab", "pcbway")
	warm := filepath.Join(t.TempDir(), "warm")
	if err := os.CopyFS(warm, os.DirFS(base)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if out, err := runCopperhead(env, warm, newArgs...); err != nil {
		t.Fatalf("reference package: %v\n%s", err, out)
	}
	took := time.Since(start)
	old := testkit.ReadTree(t, filepath.Join(base, "outputs"), config.StateDir)

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, outputs takes %v", seed, took)
	rng := rand.New(rand.NewPCG(seed, 3))
	var sawOld, sawNew int
	for i := range 6 {
		repo := filepath.Join(t.TempDir(), "repo")
		if err := os.CopyFS(repo, os.DirFS(base)); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("copperhead", append([]string{"--repo", repo}, newArgs...)...)
		cmd.Env = env
		// Its own process group, killed as a kill of the terminal's group
		// would be; the kicad-cli it runs, in a group of its own, dies with
		// it (procgroup's parent-death signal).
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The swap is the run's last moments: aim at the second half.
		delay := took/2 + time.Duration(rng.Int64N(int64(took)))
		time.Sleep(delay)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if out, err := runCopperhead(env, repo, "parts"); err != nil {
			t.Fatalf("round %d: parts after the kill: %v\n%s", i, err, out)
		}
		dir := filepath.Join(repo, "outputs")
		now := testkit.ReadTree(t, dir, config.StateDir)
		for k := range now {
			if strings.HasPrefix(k, ".staging-") {
				delete(now, k) // a killed run's staging: the next outputs removes it
			}
		}
		if len(testkit.DiffTrees(old, now)) == 0 {
			sawOld++
			continue
		}
		m, err := outputs.Verify(dir)
		if err != nil || m.Fab != "pcbway" {
			t.Fatalf("round %d (killed after %v): the package is neither the old one nor a complete new one (fab %q): %v; differs from the old in %v", i, delay, m.Fab, err, testkit.DiffTrees(old, now))
		}
		keep := map[string]bool{outputs.ManifestName: true}
		for _, f := range m.Files {
			keep[f.Path] = true
			for d := path.Dir(f.Path); d != "."; d = path.Dir(d) {
				keep[d+"/"] = true
			}
		}
		for k := range now {
			if !keep[k] {
				t.Fatalf("round %d (killed after %v): %s of the old package is left in the new one", i, delay, k)
			}
		}
		sawNew++
	}
	t.Logf("6 rounds: %d ended with the old package, %d with the new", sawOld, sawNew)
}
