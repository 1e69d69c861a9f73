package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ecc83 is KiCad's ecc83 demo's shape: two projects in one folder, only
// the second with a board.
var ecc83 = []string{"hw/amp.kicad_pro", "hw/amp.kicad_sch", "hw/amp_v2.kicad_pro", "hw/amp_v2.kicad_sch", "hw/amp_v2.kicad_pcb"}

func TestLocate(t *testing.T) {
	tests := []struct {
		name      string
		files     []string
		sub       string
		sch, brd  string // config-named paths
		wantSch   string
		wantBoard string
		wantPro   string            // checked when set
		contents  map[string]string // a file's bytes, when not fileBytes's
		wantErr   string
		ambiguous bool // the error is ErrAmbiguous
		badPath   bool // the error is ErrBadPath
		legacy    bool // the error is ErrLegacySchematic (and ErrNoSchematic)
	}{
		{name: "project in hardware", files: []string{"hardware/kb.kicad_pro", "hardware/kb.kicad_sch", "hardware/power.kicad_sch", "hardware/kb.kicad_pcb"},
			wantSch: "hardware/kb.kicad_sch", wantBoard: "hardware/kb.kicad_pcb"},
		{name: "schematic only", files: []string{"x.kicad_sch"}, wantSch: "x.kicad_sch"},
		{name: "two projects", files: []string{"a/a.kicad_pro", "a/a.kicad_sch", "b/b.kicad_pro", "b/b.kicad_sch"},
			wantErr: "found 2 KiCad projects under the repository: a/a.kicad_pro, b/b.kicad_pro; choose one with --path (its folder or its .kicad_pro)", ambiguous: true},
		{name: "two projects, path chooses", files: []string{"a/a.kicad_pro", "a/a.kicad_sch", "b/b.kicad_pro", "b/b.kicad_sch"}, sub: "b",
			wantSch: "b/b.kicad_sch"},
		{name: "nothing", files: []string{"README.md"}, wantErr: "no KiCad schematic (.kicad_sch) found under the repository"},
		{name: "ignored folders", files: []string{"node_modules/x/x.kicad_sch", ".git/y.kicad_sch", "outputs/z.kicad_sch"}, wantErr: "no KiCad schematic"},
		{name: "config names files", files: []string{"hw/main.kicad_sch", "hw/main.kicad_pcb", "other.kicad_sch"}, sch: "hw/main.kicad_sch", brd: "hw/main.kicad_pcb",
			wantSch: "hw/main.kicad_sch", wantBoard: "hw/main.kicad_pcb"},
		{name: "config names a missing file", files: []string{"a.kicad_sch"}, sch: "gone.kicad_sch",
			wantErr: "schematic gone.kicad_sch named in .copperhead/config.json: no such file or directory"},
		{name: "missing path", files: []string{"a.kicad_sch"}, sub: "nope", wantErr: "search nope: no such file or directory", badPath: true},
		{name: "path outside the repository", files: []string{"a.kicad_sch"}, sub: "..", wantErr: "search ..: outside the repository", badPath: true},

		// Two projects in one folder (KiCad's ecc83 demo): the folder is
		// ambiguous, a .kicad_pro or the root .kicad_sch chooses.
		{name: "two projects in one folder", files: ecc83, sub: "hw",
			wantErr: "found 2 KiCad projects under hw: hw/amp.kicad_pro, hw/amp_v2.kicad_pro; choose one with --path (its folder or its .kicad_pro)", ambiguous: true},
		{name: "a .kicad_pro chooses", files: ecc83, sub: "hw/amp_v2.kicad_pro", wantSch: "hw/amp_v2.kicad_sch", wantBoard: "hw/amp_v2.kicad_pcb", wantPro: "hw/amp_v2.kicad_pro"},
		{name: "the other .kicad_pro", files: ecc83, sub: "hw/amp.kicad_pro", wantSch: "hw/amp.kicad_sch", wantPro: "hw/amp.kicad_pro"},
		{name: "the root .kicad_sch chooses", files: ecc83, sub: "hw/amp_v2.kicad_sch", wantSch: "hw/amp_v2.kicad_sch", wantBoard: "hw/amp_v2.kicad_pcb", wantPro: "hw/amp_v2.kicad_pro"},
		{name: "a .kicad_sch without a project", files: []string{"x/solo.kicad_sch", "x/other.kicad_sch"}, sub: "x/solo.kicad_sch", wantSch: "x/solo.kicad_sch"},
		{name: "a .kicad_pro without its schematic", files: []string{"hw/b.kicad_pro", "hw/c.kicad_sch"}, sub: "hw/b.kicad_pro",
			wantErr: "search hw/b.kicad_pro: no root schematic b.kicad_sch beside it"},
		{name: "a board is not a path", files: ecc83, sub: "hw/amp_v2.kicad_pcb", wantErr: "search hw/amp_v2.kicad_pcb: not a folder, .kicad_pro or .kicad_sch", badPath: true},
		{name: "any other file", files: append([]string{"README.md"}, ecc83...), sub: "README.md", wantErr: "search README.md: not a folder, .kicad_pro or .kicad_sch", badPath: true},

		// One project at the top encloses the rest: library and test
		// projects nested in its sub-folders do not make it ambiguous.
		{name: "a top-level project beats nested ones", files: []string{"kb.kicad_pro", "kb.kicad_sch", "kb.kicad_pcb",
			"library/test/t.kicad_pro", "library/test/t.kicad_sch", "lib2/x.kicad_pro", "lib2/x.kicad_sch"},
			wantSch: "kb.kicad_sch", wantBoard: "kb.kicad_pcb", wantPro: "kb.kicad_pro"},
		{name: "the enclosing project may be in a sub-folder", files: []string{"hardware/kb.kicad_pro", "hardware/kb.kicad_sch",
			"hardware/lib/sw/sw.kicad_pro", "hardware/lib/sw/sw.kicad_sch"},
			wantSch: "hardware/kb.kicad_sch"},
		{name: "several at the top stay ambiguous", files: []string{"a.kicad_pro", "a.kicad_sch", "b.kicad_pro", "b.kicad_sch", "lib/t.kicad_pro", "lib/t.kicad_sch"},
			wantErr: "found 2 KiCad projects under the repository: a.kicad_pro, b.kicad_pro (and 1 nested in a sub-folder); choose one with --path (its folder or its .kicad_pro)", ambiguous: true},
		{name: "projects in sibling folders stay ambiguous", files: []string{"a/a.kicad_pro", "a/a.kicad_sch", "b/sub/b.kicad_pro", "b/sub/b.kicad_sch"},
			wantErr: "found 2 KiCad projects under the repository: a/a.kicad_pro, b/sub/b.kicad_pro; choose", ambiguous: true},
		{name: "a nested project's folder searched alone", files: []string{"kb.kicad_pro", "kb.kicad_sch", "library/test/t.kicad_pro", "library/test/t.kicad_sch"},
			sub: "library", wantSch: "library/test/t.kicad_sch"},
		{name: "a top-level schematic beats nested sheets", files: []string{"main.kicad_sch", "sheets/power.kicad_sch", "sheets/io.kicad_sch"},
			wantSch: "main.kicad_sch"},
		{name: "schematics side by side stay ambiguous", files: []string{"main.kicad_sch", "power.kicad_sch"},
			wantErr: `found 2 schematics but no .kicad_pro under the repository: main.kicad_sch, power.kicad_sch; choose the root one with --path (its .kicad_sch) or set "schematic" in .copperhead/config.json`, ambiguous: true},

		// A KiCad 5 project (.sch and .pro, no .kicad_sch) is named, with
		// the way to convert it, instead of "no schematic".
		{name: "a KiCad 5 project", files: []string{"hardware/board.pro", "hardware/board.sch", "hardware/power.sch", "hardware/board.kicad_pcb"},
			wantErr: "hardware/board.sch is a KiCad 5 (legacy) schematic, which copperhead cannot read: open and save it in KiCad 6 or later (KiCad 9's File > Save converts it)", legacy: true},
		{name: "a KiCad 5 schematic without its .pro", files: []string{"old/board.sch", "old/sheets/power.sch"},
			wantErr: "old/board.sch is a KiCad 5 (legacy) schematic, which copperhead cannot read", legacy: true},
		{name: "two KiCad 5 projects", files: []string{"a.pro", "a.sch", "b.pro", "b.sch"},
			wantErr: "a.sch, b.sch are KiCad 5 (legacy) schematics, which copperhead cannot read: open and save them in KiCad 6 or later (KiCad 9's File > Save converts them)", legacy: true},
		{name: "a project file migrated, its schematic not yet", files: []string{"hw/b.kicad_pro", "hw/b.pro", "hw/b.sch"},
			wantErr: "hw/b.sch is a KiCad 5 (legacy) schematic", legacy: true},
		{name: "a KiCad 5 .pro as --path", files: []string{"hw/b.pro", "hw/b.sch"}, sub: "hw/b.pro",
			wantErr: "hw/b.sch is a KiCad 5 (legacy) schematic", legacy: true},
		{name: "a KiCad 5 .sch as --path", files: []string{"hw/b.pro", "hw/b.sch", "hw/c.sch"}, sub: "hw/c.sch",
			wantErr: "hw/c.sch is a KiCad 5 (legacy) schematic", legacy: true},
		{name: "a .kicad_pro beside a KiCad 5 schematic as --path", files: []string{"hw/b.kicad_pro", "hw/b.sch"}, sub: "hw/b.kicad_pro",
			wantErr: "hw/b.sch is a KiCad 5 (legacy) schematic", legacy: true},
		{name: "a converted project ignores its old .sch", files: []string{"hw/b.kicad_pro", "hw/b.kicad_sch", "hw/b.pro", "hw/b.sch"},
			wantSch: "hw/b.kicad_sch"},
		{name: "another tool's .sch is not KiCad 5", files: []string{"eagle/board.sch"}, contents: map[string]string{"eagle/board.sch": eagleSch},
			wantErr: "no KiCad schematic (.kicad_sch) found under the repository"},
		{name: "another tool's .sch as --path", files: []string{"eagle/board.sch"}, contents: map[string]string{"eagle/board.sch": eagleSch}, sub: "eagle/board.sch",
			wantErr: "search eagle/board.sch: not a folder, .kicad_pro or .kicad_sch", badPath: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(repo, f)
				os.MkdirAll(filepath.Dir(p), 0o755)
				body, ok := tc.contents[f]
				if !ok {
					body = fileBytes(f)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			pr, err := Locate(repo, tc.sub, tc.sch, tc.brd)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if errors.Is(err, ErrAmbiguous) != tc.ambiguous {
					t.Errorf("errors.Is(err, ErrAmbiguous) = %v, want %v", !tc.ambiguous, tc.ambiguous)
				}
				if errors.Is(err, ErrBadPath) != tc.badPath {
					t.Errorf("errors.Is(err, ErrBadPath) = %v, want %v", !tc.badPath, tc.badPath)
				}
				if errors.Is(err, ErrLegacySchematic) != tc.legacy {
					t.Errorf("errors.Is(err, ErrLegacySchematic) = %v, want %v", !tc.legacy, tc.legacy)
				}
				if tc.legacy && !errors.Is(err, ErrNoSchematic) {
					t.Errorf("a KiCad 5 refusal is not ErrNoSchematic: %v", err)
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
			if got := pr.Rel(pr.Pro); tc.wantPro != "" && got != tc.wantPro {
				t.Errorf("pro = %q, want %q", got, tc.wantPro)
			}
			if want := strings.TrimSuffix(filepath.Base(tc.wantSch), ".kicad_sch"); pr.Name != want {
				t.Errorf("name = %q, want %q", pr.Name, want)
			}
		})
	}
}

// eagleSch is the start of an Eagle schematic, which shares KiCad 5's .sch.
const eagleSch = `<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE eagle SYSTEM "eagle.dtd">
`

// fileBytes is what a test file holds: a KiCad 5 header for a .sch (and
// KiCad 5's INI for a .pro), an s-expression otherwise.
func fileBytes(name string) string {
	switch filepath.Ext(name) {
	case ".sch":
		return "EESchema Schematic File Version 4\nEELAYER 30 0\nEELAYER END\n"
	case ".pro":
		return "update=22/05/2015 07:44:53\nversion=1\n"
	}
	return "(x)"
}

func TestNoSchematicIsDistinguishable(t *testing.T) {
	_, err := Locate(t.TempDir(), "", "", "")
	if !errors.Is(err, ErrNoSchematic) {
		t.Fatalf("err = %v, want ErrNoSchematic", err)
	}
}

// TestLocateRefusesLinksOutside: a --path that leads out of the repository
// through a link is refused, a file as well as a folder.
func TestLocateRefusesLinksOutside(t *testing.T) {
	outside := t.TempDir()
	for _, f := range []string{"x.kicad_pro", "x.kicad_sch"} {
		if err := os.WriteFile(filepath.Join(outside, f), []byte("(x)"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "a.kicad_sch"), []byte("(x)"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"pro.kicad_pro": filepath.Join(outside, "x.kicad_pro"), "dir": outside} {
		if err := os.Symlink(target, filepath.Join(repo, link)); err != nil {
			t.Fatal(err)
		}
		_, err := Locate(repo, link, "", "")
		if want := "search " + link + ": outside the repository"; err == nil || err.Error() != want || !errors.Is(err, ErrBadPath) {
			t.Errorf("Locate(%s) err = %v, want %q (ErrBadPath)", link, err, want)
		}
	}
}
