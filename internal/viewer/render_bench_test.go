package viewer

import (
	"context"
	"path/filepath"
	"testing"

	"copperhead/internal/kicadcli"
	"copperhead/internal/testkit"
)

// BenchmarkRender is AC-5.1's "within 2 s" measured, never asserted: one
// generation of the bundled board (both sheets and the board) exported by
// the real kicad-cli, as the viewer renders after a change.
func BenchmarkRender(b *testing.B) {
	testkit.NeedKiCadCLI(b)
	repo := testkit.CopyFixture(b, "../../examples/open-telegraph")
	kc, err := kicadcli.Find(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	kc.Boundary = repo
	r, err := newRenderer(kc, filepath.Join(repo, "hardware", "open-telegraph.kicad_sch"), filepath.Join(repo, "hardware", "open-telegraph.kicad_pcb"))
	if err != nil {
		b.Fatal(err)
	}
	defer r.close()
	for b.Loop() {
		r.mu.Lock()
		r.current = nil // render again though nothing changed
		r.mu.Unlock()
		got, changed, err := r.refresh(context.Background())
		if err != nil || !changed || got.Error != "" || len(got.Pictures) != 3 {
			b.Fatalf("render: changed %v, %v, %+v", changed, err, got)
		}
	}
}
