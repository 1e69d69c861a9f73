package kicadcli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"copperhead/internal/repofs"
)

// TestInputsRefusedBeforeKiCad: a sheet that is a named pipe, a sheet
// outside Boundary, and (for the netlist and ERC, which must cover the whole
// design) a missing sheet are refused before kicad-cli runs: the fake
// kicad-cli here would succeed with a partial design, or hang on the pipe.
func TestInputsRefusedBeforeKiCad(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	// Each design in its own folder: the cache key covers a whole folder.
	top := func(name, sheetfile string) string {
		p := filepath.Join(repo, name, "top.kicad_sch")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		text := `(kicad_sch (uuid "t") (sheet (uuid "s") (property "Sheetname" "S") (property "Sheetfile" "` + sheetfile + `")))`
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := os.WriteFile(filepath.Join(dir, "victim.kicad_sch"), []byte(`(kicad_sch (uuid "v"))`), 0o644); err != nil {
		t.Fatal(err)
	}
	fifoTop := top("fifo", "pipe.kicad_sch")
	if err := syscall.Mkfifo(filepath.Join(repo, "fifo", "pipe.kicad_sch"), 0o644); err != nil {
		t.Fatal(err)
	}
	proTop := top("pro", "")
	if err := syscall.Mkfifo(filepath.Join(repo, "pro", "top.kicad_pro"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A fake kicad-cli that writes an empty netlist and an empty ERC report.
	fakeKicadCLI(t, "echo 9.0.8", `out=; while [ $# -gt 1 ]; do if [ "$1" = -o ]; then out="$2"; fi; shift; done
case "$out" in
*.xml) echo '<export version="E"><design></design><components></components><nets></nets></export>' > "$out";;
*) echo '{"sheets":[]}' > "$out";;
esac`)
	tool, err := Find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tool.CacheDir = ""
	tests := []struct {
		name     string
		root     string
		boundary string
		netlist  string // the Netlist error, "" for none
		is       error
	}{
		{"fifo sheet", fifoTop, "", "pipe.kicad_sch is not a regular file (a named pipe)", repofs.ErrNotRegular},
		{"fifo project file", proTop, "", "top.kicad_pro is not a regular file (a named pipe)", repofs.ErrNotRegular},
		{"sheet outside the boundary", top("out", "../../victim.kicad_sch"), repo, "../../victim.kicad_sch is outside the repository", repofs.ErrOutside},
		{"sheet outside, no boundary", top("out2", "../../victim.kicad_sch"), "", "", nil},
		{"missing sheet", top("missing", "power.kicad_sch"), "", "sheet file power.kicad_sch does not exist, and kicad-cli would export the rest of the design as if it were whole", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tool.Boundary = tc.boundary
			done := make(chan error, 1)
			go func() {
				_, err := tool.Netlist(context.Background(), tc.root)
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(20 * time.Second): // a hang detector only
				t.Fatal("Netlist hung")
			}
			if tc.netlist == "" {
				if err != nil {
					t.Fatalf("Netlist: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), "kicad-cli sch export netlist "+tc.root+": ") || !strings.Contains(err.Error(), tc.netlist) {
				t.Fatalf("Netlist: %v, want %q", err, tc.netlist)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("Netlist: %v does not wrap %v", err, tc.is)
			}
			if _, err := tool.ERC(context.Background(), tc.root); err == nil || !strings.Contains(err.Error(), tc.netlist) {
				t.Errorf("ERC: %v, want %q", err, tc.netlist)
			}
		})
	}
	// Load (the edit guard's probe) is not a whole-design job: a missing
	// sheet is kicad-cli's to judge.
	tool.Boundary = ""
	if err := tool.Load(context.Background(), filepath.Join(repo, "missing", "top.kicad_sch")); err != nil {
		t.Errorf("Load: %v", err)
	}
}

// TestBoardPipeRefused: a board that is a named pipe is refused before
// kicad-cli runs (it would block on it until the run's timeout).
func TestBoardPipeRefused(t *testing.T) {
	board := filepath.Join(t.TempDir(), "x.kicad_pcb")
	if err := syscall.Mkfifo(board, 0o644); err != nil {
		t.Fatal(err)
	}
	fakeKicadCLI(t, "echo 9.0.8", "exec sleep 1000")
	tool, err := Find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tool.CacheDir = ""
	done := make(chan [2]error, 1)
	go func() {
		_, drcErr := tool.DRC(context.Background(), board)
		dxfErr := tool.ExportDXF(context.Background(), board, filepath.Join(t.TempDir(), "o.dxf"), []string{"Edge.Cuts"})
		done <- [2]error{drcErr, dxfErr}
	}()
	select {
	case errs := <-done:
		for _, err := range errs {
			if err == nil || !strings.Contains(err.Error(), "is not a regular file") {
				t.Errorf("err = %v, want a refusal of the pipe", err)
			}
		}
	case <-time.After(20 * time.Second): // a hang detector only
		t.Fatal("a board that is a named pipe hung kicad-cli")
	}
}

// TestLibraryLinkedFromOutside: a symbol library linked into the project
// from outside the repository is a library, not a design file: it is read
// (hashed) and the run goes ahead.
func TestLibraryLinkedFromOutside(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shared.kicad_sym"), []byte("(kicad_symbol_lib)"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../shared.kicad_sym", filepath.Join(repo, "shared.kicad_sym")); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(repo, "top.kicad_sch")
	if err := os.WriteFile(root, []byte(`(kicad_sch (uuid "t"))`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := collectInputs(root, false, repo, nil); err != nil {
		t.Fatalf("collectInputs: %v", err)
	}
	if err := os.Symlink("../shared.kicad_sym", filepath.Join(repo, "linked.kicad_sch")); err != nil {
		t.Fatal(err)
	}
	if _, err := collectInputs(root, false, repo, nil); !errors.Is(err, repofs.ErrOutside) {
		t.Fatalf("a schematic linked from outside: %v, want a refusal", err)
	}
}

// TestBoundaryOnlyForInputsInside: an input outside Boundary (the scratch
// copy an edit is checked in) is not confined; one inside is.
func TestBoundaryOnlyForInputsInside(t *testing.T) {
	repo, scratch := t.TempDir(), t.TempDir()
	tool := &Tool{Boundary: repo}
	if got := tool.boundaryFor(filepath.Join(repo, "x.kicad_sch")); got != repo {
		t.Errorf("inside: %q", got)
	}
	if got := tool.boundaryFor(filepath.Join(scratch, "x.kicad_sch")); got != "" {
		t.Errorf("outside: %q", got)
	}
}
