package kigen

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFootprintKeepouts: a rule area's keepout is the box of its polygon;
// one without points keeps nothing out (its empty box, turned with the
// footprint, used to cover the whole board).
func TestFootprintKeepouts(t *testing.T) {
	tests := []struct {
		name, zone string
		want       []Rect
	}{
		{"a polygon", `(zone (keepout (tracks not_allowed)) (polygon (pts (xy -1 -2) (xy 3 -2) (xy 3 4) (xy -1 4))))`, []Rect{{-1, -2, 3, 4}}},
		{"no points", `(zone (keepout (tracks not_allowed)) (polygon (pts)))`, nil},
		{"no polygon", `(zone (keepout (tracks not_allowed)))`, nil},
		{"not a rule area", `(zone (polygon (pts (xy 0 0) (xy 1 1))))`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pretty := filepath.Join(dir, "t.pretty")
			if err := os.MkdirAll(pretty, 0o755); err != nil {
				t.Fatal(err)
			}
			src := `(footprint "K" (layer "F.Cu") (pad "1" smd rect (at 0 0) (size 1 1) (layers "F.Cu")) ` + tc.zone + `)`
			if err := os.WriteFile(filepath.Join(pretty, "K.kicad_mod"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := (&Library{FPDir: dir}).Footprint("t:K")
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Keepouts) != len(tc.want) {
				t.Fatalf("keepouts %+v, want %+v", f.Keepouts, tc.want)
			}
			for i := range tc.want {
				if f.Keepouts[i] != tc.want[i] {
					t.Errorf("keepout %d = %+v, want %+v", i, f.Keepouts[i], tc.want[i])
				}
			}
		})
	}
}
