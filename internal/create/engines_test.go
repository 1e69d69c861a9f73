package create

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/design"
	"copperhead/internal/draft"
	"copperhead/internal/draft/layout"
	"copperhead/internal/firmware"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/outputs"
)

// TestEnginesOnIntents runs the model-free half of the pipeline on three
// designs drawn from intents (an LDO board, an ATmega32U4 board with USB
// and a crystal, a multi-unit op-amp board): the schematic engine, the
// layout draft (its gate: DRC clean but for unconnected items), the fab
// outputs, and for the AVR board a firmware scaffold compiled by avr-gcc.
func TestEnginesOnIntents(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kicad-cli")
	}
	ctx := context.Background()
	tool, err := kicadcli.Find(ctx)
	if err != nil {
		t.Skipf("kicad-cli: %v", err)
	}
	tool.NoCache = true
	for _, name := range []string{"ldo", "mcu_usb", "opamp"} {
		t.Run(name, func(t *testing.T) {
			in, err := draft.ReadIntent(filepath.Join("..", "draft", "testdata", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			repo := t.TempDir()
			hw := filepath.Join(repo, "hardware")
			w, err := draft.WriteSchematic(in, name+".json", hw, false, draft.Options{})
			if err != nil {
				t.Fatal(err)
			}
			erc, err := tool.ERC(ctx, w.Path)
			if err != nil || len(erc.Violations) > 0 {
				t.Fatalf("ERC: %v %v", err, erc)
			}
			board := strings.TrimSuffix(w.Path, ".kicad_sch") + ".kicad_pcb"
			layoutDoc := filepath.Join(repo, "docs", "LAYOUT.md")
			rep, err := layout.Draft(ctx, tool, layout.Options{Schematic: w.Path, Board: board, LayoutDoc: layoutDoc, MarkDraft: true})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() {
				t.Fatalf("layout gate: %v", rep.Gate)
			}
			if gp, err := layout.Gate(ctx, tool, board, layoutDoc); err != nil || len(gp) > 0 {
				t.Fatalf("layout gate from the files: %v %v", gp, err)
			}
			res, err := outputs.Generate(ctx, tool, outputs.Input{Name: in.Project, Schematic: w.Path, Board: board},
				filepath.Join(repo, "outputs"), outputs.Options{SkipSTEP: true, SkipRender: true})
			if err != nil {
				t.Fatalf("outputs: %v", err)
			}
			if _, err := outputs.Verify(filepath.Join(repo, "outputs")); err != nil {
				t.Fatalf("outputs verify: %v (%d files)", err, len(res.Manifest.Files))
			}
			if name != "mcu_usb" {
				return
			}
			if _, err := exec.LookPath("avr-gcc"); err != nil {
				t.Skip("avr-gcc not installed: the AVR scaffold is not compiled here")
			}
			nl, err := tool.Netlist(ctx, w.Path)
			if err != nil {
				t.Fatal(err)
			}
			pinout := design.GeneratePinout(in.Project, nl)
			sch, err := kicad.LoadSchematic(w.Path)
			if err != nil {
				t.Fatal(err)
			}
			mcu, err := firmware.DetectMCU(design.Parts(sch), sch.Pins(), "")
			if err != nil {
				t.Fatal(err)
			}
			fw, err := firmware.Generate(ctx, mcu, pinout, firmware.Options{Repo: repo, Pinout: "docs/PINOUT.md", Project: in.Project})
			if err != nil {
				t.Fatal(err)
			}
			if err := fw.Build.Gate(); err != nil {
				t.Fatalf("avr-gcc build: %v", err)
			}
			if !strings.Contains(fw.Build.Line(), "avr-gcc") {
				t.Errorf("build line %q does not name avr-gcc", fw.Build.Line())
			}
			if _, err := os.Stat(filepath.Join(repo, "firmware", "build", "firmware.hex")); err != nil {
				t.Errorf("no firmware.hex: %v", err)
			}
		})
	}
}
