package layout

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/testkit"
	"copperhead/internal/txn"
)

// txnRepo is testdata/slashy in a repository with a config.json that names
// no board and a docs/LAYOUT.md, and the options draft layout uses there.
func txnRepo(t *testing.T) (string, Options) {
	t.Helper()
	pr := copyProject(t, "testdata/slashy", "slashy.kicad_sch")
	repo := filepath.Dir(pr.dir)
	cfg := filepath.Join(repo, filepath.FromSlash(config.ConfigPath))
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, config.DefaultConfig().Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(pr.layout), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pr.layout, []byte("# slashy — Layout intent\n\n## Placement\n\nHand notes.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	show := func(p string) string {
		r, _ := filepath.Rel(repo, p)
		return filepath.ToSlash(r)
	}
	return repo, Options{Schematic: pr.sch, Board: pr.board, LayoutDoc: pr.layout, MarkDraft: true, Repo: repo, Record: true, Display: show}
}

// TestDraftAllOrNothing: a draft writes the board, the .kicad_pro,
// LAYOUT.md and config.json's "board" as one transaction. A failure before
// the commit (a fault at the last moment, LAYOUT.md a folder, a damaged
// config.json) leaves every file byte for byte as it was; a kill before the
// commit point leaves them as they were after recovery, and a kill between
// the writes is rolled forward by recovery to exactly the finished draft.
func TestDraftAllOrNothing(t *testing.T) {
	tool := kicadTool(t)
	ctx := context.Background()

	// The finished draft, for reference.
	ref, opts := txnRepo(t)
	before := testkit.ReadTree(t, ref, config.StateDir)
	rep, err := Draft(ctx, tool, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := testkit.ReadTree(t, ref, config.StateDir)
	changed := testkit.DiffTrees(before, want)
	if fmt.Sprint(changed) != "[.copperhead/config.json docs/LAYOUT.md hw/slashy.kicad_pcb hw/slashy.kicad_pro]" {
		t.Fatalf("the draft changed %v, want the board, .kicad_pro, LAYOUT.md and config.json", changed)
	}
	if !strings.Contains(want[".copperhead/config.json"], `"board": "hw/slashy.kicad_pcb"`) || rep.RecordedBoard != "hw/slashy.kicad_pcb" {
		t.Errorf("recorded %q; config.json:\n%s", rep.RecordedBoard, want[".copperhead/config.json"])
	}
	// DRC ran on a scratch copy, schematic parity included.
	if notes := strings.Join(rep.DRC.Notes, "\n"); strings.Contains(notes, "parity") {
		t.Errorf("DRC of the scratch copy skipped schematic parity: %s", notes)
	}
	if len(rep.Written) != 4 {
		t.Errorf("written %v, want 4 files", rep.Written)
	}

	failures := []struct {
		name  string
		setup func(t *testing.T, repo string)
		want  string
	}{
		{"fault before the commit", func(t *testing.T, _ string) {
			beforeCommit = func() error { return errors.New("injected fault") }
			t.Cleanup(func() { beforeCommit = nil })
		}, "injected fault"},
		{"LAYOUT.md is a folder", func(t *testing.T, repo string) {
			p := filepath.Join(repo, "docs", "LAYOUT.md")
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "docs/LAYOUT.md"},
		{"config.json damaged", func(t *testing.T, repo string) {
			if err := os.WriteFile(filepath.Join(repo, filepath.FromSlash(config.ConfigPath)), []byte("{\"board\": "), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "config.json"},
	}
	for _, tc := range failures {
		t.Run(tc.name, func(t *testing.T) {
			repo, opts := txnRepo(t)
			tc.setup(t, repo)
			old := testkit.ReadTree(t, repo, config.StateDir)
			_, err := Draft(ctx, tool, opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one naming %q", err, tc.want)
			}
			if d := testkit.DiffTrees(old, testkit.ReadTree(t, repo, config.StateDir)); len(d) > 0 {
				t.Errorf("a failed draft changed %v", d)
			}
		})
	}

	for _, point := range []string{"prepared", "committed", "wrote 0", "wrote 2"} {
		t.Run("killed at "+point, func(t *testing.T) {
			repo, opts := txnRepo(t)
			prev := txn.SetHook(func(p string) {
				if p == point {
					panic("killed")
				}
			})
			func() {
				defer func() { _ = recover() }()
				_, _ = Draft(ctx, tool, opts)
				t.Errorf("the draft never reached %q", point)
			}()
			txn.SetHook(prev)
			if _, err := txn.Recover(repo); err != nil {
				t.Fatal(err)
			}
			got := testkit.ReadTree(t, repo, config.StateDir)
			end := want
			if point == "prepared" {
				end = before
			}
			if d := testkit.DiffTrees(end, got); len(d) > 0 {
				t.Errorf("after recovery %v differ from the %s", d, map[bool]string{true: "tree before the draft", false: "finished draft"}[point == "prepared"])
			}
		})
	}
}
