package editdocs

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/design"
	"copperhead/internal/kicad/schedit"
	"copperhead/internal/project"
)

// TestApplyWithoutKiCad: a field change lands through the caller's Write,
// sheets first, and BOM.md's row follows even without kicad-cli.
func TestApplyWithoutKiCad(t *testing.T) {
	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS("../../examples/open-telegraph")); err != nil {
		t.Fatal(err)
	}
	repo, _ = filepath.EvalSymlinks(repo)
	cfg, _, err := design.LoadConfig(repo)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := project.Locate(repo, "", cfg.Schematic, cfg.Board)
	if err != nil {
		t.Fatal(err)
	}
	d, err := schedit.Load(pr.Schematic)
	if err != nil {
		t.Fatal(err)
	}
	p, err := schedit.SetField(d, "R7", "Value", "4.7k", "")
	if err != nil {
		t.Fatal(err)
	}
	var written []string
	write := func(abs string, data []byte) error {
		written = append(written, RepoPath(repo, abs))
		return os.WriteFile(abs, data, 0o644)
	}
	changed, err := Apply(context.Background(), Input{Repo: repo, Config: cfg, Design: d, Plan: p, Write: write})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hardware/open-telegraph.kicad_sch", "docs/BOM.md"}
	if !slices.Equal(changed, want) || !slices.Equal(written, want) {
		t.Errorf("changed %v, written %v, want %v", changed, written, want)
	}
	bom, err := os.ReadFile(filepath.Join(repo, "docs", "BOM.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(bom), "| R7 | 4.7k |") {
		t.Error("BOM.md row for R7 not updated")
	}
}
