package schedit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/repofs"
)

// TestLoadWithin: a sheet file outside the repository is refused when the
// design is opened for editing, so no plan can touch it; the same design
// opens with Load (no boundary), and with LoadWithin once the file is inside.
func TestLoadWithin(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	for _, d := range []string{repo, dir + "/victim"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	power := []byte(`(kicad_sch (uuid "p") (symbol (lib_id "Device:R") (uuid "r1") (property "Reference" "R1") (property "Value" "10k")))`)
	if err := os.WriteFile(dir+"/victim/power.kicad_sch", power, 0o644); err != nil {
		t.Fatal(err)
	}
	root := repo + "/top.kicad_sch"
	top := func(file string) {
		text := `(kicad_sch (uuid "t") (sheet (at 0 0) (uuid "s") (property "Sheetname" "Power") (property "Sheetfile" "` + file + `")))`
		if err := os.WriteFile(root, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	top("../victim/power.kicad_sch")
	_, err := LoadWithin(root, repo)
	if want := `sheet "Power" uses ../victim/power.kicad_sch, which is outside the repository`; err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, repofs.ErrOutside) {
		t.Fatalf("LoadWithin: %v, want %q", err, want)
	}
	if _, err := Load(root); err != nil {
		t.Fatalf("Load: %v", err)
	}
	if err := os.WriteFile(repo+"/power.kicad_sch", power, 0o644); err != nil {
		t.Fatal(err)
	}
	top("power.kicad_sch")
	d, err := LoadWithin(root, repo)
	if err != nil || len(d.Sheets) != 2 || d.Boundary != repo {
		t.Fatalf("LoadWithin inside: %v, %d sheets, boundary %q", err, len(d.Sheets), d.Boundary)
	}
}
