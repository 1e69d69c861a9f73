package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check_drift counts a broken datasheet citation as drift, as check does:
// a row marked VERIFIED(datasheet) whose cited file is not in the cache
// keeps the drift obligation open.
func TestCheckDriftCitations(t *testing.T) {
	s := toolSession(t, true)
	bom := filepath.Join(s.Repo, "docs", "BOM.md")
	data, err := os.ReadFile(bom)
	if err != nil {
		t.Fatal(err)
	}
	const row = "| U1 | ESP32-S3-WROOM-1 | RF_Module:ESP32-S3-WROOM-1 | UNVERIFIED | TODO: why this part |"
	flagged := "| U1 | ESP32-S3-WROOM-1 | RF_Module:ESP32-S3-WROOM-1 | VERIFIED(datasheet) | 8 MB flash: .copperhead/datasheets/ESP32-S3-WROOM-1-00000000.pdf §1 Features (p.1) |"
	if !strings.Contains(string(data), row) {
		t.Fatal("fixture BOM.md has no U1 row to flag")
	}
	if err := os.WriteFile(bom, []byte(strings.Replace(string(data), row, flagged, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustOK(t, call(t, s, "check_drift", map[string]any{}))
	if !strings.Contains(res.Text, "drift: NOT clean") || !strings.Contains(res.Text, "ESP32-S3-WROOM-1-00000000.pdf") {
		t.Errorf("check_drift with a citation to a missing datasheet:\n%s", res.Text)
	}
}
