package kicad

import (
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSchematicSources: LoadSchematicSources reads each file of a hierarchy
// once (a sheet file used twice is one source) and models it exactly as
// LoadSchematic does; SchematicFromSources rebuilds the same model from those
// sources without reading anything, and refuses a hierarchy whose sheet is
// not among them as a missing file.
func TestSchematicSources(t *testing.T) {
	roots := []string{
		"testdata/hier/root.kicad_sch",
		"testdata/reused3/reused3.kicad_sch",
		"testdata/kicad6/kicad6.kicad_sch",
		demoDir + "/complex_hierarchy/complex_hierarchy.kicad_sch",
		demoDir + "/multichannel/multichannel_mixer.kicad_sch",
	}
	for _, root := range roots {
		t.Run(filepath.Base(root), func(t *testing.T) {
			want, err := LoadSchematic(root)
			if errors.Is(err, fs.ErrNotExist) {
				t.Skipf("%s not installed", root)
			}
			if err != nil {
				t.Fatal(err)
			}
			got, sources, err := LoadSchematicSources(root, "")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatal("LoadSchematicSources models the design differently from LoadSchematic")
			}
			files := map[string]SchematicSource{}
			for _, s := range sources {
				abs, _ := filepath.Abs(s.Path)
				if _, dup := files[abs]; dup {
					t.Errorf("%s read twice", s.Path)
				}
				if s.Root == nil || s.Root.Head() != "kicad_sch" || len(s.Src) == 0 {
					t.Errorf("%s: source without its parse", s.Path)
				}
				files[abs] = s
			}
			distinct := map[string]bool{}
			for _, in := range want.Sheets {
				distinct[in.File] = true
			}
			if len(files) != len(distinct) {
				t.Errorf("%d sources for %d distinct sheet files", len(files), len(distinct))
			}
			again, err := SchematicFromSources(root, files)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again, want) {
				t.Fatal("SchematicFromSources models the design differently from LoadSchematic")
			}
			if len(files) > 1 {
				rootAbs, _ := filepath.Abs(root)
				for abs := range files {
					if abs != rootAbs {
						delete(files, abs)
						break
					}
				}
				if _, err := SchematicFromSources(root, files); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("SchematicFromSources without a sheet = %v, want fs.ErrNotExist", err)
				}
			}
		})
	}
}
