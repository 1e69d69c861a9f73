package design

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/datasheets"
)

// citationText is the extracted text of the cached test datasheet.
var citationText = datasheets.PageMarker(1) + "TPS63020 Buck-Boost Converter\n" +
	datasheets.PageMarker(2) + "2   Electrical Characteristics\nQuiescent current 25 uA typical\n" +
	datasheets.PageMarker(3) + "Package: VSON-14\n"

// cacheRepo writes a repo with a one-document datasheet cache and returns
// its root and the cited form of the PDF's path.
func cacheRepo(t *testing.T) (root, pdf string) {
	t.Helper()
	body := []byte("%PDF-1.4 citation test\n")
	sum := sha256.Sum256(body)
	sha := hex.EncodeToString(sum[:])
	name := datasheets.FileName("TPS63020DSJR", sha)
	index, _ := json.Marshal(datasheets.Index{Entries: []datasheets.Entry{{MPN: "TPS63020DSJR", URL: "https://www.ti.com/x.pdf",
		Retrieved: "2026-03-01T12:00:00Z", Status: datasheets.StatusCached, SHA256: sha, File: name, TextFile: name + ".txt"}}})
	dir := datasheets.DirName + "/"
	root = writeRepo(t, map[string]string{dir + name: string(body), dir + name + ".txt": citationText, dir + datasheets.IndexName: string(index)})
	return root, dir + name
}

func bomWithRow(mpn, rationale string) Files {
	return Files{"docs/BOM.md": []byte("| Refdes | Value | Footprint | MPN | Rationale |\n| --- | --- | --- | --- | --- |\n" +
		"| U1 | TPS63020 | VSON-14 | " + mpn + " | " + rationale + " |\n| R1 | 10k | R_0603 | UNVERIFIED | pull-up |\n")}
}

func TestCheckCitations(t *testing.T) {
	type want struct{ cause, text string }
	tests := []struct {
		name      string
		mpn       string
		rationale func(pdf string) string
		damage    func(t *testing.T, root, pdf string)
		want      []want
	}{
		{name: "valid citations pass", mpn: "TPS63020DSJR VERIFIED(datasheet)",
			rationale: func(pdf string) string {
				return "Iq 25 uA: `" + pdf + " §Quiescent current 25 uA (p.2)`; package " + pdf + " §Package: VSON-14 (p.3)"
			}},
		{name: "flag in the rationale counts too", mpn: "TPS63020DSJR",
			rationale: func(pdf string) string {
				return "VERIFIED(datasheet): Iq " + pdf + " §2 Electrical Characteristics (p.2)"
			}},
		{name: "unflagged rows are not checked", mpn: "TPS63020DSJR (UNVERIFIED)",
			rationale: func(pdf string) string { return "Iq " + pdf + " §nonsense (p.99)" }},
		{name: "UNVERIFIED(datasheet) is not the flag", mpn: "TPS63020DSJR UNVERIFIED(datasheet)",
			rationale: func(string) string { return "no evidence yet" }},
		{name: "no citation", mpn: "TPS63020DSJR VERIFIED(datasheet)", rationale: func(string) string { return "trust me" },
			want: []want{{CauseNoCitation, "docs/BOM.md: U1 is VERIFIED(datasheet) but its row cites no datasheet"}}},
		{name: "malformed citation", mpn: "TPS63020DSJR VERIFIED(datasheet)",
			rationale: func(pdf string) string { return "Iq " + pdf + " page 2" },
			want:      []want{{"malformed", "is malformed: write .copperhead/datasheets/<file>.pdf §<section> (p.<page>)"}}},
		{name: "missing file", mpn: "TPS63020DSJR VERIFIED(datasheet)",
			rationale: func(string) string { return ".copperhead/datasheets/LM358-00000000.pdf §1 (p.1)" },
			want:      []want{{"missing_file", "missing_file: .copperhead/datasheets/LM358-00000000.pdf does not exist"}}},
		{name: "hash mismatch", mpn: "TPS63020DSJR VERIFIED(datasheet)",
			rationale: func(pdf string) string { return pdf + " §Quiescent current (p.2)" },
			damage: func(t *testing.T, root, pdf string) {
				if err := os.WriteFile(filepath.Join(root, pdf), []byte("%PDF-1.4 edited\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: []want{{"hash_mismatch", "but .copperhead/datasheets/index.json records"}}},
		{name: "text not on page", mpn: "TPS63020DSJR VERIFIED(datasheet)",
			rationale: func(pdf string) string { return pdf + " §Package: VSON-14 (p.2)" },
			want:      []want{{"text_not_on_page", `"Package: VSON-14" does not occur on page 2`}}},
		{name: "page out of range", mpn: "TPS63020DSJR VERIFIED(datasheet)",
			rationale: func(pdf string) string { return pdf + " §Package (p.14)" },
			want:      []want{{"page_out_of_range", "page 14 cited, but the extracted text of"}}},
		{name: "one good, one bad: only the bad one", mpn: "TPS63020DSJR VERIFIED(datasheet)",
			rationale: func(pdf string) string { return pdf + " §Package: VSON-14 (p.3); " + pdf + " §Buck-Boost (p.3)" },
			want:      []want{{"text_not_on_page", `"Buck-Boost" does not occur on page 3`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, pdf := cacheRepo(t)
			if tt.damage != nil {
				tt.damage(t, root, pdf)
			}
			files := bomWithRow(tt.mpn, tt.rationale(pdf))
			got := CheckCitations(root, files, config.DefaultConfig())
			if len(got) != len(tt.want) {
				t.Fatalf("mismatches = %+v, want %d", got, len(tt.want))
			}
			for i, w := range tt.want {
				m := got[i]
				if m.Kind != MismatchCitation || m.Cause != w.cause || m.Doc != "docs/BOM.md" || m.Refdes != "U1" || !strings.Contains(m.Message, w.text) {
					t.Errorf("mismatch %d = %+v\nwant cause %s and %q", i, m, w.cause, w.text)
				}
				if w.cause != CauseNoCitation && !strings.Contains(m.Message, m.Claim) {
					t.Errorf("message %q does not quote the citation %q", m.Message, m.Claim)
				}
			}
		})
	}
}

func TestCheckCitationsWithoutBOM(t *testing.T) {
	if got := CheckCitations(t.TempDir(), Files{}, config.DefaultConfig()); len(got) != 0 {
		t.Errorf("no BOM.md: %+v (drift reports the missing doc)", got)
	}
}

func TestStripFlags(t *testing.T) {
	for in, want := range map[string]string{
		"ABC-123":                          "ABC-123",
		"UNVERIFIED":                       "",
		"ABC-123 (UNVERIFIED)":             "ABC-123",
		"ABC-123 VERIFIED(datasheet)":      "ABC-123",
		"ABC-123 (VERIFIED(datasheet))":    "ABC-123",
		"ABC-123 — verified(Datasheet)":    "ABC-123",
		"VERIFIED(datasheet)":              "",
		"XVERIFIED(datasheet) is one word": "XVERIFIED(datasheet) is one word",
	} {
		if got := stripFlags(in); got != want {
			t.Errorf("stripFlags(%q) = %q, want %q", in, got, want)
		}
	}
}
