package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/netdiff"
	"copperhead/internal/project"
)

func TestSameFileBytes(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Larger than one chunk, so a difference in the last byte is found on
	// a later read than the first.
	big := bytes.Repeat([]byte("(segment (start 1 2) (end 3 4))\n"), 5000)
	last := bytes.Clone(big)
	last[len(last)-1] = ' '
	a := write("a.kicad_pcb", big)
	for _, tt := range []struct {
		name string
		b    string
		want bool
	}{
		{"the same bytes in another file", write("copy.kicad_pcb", big), true},
		{"the same file", a, true},
		{"the same size, the last byte differs", write("last.kicad_pcb", last), false},
		{"another size", write("short.kicad_pcb", big[:len(big)-1]), false},
		{"no such file", filepath.Join(dir, "missing.kicad_pcb"), false},
		{"a folder", dir, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameFileBytes(a, tt.b); got != tt.want {
				t.Errorf("sameFileBytes = %v, want %v", got, tt.want)
			}
			if got := sameFileBytes(tt.b, a); got != tt.want {
				t.Errorf("sameFileBytes (swapped) = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDiffLayoutIdenticalBoards: boards holding the same bytes are not read
// (not even when they would not parse), and the layout is what comparing
// them gives: no changes. Boards that differ are read and compared.
func TestDiffLayoutIdenticalBoards(t *testing.T) {
	dir := t.TempDir()
	fixture, err := os.ReadFile("../../examples/open-telegraph/hardware/open-telegraph.kicad_pcb")
	if err != nil {
		t.Fatal(err)
	}
	moved := bytes.Replace(fixture, []byte("\t\t(at 116 63)\n"), []byte("\t\t(at 118.5 63 90)\n"), 1)
	if bytes.Equal(moved, fixture) {
		t.Fatal("the fixture has no footprint at (116 63) to move")
	}
	side := func(label, name string, data []byte) *diffSide {
		root := filepath.Join(dir, label)
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return &diffSide{label: label, root: root, proj: &project.Project{Repo: root, Board: p}}
	}
	renamed := []netdiff.Rename{{Old: "KEY_DAH", New: "KEY_DASH", Exact: true, Pins: 4}}

	// What reading both boards gives for the fixture against itself.
	path := side("read", "open-telegraph.kicad_pcb", fixture).proj.Board
	board, err := kicad.LoadBoard(path)
	if err != nil {
		t.Fatal(err)
	}
	tracks, err := kicad.BoardTracks(path)
	if err != nil {
		t.Fatal(err)
	}
	read := netdiff.DiffBoards(board, board, tracks, tracks, renamed)

	for _, tt := range []struct {
		name        string
		base, head  []byte
		read, empty bool // whether the boards are read; whether the layout is empty
		notes       int
	}{
		{"identical boards", fixture, fixture, false, true, 0},
		{"identical boards that would not parse are not read", []byte("(kicad_pcb\n"), []byte("(kicad_pcb\n"), false, true, 0},
		{"a footprint moved", fixture, moved, true, false, 0},
		{"different boards that do not parse: a note", []byte("(kicad_pcb\n"), []byte("(kicad_pcb (\n"), true, true, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, h := side("base-"+tt.name, "open-telegraph.kicad_pcb", tt.base), side("head-"+tt.name, "open-telegraph.kicad_pcb", tt.head)
			layout, notes := diffLayout(b, h, renamed)
			if wasRead := b.board != nil || b.boardErr != nil || h.board != nil || h.boardErr != nil; wasRead != tt.read {
				t.Errorf("boards read = %v, want %v", wasRead, tt.read)
			}
			if layout.Empty() != tt.empty || len(notes) != tt.notes {
				t.Errorf("layout %+v notes %q; want empty %v, %d notes", layout, notes, tt.empty, tt.notes)
			}
			if !tt.read && !reflect.DeepEqual(layout, read) {
				t.Errorf("skipped layout %+v, reading the boards gives %+v", layout, read)
			}
		})
	}
}
