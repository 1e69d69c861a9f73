package create

import (
	"context"
	"copperhead/internal/config"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestSectionHasEntries(t *testing.T) {
	cases := []struct {
		doc  string
		want bool
	}{
		{"## Budgets\n- unit_cost_usd: 2\n", true},
		{"## Budgets\n\n| Name | Value |\n| --- | --- |\n| area | 600 |\n", true},
		{"## Budgets\n\nNone yet.\n## Other\n- x\n", false},
		{"## Other\n- x\n", false},
		{"", false},
	}
	for _, c := range cases {
		if got := sectionHasEntries([]byte(c.doc), "Budgets"); got != c.want {
			t.Errorf("sectionHasEntries(%q) = %v, want %v", c.doc, got, c.want)
		}
	}
}

func TestPromptCarriesGuidance(t *testing.T) {
	st, _ := StageByName("schematic")
	p := Prompt(st, "The intent missed U1.EN.")
	if !strings.Contains(p, "draft_schematic") || !strings.Contains(p, "Diagnosis and guidance:\nThe intent missed U1.EN.") {
		t.Errorf("prompt:\n%s", p)
	}
	for _, s := range Stages {
		if s.Model && strings.TrimSpace(Prompt(s, "")) == s.Title {
			t.Errorf("stage %s has no prompt file", s.Name)
		}
	}
}

// fakeRunner plays a model: each stage run calls the stage's function,
// which writes what a model would.
type fakeRunner struct {
	turns  map[string]int
	repo   string
	do     map[string]func(repo string)
	calls  []string
	guided []string
}

func (f *fakeRunner) Stage(ctx context.Context, _ Input, st Stage, request string, maxTurns int) (StageRun, error) {
	f.calls = append(f.calls, st.Name)
	if f.turns == nil {
		f.turns = map[string]int{}
	}
	f.turns[st.Name] = maxTurns
	if i := strings.Index(request, "Diagnosis and guidance:"); i >= 0 {
		f.guided = append(f.guided, st.Name)
	}
	if fn := f.do[st.Name]; fn != nil {
		fn(f.repo)
	}
	return StageRun{RunID: "run-" + st.Name, OK: true, Exit: "done", Turns: 3}, nil
}

func (f *fakeRunner) Diagnose(ctx context.Context, _ Input, st Stage, problems []string, last StageRun) (string, StageRun, error) {
	f.calls = append(f.calls, "diagnose "+st.Name)
	return "write the missing section", StageRun{RunID: "diag", OK: true, Turns: 1}, nil
}

func write(t *testing.T, repo, rel, body string) {
	t.Helper()
	p := filepath.Join(repo, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Run with a fake model: stage 1 passes its gate, stage 2 fails it, gets
// a diagnosis, passes on the retry; stage 3 never does, so the pipeline
// stops there with a report naming the problem; a second Run resumes at 3.
func TestRunGatesRetriesAndResume(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := t.TempDir()
	if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	attempts := 0
	f := &fakeRunner{repo: repo, do: map[string]func(string){
		"spec-seed": func(repo string) {
			write(t, repo, "openspec/specs/power/spec.md", "### Requirement: Power\nThe board SHALL work.\n\n#### Scenario: On\n- WHEN on\n- THEN works\n")
			write(t, repo, "docs/SPEC.md", "# Spec\n\n## Budgets\n- unit_cost_usd: 2\n")
		},
		"architecture": func(repo string) {
			attempts++
			if attempts == 2 {
				write(t, repo, "docs/SUBSYSTEMS.md", "# S\n\n## Block diagram\n```\nA -> B\n```\n\n## Input\nx\n\n## Power\ny\n")
				write(t, repo, "docs/LAYOUT.md", "Board: 30 x 20 mm\n")
			}
		},
	}}
	cfg := config.DefaultConfig()
	cfg.StageMaxTurns = map[string]int{"architecture": 7} // AC-15.18
	in := Input{Env: Env{Repo: repo, Config: cfg}, stage: f.Stage, diagnose: f.Diagnose, MaxStageRetries: 1}
	rep, err := Run(context.Background(), in)
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("Run = %v, want ErrStopped", err)
	}
	if rep.StoppedAt != "part-selection" || rep.Complete {
		t.Errorf("stopped at %q (complete %v), want part-selection", rep.StoppedAt, rep.Complete)
	}
	want := "spec-seed architecture diagnose architecture architecture part-selection diagnose part-selection part-selection"
	if got := strings.Join(f.calls, " "); got != want {
		t.Errorf("calls:\n%s\nwant:\n%s", got, want)
	}
	if f.turns["architecture"] != 7 || f.turns["spec-seed"] != config.DefaultMaxTurns {
		t.Errorf("turn budgets %v: want architecture 7 (stageMaxTurns), the rest maxTurns", f.turns)
	}
	if strings.Join(f.guided, ",") != "architecture,part-selection" {
		t.Errorf("retries without the diagnosis: %v", f.guided)
	}
	statuses := []string{}
	for _, s := range rep.Stages {
		statuses = append(statuses, s.Status)
	}
	if got := strings.Join(statuses, ","); got != "done,done,failed,not reached,not reached,not reached,not reached,not reached" {
		t.Errorf("statuses %s", got)
	}
	md, err := os.ReadFile(filepath.Join(repo, ".copperhead", "runs", "REPORT.md"))
	if err != nil || !strings.Contains(string(md), "| part-selection | failed | 3 |") || !strings.Contains(string(md), "BOM.md has no parts table") {
		t.Errorf("REPORT.md (%v):\n%s", err, md)
	}

	// Resume: the gates of 1 and 2 pass from the files; 3 runs again.
	f.calls = nil
	in.MaxStageRetries = 0
	rep, _ = Run(context.Background(), in)
	if got := strings.Join(f.calls, " "); got != "part-selection" {
		t.Errorf("resume calls %q, want part-selection only", got)
	}
	if rep.Stages[0].Status != "already complete" || rep.Stages[1].Status != "already complete" {
		t.Errorf("resume statuses %s, %s", rep.Stages[0].Status, rep.Stages[1].Status)
	}
}

func TestRunWithoutModelStops(t *testing.T) {
	repo := t.TempDir()
	rep, err := Run(context.Background(), Input{Env: Env{Repo: repo, Config: config.DefaultConfig()}})
	if !errors.Is(err, ErrStopped) || rep.StoppedAt != "spec-seed" {
		t.Fatalf("Run without a model = %v at %q", err, rep.StoppedAt)
	}
	if p := rep.Stages[0].Problems; len(p) == 0 || !strings.Contains(p[0], "needs a model") {
		t.Errorf("problems %v", p)
	}
}

func TestPrepare(t *testing.T) {
	if _, err := exec.LookPath("openspec"); err != nil {
		t.Skip("openspec not installed")
	}
	repo := t.TempDir()
	ctx := context.Background()
	if _, err := Prepare(ctx, repo, nil, false); err == nil || !strings.Contains(err.Error(), "no brief") {
		t.Errorf("Prepare without a brief = %v", err)
	}
	if _, err := Prepare(ctx, repo, DemoBrief, false); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"docs/BRIEF.md", "openspec/config.yaml", ".copperhead/config.json", ".gitignore"} {
		if _, err := os.Stat(filepath.Join(repo, filepath.FromSlash(p))); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if gi, _ := os.ReadFile(filepath.Join(repo, ".gitignore")); !strings.Contains(string(gi), ".copperhead/runs/") {
		t.Errorf(".gitignore:\n%s", gi)
	}
	if _, err := Prepare(ctx, repo, DemoBrief, false); err != nil {
		t.Errorf("Prepare again with the same brief: %v", err)
	}
	if _, err := Prepare(ctx, repo, nil, false); err != nil {
		t.Errorf("Prepare to resume: %v", err)
	}
	if _, err := Prepare(ctx, repo, []byte("# other\n"), false); !errors.Is(err, ErrBriefDiffers) {
		t.Errorf("a different brief: %v", err)
	}
	if _, err := Prepare(ctx, repo, []byte("# other\n"), true); err != nil {
		t.Errorf("a different brief with force: %v", err)
	}
}

func TestPartSelectionGate(t *testing.T) {
	if _, err := os.Stat("/usr/share/kicad/footprints/Resistor_SMD.pretty"); err != nil && os.Getenv("KICAD9_FOOTPRINT_DIR") == "" {
		t.Skip("KiCad footprint libraries are not installed")
	}
	st, _ := StageByName("part-selection")
	head := "| Refdes | Value | Footprint | MPN | Rationale |\n| --- | --- | --- | --- | --- |\n"
	cases := []struct {
		name, rows string
		want       []string
	}{
		{"good", "| R1 | 10k | Resistor_SMD:R_0603_1608Metric | UNVERIFIED | pull-up for the button |\n", nil},
		{"todo rationale", "| R1 | 10k | Resistor_SMD:R_0603_1608Metric | UNVERIFIED | TODO: why this part |\n", []string{"R1 has no rationale"}},
		{"unknown footprint", "| R1 | 10k | Resistor_SMD:R_0603_1608Metrix | UNVERIFIED | pull-up |\n", []string{"footprint Resistor_SMD:R_0603_1608Metrix not found (closest: R_0603_1608Metric"}},
		{"no table", "", []string{"has no parts table"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo := t.TempDir()
			if c.rows != "" {
				write(t, repo, "docs/BOM.md", "# BOM\n\n"+head+c.rows)
			}
			problems, err := Gate(context.Background(), Env{Repo: repo, Config: config.DefaultConfig()}, st)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(problems, "\n")
			if len(c.want) == 0 && got != "" {
				t.Errorf("problems %q, want none", got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems %q lack %q", got, w)
				}
			}
		})
	}
}
