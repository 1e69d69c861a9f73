package pcbedit

import (
	"bytes"
	"maps"
	"os"
	"strings"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/sexpr"
)

const fixtureBoard = "../../../examples/open-telegraph/hardware/open-telegraph.kicad_pcb"

func net(name string, pins ...string) kicad.Net {
	n := kicad.Net{Name: name}
	for _, p := range pins {
		ref, pin, _ := strings.Cut(p, ".")
		n.Nodes = append(n.Nodes, kicad.NetNode{Refdes: ref, Pin: pin})
	}
	return n
}

func TestNetRenames(t *testing.T) {
	before := &kicad.Netlist{Nets: []kicad.Net{
		net("KEY_DAH", "U1.5", "SW2.1"), net("/LED", "R1.2", "D1.1"), net("GND", "U1.1"), net("A", "U1.6"), net("B", "U1.7"),
	}}
	cases := []struct {
		name  string
		after []kicad.Net
		want  map[string]string
	}{
		{"rename", []kicad.Net{net("KEY_DASH", "SW2.1", "U1.5"), net("/LED", "R1.2", "D1.1"), net("GND", "U1.1")}, map[string]string{"KEY_DAH": "KEY_DASH"}},
		{"pins moved is not a rename", []kicad.Net{net("KEY_DAH", "U1.6", "SW2.1")}, map[string]string{}},
		{"two one-pin nets trading pins trade names", []kicad.Net{net("A", "U1.7"), net("B", "U1.6")}, map[string]string{"A": "B", "B": "A"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := NetRenames(before, &kicad.Netlist{Nets: c.after})
			if !maps.Equal(got, c.want) {
				t.Errorf("NetRenames = %v, want %v", got, c.want)
			}
		})
	}
}

func TestRenameNetsFixtureBoard(t *testing.T) {
	src, err := os.ReadFile(fixtureBoard)
	if err != nil {
		t.Fatal(err)
	}
	refs := bytes.Count(src, []byte(`"KEY_DAH"`))
	next, lines, err := RenameNets("board.kicad_pcb", src, map[string]string{"KEY_DAH": "KEY_DASH"})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "net KEY_DAH -> KEY_DASH") {
		t.Errorf("summary %v", lines)
	}
	if bytes.Contains(next, []byte(`"KEY_DAH"`)) || bytes.Count(next, []byte(`"KEY_DASH"`)) != refs {
		t.Errorf("want all %d references renamed", refs)
	}
	// Only the names changed: same length difference per reference, and
	// the file still parses.
	if len(next)-len(src) != refs*len("KEY_DASH")-refs*len("KEY_DAH") {
		t.Errorf("size changed by %d, want %d", len(next)-len(src), refs)
	}
	if _, err := sexpr.Parse("next", next); err != nil {
		t.Fatal(err)
	}
	// Applying again is a no-op.
	again, lines, err := RenameNets("board.kicad_pcb", next, map[string]string{"KEY_DAH": "KEY_DASH"})
	if err != nil || len(lines) != 0 || !bytes.Equal(again, next) {
		t.Errorf("second rename: %v %v", lines, err)
	}
	// Onto an existing board net is refused.
	if _, _, err := RenameNets("board.kicad_pcb", src, map[string]string{"KEY_DAH": "KEY_DIT"}); err == nil || !strings.Contains(err.Error(), "merge") {
		t.Errorf("rename onto KEY_DIT: %v, want a merge refusal", err)
	}
	// Two nets trading names is a swap, not a merge.
	swapped, lines, err := RenameNets("board.kicad_pcb", src, map[string]string{"KEY_DAH": "KEY_DIT", "KEY_DIT": "KEY_DAH"})
	if err != nil || len(lines) != 2 || bytes.Count(swapped, []byte(`"KEY_DIT"`)) != refs {
		t.Errorf("name swap: %v %v", lines, err)
	}
	if _, _, err := RenameNets("bad.kicad_pcb", []byte("(kicad_pcb (net 1 \"A\""), map[string]string{"A": "B"}); err == nil {
		t.Error("malformed board accepted")
	}
}
