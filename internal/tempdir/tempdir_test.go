package tempdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"copperhead/internal/owner"
)

func TestPrune(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	folder := func(name string) string {
		t.Helper()
		dir := filepath.Join(os.TempDir(), name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "board.kicad_pcb"), []byte("(kicad_pcb)"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	mine, err := Make("layout") // this process: kept
	if err != nil {
		t.Fatal(err)
	}
	deadMark := strings.Replace(owner.Of(exited.Process.Pid), " ", ".", 1)
	dead := folder("copperhead-edit-p" + deadMark + "-123")                         // its process exited: removed
	reused := folder("copperhead-kicad-cli-p" + strconv.Itoa(os.Getpid()) + ".1-9") // this pid, another start: removed
	for _, keep := range []string{
		"copperhead-unmarked-42",              // no mark: not known to be ours
		"copperhead-dryrun-77",                // the dry runs' own folders (gitrepo)
		"someone-p" + deadMark + "-1",         // not copperhead's
		"copperhead-edit-p" + deadMark + "-x", // not Make's random suffix
	} {
		folder(keep)
	}
	if err := os.WriteFile(filepath.Join(os.TempDir(), "copperhead-file-p"+deadMark+"-5"), nil, 0o644); err != nil {
		t.Fatal(err) // a file, not a folder: kept
	}

	removed, err := Prune()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	want := []string{dead, reused}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("Prune removed %v, want %v", removed, want)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("this process's folder was removed: %v", err)
	}
	left, _ := os.ReadDir(os.TempDir())
	if len(left) != 6 {
		t.Errorf("%d entries left, want 6 (this process's, four unmarked or foreign folders, a file)", len(left))
	}
	if again, err := Prune(); err != nil || len(again) != 0 {
		t.Errorf("a second Prune = %v, %v; want nothing", again, err)
	}
}

func TestMakeMarksTheOwner(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, err := Make("diff-svg")
	if err != nil {
		t.Fatal(err)
	}
	m := marked.FindStringSubmatch(filepath.Base(dir))
	if m == nil || !strings.HasPrefix(filepath.Base(dir), "copperhead-diff-svg-p") {
		t.Fatalf("Make(diff-svg) = %s: not a marked name", dir)
	}
	if pid, alive := owner.Parse(m[1] + " " + m[2]); pid != os.Getpid() || !alive {
		t.Errorf("the mark names pid %d (alive %v), want this process %d", pid, alive, os.Getpid())
	}
}
