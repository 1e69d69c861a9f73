package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const kicadShare = "/usr/share/kicad"

var fixtureDir = filepath.Join("..", "..", "examples", "open-telegraph")

func needLibraries(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(kicadShare, "symbols", "RF_Module.kicad_sym")); err != nil {
		t.Skip("KiCad 9 libraries not installed under " + kicadShare)
	}
}

// TestFixtureUpToDate regenerates the project and requires the committed
// fixture to match byte for byte, so the generator and the fixture can never
// silently diverge.
func TestFixtureUpToDate(t *testing.T) {
	needLibraries(t)
	files, err := Files(kicadShare)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		got, err := os.ReadFile(filepath.Join(fixtureDir, filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("%s: %v (regenerate: go run ./tools/fixturegen -out examples/open-telegraph)", name, err)
			continue
		}
		if !bytes.Equal(got, data) {
			t.Errorf("examples/open-telegraph/%s is stale or hand-edited; edit tools/fixturegen and regenerate: go run ./tools/fixturegen -out examples/open-telegraph", name)
		}
	}
}

// kicadEnv returns a private environment for kicad-cli: a temp HOME and a
// config folder holding copies of the stock global library tables.
func kicadEnv(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, "kicad-config")
	if err := os.MkdirAll(filepath.Join(cfg, "9.0"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range []string{"sym-lib-table", "fp-lib-table"} {
		if data, err := os.ReadFile(filepath.Join(kicadShare, "template", tbl)); err == nil {
			if err := os.WriteFile(filepath.Join(cfg, "9.0", tbl), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"KICAD_CONFIG_HOME=" + cfg,
		"KICAD9_SYMBOL_DIR=" + filepath.Join(kicadShare, "symbols"),
		"KICAD9_FOOTPRINT_DIR=" + filepath.Join(kicadShare, "footprints"),
	}
}

func copyHardware(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join(fixtureDir, "hardware")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func runKicad(t *testing.T, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("kicad-cli", args...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kicad-cli %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestFixtureERCDRC requires zero ERC violations, zero DRC violations, zero
// unconnected items and zero schematic-parity issues at every severity.
func TestFixtureERCDRC(t *testing.T) {
	if _, err := exec.LookPath("kicad-cli"); err != nil {
		t.Skip("kicad-cli not installed")
	}
	if testing.Short() {
		t.Skip("slow: runs kicad-cli")
	}
	env := kicadEnv(t)
	dir := copyHardware(t)
	out := t.TempDir()

	ercPath := filepath.Join(out, "erc.json")
	runKicad(t, env, "sch", "erc", "--severity-all", "--format", "json", "-o", ercPath,
		filepath.Join(dir, project+".kicad_sch"))
	var erc struct {
		Sheets []struct {
			Path       string
			Violations []struct{ Type, Description string }
		}
	}
	readJSON(t, ercPath, &erc)
	if len(erc.Sheets) != 2 {
		t.Errorf("ERC saw %d sheets, want 2", len(erc.Sheets))
	}
	for _, s := range erc.Sheets {
		for _, v := range s.Violations {
			t.Errorf("ERC %s: %s: %s", s.Path, v.Type, v.Description)
		}
	}

	drcPath := filepath.Join(out, "drc.json")
	runKicad(t, env, "pcb", "drc", "--schematic-parity", "--severity-all", "--format", "json", "-o", drcPath,
		filepath.Join(dir, project+".kicad_pcb"))
	type item struct{ Type, Description string }
	var drc struct {
		Violations      []item `json:"violations"`
		Unconnected     []item `json:"unconnected_items"`
		SchematicParity []item `json:"schematic_parity"`
	}
	readJSON(t, drcPath, &drc)
	for _, group := range [][]item{drc.Violations, drc.Unconnected, drc.SchematicParity} {
		for _, v := range group {
			t.Errorf("DRC %s: %s", v.Type, v.Description)
		}
	}

	// The netlist export works and carries the nets later tests rely on.
	netPath := filepath.Join(out, "net.xml")
	runKicad(t, env, "sch", "export", "netlist", "--format", "kicadxml", "-o", netPath,
		filepath.Join(dir, project+".kicad_sch"))
	nets := readNetlist(t, netPath)
	want := map[string][]string{
		"KEY_DIT": {"C8.1", "J3.1", "R6.2", "U1.4"},
		"KEY_DAH": {"C9.1", "J3.2", "R7.2", "U1.5"},
		"USB_D+":  {"J1.A6", "J1.B6", "U1.14", "U2.1", "U2.6"},
	}
	for name, nodes := range want {
		if got := strings.Join(nets[name], " "); got != strings.Join(nodes, " ") {
			t.Errorf("net %s = %q, want %q", name, got, strings.Join(nodes, " "))
		}
	}
	// Strapping pins stay unconnected.
	for _, pad := range []string{"27", "15", "26", "16"} {
		for name, nodes := range nets {
			if strings.HasPrefix(name, "unconnected-") {
				continue
			}
			for _, n := range nodes {
				if n == "U1."+pad {
					t.Errorf("strapping pin U1.%s is on net %s", pad, name)
				}
			}
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func readNetlist(t *testing.T, path string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Nets []struct {
			Name  string `xml:"name,attr"`
			Nodes []struct {
				Ref string `xml:"ref,attr"`
				Pin string `xml:"pin,attr"`
			} `xml:"node"`
		} `xml:"nets>net"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, n := range doc.Nets {
		for _, node := range n.Nodes {
			out[n.Name] = append(out[n.Name], node.Ref+"."+node.Pin)
		}
	}
	return out
}
