package schedit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNetNamesWithSlash: KiCad's editor saves a "/" typed in a label as
// "{slash}", a hand-edited file may hold a bare "/", and kicad-cli 9's XML
// netlist reads both as "/" (the sheet path's separator too: "/P/T" is
// text "P/T" on the root). Renaming such a net by the name the read
// commands print, or by its bare text in either spelling, renames it, and
// the new name keeps the file's spelling. Before, copperhead looked for
// "{slash}" in the netlist and found no label ("KiCad made the name up
// from a pin"), or planned a name KiCad did not show.
func TestNetNamesWithSlash(t *testing.T) {
	for _, tc := range []struct {
		name       string
		spell      string // how the file writes P/T (root) and S/G (chan.kicad_sch, used three times)
		old, new   string
		want       string // the file's new label text
		wantInFile string // the sheet file holding it
	}{
		{"root, KiCad's spelling, printed name", "{slash}", "/P/T", "PTX", `(label "PTX"`, "nets.kicad_sch"},
		{"root, bare slash, printed name", "/", "/P/T", "PTX", `(label "PTX"`, "nets.kicad_sch"},
		{"root, bare text in KiCad's spelling", "{slash}", "P{slash}T", "PTX", `(label "PTX"`, "nets.kicad_sch"},
		{"root, new name with a slash", "{slash}", "P/T", "Q/R", `(label "Q{slash}R"`, "nets.kicad_sch"},
		{"reused sheet, bare text", "{slash}", "S/G", "SG", `(label "SG"`, "chan.kicad_sch"},
		{"reused sheet, bare slash, bare text", "/", "S/G", "S/G2", `(label "S/G2"`, "chan.kicad_sch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := netsFixture(t)
			dir := filepath.Dir(root)
			respell(t, filepath.Join(dir, "nets.kicad_sch"), `(label "PTT"`, `(label "P`+tc.spell+`T"`)
			respell(t, filepath.Join(dir, "chan.kicad_sch"), `(label "SIG"`, `(label "S`+tc.spell+`G"`)
			d := loadVerified(t, root)
			if names := netNames(d); !strings.Contains(names, " /P/T ") || !strings.Contains(names, " /A/S/G ") {
				t.Fatalf("kicad-cli does not name the nets /P/T and /A/S/G:%s", names)
			}
			p, err := RenameNet(d, tc.old, tc.new, false)
			if err != nil {
				t.Fatal(err)
			}
			applyVerified(t, d, p)
			src, _ := os.ReadFile(filepath.Join(dir, tc.wantInFile))
			if !strings.Contains(string(src), tc.want) {
				t.Fatalf("%s does not hold %s: %v", tc.wantInFile, tc.want, p.Summary)
			}
		})
	}
}

func respell(t *testing.T, path, old, new string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), old) {
		t.Fatalf("%s has no %s", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(src), old, new)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// netNames lists the netlist's net names, each with a space either side.
func netNames(d *Design) string {
	var b strings.Builder
	for _, n := range d.Netlist.Nets {
		b.WriteString(" " + n.Name + " ")
	}
	return b.String()
}
