package kicadcli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyFixture copies the open-telegraph example's hardware folder into a
// temporary folder and returns it.
func copyFixture(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "hardware")
	if err := os.CopyFS(dst, os.DirFS("../../examples/open-telegraph/hardware")); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestLoad(t *testing.T) {
	tool := kicadTool(t)
	dir := copyFixture(t)
	ctx := context.Background()
	sch := filepath.Join(dir, "open-telegraph.kicad_sch")
	pcb := filepath.Join(dir, "open-telegraph.kicad_pcb")
	for _, p := range []string{sch, filepath.Join(dir, "power.kicad_sch"), pcb} {
		if err := tool.Load(ctx, p); err != nil {
			t.Errorf("Load(%s) = %v, want nil", filepath.Base(p), err)
		}
	}
	// A token KiCad does not know is valid s-expression syntax that only
	// kicad-cli rejects.
	for _, tc := range []struct{ path, head, want string }{
		{sch, "(kicad_sch", "Failed to load schematic"},
		{pcb, "(kicad_pcb", "Failed to load board"},
	} {
		src, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		bad := strings.Replace(string(src), tc.head, tc.head+" (no_such_token 1)", 1)
		if err := os.WriteFile(tc.path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		err = tool.Load(ctx, tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(broken %s) = %v, want it to quote %q", filepath.Base(tc.path), err, tc.want)
		}
	}
	if err := tool.Load(ctx, filepath.Join(dir, "open-telegraph.kicad_pro")); err == nil {
		t.Error("Load(.kicad_pro) succeeded; want refused")
	}
}

func TestExportSVG(t *testing.T) {
	tool := kicadTool(t)
	dir := copyFixture(t)
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "svg")
	files, err := tool.ExportSVG(ctx, filepath.Join(dir, "open-telegraph.kicad_sch"), out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(out, "open-telegraph-power.svg"), filepath.Join(out, "open-telegraph.svg")}
	if strings.Join(files, ",") != strings.Join(want, ",") {
		t.Errorf("schematic SVGs = %q, want %q", files, want)
	}
	files, err = tool.ExportSVG(ctx, filepath.Join(dir, "open-telegraph.kicad_pcb"), out)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0] != filepath.Join(out, "open-telegraph.svg") {
		t.Errorf("board SVGs = %q", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(data), "<svg") {
			t.Errorf("%s: not an SVG (%v)", f, err)
		}
	}
}
