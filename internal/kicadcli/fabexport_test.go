package kicadcli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestExportDrillOptions(t *testing.T) {
	tool := kicadTool(t)
	board := filepath.Join(copyFixture(t), "open-telegraph.kicad_pcb")
	tests := []struct {
		name   string
		opts   DrillOptions
		want   []string // file names after "open-telegraph"
		header string   // in the first .drl file
	}{
		{"merged, minimal header", DrillOptions{Units: "mm", Zeros: "suppressleading", MinimalHeader: true},
			[]string{".drl"}, "METRIC"},
		{"separate PTH and NPTH with Gerber maps", DrillOptions{Units: "mm", Zeros: "decimal", SeparateTH: true, MapFormat: "gerberx2"},
			[]string{"-NPTH-drl_map.gbr", "-NPTH.drl", "-PTH-drl_map.gbr", "-PTH.drl"}, "; #@! TF.FileFunction,NonPlated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "drill")
			files, err := tool.ExportDrill(context.Background(), board, out, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range files {
				names = append(names, strings.TrimPrefix(filepath.Base(f), "open-telegraph"))
			}
			if !slices.Equal(names, tc.want) {
				t.Fatalf("files %v, want %v", names, tc.want)
			}
			i := slices.IndexFunc(files, func(f string) bool { return strings.HasSuffix(f, ".drl") })
			data, err := os.ReadFile(files[i])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tc.header) {
				t.Errorf("%s lacks %q", files[i], tc.header)
			}
		})
	}
}

func TestFabExportErrors(t *testing.T) {
	tool := kicadTool(t)
	dir := copyFixture(t)
	board := filepath.Join(dir, "open-telegraph.kicad_pcb")
	ctx := context.Background()
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"not a board", func() error {
			_, err := tool.ExportGerbers(ctx, filepath.Join(dir, "open-telegraph.kicad_sch"), t.TempDir(), GerberOptions{})
			return err
		}, "kicad-cli pcb export gerbers " + filepath.Join(dir, "open-telegraph.kicad_sch") + ": not a .kicad_pcb"},
		{"missing board", func() error {
			return tool.ExportDXF(ctx, filepath.Join(dir, "nope.kicad_pcb"), filepath.Join(t.TempDir(), "o.dxf"), []string{"Edge.Cuts"})
		}, "no such file"},
		{"output folder not empty", func() error {
			_, err := tool.ExportDrill(ctx, board, full, DrillOptions{})
			return err
		}, "is not empty"},
		{"unloadable board", func() error {
			bad := filepath.Join(t.TempDir(), "bad.kicad_pcb")
			if err := os.WriteFile(bad, []byte("(kicad_pcb (no_such_token 1))"), 0o644); err != nil {
				t.Fatal(err)
			}
			return tool.RenderPNG(ctx, bad, filepath.Join(t.TempDir(), "r.png"), RenderOptions{})
		}, "kicad-cli pcb render"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestExportSTEPVRMLFallback: kicad-cli 9 exits 2 with "Cannot load any VRML
// model" when a model it cannot convert is on the board; ExportSTEP then
// writes the board body alone and says so, and lists the missing models.
func TestExportSTEPVRMLFallback(t *testing.T) {
	fakeKicadCLI(t, "echo 9.0.8", `out=; subst=; for a in "$@"; do [ "$prev" = --output ] && out="$a"; [ "$a" = --subst-models ] && subst=1; prev="$a"; done
if [ -n "$subst" ]; then echo "Could not add 3D model for C1."; echo "Cannot load any VRML model for this export." >&2; exit 2; fi
echo "ISO-10303-21;" > "$out"`)
	tool, err := Find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	board := filepath.Join(t.TempDir(), "b.kicad_pcb")
	if err := os.WriteFile(board, []byte("(kicad_pcb)"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := tool.ExportSTEP(context.Background(), board, filepath.Join(t.TempDir(), "b.step"))
	if err != nil {
		t.Fatalf("ExportSTEP = %v, want the board-only retry to succeed", err)
	}
	if !res.BoardOnly || !slices.Equal(res.MissingModels, []string{"C1"}) {
		t.Errorf("ExportSTEP = %+v, want BoardOnly and C1 missing", res)
	}
}

// TestExportPosFixture: CSV, mm, both sides, kicad-cli's columns.
func TestExportPosFixture(t *testing.T) {
	tool := kicadTool(t)
	dir := copyFixture(t)
	out := filepath.Join(t.TempDir(), "pos.csv")
	if err := tool.ExportPos(context.Background(), filepath.Join(dir, "open-telegraph.kicad_pcb"), out, PosOptions{ExcludeDNP: true}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "Ref,Val,Package,PosX,PosY,Rot,Side\n") || !strings.Contains(string(data), `"U1","ESP32-S3-WROOM-1","ESP32-S3-WROOM-1",149.500000,-73.500000,0.000000,top`) {
		t.Errorf("position file:\n%s", data)
	}
}
