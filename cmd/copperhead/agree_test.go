package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// agreeProjects are the projects the agreement walk runs on: the bundled
// board, the hand-built edit fixtures, and every KiCad demo installed.
//
// Each maps to the project's folder and the root schematic within it ("" to
// let copperhead find it).
func agreeProjects(t *testing.T) map[string][2]string {
	t.Helper()
	out := map[string][2]string{"open-telegraph": {"../../examples/open-telegraph", ""}}
	fixtures, _ := filepath.Glob("../../internal/kicad/schedit/testdata/*/*.kicad_pro")
	more, _ := filepath.Glob("../../internal/kicad/testdata/*/*.kicad_pro")
	fixtures = append(fixtures, more...)
	out["fixture kicad6"] = [2]string{"../../internal/kicad/testdata/kicad6", "kicad6.kicad_sch"}
	for _, f := range fixtures {
		out["fixture "+filepath.Base(filepath.Dir(f))] = [2]string{filepath.Dir(f), strings.TrimSuffix(filepath.Base(f), ".kicad_pro") + ".kicad_sch"}
	}
	pros, _ := filepath.Glob(filepath.Join(demos, "*", "*.kicad_pro"))
	for _, p := range pros {
		dir := filepath.Dir(p)
		if _, err := os.Stat(strings.TrimSuffix(p, ".kicad_pro") + ".kicad_sch"); err != nil {
			continue
		}
		if filepath.Base(dir) == "vme-wren" && testing.Short() {
			continue
		}
		out["demo "+filepath.Base(dir)] = [2]string{dir, strings.TrimSuffix(filepath.Base(p), ".kicad_pro") + ".kicad_sch"}
	}
	return out
}

type agreeNets struct {
	Nets []struct {
		Name  string `json:"name"`
		Nodes []struct {
			Refdes string `json:"refdes"`
			Pin    string `json:"pin"`
		} `json:"nodes"`
	} `json:"nets"`
}

type agreeParts struct {
	Parts []struct {
		Refdes    string `json:"refdes"`
		Value     string `json:"value"`
		SheetPath string `json:"sheet_path"`
	} `json:"parts"`
}

// TestReadAndEditCommandsAgree walks every project and checks that the
// read commands (parts, nets, explain), the edit operations and firmware
// name the same references and nets: every net name nets prints is one
// explain and rename-net accept, every reference parts prints is one
// explain and set-field accept, every pin nets lists belongs to a part
// parts lists, and firmware's MCU is one of those parts.
func TestReadAndEditCommandsAgree(t *testing.T) {
	env := faultEnv(t)
	for name, src := range agreeProjects(t) {
		t.Run(name, func(t *testing.T) {
			repo := filepath.Join(t.TempDir(), "repo")
			if err := os.CopyFS(repo, os.DirFS(src[0])); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(repo, ".copperhead", "config.json")); err != nil && src[1] != "" {
				// Some demos hold two projects: name the one to walk.
				os.MkdirAll(filepath.Join(repo, ".copperhead"), 0o755)
				cfg, _ := json.Marshal(map[string]string{"schematic": src[1]})
				if err := os.WriteFile(filepath.Join(repo, ".copperhead", "config.json"), cfg, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			samples := 3
			if strings.HasSuffix(name, "vme-wren") {
				samples = 1 // 1500 parts: each KiCad export takes seconds
			}
			run := func(args ...string) (string, error) { return runCopperhead(env, repo, args...) }
			out, err := run("--json", "parts")
			if err != nil {
				t.Fatalf("parts: %v\n%s", err, out)
			}
			var parts agreeParts
			if err := json.Unmarshal([]byte(out), &parts); err != nil {
				t.Fatalf("parts --json: %v", err)
			}
			refs := map[string]bool{}
			for _, p := range parts.Parts {
				refs[p.Refdes] = true
			}
			out, err = run("--json", "nets")
			if err != nil {
				t.Fatalf("nets: %v\n%s", err, out)
			}
			var nets agreeNets
			if err := json.Unmarshal([]byte(out), &nets); err != nil {
				t.Fatalf("nets --json: %v", err)
			}
			var named []string
			for _, n := range nets.Nets {
				for _, nd := range n.Nodes {
					if !refs[nd.Refdes] {
						t.Errorf("nets puts %s.%s on %s, but parts has no %s", nd.Refdes, nd.Pin, n.Name, nd.Refdes)
					}
				}
				if !strings.HasPrefix(n.Name, "Net-(") && !strings.HasPrefix(n.Name, "unconnected-(") {
					named = append(named, n.Name)
				}
			}
			slices.Sort(named)
			for _, n := range sample(named, samples) {
				if out, err := run("--json", "explain", n); err != nil {
					t.Errorf("explain %s (a name nets prints): %v\n%s", n, err, out)
				}
				out, err := run("edit", "rename-net", n, agreeName(n), "--dry-run")
				if err != nil && (strings.Contains(out, "no net named") || strings.Contains(out, "disagrees") || !strings.Contains(out, "copperhead:")) {
					t.Errorf("rename-net %s (a name nets prints) --dry-run: %v\n%s", n, err, out)
				}
			}
			var plain []string
			for r := range refs {
				if !strings.HasSuffix(r, "?") {
					plain = append(plain, r)
				}
			}
			slices.SortFunc(plain, strings.Compare)
			for _, r := range sample(plain, samples) {
				if out, err := run("--json", "explain", r); err != nil {
					t.Errorf("explain %s (a reference parts prints): %v\n%s", r, err, out)
				}
				value := ""
				for _, p := range parts.Parts {
					if p.Refdes == r {
						value = p.Value
					}
				}
				out, err := run("edit", "set-field", r, "Value", value, "--dry-run")
				if err != nil && (strings.Contains(out, "no part") || strings.Contains(out, "disagrees") || !strings.Contains(out, "copperhead:")) {
					t.Errorf("set-field %s Value %q (as parts prints it) --dry-run: %v\n%s", r, value, err, out)
				}
				if err == nil && !strings.Contains(out, "already applied") {
					t.Errorf("set-field %s Value %q, the value parts prints, is not a no-op:\n%s", r, value, out)
				}
			}
			out, err = run("--json", "firmware", "--no-build", "--out", filepath.Join(t.TempDir(), "fw"))
			var fw struct {
				OK  bool `json:"ok"`
				MCU *struct {
					Refdes string `json:"refdes"`
				} `json:"mcu"`
			}
			if jerr := json.Unmarshal([]byte(out), &fw); err == nil && jerr == nil && fw.MCU != nil && !refs[fw.MCU.Refdes] {
				t.Errorf("firmware chose %s, which parts does not list", fw.MCU.Refdes)
			}
		})
	}
}

// sample picks up to n entries spread over list: first, last, middle.
func sample(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	out := []string{list[0], list[len(list)-1]}
	for i := 1; len(out) < n; i++ {
		out = append(out, list[i*len(list)/n])
	}
	return out
}

// agreeName is a new name for net n, in the same sheet scope.
func agreeName(n string) string {
	i := strings.LastIndexByte(n, '/')
	base := n[i+1:]
	base = strings.Trim(strings.NewReplacer("~{", "", "{", "", "}", "", "[", "", "]", "").Replace(base), "~")
	if base == "" {
		base = "N"
	}
	return base + "_AGREE"
}
