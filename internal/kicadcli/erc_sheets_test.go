package kicadcli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"copperhead/internal/kicad"
)

// TestERCPlacesSheets: kicad-cli 9 files a dangling label on a sub-sheet
// under the root "/"; ERC files it under the sheet instance whose file
// holds it (the first instance of a file used twice), as check does, so
// every consumer of ERC (the agent's run_erc, the viewer, draft) names the
// same sheet. ERCAndNetlist leaves that to its caller, which has the
// schematic loaded: with PlaceSheets the two agree.
// testdata/erc_sheets is the check_erc_sheets testscript's project: a root
// with sheet amp (amp.kicad_sch) and sheets ch1, ch2 (both chan.kicad_sch),
// one dangling label in each file.
func TestERCPlacesSheets(t *testing.T) {
	tool := kicadTool(t)
	dir := filepath.Join(t.TempDir(), "erc_sheets")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "erc_sheets"))); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "ersh.kicad_sch")
	sheets := func(r *Report) []string {
		var s []string
		for _, v := range r.Violations {
			if v.Type == "label_dangling" {
				s = append(s, v.Sheet)
			}
		}
		slices.Sort(s)
		return s
	}
	want := []string{"/amp/", "/ch1/"}

	erc, err := tool.ERC(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if got := sheets(erc); !slices.Equal(got, want) {
		t.Errorf("ERC sheets %q, want %q", got, want)
	}

	raw, _, err := tool.ERCAndNetlist(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if got := sheets(raw); !slices.Contains(got, "/") {
		t.Logf("kicad-cli now files the labels under their sheets itself (%q): the placement is a no-op", got)
	}
	sch, err := kicad.LoadSchematic(root)
	if err != nil {
		t.Fatal(err)
	}
	raw.PlaceSheets(sch.SheetsDeclaring)
	if got := sheets(raw); !slices.Equal(got, want) {
		t.Errorf("ERCAndNetlist + PlaceSheets sheets %q, want %q", got, want)
	}
}
