package design

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/kicad"
)

// TestKiCadDemos runs init's generators and the drift check on KiCad's own
// demo projects, with connectivity from a real kicad-cli netlist export: the
// generated docs must be drift-clean, and BOM.md must have exactly one row per
// reference the netlist lists (AC-1.2).
func TestKiCadDemos(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kicad-cli")
	}
	cli, err := exec.LookPath("kicad-cli")
	if err != nil {
		t.Skip("kicad-cli not installed")
	}
	demos := []struct{ dir, root string }{
		{"complex_hierarchy", "complex_hierarchy.kicad_sch"},
		{"royalblue54L_feather", "RoyalBlue54L-Feather.kicad_sch"},
	}
	for _, d := range demos {
		t.Run(d.dir, func(t *testing.T) {
			src := filepath.Join("/usr/share/kicad/demos", d.dir)
			if _, err := os.Stat(src); err != nil {
				t.Skip("demo not installed")
			}
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(dir, d.root)
			sch, err := kicad.LoadSchematic(root)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			xmlPath := filepath.Join(dir, "netlist.xml")
			cmd := exec.CommandContext(ctx, cli, "sch", "export", "netlist", "--format", "kicadxml", "-o", xmlPath, root)
			cmd.Env = append(os.Environ(), "HOME="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("kicad-cli: %v\n%s", err, out)
			}
			data, err := os.ReadFile(xmlPath)
			if err != nil {
				t.Fatal(err)
			}
			nl, err := kicad.ParseNetlistXML(data)
			if err != nil {
				t.Fatal(err)
			}

			p := Project{Name: d.dir, Schematic: sch, Netlist: nl, Config: config.DefaultConfig()}
			files := GenerateDocs(p)
			if r := Drift(files, p.Config, sch, nl); !r.Clean() || len(r.Warnings) > 0 {
				t.Fatalf("generated docs drift: %+v", r)
			}
			rows, err := ParseBOM(files["docs/BOM.md"])
			if err != nil {
				t.Fatal(err)
			}
			var bomRefs, netRefs []string
			for _, r := range rows {
				bomRefs = append(bomRefs, r.Refdes)
			}
			for _, c := range nl.Components {
				if !strings.HasPrefix(c.Refdes, "#") && !slices.Contains(netRefs, c.Refdes) {
					netRefs = append(netRefs, c.Refdes)
				}
			}
			slices.SortFunc(netRefs, kicad.CompareRefdes)
			if !slices.Equal(bomRefs, netRefs) {
				t.Errorf("BOM.md refs (%d) differ from the netlist's (%d):\n bom %v\n net %v", len(bomRefs), len(netRefs), bomRefs, netRefs)
			}
			pins, err := ParsePinout(files["docs/PINOUT.md"])
			if err != nil || len(pins) == 0 {
				t.Errorf("PINOUT.md: %d rows, %v", len(pins), err)
			}
			t.Logf("%d parts, %d IC pins, %d sheets", len(rows), len(pins), len(sch.Sheets))
		})
	}
}
