package netdiff

import (
	"slices"
	"testing"

	"copperhead/internal/kicad"
)

const seedNetlist = `<export version="E"><components>
<comp ref="R1"><value>10k</value><footprint>R:R</footprint><libsource lib="Device" part="R"/><sheetpath names="/"/></comp>
<comp ref="U1"><value>MCU</value><fields><field name="MPN">X1</field></fields><property name="dnp" value=""/><sheetpath names="/sub/"/></comp>
</components><nets>
<net code="1" name="A"><node ref="R1" pin="1"/><node ref="U1" pin="1"/></net>
<net code="2" name="/sub/B"><node ref="R1" pin="2"/></net>
<net code="3" name="unconnected-(U1-Pad2)"><node ref="U1" pin="2"/></net>
</nets></export>`

const seedNetlist2 = `<export version="E"><components>
<comp ref="R1"><value>4.7k</value><footprint>R:R</footprint><sheetpath names="/"/></comp>
<comp ref="U1"><value>MCU</value><sheetpath names="/sub/"/></comp>
<comp ref="R2"><value>1k</value><sheetpath names="/"/></comp>
</components><nets>
<net code="1" name="A2"><node ref="R1" pin="1"/><node ref="U1" pin="1"/><node ref="R2" pin="1"/></net>
<net code="2" name="/sub/B"><node ref="U1" pin="2"/></net>
<net code="3" name="unconnected-(R1-Pad2)"><node ref="R1" pin="2"/></net>
</nets></export>`

// FuzzDiff checks the diff's invariants on arbitrary netlists and doc bytes:
// no panic; a side compared with itself is empty; every net whose name is
// gone is renamed or removed (never both), every new name renamed or added;
// a net is renamed at most once; the renderings never fail.
func FuzzDiff(f *testing.F) {
	f.Add([]byte(seedNetlist), []byte(seedNetlist2), []byte("## Budgets\n- a: 1\n"), []byte(`{"a": {"max": 1}}`))
	f.Add([]byte(seedNetlist2), []byte(seedNetlist), []byte("| Refdes | Value | Footprint |\n|-|-|-|\n| R1 | 1 | x |\n"), []byte(`{"budgets": {"a": 2}}`))
	f.Fuzz(func(t *testing.T, a, b, docA, docB []byte) {
		na, errA := kicad.ParseNetlistXML(a)
		nb, errB := kicad.ParseNetlistXML(b)
		if errA != nil {
			na = nil
		}
		if errB != nil {
			nb = nil
		}
		da := Docs{Spec: docA, Config: docA, Constraints: docA, BOM: docA}
		db := Docs{Spec: docB, Config: docB, Constraints: docB, BOM: docB}
		for _, same := range []struct {
			nl *kicad.Netlist
			d  Docs
		}{{na, da}, {nb, db}} {
			if r := Diff(same.nl, same.nl, same.d, same.d); !r.Empty() {
				t.Fatalf("a side against itself is not empty: %s", Summary(r))
			}
		}
		r := Diff(na, nb, da, db)
		names := func(nl *kicad.Netlist) map[string]bool {
			m := map[string]bool{}
			if nl != nil {
				for _, n := range nl.Nets {
					if !kicad.IsUnconnectedNet(n.Name) && len(n.Nodes) > 0 {
						m[n.Name] = true
					}
				}
			}
			return m
		}
		before, after := names(na), names(nb)
		var olds, news []string
		for _, rn := range r.Renamed {
			if !before[rn.Old] || before[rn.New] || after[rn.Old] || !after[rn.New] {
				t.Fatalf("rename %s -> %s is not from a gone name to a new one", rn.Old, rn.New)
			}
			olds, news = append(olds, rn.Old), append(news, rn.New)
		}
		for _, n := range r.NetsRemoved {
			if slices.Contains(olds, n.Name) || !before[n.Name] || after[n.Name] {
				t.Fatalf("net %s removed wrongly", n.Name)
			}
			olds = append(olds, n.Name)
		}
		for _, n := range r.NetsAdded {
			if slices.Contains(news, n.Name) || before[n.Name] || !after[n.Name] {
				t.Fatalf("net %s added wrongly", n.Name)
			}
			news = append(news, n.Name)
		}
		gone, fresh := 0, 0
		for n := range before {
			if !after[n] {
				gone++
			}
		}
		for n := range after {
			if !before[n] {
				fresh++
			}
		}
		slices.Sort(olds)
		slices.Sort(news)
		if len(slices.Compact(olds)) != gone || len(slices.Compact(news)) != fresh {
			t.Fatalf("%d names gone, %d accounted for; %d new, %d accounted for", gone, len(olds), fresh, len(news))
		}
		var sb nopWriter
		if err := WriteText(&sb, "a", "b", r); err != nil {
			t.Fatal(err)
		}
		_ = Markdown("a", "b", r, nil)
	})
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
