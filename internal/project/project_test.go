package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocate(t *testing.T) {
	tests := []struct {
		name      string
		files     []string
		sub       string
		sch, brd  string // config-named paths
		wantSch   string
		wantBoard string
		wantErr   string
	}{
		{name: "project in hardware", files: []string{"hardware/kb.kicad_pro", "hardware/kb.kicad_sch", "hardware/power.kicad_sch", "hardware/kb.kicad_pcb"},
			wantSch: "hardware/kb.kicad_sch", wantBoard: "hardware/kb.kicad_pcb"},
		{name: "schematic only", files: []string{"x.kicad_sch"}, wantSch: "x.kicad_sch"},
		{name: "two projects", files: []string{"a/a.kicad_pro", "a/a.kicad_sch", "b/b.kicad_pro", "b/b.kicad_sch"},
			wantErr: "found 2 KiCad projects under the repository: a/a.kicad_sch, b/b.kicad_sch; choose one with --path"},
		{name: "two projects, path chooses", files: []string{"a/a.kicad_pro", "a/a.kicad_sch", "b/b.kicad_pro", "b/b.kicad_sch"}, sub: "b",
			wantSch: "b/b.kicad_sch"},
		{name: "nothing", files: []string{"README.md"}, wantErr: "no KiCad schematic (.kicad_sch) found under the repository"},
		{name: "ignored folders", files: []string{"node_modules/x/x.kicad_sch", ".git/y.kicad_sch", "outputs/z.kicad_sch"}, wantErr: "no KiCad schematic"},
		{name: "config names files", files: []string{"hw/main.kicad_sch", "hw/main.kicad_pcb", "other.kicad_sch"}, sch: "hw/main.kicad_sch", brd: "hw/main.kicad_pcb",
			wantSch: "hw/main.kicad_sch", wantBoard: "hw/main.kicad_pcb"},
		{name: "config names a missing file", files: []string{"a.kicad_sch"}, sch: "gone.kicad_sch",
			wantErr: "schematic gone.kicad_sch named in .copperhead/config.json: no such file or directory"},
		{name: "missing path", files: []string{"a.kicad_sch"}, sub: "nope", wantErr: "search nope: no such file or directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(repo, f)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte("(x)"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			pr, err := Locate(repo, tc.sub, tc.sch, tc.brd)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := pr.Rel(pr.Schematic); got != tc.wantSch {
				t.Errorf("schematic = %s, want %s", got, tc.wantSch)
			}
			if got := pr.Rel(pr.Board); got != tc.wantBoard {
				t.Errorf("board = %q, want %q", got, tc.wantBoard)
			}
		})
	}
}

func TestNoSchematicIsDistinguishable(t *testing.T) {
	_, err := Locate(t.TempDir(), "", "", "")
	if !errors.Is(err, ErrNoSchematic) {
		t.Fatalf("err = %v, want ErrNoSchematic", err)
	}
}
