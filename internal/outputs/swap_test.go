package outputs

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"copperhead/internal/testkit"
	"copperhead/internal/txn"
)

// killedAt runs Generate with txn's crash hook panicking at point, as a
// SIGKILL there would stop it, and reports whether it got there.
func killedAt(t *testing.T, point string, run func()) (hit bool) {
	t.Helper()
	prev := txn.SetHook(func(p string) {
		if p == point {
			panic("killed at " + p)
		}
	})
	defer func() { txn.SetHook(prev) }()
	defer func() {
		if r := recover(); r != nil {
			hit = true
		}
	}()
	run()
	return false
}

// TestSwapKilledMidway: a package for JLCPCB is replaced by one for PCBWay
// (other file names, so the old files must go). The swap is killed before
// its commit point, right after it, and between the files it writes; in
// every case the next command's recovery (txn.Recover) leaves exactly the
// old package (before the commit point) or exactly the new one, checked
// byte for byte against its manifest, with none of the old package's
// files left over.
func TestSwapKilledMidway(t *testing.T) {
	tool := kicadTool(t)
	for _, point := range []string{"prepared", "committed", "wrote 1", "wrote 4"} {
		t.Run(point, func(t *testing.T) {
			repo, in := fixture(t)
			in.Repo = repo // as the CLI and create pass it: the journal is the repository's
			dir := filepath.Join(repo, DefaultDir)
			opts := Options{SkipSTEP: true, SkipRender: true}
			if _, err := Generate(context.Background(), tool, in, dir, opts); err != nil {
				t.Fatal(err)
			}
			old := testkit.ReadTree(t, dir, ".copperhead")
			if !slices.ContainsFunc(mapKeys(old), func(k string) bool { return k == "gerbers-jlcpcb.zip" }) {
				t.Fatalf("the first package lacks gerbers-jlcpcb.zip: %v", mapKeys(old))
			}
			opts.Fab = "pcbway"
			var err error
			if !killedAt(t, point, func() { _, err = Generate(context.Background(), tool, in, dir, opts) }) {
				t.Fatalf("the swap never reached %q: %v", point, err)
			}
			if _, err := txn.Recover(repo); err != nil {
				t.Fatal(err)
			}
			now := testkit.ReadTree(t, dir, ".copperhead")
			if point == "prepared" {
				if fmt.Sprint(now) != fmt.Sprint(old) {
					t.Fatalf("killed before the commit point: the package changed: %v", testkit.DiffTrees(old, now))
				}
				return
			}
			m, err := Verify(dir)
			if err != nil {
				t.Fatalf("after recovery the package does not match its manifest: %v", err)
			}
			if m.Fab != "pcbway" {
				t.Fatalf("manifest fab %q, want the new package's pcbway", m.Fab)
			}
			want := map[string]bool{ManifestName: true}
			for _, f := range m.Files {
				want[f.Path] = true
				for d := path.Dir(f.Path); d != "."; d = path.Dir(d) {
					want[d+"/"] = true // its folders, and no empty one left over
				}
			}
			for k := range now {
				if !want[k] {
					t.Errorf("%s is neither in the new package nor copperhead's: an old file left over", k)
				}
			}
		})
	}
}

// TestSwapOutsideTheRepository: an outputs folder outside the repository
// (--out elsewhere) journals its swap in itself; a finished swap leaves no
// journal folders there, and a swap killed between its writes is completed
// by the next outputs into that folder (recoverSwap) before it builds.
func TestSwapOutsideTheRepository(t *testing.T) {
	tool := kicadTool(t)
	repo, in := fixture(t)
	in.Repo = repo
	dir := filepath.Join(t.TempDir(), "fab")
	opts := Options{SkipSTEP: true, SkipRender: true}
	if _, err := Generate(context.Background(), tool, in, dir, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".copperhead")); !os.IsNotExist(err) {
		t.Errorf("a finished swap left %s/.copperhead: %v", dir, err)
	}
	opts.Fab = "pcbway"
	var err error
	if !killedAt(t, "wrote 1", func() { _, err = Generate(context.Background(), tool, in, dir, opts) }) {
		t.Fatalf("the swap never reached its writes: %v", err)
	}
	if err := recoverSwap(dir); err != nil {
		t.Fatal(err)
	}
	m, err := Verify(dir)
	if err != nil || m.Fab != "pcbway" {
		t.Fatalf("after recovery: fab %q, %v; want the complete pcbway package", m.Fab, err)
	}
}

func mapKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
