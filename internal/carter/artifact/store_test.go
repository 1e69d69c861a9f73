package artifact

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStore(t *testing.T) {
	s := Open(t.TempDir())
	h, err := s.PutText("héllo\n")
	if err != nil || h != Hash([]byte("héllo\n")) {
		t.Fatalf("PutText = %s, %v", h, err)
	}
	if got, err := s.Text(h); err != nil || got != "héllo\n" {
		t.Fatalf("Text = %q, %v", got, err)
	}
	if _, err := s.Text("../../etc/passwd"); err == nil {
		t.Error("a non-hash name was read")
	}
	// A stored text edited after the fact no longer matches its name.
	if err := os.WriteFile(filepath.Join(s.Dir(), TextDir, h+".txt"), []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Text(h); err == nil || !strings.Contains(err.Error(), "hashes to") {
		t.Errorf("tampered text: %v", err)
	}
	rec := Record{RunID: "R", Sources: []Source{{ID: "S"}}, Notes: []string{"n"}}
	if err := s.WriteRecord(rec); err != nil {
		t.Fatal(err)
	}
	back, err := s.ReadRecord()
	if err != nil || back.RunID != "R" || back.Version != recordVer || len(back.Sources) != 1 {
		t.Errorf("ReadRecord = %+v, %v", back, err)
	}
	if turns, err := s.ModelTurns(); err != nil || turns != nil {
		t.Errorf("no model file: %v %v", turns, err)
	}
	if err := s.WriteModelTurns([]ModelTurn{{RequestHash: "h", Text: "t"}}); err != nil {
		t.Fatal(err)
	}
	if turns, err := s.ModelTurns(); err != nil || len(turns) != 1 || turns[0].Text != "t" {
		t.Errorf("ModelTurns = %+v, %v", turns, err)
	}
}
