package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// multilineText is a PCB text over three lines, as KiCad writes one
// ("DIO\n\nCLK"), too small for the fixture's silkscreen rules: kicad-cli 9
// reports text_height and text_thickness with the text, newlines included,
// in the item's description.
const multilineText = "\t(gr_text \"DIO\\n\\nCLK\"\n\t\t(at 110 100 0)\n\t\t(layer \"F.SilkS\")\n\t\t(uuid \"0b9d5f0e-1111-4222-8333-444455556666\")\n\t\t(effects\n\t\t\t(font\n\t\t\t\t(size 0.3 0.3)\n\t\t\t\t(thickness 0.05)\n\t\t\t)\n\t\t)\n\t)\n"

// TestCheckFoldsMultilineText: every violation check prints is one line,
// with KiCad's newlines shown as \n; --json keeps KiCad's text.
func TestCheckFoldsMultilineText(t *testing.T) {
	if _, err := exec.LookPath("kicad-cli"); err != nil {
		t.Skip("kicad-cli not installed")
	}
	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS("../../examples/open-telegraph")); err != nil {
		t.Fatal(err)
	}
	pcb := filepath.Join(repo, "hardware", "open-telegraph.kicad_pcb")
	src, err := os.ReadFile(pcb)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimRight(string(src), "\n")
	s = strings.TrimSuffix(s, ")") + multilineText + ")\n"
	if err := os.WriteFile(pcb, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, errOut := runCLI(t, "--repo", repo, "check")
	var seen int
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.Contains(l, "text_height") || strings.Contains(l, "text_thickness") {
			seen++
			if !strings.Contains(l, `[PCB text 'DIO\n\nCLK' on F.Silkscreen]`) {
				t.Errorf("violation not on one line: %q", l)
			}
		}
		if strings.HasPrefix(l, "CLK") || l == "" {
			t.Errorf("a line broken by KiCad's text: %q", l)
		}
	}
	if seen != 2 {
		t.Fatalf("want the text_height and text_thickness warnings, got:\n%s%s", out, errOut)
	}
	_, out, _ = runCLI(t, "--repo", repo, "check", "--json")
	if !strings.Contains(out, `PCB text 'DIO\n\nCLK' on F.Silkscreen`) || strings.Contains(out, `DIO\\n`) {
		t.Errorf("--json should keep KiCad's text (a JSON-escaped newline):\n%s", out)
	}
}
