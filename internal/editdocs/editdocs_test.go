package editdocs

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/kicadcli"
	"copperhead/internal/project"
	"copperhead/internal/tools/toolstest"
	"copperhead/internal/txn"
)

// fixture copies the bundled board into a temp repo and loads it with
// KiCad's netlist, as the writers do.
func fixture(t *testing.T) (Input, map[string][]byte) {
	t.Helper()
	in, pr := fixtureRepo(t)
	l, err := Open(context.Background(), in.Repo, in.Config, pr.Schematic, in.KiCad)
	if err != nil {
		t.Fatal(err)
	}
	in.Design = l.Design
	return in, tree(t, in.Repo)
}

// fixtureRepo copies the bundled board into a temp repo: the Input without
// its design, and the located project.
func fixtureRepo(t *testing.T) (Input, *project.Project) {
	t.Helper()
	tool, err := kicadcli.Find(context.Background())
	if err != nil {
		t.Skipf("kicad-cli: %v", err)
	}
	repo := toolstest.CopyFixture(t)
	cfg, pr := toolstest.Locate(t, repo)
	return Input{Repo: repo, Config: cfg, KiCad: tool, Board: pr.Board}, pr
}

// tree reads every file under repo except .git, by repo-relative path.
func tree(t *testing.T, repo string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(repo, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if RepoPath(repo, p) == txn.StateDir {
				return filepath.SkipDir // the lock and journal: not the design
			}
			return nil
		}
		if e.Type()&os.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[RepoPath(repo, p)] = []byte("-> " + target)
			return err
		}
		b, err := os.ReadFile(p)
		out[RepoPath(repo, p)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func changedPaths(before, after map[string][]byte) []string {
	var out []string
	for p, b := range after {
		if o, ok := before[p]; !ok || string(o) != string(b) {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p+" (removed)")
		}
	}
	slices.Sort(out)
	return out
}

func netNamed(in Input, suffix string) string {
	for _, n := range in.Design.Netlist.Nets {
		if n.Name == suffix || strings.HasSuffix(n.Name, "/"+suffix) {
			return n.Name
		}
	}
	return ""
}

// TestApplyIsCheckedAgainstKiCad: a plan whose stated effect KiCad's
// netlist does not show is refused with nothing written; the same plan with
// the right expectation writes the sheet, the board and the docs, exactly
// the files Prepare listed.
func TestApplyIsCheckedAgainstKiCad(t *testing.T) {
	in, before := fixture(t)
	old := netNamed(in, "KEY_DAH")
	if old == "" {
		t.Fatal("fixture has no KEY_DAH net")
	}
	p, err := schedit.RenameNet(in.Design, "KEY_DAH", "KEY_DASH", false)
	if err != nil {
		t.Fatal(err)
	}
	in.Plan = p

	// A wrong expectation (the net is said to keep its name) fails.
	p.Expect = schedit.Expect{}
	if _, err := Apply(context.Background(), in); !errors.Is(err, ErrDisagrees) {
		t.Fatalf("Apply with a wrong expectation = %v, want ErrDisagrees", err)
	}
	if got := changedPaths(before, tree(t, in.Repo)); len(got) != 0 {
		t.Fatalf("a refused edit changed %v", got)
	}

	nw := strings.TrimSuffix(old, "KEY_DAH") + "KEY_DASH"
	p.Expect = schedit.Expect{Renames: []schedit.NetRename{{Old: old, New: nw}}}
	prep, err := Prepare(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := changedPaths(before, tree(t, in.Repo)); len(got) != 0 {
		t.Fatalf("Prepare wrote %v", got)
	}
	res, err := Apply(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	got := changedPaths(before, tree(t, in.Repo))
	want := slices.Sorted(slices.Values(res.Paths()))
	if !slices.Equal(got, want) || !slices.Equal(prep.Paths(), res.Paths()) {
		t.Fatalf("written %v; Apply listed %v; Prepare listed %v", got, res.Paths(), prep.Paths())
	}
	for _, f := range []string{"hardware/open-telegraph.kicad_pcb", "docs/PINOUT.md"} {
		if !slices.Contains(got, f) {
			t.Errorf("the rename did not reach %s (changed: %v)", f, got)
		}
	}
	if d := Diff(prep.Changes); !slices.ContainsFunc(d, func(l string) bool { return strings.HasPrefix(l, "hardware/open-telegraph.kicad_pcb:") }) {
		t.Errorf("the preview's diff has no hunk for the board: %v", d)
	}
}

// TestApplyAllOrNothing: a failure in any file of the set (a damaged board,
// a docs path that is a file, a docs symlink out of the repository) leaves
// every file as it was.
func TestApplyAllOrNothing(t *testing.T) {
	faults := map[string]func(t *testing.T, repo string){
		"damaged board": func(t *testing.T, repo string) {
			p := filepath.Join(repo, "hardware", "open-telegraph.kicad_pcb")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)/2], 0o644)
		},
		"docs is a file": func(t *testing.T, repo string) {
			os.RemoveAll(filepath.Join(repo, "docs"))
			os.WriteFile(filepath.Join(repo, "docs"), []byte("not a folder\n"), 0o644)
		},
		"docs symlink out": func(t *testing.T, repo string) {
			outside := t.TempDir()
			os.CopyFS(outside, os.DirFS(filepath.Join(repo, "docs")))
			os.RemoveAll(filepath.Join(repo, "docs"))
			os.Symlink(outside, filepath.Join(repo, "docs"))
			t.Cleanup(func() {
				b, _ := os.ReadFile(filepath.Join(outside, "PINOUT.md"))
				if strings.Contains(string(b), "KEY_DASH") {
					t.Error("the edit wrote PINOUT.md outside the repository")
				}
			})
		},
	}
	for _, name := range slices.Sorted(maps.Keys(faults)) {
		t.Run(name, func(t *testing.T) {
			in, _ := fixture(t)
			old := netNamed(in, "KEY_DAH")
			faults[name](t, in.Repo)
			before := tree(t, in.Repo)
			p, err := schedit.RenameNet(in.Design, "KEY_DAH", "KEY_DASH", false)
			if err != nil {
				t.Fatal(err)
			}
			p.Expect = schedit.Expect{Renames: []schedit.NetRename{{Old: old, New: strings.TrimSuffix(old, "KEY_DAH") + "KEY_DASH"}}}
			in.Plan = p
			_, err = Apply(context.Background(), in)
			if err == nil {
				t.Fatal("Apply succeeded despite the fault")
			}
			t.Log(err)
			if got := changedPaths(before, tree(t, in.Repo)); len(got) != 0 {
				t.Fatalf("failed edit (%v) changed %v", err, got)
			}
		})
	}
}

// TestSetFieldFollowsIntoTheBoard: a value change lands in the board too,
// so KiCad's schematic parity stays clean after the edit.
func TestSetFieldFollowsIntoTheBoard(t *testing.T) {
	in, _ := fixture(t)
	p, err := schedit.SetField(in.Design, "R7", "Value", "4.7k", "")
	if err != nil {
		t.Fatal(err)
	}
	in.Plan = p
	res, err := Apply(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hardware/open-telegraph.kicad_sch", "hardware/open-telegraph.kicad_pcb", "docs/BOM.md"}
	if !slices.Equal(res.Paths(), want) {
		t.Fatalf("changed %v, want %v", res.Paths(), want)
	}
	in.KiCad.NoCache = true
	rep, err := in.KiCad.DRC(context.Background(), in.Board)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range rep.Parity {
		t.Errorf("parity after set-field: %s %s", v.Type, v.Description)
	}
}

// TestLoadRefusesAPartialNetlist: a sub-sheet kicad-cli silently leaves
// out of its netlist (a token it does not know) stops every writer, the
// CLI and the agent's tools alike, before anything is planned.
func TestLoadRefusesAPartialNetlist(t *testing.T) {
	in, _ := fixture(t)
	sheet := filepath.Join(in.Repo, "hardware", "power.kicad_sch")
	b, err := os.ReadFile(sheet)
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := strings.Cut(string(b), "\n")
	if err := os.WriteFile(sheet, []byte(first+"\n\t(bogus_token 1)\n"+rest), 0o644); err != nil {
		t.Fatal(err)
	}
	in.KiCad.NoCache = true
	_, err = Open(context.Background(), in.Repo, in.Config, in.Design.RootPath, in.KiCad)
	if err == nil || !strings.Contains(err.Error(), "power.kicad_sch") {
		t.Fatalf("Open of a design kicad-cli reads only in part = %v, want a refusal naming the sheet", err)
	}
}
