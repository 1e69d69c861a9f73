package kicad

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/sexpr"
)

// TestSheetsDeclaring: the sheet instances whose file declares an object's
// UUID (what an ERC item names), one per use of the file, in hierarchy
// order; nothing for a UUID no file declares, for a file's own UUID and for
// one declared by two files.
func TestSheetsDeclaring(t *testing.T) {
	reused, err := LoadSchematic("testdata/reused3/reused3.kicad_sch")
	if err != nil {
		t.Fatal(err)
	}
	k6, err := LoadSchematic("testdata/kicad6/kicad6.kicad_sch")
	if err != nil {
		t.Fatal(err)
	}
	all3 := []string{"/inst1/", "/inst2/", "/inst3/"}
	for _, tc := range []struct {
		name string
		sch  *Schematic
		uuid string
		want []string
	}{
		{"local label in a sheet used three times", reused, "33333333-0000-4000-8000-0000000000d1", all3},
		{"wire", reused, "33333333-0000-4000-8000-0000000000c2", all3},
		{"symbol", reused, "33333333-0000-4000-8000-000000000e02", all3},
		{"symbol pin", reused, "33333333-0000-4000-8000-000000000201", all3},
		{"sheet symbol on the root", reused, "33333333-0000-4000-8000-0000000000a2", []string{"/"}},
		{"a file's own uuid", reused, "33333333-0000-4000-8000-0000000000b0", nil},
		{"unknown", reused, "33333333-0000-4000-8000-00000000ffff", nil},
		{"KiCad 6 unquoted, sheet pin on the root", k6, "4e2f3a4b-5c6d-4e7f-8091-a2b3c4d5e6f7", []string{"/"}},
		{"KiCad 6 no-connect in a sheet used twice", k6, "aa8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c01", []string{"/Filter A/", "/Filter B/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.sch.SheetsDeclaring(tc.uuid); !slices.Equal(got, tc.want) {
				t.Errorf("SheetsDeclaring(%s) = %q, want %q", tc.uuid, got, tc.want)
			}
		})
	}

	// A sub-sheet copied with its UUIDs: the label is on two files, so
	// neither can be named.
	dir := t.TempDir()
	root, err := os.ReadFile("testdata/reused3/reused3.kicad_sch")
	if err != nil {
		t.Fatal(err)
	}
	bias, err := os.ReadFile("testdata/reused3/bias.kicad_sch")
	if err != nil {
		t.Fatal(err)
	}
	root = []byte(strings.Replace(string(root), `"Sheetfile" "bias.kicad_sch" (at 142.24`, `"Sheetfile" "copy.kicad_sch" (at 142.24`, 1))
	files := map[string]SchematicSource{}
	for name, src := range map[string][]byte{"reused3.kicad_sch": root, "bias.kicad_sch": bias, "copy.kicad_sch": bias} {
		p := filepath.Join(dir, name)
		n, err := sexpr.Parse(p, src)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = SchematicSource{Path: p, Src: src, Root: n}
	}
	copied, err := SchematicFromSources(filepath.Join(dir, "reused3.kicad_sch"), files)
	if err != nil {
		t.Fatal(err)
	}
	if got := copied.SheetsDeclaring("33333333-0000-4000-8000-0000000000d1"); got != nil {
		t.Errorf("a UUID two files declare: SheetsDeclaring = %q, want nil", got)
	}
	if got := copied.SheetsDeclaring("33333333-0000-4000-8000-0000000000a3"); !slices.Equal(got, []string{"/"}) {
		t.Errorf("the copy's sheet symbol: SheetsDeclaring = %q, want [/]", got)
	}
}
