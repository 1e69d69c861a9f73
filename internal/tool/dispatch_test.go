package tool

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/llm"
)

// testSession is a session on an empty repository.
func testSession(t *testing.T) *Session {
	return &Session{Repo: t.TempDir(), Config: config.DefaultConfig(), RunID: "test-run", Ledger: NewLedger()}
}

func TestIsKiCadFile(t *testing.T) {
	for p, want := range map[string]bool{
		"a.kicad_sch": true, "hw/b.kicad_pcb": true, "c.kicad_pro": true, "lib/d.kicad_sym": true,
		"sym-lib-table": true, "hw/fp-lib-table": true, "X.KICAD_SCH": true,
		"docs/BOM.md": false, "kicad_sch.md": false, "docs/sym-lib-table.md": false, ".copperhead/constraints.json": false,
	} {
		if got := IsKiCadFile(p); got != want {
			t.Errorf("IsKiCadFile(%q) = %v, want %v", p, got, want)
		}
	}
}

type panicTool struct{}

func (panicTool) Spec() llm.Tool { return llm.Tool{Name: "boom"} }
func (panicTool) Mutating() bool { return false }
func (panicTool) Run(context.Context, *Session, json.RawMessage) (Result, error) {
	panic("bug")
}

func TestDispatchPanicIsFatal(t *testing.T) {
	res := Dispatch(context.Background(), testSession(t), []Tool{panicTool{}}, llm.ToolCall{Name: "boom"})
	if res.Fatal == nil || !strings.Contains(res.Fatal.Error(), "panicked: bug") {
		t.Fatalf("result = %+v", res)
	}
}

// TestHooks checks the post-call hooks: what a changed file obliges.
func TestHooks(t *testing.T) {
	s := testSession(t)
	s.Config.Docs = "docs/"
	opened := hook(s, []string{"hardware/x.kicad_sch", "docs/BOM.md", "hardware/x.kicad_pcb", "README.md", "docs/sub/x.md", "hardware/x.kicad_sch"})
	if s.KiCadEditSeq != 3 || s.SchematicEditSeq != 3 || s.BoardEditSeq != 2 {
		t.Errorf("edit seqs = %d/%d/%d, want 3/3/2", s.KiCadEditSeq, s.SchematicEditSeq, s.BoardEditSeq)
	}
	want := []string{"hardware/x.kicad_sch", "docs/BOM.md", "hardware/x.kicad_pcb", "README.md", "docs/sub/x.md"}
	if !slices.Equal(s.Touched, want) {
		t.Errorf("touched = %v, want %v", s.Touched, want)
	}
	var got []string
	for _, o := range s.Ledger.Pending() {
		got = append(got, string(o.Kind)+" "+o.Subject)
	}
	wantObl := []string{"erc hardware/x.kicad_sch", "drift hardware/x.kicad_sch", "drift docs/BOM.md", "drc hardware/x.kicad_pcb", "drift hardware/x.kicad_pcb"}
	if !slices.Equal(got, wantObl) {
		t.Errorf("obligations = %v, want %v", got, wantObl)
	}
	if len(opened) != 5 {
		t.Errorf("opened = %v", opened)
	}
}
