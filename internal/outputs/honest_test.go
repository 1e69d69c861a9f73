package outputs

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/draft/layout"
	"copperhead/internal/kicadcli"
)

func TestDraftMarkerMatchesLayout(t *testing.T) {
	if draftMarker != layout.DraftMarker {
		t.Fatalf("outputs' draft marker %q, layout writes %q", draftMarker, layout.DraftMarker)
	}
	if !IsDraftBoard([]byte(`(title_block (comment 1 "` + layout.DraftMarker + `: placement"))`)) {
		t.Error("a board with the layout draft marker is not seen as a draft")
	}
	if IsDraftBoard([]byte(`(title_block (comment 1 "hand routed"))`)) {
		t.Error("a board without the marker is seen as a draft")
	}
}

func TestReleaseProblems(t *testing.T) {
	tests := []struct {
		name string
		m    Manifest
		want []string // substrings, one per problem
	}{
		{"clean", Manifest{DRC: &DRC{Ran: true, Clean: true, Warnings: 3}}, nil},
		{"errors", Manifest{DRC: &DRC{Ran: true, Errors: 2, Warnings: 52, Unconnected: 52}}, []string{"not DRC-clean (2 errors, 52 warnings; 52 unconnected items among them)"}},
		{"unconnected and parity among the errors", Manifest{DRC: &DRC{Ran: true, Errors: 3, Unconnected: 1, Parity: 2}},
			[]string{"not DRC-clean (3 errors; 1 unconnected item and 2 parity issues among them)"}},
		{"warnings alone", Manifest{DRC: &DRC{Ran: true, Warnings: 2, Unconnected: 2}}, []string{"not DRC-clean (2 warnings; 2 unconnected items among them)"}},
		{"draft", Manifest{DRC: &DRC{Ran: true, Clean: true}, Draft: true}, []string{"copperhead layout draft"}},
		{"no drc", Manifest{DRC: &DRC{Reason: "the project has no .kicad_pcb"}}, []string{"DRC did not run: the project has no .kicad_pcb"}},
		{"old manifest", Manifest{}, []string{"DRC did not run"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.m.ReleaseProblems()
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %d", got, len(tc.want))
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("problem %q lacks %q", got[i], tc.want[i])
				}
			}
		})
	}
}

func TestCPLCSV(t *testing.T) {
	pos := []byte(`Ref,Val,Package,PosX,PosY,Rot,Side
"C1","4.7uF","C_0805_2012Metric",121.000000,-104.000000,0.000000,top
"Q1","AO3401A","SOT-23",127.000000,-98.500000,90.000000,top
"U9","NE555","SOIC-8_3.9x4.9mm_P1.27mm",10.5,-3.25,180.000000,bottom
`)
	tests := []struct {
		fab   string
		want  string
		notes int
	}{
		{"jlcpcb", `Designator,Mid X,Mid Y,Layer,Rotation
C1,121.0000mm,-104.0000mm,Top,0
Q1,127.0000mm,-98.5000mm,Top,270
U9,10.5000mm,-3.2500mm,Bottom,90
`, 2},
		{"pcbway", `Designator,Footprint,Mid X,Mid Y,Layer,Rotation,Comment
C1,C_0805_2012Metric,121.0000mm,-104.0000mm,Top,0,4.7uF
Q1,SOT-23,127.0000mm,-98.5000mm,Top,90,AO3401A
U9,SOIC-8_3.9x4.9mm_P1.27mm,10.5000mm,-3.2500mm,Bottom,180,NE555
`, 0},
	}
	for _, tc := range tests {
		t.Run(tc.fab, func(t *testing.T) {
			got, notes, err := CPLCSV(tc.fab, pos)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("CPL:\n%s\nwant:\n%s", got, tc.want)
			}
			if len(notes) != tc.notes {
				t.Errorf("rotation notes %q, want %d", notes, tc.notes)
			}
		})
	}
	if _, _, err := CPLCSV("jlcpcb", []byte("Designator,X\n")); err == nil {
		t.Error("a position file with another header was accepted")
	}
}

// TestGenerateCPLFixture: one row per placed part of the fixture (its 29
// parts less one marked DNP and one excluded from position files), in
// JLCPCB's columns.
func TestGenerateCPLFixture(t *testing.T) {
	tool := kicadTool(t)
	repo, in := fixture(t)
	dir := filepath.Join(repo, DefaultDir)
	board, err := os.ReadFile(in.Board)
	if err != nil {
		t.Fatal(err)
	}
	// The board's first two (attr smd) are J1's and R1's.
	board = bytes.Replace(board, []byte("(attr smd)"), []byte("(attr smd dnp)"), 1)
	board = bytes.Replace(board, []byte("(attr smd)"), []byte("(attr smd exclude_from_pos_files)"), 1)
	if err := os.WriteFile(in.Board, board, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Generate(context.Background(), tool, in, dir, Options{SkipSTEP: true, SkipRender: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "cpl-jlcpcb.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "Designator,Mid X,Mid Y,Layer,Rotation" {
		t.Errorf("header %q", rows[0])
	}
	var refs []string
	for _, r := range rows[1:] {
		refs = append(refs, r[0])
	}
	if len(refs) != 27 || !slices.Contains(refs, "U1") || !slices.Contains(refs, "R10") || slices.Contains(refs, "J1") || slices.Contains(refs, "R1") {
		t.Errorf("CPL designators %v, want the fixture's 29 placed parts but J1 (DNP) and R1 (excluded from position files)", refs)
	}
	if d := res.Manifest.DRC; d == nil || !d.Ran || res.Manifest.Draft {
		t.Errorf("manifest drc %+v draft %v, want DRC run on a non-draft board", d, res.Manifest.Draft)
	}
}

// TestGenerateReleaseRefusesDraft: a drafted board is refused under
// Release before anything is written; the previous package stays.
func TestGenerateReleaseRefusesDraft(t *testing.T) {
	tool := kicadTool(t)
	repo, in := fixture(t)
	dir := filepath.Join(repo, DefaultDir)
	if err := os.MkdirAll(filepath.Join(dir, ".staging-123"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := []byte(`{"project": "old"}` + "\n")
	if err := os.WriteFile(filepath.Join(dir, ManifestName), old, 0o644); err != nil {
		t.Fatal(err)
	}
	board, err := os.ReadFile(in.Board)
	if err != nil {
		t.Fatal(err)
	}
	board = bytes.Replace(board, []byte("(title_block"), []byte(`(title_block (comment 1 "`+layout.DraftMarker+`: first draft")`), 1)
	if err := os.WriteFile(in.Board, board, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Generate(context.Background(), tool, in, dir, Options{SkipSTEP: true, SkipRender: true, Release: true})
	if !errors.Is(err, ErrNotReleasable) || res != nil || !strings.Contains(err.Error(), "copperhead layout draft") {
		t.Fatalf("Generate --release on a draft = %v, %v; want ErrNotReleasable naming the draft", res, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ManifestName)); !bytes.Equal(got, old) {
		t.Errorf("the previous manifest changed: %s", got)
	}
	// Without --release the package is written, flagged as a draft, and the
	// killed run's staging folder is gone.
	res, err = Generate(context.Background(), tool, in, dir, Options{SkipSTEP: true, SkipRender: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Manifest.Draft {
		t.Error("manifest draft = false for a drafted board")
	}
	if _, err := os.Stat(filepath.Join(dir, ".staging-123")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("staging leftover still there: %v", err)
	}
}

func TestSummarizeDRC(t *testing.T) {
	v := func(sev kicadcli.Severity) kicadcli.Violation { return kicadcli.Violation{Severity: sev} }
	rep := &kicadcli.Report{
		Violations:  []kicadcli.Violation{v(kicadcli.SeverityError), v(kicadcli.SeverityWarning)},
		Unconnected: []kicadcli.Violation{v(kicadcli.SeverityError), v(kicadcli.SeverityError)},
		Parity:      []kicadcli.Violation{v(kicadcli.SeverityWarning)},
	}
	got := summarizeDRC(rep)
	want := DRC{Ran: true, Errors: 3, Warnings: 2, Unconnected: 2, Parity: 1}
	if got != want {
		t.Errorf("summarizeDRC = %+v, want %+v", got, want)
	}
	if !summarizeDRC(&kicadcli.Report{Parity: []kicadcli.Violation{v(kicadcli.SeverityWarning)}}).Clean {
		t.Error("a board with parity warnings only is not clean")
	}
}

// TestGateNoBoard: a project without a board skips its board artifacts and
// fails the gate once, naming them; a skip by request never fails it.
func TestGateNoBoard(t *testing.T) {
	ok := func(name string) Artifact { return Artifact{Name: name, Status: StatusOK, Files: []string{name}} }
	skip := func(name, reason string) Artifact {
		return Artifact{Name: name, Status: StatusSkipped, Files: []string{}, Reason: reason}
	}
	tests := []struct {
		name      string
		artifacts []Artifact
		want      string // "" for a pass
	}{
		{"by request", []Artifact{ok(ArtifactGerbers), ok(ArtifactOutline), skip(ArtifactSTEP, "skipped by request (--no-step)"), ok(ArtifactSchematicSVG),
			ok(ArtifactBoardSVG), skip(ArtifactRender, "skipped by request (--no-render)"), ok(ArtifactBOM), ok(ArtifactCPL)}, ""},
		{"no board", []Artifact{skip(ArtifactGerbers, NoBoard), skip(ArtifactOutline, NoBoard), skip(ArtifactSTEP, "skipped by request (--no-step)"), ok(ArtifactSchematicSVG),
			skip(ArtifactBoardSVG, NoBoard), skip(ArtifactRender, NoBoard), ok(ArtifactBOM), skip(ArtifactCPL, NoBoard)},
			"the project has no board (.kicad_pcb): skipped gerbers, outline_dxf, board_svg, render_png, cpl_csv"},
		{"no board and a failure", []Artifact{skip(ArtifactGerbers, NoBoard), skip(ArtifactOutline, NoBoard), skip(ArtifactSTEP, NoBoard),
			{Name: ArtifactSchematicSVG, Status: StatusFailed, Files: []string{}, Reason: "kicad-cli said no"},
			skip(ArtifactBoardSVG, NoBoard), skip(ArtifactRender, NoBoard), ok(ArtifactBOM), skip(ArtifactCPL, NoBoard)},
			"the project has no board (.kicad_pcb): skipped gerbers, outline_dxf, step, board_svg, render_png, cpl_csv; schematic_svg failed: kicad-cli said no"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Manifest{Artifacts: tc.artifacts}.Gate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Gate = %q, want %q", got, tc.want)
			}
		})
	}
}
