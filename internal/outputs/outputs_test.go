package outputs

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/testkit"
)

var realTool testkit.Shared[*kicadcli.Tool]

func kicadTool(t *testing.T) *kicadcli.Tool {
	t.Helper()
	testkit.NeedKiCadCLI(t)
	found, err := realTool.Get(func() (*kicadcli.Tool, error) { return kicadcli.Find(context.Background()) })
	if err != nil {
		t.Fatal(err)
	}
	tool := *found
	tool.CacheDir = t.TempDir()
	return &tool
}

// fixture copies the open-telegraph example into a temporary folder.
func fixture(t *testing.T) (repo string, in Input) {
	t.Helper()
	repo = filepath.Join(t.TempDir(), "open-telegraph")
	if err := os.CopyFS(repo, os.DirFS("../../examples/open-telegraph")); err != nil {
		t.Fatal(err)
	}
	hw := filepath.Join(repo, "hardware")
	return repo, Input{
		Name:      "open-telegraph",
		Schematic: filepath.Join(hw, "open-telegraph.kicad_sch"),
		Board:     filepath.Join(hw, "open-telegraph.kicad_pcb"),
		BOMDoc:    filepath.Join(repo, "docs", "BOM.md"),
	}
}

func TestGenerateFixture(t *testing.T) {
	tool := kicadTool(t)
	tests := []struct {
		name        string
		opts        Options
		zip         string
		wantEntries []string // gerber and drill suffixes after "open-telegraph-"
		skipped     []string
		bom         string
	}{
		{
			name: "jlcpcb",
			opts: Options{Fab: "jlcpcb"},
			zip:  "gerbers-jlcpcb.zip",
			wantEntries: []string{"B_Cu.gbl", "B_Mask.gbs", "B_Paste.gbp", "B_Silkscreen.gbo", "Edge_Cuts.gm1",
				"F_Cu.gtl", "F_Mask.gts", "F_Paste.gtp", "F_Silkscreen.gto",
				"NPTH-drl_map.gbr", "NPTH.drl", "PTH-drl_map.gbr", "PTH.drl"},
			bom: "bom-jlcpcb.csv",
		},
		{
			// STEP and the render are the slow artifacts: skipping them here
			// also proves a skip is recorded and passes the gate.
			name: "pcbway without STEP and render",
			opts: Options{Fab: "pcbway", SkipSTEP: true, SkipRender: true},
			zip:  "gerbers-pcbway.zip",
			wantEntries: []string{"B_Cu.gbl", "B_Mask.gbs", "B_Paste.gbp", "B_Silkscreen.gbo", "Edge_Cuts.gm1",
				"F_Cu.gtl", "F_Mask.gts", "F_Paste.gtp", "F_Silkscreen.gto", "open-telegraph.drl"},
			skipped: []string{ArtifactSTEP, ArtifactRender},
			bom:     "bom-digikey.csv",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo, in := fixture(t)
			dir := filepath.Join(repo, DefaultDir)
			res, err := Generate(context.Background(), tool, in, dir, tc.opts)
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			m := res.Manifest
			if m.KiCadCLIVersion == "" || m.KiCadCLIVersion != tool.Version() {
				t.Errorf("manifest kicad-cli version %q, want %q", m.KiCadCLIVersion, tool.Version())
			}
			for _, a := range m.Artifacts {
				want := StatusOK
				if slices.Contains(tc.skipped, a.Name) {
					want = StatusSkipped
				}
				if a.Status != want {
					t.Errorf("artifact %s: status %s (%s), want %s", a.Name, a.Status, a.Reason, want)
				}
			}

			// The zip holds exactly the profile's layers and drill files.
			zr, err := zip.OpenReader(filepath.Join(dir, tc.zip))
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			var entries []string
			for _, f := range zr.File {
				name := strings.TrimPrefix(f.Name, "open-telegraph-")
				entries = append(entries, name)
				if f.UncompressedSize64 == 0 {
					t.Errorf("zip entry %s is empty", f.Name)
				}
			}
			slices.Sort(entries)
			want := slices.Clone(tc.wantEntries)
			slices.Sort(want)
			if !slices.Equal(entries, want) {
				t.Errorf("zip entries:\n got %v\nwant %v", entries, want)
			}

			// Every manifest file is on disk, non-empty, with the recorded hash.
			for _, f := range m.Files {
				data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(data)
				if len(data) == 0 || int64(len(data)) != f.Bytes || hex.EncodeToString(sum[:]) != f.SHA256 {
					t.Errorf("%s: %d bytes sha256 %x; manifest says %d bytes %s", f.Path, len(data), sum, f.Bytes, f.SHA256)
				}
			}
			paths := func() []string {
				var p []string
				for _, f := range m.Files {
					p = append(p, f.Path)
				}
				return p
			}()
			for _, must := range []string{tc.zip, "board-outline.dxf", "board.svg", "schematic/open-telegraph.svg", "schematic/open-telegraph-power.svg", tc.bom} {
				if !slices.Contains(paths, must) {
					t.Errorf("manifest files %v lack %s", paths, must)
				}
			}
			if _, err := Verify(dir); err != nil {
				t.Errorf("Verify after Generate: %v", err)
			}
			// The gate reads the bytes on disk, not the run's claim.
			if err := os.WriteFile(filepath.Join(dir, "board.svg"), []byte("<svg/>"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Verify(dir); err == nil || !strings.Contains(err.Error(), "board.svg: sha256") {
				t.Errorf("Verify after tampering with board.svg = %v, want a hash mismatch", err)
			}
		})
	}
}

func TestGenerateStepReportsMissingModels(t *testing.T) {
	// The jlcpcb case above exports the STEP; this checks what it says about
	// a machine without KiCad's 3D model package (as here and in CI).
	if _, err := os.Stat("/usr/share/kicad/3dmodels"); err == nil {
		t.Skip("KiCad 3D models are installed: nothing is missing")
	}
	tool := kicadTool(t)
	_, in := fixture(t)
	res, err := tool.ExportSTEP(context.Background(), in.Board, filepath.Join(t.TempDir(), "b.step"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.MissingModels, "U1") || !slices.Contains(res.MissingModels, "R10") {
		t.Errorf("missing models %v, want U1 and R10 among them", res.MissingModels)
	}
}

func TestGenerateGateFailsWithoutBoard(t *testing.T) {
	tool := kicadTool(t)
	repo, in := fixture(t)
	in.Board = ""
	res, err := Generate(context.Background(), tool, in, filepath.Join(repo, DefaultDir), Options{SkipSTEP: true, SkipRender: true})
	// One problem for the missing board, naming what it skipped (--no-step
	// and --no-render were skipped by request, not for the board).
	if want := "the project has no board (.kicad_pcb): skipped gerbers, outline_dxf, board_svg, cpl_csv"; err == nil || err.Error() != want {
		t.Fatalf("Generate without a board = %v, want %q", err, want)
	}
	if res == nil {
		t.Fatal("no result: the manifest must still record what was skipped")
	}
	for _, a := range res.Manifest.Artifacts {
		switch a.Name {
		case ArtifactSchematicSVG, ArtifactBOM:
			if a.Status != StatusOK {
				t.Errorf("%s: %s (%s), want ok: it needs no board", a.Name, a.Status, a.Reason)
			}
		case ArtifactSTEP, ArtifactRender:
			if a.Status != StatusSkipped || !strings.Contains(a.Reason, "by request") {
				t.Errorf("%s: %s (%s), want skipped by request", a.Name, a.Status, a.Reason)
			}
		default:
			if a.Status != StatusSkipped || a.Reason != NoBoard {
				t.Errorf("%s: %s (%s), want skipped: %s", a.Name, a.Status, a.Reason, NoBoard)
			}
		}
	}
	if _, err := Verify(res.Dir); err == nil {
		t.Error("Verify passed a package whose board artifacts failed")
	}
}

func TestOrderLinesFixture(t *testing.T) {
	_, in := fixture(t)
	sch, err := kicad.LoadSchematic(in.Schematic)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(in.BOMDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range SupplierNames() {
		t.Run(name, func(t *testing.T) {
			sup, _ := LookupSupplier(name)
			lines, err := OrderLines(sch, doc, sup)
			if err != nil {
				t.Fatal(err)
			}
			groups := map[[2]string]int{}
			bought := 0
			for _, p := range design.Parts(sch) {
				if !p.DNP && p.InBOM {
					groups[[2]string{p.Value, p.Footprint}]++
					bought++
				}
			}
			if len(lines) != len(groups) {
				t.Errorf("%d lines, want %d (one per value+footprint)", len(lines), len(groups))
			}
			// Read the CSV back: the file, not the struct, is what a buyer uploads.
			recs, err := csv.NewReader(strings.NewReader(string(BOMCSV(lines, sup)))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(recs[0], BOMColumns) || len(recs) != len(groups)+1 {
				t.Fatalf("CSV header %v and %d rows, want %v and %d", recs[0], len(recs)-1, BOMColumns, len(groups))
			}
			total := 0
			for _, r := range recs[1:] {
				qty, err := strconv.Atoi(r[1])
				if err != nil {
					t.Fatal(err)
				}
				refs := strings.Split(r[0], ",")
				if len(refs) != qty || groups[[2]string{r[2], r[3]}] != qty {
					t.Errorf("row %v: qty %d, %d refs, schematic has %d parts of that value+footprint", r, qty, len(refs), groups[[2]string{r[2], r[3]}])
				}
				if !strings.HasPrefix(r[8], sup.search) {
					t.Errorf("row %v: link is not a %s search", r, name)
				}
				total += qty
			}
			if total != bought {
				t.Errorf("quantities sum to %d, schematic has %d parts to buy", total, bought)
			}
		})
	}
}

func TestOrderLines(t *testing.T) {
	part := func(ref, value, fp, mpn string, fields map[string]string) kicad.Part {
		return kicad.Part{Refdes: ref, Value: value, Footprint: fp, MPN: mpn, InBOM: true, OnBoard: true, Fields: fields}
	}
	r0603 := "Resistor_SMD:R_0603_1608Metric"
	tests := []struct {
		name     string
		parts    []kicad.Part
		doc      string
		supplier string
		want     []OrderLine
	}{
		{
			name:     "grouped by value and footprint, natural refdes order, search by value and size",
			parts:    []kicad.Part{part("R10", "10k", r0603, "", nil), part("R2", "10k", r0603, "", nil), part("R3", "1k", r0603, "", nil)},
			supplier: "digikey",
			want: []OrderLine{
				{Refdes: []string{"R2", "R10"}, Qty: 2, Value: "10k", Footprint: r0603, Link: "https://www.digikey.com/en/products/result?keywords=10k+0603", Notes: "MPN unverified: choose and verify a part before ordering"},
				{Refdes: []string{"R3"}, Qty: 1, Value: "1k", Footprint: r0603, Link: "https://www.digikey.com/en/products/result?keywords=1k+0603", Notes: "MPN unverified: choose and verify a part before ordering"},
			},
		},
		{
			name:     "MPN from BOM.md when the schematic has none; UNVERIFIED ignored; different MPNs split",
			parts:    []kicad.Part{part("R1", "10k", r0603, "", nil), part("R2", "10k", r0603, "", nil)},
			doc:      "| Refdes | Value | Footprint | MPN |\n|---|---|---|---|\n| R1 | 10k | x | RC0603FR-0710KL |\n| R2 | 10k | x | UNVERIFIED |\n",
			supplier: "mouser",
			want: []OrderLine{
				{Refdes: []string{"R1"}, Qty: 1, Value: "10k", Footprint: r0603, MPN: "RC0603FR-0710KL", Link: "https://www.mouser.com/c/?q=RC0603FR-0710KL"},
				{Refdes: []string{"R2"}, Qty: 1, Value: "10k", Footprint: r0603, Link: "https://www.mouser.com/c/?q=10k+0603", Notes: "MPN unverified: choose and verify a part before ordering"},
			},
		},
		{
			name: "supplier part number field wins the link; DNP and not-in-BOM parts are not bought",
			parts: []kicad.Part{
				part("U1", "AP2112K-3.3", "Package_TO_SOT_SMD:SOT-23-5", "AP2112K-3.3TRG1", map[string]string{"LCSC Part #": "C51118", "DigiKey": "AP2112K-3.3TRG1DICT-ND"}),
				{Refdes: "U2", Value: "X", Footprint: "F", DNP: true, InBOM: true},
				{Refdes: "U3", Value: "Y", Footprint: "F", InBOM: false},
			},
			supplier: "jlcpcb",
			want: []OrderLine{
				{Refdes: []string{"U1"}, Qty: 1, Value: "AP2112K-3.3", Footprint: "Package_TO_SOT_SMD:SOT-23-5", MPN: "AP2112K-3.3TRG1", SupplierPN: "C51118", Link: "https://jlcpcb.com/parts/componentSearch?searchTxt=C51118"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sup, err := LookupSupplier(tc.supplier)
			if err != nil {
				t.Fatal(err)
			}
			var doc []byte
			if tc.doc != "" {
				doc = []byte(tc.doc)
			}
			got, err := OrderLines(&kicad.Schematic{Parts: tc.parts}, doc, sup)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d lines %+v, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				g, w := got[i], tc.want[i]
				if !slices.Equal(g.Refdes, w.Refdes) || g.Qty != w.Qty || g.Value != w.Value || g.Footprint != w.Footprint ||
					g.MPN != w.MPN || g.SupplierPN != w.SupplierPN || g.Link != w.Link || g.Notes != w.Notes {
					t.Errorf("line %d:\n got %+v\nwant %+v", i, g, w)
				}
			}
		})
	}
}

func TestProfileAndSupplierNames(t *testing.T) {
	tests := []struct {
		fab, supplier string
		wantErr       string
	}{
		{"", "jlcpcb", ""},
		{"PCBWay", "digikey", ""},
		{"oshpark", "", `unknown fab "oshpark": want one of jlcpcb, pcbway`},
		{"jlcpcb", "arrow", `unknown supplier "arrow": want one of digikey, jlcpcb, mouser`},
	}
	for _, tc := range tests {
		_, err := Profile(tc.fab)
		if err == nil && tc.supplier != "" {
			_, err = LookupSupplier(tc.supplier)
		}
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.wantErr {
			t.Errorf("fab %q supplier %q: error %q, want %q", tc.fab, tc.supplier, got, tc.wantErr)
		}
	}
}
