package main

import (
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/kicad"
)

// TestCircuitsFlow is issue #19's acceptance flow on each of the six test
// circuits (internal/draft/testdata/circuits), through the built binary as
// a new user runs it: draft schematic, init, draft layout, check (DRC runs
// on the drafted board and passes but for the listed unrouted nets), and
// outputs, whose pick-and-place file lists every part placed on the board.
func TestCircuitsFlow(t *testing.T) {
	if _, err := exec.LookPath("copperhead"); err != nil { // testscript.Main puts it on PATH
		t.Skip("copperhead command not on PATH")
	}
	env := faultEnv(t) // kicad-cli or skip; a private HOME, cache and KiCad config
	intents, err := filepath.Glob("../../internal/draft/testdata/circuits/*.json")
	if err != nil || len(intents) < 6 {
		t.Fatalf("the six test circuits: %v %v", intents, err)
	}
	for _, intent := range intents {
		name := strings.TrimSuffix(filepath.Base(intent), ".json")
		t.Run(name, func(t *testing.T) {
			repo := filepath.Join(t.TempDir(), name)
			if err := os.Mkdir(repo, 0o755); err != nil {
				t.Fatal(err)
			}
			abs, _ := filepath.Abs(intent)
			step := func(args ...string) string {
				t.Helper()
				out, err := runCopperhead(env, repo, args...)
				if err != nil {
					t.Fatalf("copperhead %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return out
			}
			step("draft", "schematic", "--intent", abs)
			step("init", "--no-hooks")
			layout := step("draft", "layout")
			if !regexp.MustCompile(`(?m)^gate: passed$`).MatchString(layout) {
				t.Fatalf("draft layout's gate did not pass:\n%s", layout)
			}
			check := step("check")
			if !regexp.MustCompile(`(?m)^DRC ✓`).MatchString(check) || strings.Contains(check, "skipped (no board)") {
				t.Fatalf("check did not run a passing DRC on the drafted board:\n%s", check)
			}
			step("outputs", "--no-step", "--no-render")

			boards, _ := filepath.Glob(filepath.Join(repo, "hardware", "*.kicad_pcb"))
			if len(boards) != 1 {
				t.Fatalf("boards %v, want the drafted one", boards)
			}
			b, err := kicad.LoadBoard(boards[0])
			if err != nil {
				t.Fatal(err)
			}
			var placed []string
			for _, fp := range b.Footprints {
				if !fp.BoardOnly && !fp.DNP {
					placed = append(placed, fp.Refdes)
				}
			}
			f, err := os.Open(filepath.Join(repo, "outputs", "cpl-jlcpcb.csv"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			if err != nil || len(rows) < 1 {
				t.Fatalf("cpl-jlcpcb.csv: %v", err)
			}
			var listed []string
			for _, r := range rows[1:] {
				listed = append(listed, r[0])
			}
			slices.Sort(placed)
			slices.Sort(listed)
			if !slices.Equal(placed, listed) {
				t.Errorf("the CPL lists %v, the board places %v", listed, placed)
			}
		})
	}
}
