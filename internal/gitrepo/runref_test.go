package gitrepo

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// perms maps every non-ignored file to its permission bits (TreeHashes
// knows only git's 644/755; a 0600 untracked file must come back 0600).
func perms(t *testing.T, dir string) map[string]fs.FileMode {
	t.Helper()
	h, err := TreeHashes(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]fs.FileMode{}
	for p := range h {
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		out[p] = fi.Mode()
	}
	return out
}

// TestRunRefRecover: a snapshot referenced before the run's first write
// survives the loss of the process that took it (the Snapshot value is
// dropped, git gc prunes everything unreachable) and, rebuilt from its ref,
// restores the tree byte and mode exact: staged, unstaged, untracked,
// executable bit, a deleted file, a file the run created; the run's work is
// kept as "copperhead interrupted run <id>".
func TestRunRefRecover(t *testing.T) {
	ctx := context.Background()
	tests := []rollbackCase{
		{
			name: "clean start: edit, create, delete, chmod",
			run: func(t *testing.T, dir string) {
				writeFile(t, dir, "hardware/keyer.kicad_sch", "(kicad_sch (edited by run))\n", 0o644)
				writeFile(t, dir, "docs/LAYOUT.md", "# Layout by the run\n", 0o644)
				os.Remove(filepath.Join(dir, "docs/PINOUT.md"))
				if err := os.Chmod(filepath.Join(dir, "scripts/fab.sh"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			wantStash: []string{"+(kicad_sch (edited by run))", "+# Layout by the run", "deleted file mode 100644"},
		},
		{
			name:       "allow-dirty: staged, unstaged, untracked, modes, deleted",
			allowDirty: true,
			before: func(t *testing.T, dir string) {
				userWork(t, dir)
				os.Remove(filepath.Join(dir, "docs/PINOUT.md")) // deleted, not staged
			},
			run: func(t *testing.T, dir string) {
				runWork(t, dir)
				writeFile(t, dir, "docs/PINOUT.md", "# Pinout recreated\n", 0o644)
				git(t, dir, "add", "-A")
			},
			wantStash: []string{"+(kicad_sch (edited by run))", "+# BOM (run edit)", "+(kicad_sch (new sheet))"},
		},
		{
			name: "killed between its commit and the ref's deletion",
			run: func(t *testing.T, dir string) {
				writeFile(t, dir, "docs/BOM.md", "# BOM committed by run\n", 0o644)
				git(t, dir, "-c", "user.name=r", "-c", "user.email=r@x", "commit", "-q", "-am", "run")
			},
			wantStash: []string{"+# BOM committed by run"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, wantFiles, wantStatus, head := tc.setUp(t)
			wantPerm := perms(t, dir)
			snap := mustSnapshot(t, dir, tc.allowDirty)
			const id = "01KILLEDRUN"
			note := RunNote{RunID: id, RunDir: ".copperhead/runs/" + id, Owner: "4242 99"}
			if err := snap.Reference(ctx, note); err != nil {
				t.Fatal(err)
			}
			note.WorkTree = snap.Repo
			if got, st := treeView(t, dir); !maps.Equal(got, wantFiles) || st != wantStatus || git(t, dir, "stash", "list") != "" {
				t.Fatal("referencing the snapshot changed the tree, the index or the stash list")
			}
			if err := snap.Reference(ctx, note); err == nil {
				t.Fatal("a second Reference for the same run id overwrote the ref")
			}
			snap = nil // the process is gone

			tc.run(t, dir)
			// Whatever is not reachable is gone, as after a gc weeks later.
			git(t, dir, "-c", "gc.reflogExpire=now", "-c", "gc.reflogExpireUnreachable=now", "reflog", "expire", "--all")
			git(t, dir, "gc", "-q", "--prune=now")

			notes, err := RunNotes(ctx, dir)
			if err != nil || len(notes) != 1 || notes[0] != note {
				t.Fatalf("RunNotes = %+v, %v; want [%+v]", notes, err, note)
			}
			back, got, err := LoadSnapshot(ctx, dir, id)
			if err != nil {
				t.Fatal(err)
			}
			if got != note {
				t.Errorf("note %+v, want %+v", got, note)
			}
			ref, err := back.RollbackAs(ctx, id, InterruptedRunMessage(id))
			if err != nil {
				t.Fatal(err)
			}
			checkRestored(t, dir, wantFiles, wantStatus, head)
			if p := perms(t, dir); !maps.Equal(p, wantPerm) {
				t.Errorf("modes after recover %v, want %v", p, wantPerm)
			}
			checkStash(t, dir, ref, "copperhead interrupted run "+id, tc.wantStash)
			if err := DeleteRunRef(ctx, dir, id); err != nil {
				t.Fatal(err)
			}
			if notes, err := RunNotes(ctx, dir); err != nil || len(notes) != 0 {
				t.Errorf("after DeleteRunRef: %+v, %v", notes, err)
			}
			if _, _, err := LoadSnapshot(ctx, dir, id); !errors.Is(err, ErrNoRunRef) {
				t.Errorf("LoadSnapshot after delete: %v, want ErrNoRunRef", err)
			}
			if err := DeleteRunRef(ctx, dir, id); err != nil {
				t.Errorf("deleting a ref already gone: %v", err)
			}
		})
	}
}

// TestRunRefRejectsOddIDs: a run id is one plain ref component.
func TestRunRefRejectsOddIDs(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, true)
	snap := mustSnapshot(t, dir, false)
	for _, id := range []string{"", "../x", "a/b", "x.lock", "a b", "a..b", ".x"} {
		if err := snap.Reference(ctx, RunNote{RunID: id}); err == nil {
			t.Errorf("Reference(%q) accepted", id)
		}
	}
	if out := git(t, dir, "for-each-ref", RunRefPrefix); out != "" {
		t.Errorf("refs made: %s", out)
	}
}

// TestRollbackAsNames: a refusal's stash says refused.
func TestRollbackAsNames(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, true)
	snap := mustSnapshot(t, dir, false)
	writeFile(t, dir, "docs/BOM.md", "# BOM by a refused run\n", 0o644)
	if _, err := snap.RollbackAs(ctx, "01R", RefusedRunMessage("01R")); err != nil {
		t.Fatal(err)
	}
	if list := git(t, dir, "stash", "list"); list != "stash@{0}: copperhead refused run 01R\n" {
		t.Errorf("stash list %q", list)
	}
}
