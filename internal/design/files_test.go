package design

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/config"
)

// apply writes a plan's files over onDisk, as the CLI would.
func apply(onDisk Files, plan InitPlan) Files {
	out := Files{}
	for p, d := range onDisk {
		out[p] = d
	}
	for p, d := range plan.Writes {
		out[p] = d
	}
	return out
}

func sortedKeys(f Files) []string {
	var keys []string
	for k := range f {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestPlanInitFresh(t *testing.T) {
	plan := PlanInit(keyerProject(), Files{})
	want := []string{".copperhead/README.md", ".copperhead/config.json", "docs/BOM.md", "docs/CHANGELOG.md", "docs/DECISIONS.md",
		"docs/LAYOUT.md", "docs/PINOUT.md", "docs/SPEC.md", "docs/SUBSYSTEMS.md"}
	if got := sortedKeys(plan.Writes); !slices.Equal(got, want) {
		t.Errorf("writes = %v\nwant %v", got, want)
	}
	if len(plan.HandEdited)+len(plan.Kept)+len(plan.Unchanged) != 0 {
		t.Errorf("fresh repo: %+v", plan)
	}
	if len(plan.Config.Generated) != len(GeneratedDocs) {
		t.Errorf("generated = %v", plan.Config.Generated)
	}
	for _, name := range GeneratedDocs {
		p := "docs/" + name
		if plan.Config.Generated[p] != docHash(name, plan.Writes[p]) {
			t.Errorf("%s: recorded hash is not the written content's", p)
		}
	}
	cfg, err := config.ParseConfig(plan.Writes[config.ConfigPath], config.ConfigPath)
	if err != nil || !reflect.DeepEqual(cfg.Generated, plan.Config.Generated) {
		t.Errorf("written config.json: %+v, %v", cfg, err)
	}
}

func TestPlanInitRerunIsNoop(t *testing.T) {
	p := keyerProject()
	disk := apply(Files{}, PlanInit(p, Files{}))
	p.Config, _ = config.ParseConfig(disk[config.ConfigPath], config.ConfigPath)
	plan := PlanInit(p, disk)
	if len(plan.Writes) != 0 || len(plan.HandEdited) != 0 {
		t.Errorf("re-run writes %v, hand-edited %v", sortedKeys(plan.Writes), plan.HandEdited)
	}
	if want := []string{"docs/CHANGELOG.md", "docs/DECISIONS.md"}; !slices.Equal(plan.Kept, want) {
		t.Errorf("kept = %v", plan.Kept)
	}
	if len(plan.Unchanged) != 7 {
		t.Errorf("unchanged = %v", plan.Unchanged)
	}
}

func TestPlanInitHandEdits(t *testing.T) {
	p := keyerProject()
	disk := apply(Files{}, PlanInit(p, Files{}))
	p.Config, _ = config.ParseConfig(disk[config.ConfigPath], config.ConfigPath)

	edited := apply(disk, InitPlan{Writes: Files{
		// A real edit: a rationale written.
		"docs/BOM.md": []byte(strings.Replace(string(disk["docs/BOM.md"]), "| R1 | 10k | Resistor_SMD:R_0603_1608Metric | UNVERIFIED | TODO: why this part |",
			"| R1 | 10k | Resistor_SMD:R_0603_1608Metric | UNVERIFIED | KEY_DIT pull-up |", 1)),
		// Only reformatted: not an edit.
		"docs/PINOUT.md": []byte(strings.ReplaceAll(string(disk["docs/PINOUT.md"]), " | ", "   |   ")),
		// History: never rewritten.
		"docs/DECISIONS.md": append(disk["docs/DECISIONS.md"], "\n## 2025-01-01 · run-1 · R1 is 10k\n"...),
	}})
	// The schematic changed too: R2 is now 220k, so BOM and SUBSYSTEMS change.
	p.Schematic.Parts[6].Value = "220k"
	plan := PlanInit(p, edited)
	if !slices.Equal(plan.HandEdited, []string{"docs/BOM.md"}) {
		t.Errorf("hand-edited = %v, want [docs/BOM.md]", plan.HandEdited)
	}
	if _, ok := plan.Writes["docs/BOM.md"]; !ok {
		t.Error("--force must be able to overwrite BOM.md: want it in Writes")
	}
	if _, ok := plan.Writes["docs/PINOUT.md"]; ok {
		t.Error("reformatted PINOUT.md says the same thing: want it left alone")
	}
	if _, ok := plan.Writes["docs/SUBSYSTEMS.md"]; !ok {
		t.Error("untouched SUBSYSTEMS.md must be regenerated for the new value")
	}
	if _, ok := plan.Writes["docs/DECISIONS.md"]; ok || !slices.Contains(plan.Kept, "docs/DECISIONS.md") {
		t.Error("DECISIONS.md is append-only")
	}

	if got := HandEdited(edited, p.Config); !slices.Equal(got, []string{"docs/BOM.md"}) {
		t.Errorf("HandEdited = %v", got)
	}
}

func TestHandEdited(t *testing.T) {
	p := keyerProject()
	docs := GenerateDocs(p)
	tests := []struct {
		name      string
		generated map[string]string
		onDisk    Files
		want      []string
	}{
		{"no docs", nil, Files{}, nil},
		{"doc predates init", nil, Files{"docs/SPEC.md": docs["docs/SPEC.md"]}, []string{"docs/SPEC.md"}},
		{"unchanged", map[string]string{"docs/SPEC.md": ContentHash(docs["docs/SPEC.md"])}, Files{"docs/SPEC.md": docs["docs/SPEC.md"]}, nil},
		{"edited", map[string]string{"docs/SPEC.md": ContentHash(docs["docs/SPEC.md"])}, Files{"docs/SPEC.md": []byte("# mine\n")}, []string{"docs/SPEC.md"}},
		{"append-only docs never count", nil, Files{"docs/DECISIONS.md": []byte("x"), "docs/CHANGELOG.md": []byte("y")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := p.Config
			cfg.Generated = tt.generated
			if got := HandEdited(tt.onDisk, cfg); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.DefaultConfig()
	files, err := ReadFiles(dir, cfg)
	if err != nil || len(files) != 0 {
		t.Fatalf("empty repo: %v, %v", files, err)
	}
	write("docs/BOM.md", "bom")
	write("docs/notes.txt", "not markdown")
	write("docs/sub/X.md", "nested")
	write(".copperhead/config.json", "{}")
	write(".copperhead/constraints.json", "{}")
	files, err = ReadFiles(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sortedKeys(files), []string{".copperhead/config.json", ".copperhead/constraints.json", "docs/BOM.md"}; !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	reg, err := LoadConstraints(dir)
	if err != nil || len(reg) != 0 {
		t.Errorf("LoadConstraints = %v, %v", reg, err)
	}
	if reg, err := LoadConstraints(t.TempDir()); err != nil || reg == nil {
		t.Errorf("missing constraints.json = %v, %v; want empty registry", reg, err)
	}
}

// TestPlanInitKeepsDraftQuality: the layout engine rewrites LAYOUT.md's
// ## Draft quality section after init; that is not a hand edit, init keeps
// the section when it regenerates the doc, and an edit elsewhere in
// LAYOUT.md still is one.
func TestPlanInitKeepsDraftQuality(t *testing.T) {
	p := keyerProject()
	p.Config.Board = "" // init ran before the board was drafted
	disk := apply(Files{}, PlanInit(p, Files{}))
	p.Config, _ = config.ParseConfig(disk[config.ConfigPath], config.ConfigPath)
	const lp = "docs/LAYOUT.md"
	if p.Config.Generated[lp] != ContentHash(disk[lp]) {
		t.Error("the hash of a LAYOUT.md init just wrote must be its ContentHash, as configs written before recorded it")
	}
	layout := string(disk[lp])
	i := strings.Index(layout, "## "+DraftQualityHeading)
	if i < 0 {
		t.Fatalf("LAYOUT.md has no Draft quality section:\n%s", layout)
	}
	assessed := "## " + DraftQualityHeading + "\n\n- DRC: no violations other than 3 unconnected items.\n- Route the 3 unrouted nets: A, B, C.\n"
	drafted := apply(disk, InitPlan{Writes: Files{lp: []byte(layout[:i] + assessed)}})

	plan := PlanInit(p, drafted)
	if len(plan.HandEdited) != 0 {
		t.Errorf("hand-edited = %v after the engine rewrote Draft quality", plan.HandEdited)
	}
	if _, ok := plan.Writes[lp]; ok || !slices.Contains(plan.Unchanged, lp) {
		t.Errorf("LAYOUT.md: want it left unchanged, writes %v", sortedKeys(plan.Writes))
	}
	if got := HandEdited(drafted, p.Config); len(got) != 0 {
		t.Errorf("HandEdited = %v", got)
	}

	// The board recorded since: LAYOUT.md regenerates, the assessment stays.
	p.Config.Board = "hardware/keyer.kicad_pcb"
	plan = PlanInit(p, drafted)
	next, ok := plan.Writes[lp]
	switch {
	case len(plan.HandEdited) != 0:
		t.Errorf("hand-edited = %v", plan.HandEdited)
	case !ok:
		t.Error("LAYOUT.md names the board now: want it rewritten")
	case !strings.Contains(string(next), assessed) || strings.Contains(string(next), DraftQualityPlaceholder):
		t.Errorf("the Draft quality assessment was lost:\n%s", next)
	case !strings.Contains(string(next), "`hardware/keyer.kicad_pcb`"):
		t.Errorf("the board is not named:\n%s", next)
	}
	p2 := p
	p2.Config = plan.Config
	if again := PlanInit(p2, apply(drafted, plan)); len(again.Writes) != 0 || len(again.HandEdited) != 0 {
		t.Errorf("a re-run after that writes %v, hand-edited %v", sortedKeys(again.Writes), again.HandEdited)
	}

	// An edit outside the section is still a hand edit.
	p.Config.Board = ""
	edited := apply(drafted, InitPlan{Writes: Files{lp: []byte(strings.Replace(layout[:i], "Connectors on the board edges.", "Connectors on the left edge.", 1) + assessed)}})
	if plan := PlanInit(p, edited); !slices.Equal(plan.HandEdited, []string{lp}) {
		t.Errorf("hand-edited = %v, want [%s]", plan.HandEdited, lp)
	}
}
