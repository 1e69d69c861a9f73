package netdiff

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/testkit"
)

// netlist builds a netlist: parts "R1=10k" (refdes=value, on sheet "/"
// unless "R1=10k@/sub/"), and nets name -> pins "R1.1". Pins of a part on
// no listed net are left out, as a net-less design would have them.
func netlist(parts []string, nets map[string][]string) *kicad.Netlist {
	nl := &kicad.Netlist{}
	for _, p := range parts {
		ref, rest, _ := strings.Cut(p, "=")
		val, sheet, ok := strings.Cut(rest, "@")
		if !ok {
			sheet = "/"
		}
		nl.Components = append(nl.Components, kicad.NetComponent{Refdes: ref, Value: val, Footprint: "FP:" + ref[:1], LibID: "Device:" + ref[:1], SheetPath: sheet})
	}
	for _, name := range slices.Sorted(maps.Keys(nets)) {
		n := kicad.Net{Name: name}
		for _, pin := range nets[name] {
			ref, num, _ := strings.Cut(pin, ".")
			n.Nodes = append(n.Nodes, kicad.NetNode{Refdes: ref, Pin: num})
		}
		nl.Nets = append(nl.Nets, n)
	}
	return nl
}

// flat renders an Electrical diff as sorted lines, so a case states exactly
// what must be reported and nothing else.
func flat(e Electrical) []string {
	var out []string
	for _, c := range e.Added {
		out = append(out, "added "+c.Refdes+" "+pinList(c.Pins))
	}
	for _, c := range e.Removed {
		out = append(out, "removed "+c.Refdes)
	}
	for _, c := range e.Changed {
		out = append(out, "changed "+c.Refdes+" "+changeList(c.Changes))
	}
	for _, n := range e.NetsAdded {
		out = append(out, "net added "+n.Name+" "+strings.Join(n.Pins, " "))
	}
	for _, n := range e.NetsRemoved {
		out = append(out, "net removed "+n.Name+" "+strings.Join(n.Pins, " "))
	}
	for _, n := range e.Renamed {
		exact := ""
		if n.Exact {
			exact = " exact"
		}
		out = append(out, "renamed "+n.Old+" -> "+n.New+exact)
	}
	for _, m := range e.PinMoves {
		out = append(out, "moved "+m.Pin+" "+m.Old+" -> "+m.New)
	}
	slices.Sort(out)
	return out
}

func TestDiffNetlists(t *testing.T) {
	base := netlist([]string{"R1=10k", "R2=10k", "U1=MCU"}, map[string][]string{
		"3V3":                       {"R1.1", "R2.1", "U1.1"},
		"KEY":                       {"R1.2", "U1.2"},
		"LED":                       {"R2.2", "U1.3"},
		"GND":                       {"U1.4"},
		"unconnected-(U1-IO5-Pad5)": {"U1.5"},
	})
	tests := []struct {
		name string
		base *kicad.Netlist
		head *kicad.Netlist
		want []string
	}{
		{"empty diff", base, base, nil},
		{"nil sides", nil, nil, nil},
		{"rename with the same pins is one rename",
			base,
			netlist([]string{"R1=10k", "R2=10k", "U1=MCU"}, map[string][]string{
				"3V3": {"R1.1", "R2.1", "U1.1"}, "KEY_DASH": {"R1.2", "U1.2"}, "LED": {"R2.2", "U1.3"}, "GND": {"U1.4"},
				"unconnected-(U1-IO5-Pad5)": {"U1.5"},
			}),
			[]string{"renamed KEY -> KEY_DASH exact"}},
		{"swapped pins are two moves, no net change",
			base,
			netlist([]string{"R1=10k", "R2=10k", "U1=MCU"}, map[string][]string{
				"3V3": {"R1.1", "R2.1", "U1.1"}, "KEY": {"R1.2", "U1.3"}, "LED": {"R2.2", "U1.2"}, "GND": {"U1.4"},
				"unconnected-(U1-IO5-Pad5)": {"U1.5"},
			}),
			[]string{"moved U1.2 KEY -> LED", "moved U1.3 LED -> KEY"}},
		{"a pin connected from nothing, and one disconnected",
			base,
			netlist([]string{"R1=10k", "R2=10k", "U1=MCU"}, map[string][]string{
				"3V3": {"R1.1", "R2.1", "U1.1"}, "KEY": {"R1.2", "U1.2", "U1.5"}, "LED": {"R2.2", "U1.3"},
				"unconnected-(U1-GND-Pad4)": {"U1.4"},
			}),
			// GND lost its only pin: a removed net; unconnected nets are never listed.
			[]string{"moved U1.4 GND -> (unconnected)", "moved U1.5 (unconnected) -> KEY", "net removed GND U1.4"}},
		{"field changes",
			base,
			func() *kicad.Netlist {
				nl := netlist([]string{"R1=4.7k", "R2=10k", "U1=MCU"}, map[string][]string{
					"3V3": {"R1.1", "R2.1", "U1.1"}, "KEY": {"R1.2", "U1.2"}, "LED": {"R2.2", "U1.3"}, "GND": {"U1.4"},
					"unconnected-(U1-IO5-Pad5)": {"U1.5"},
				})
				nl.Components[1].Footprint = "FP:R0805"
				nl.Components[1].Fields = map[string]string{"MPN": "RC0805", "Datasheet": "~", "Footprint": "FP:R0805"}
				nl.Components[2].Properties = map[string]string{"dnp": ""}
				return nl
			}(),
			[]string{"changed R1 value: 10k -> 4.7k", `changed R2 footprint: FP:R -> FP:R0805; MPN: "" -> RC0805`, `changed U1 dnp: "" -> yes`}},
		{"added part joining nets is no pin move",
			base,
			netlist([]string{"R1=10k", "R2=10k", "R3=1k", "U1=MCU"}, map[string][]string{
				"3V3": {"R1.1", "R2.1", "R3.1", "U1.1"}, "KEY": {"R1.2", "R3.2", "U1.2"}, "LED": {"R2.2", "U1.3"}, "GND": {"U1.4"},
				"unconnected-(U1-IO5-Pad5)": {"U1.5"},
			}),
			[]string{"added R3 1 3V3, 2 KEY"}},
		{"removed part and the net only it had",
			netlist([]string{"R1=10k", "R9=0"}, map[string][]string{"A": {"R1.1", "R9.1"}, "Net-(R9-Pad2)": {"R9.2"}}),
			netlist([]string{"R1=10k"}, map[string][]string{"A": {"R1.1"}}),
			[]string{"net removed Net-(R9-Pad2) R9.2", "removed R9"}},
		{"majority overlap is a rename; the pin that left is a move",
			netlist([]string{"R1=1", "R2=1", "R3=1", "R4=1"}, map[string][]string{"A": {"R1.1", "R2.1", "R3.1"}, "B": {"R4.1"}}),
			netlist([]string{"R1=1", "R2=1", "R3=1", "R4=1"}, map[string][]string{"A2": {"R1.1", "R2.1"}, "B": {"R3.1", "R4.1"}}),
			[]string{"moved R3.1 A -> B", "renamed A -> A2"}},
		{"a rename with an added part's pin is a rename, not exact",
			netlist([]string{"R1=1", "R2=1"}, map[string][]string{"A": {"R1.1", "R2.1"}}),
			netlist([]string{"R1=1", "R2=1", "R3=1"}, map[string][]string{"B": {"R1.1", "R2.1", "R3.1"}}),
			[]string{"added R3 1 B", "renamed A -> B"}},
		{"half the pins is not a rename: removal and additions",
			netlist([]string{"R1=1", "R2=1"}, map[string][]string{"A": {"R1.1", "R2.1"}}),
			netlist([]string{"R1=1", "R2=1"}, map[string][]string{"B": {"R1.1"}, "C": {"R2.1"}}),
			[]string{"moved R1.1 A -> B", "moved R2.1 A -> C", "net added B R1.1", "net added C R2.1", "net removed A R1.1 R2.1"}},
		{"disjoint pins under a new name are a removal and an addition",
			netlist([]string{"R1=1", "R2=1", "R3=1", "R4=1"}, map[string][]string{"A": {"R1.1", "R2.1"}, "B": {"R3.1", "R4.1"}}),
			netlist([]string{"R1=1", "R2=1", "R3=1", "R4=1"}, map[string][]string{"B": {"R1.1", "R2.1", "R3.1", "R4.1"}}),
			// A merged into B: A is gone, its pins moved; B kept its name.
			[]string{"moved R1.1 A -> B", "moved R2.1 A -> B", "net removed A R1.1 R2.1"}},
		{"hierarchical nets: a sheet's net renamed, a part moved to another sheet",
			netlist([]string{"U1=MCU", "R5=1k@/power/", "R6=1k@/power/"}, map[string][]string{
				"/power/OUT": {"R5.2", "U1.1"}, "/power/EN": {"R5.1", "R6.1"},
			}),
			netlist([]string{"U1=MCU", "R5=1k@/power/", "R6=1k@/aux/"}, map[string][]string{
				"/power/VOUT": {"R5.2", "U1.1"}, "/power/EN": {"R5.1", "R6.1"},
			}),
			[]string{"changed R6 sheet: /power/ -> /aux/", "renamed /power/OUT -> /power/VOUT exact"}},
		{"two instances of one sheet keep their own nets",
			netlist([]string{"R1=1@/a/", "R2=1@/b/"}, map[string][]string{"/a/OUT": {"R1.1"}, "/b/OUT": {"R2.1"}}),
			netlist([]string{"R1=1@/a/", "R2=1@/b/"}, map[string][]string{"/a/SIG": {"R1.1"}, "/b/SIG": {"R2.1"}}),
			[]string{"renamed /a/OUT -> /a/SIG exact", "renamed /b/OUT -> /b/SIG exact"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := flat(DiffNetlists(tc.base, tc.head))
			if !slices.Equal(got, tc.want) {
				t.Errorf("diff:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestDiffDocs(t *testing.T) {
	spec := func(lines ...string) []byte {
		return []byte("# Spec\n\n## Budgets\n\n" + strings.Join(lines, "\n") + "\n\n## Other\n\n- not_a_budget: 3\n")
	}
	bom := func(rows ...string) []byte {
		return []byte("| Refdes | Value | Footprint | MPN | Rationale |\n|---|---|---|---|---|\n" + strings.Join(rows, "\n") + "\n")
	}
	tests := []struct {
		name       string
		base, head Docs
		want       []string
	}{
		{"nothing", Docs{}, Docs{}, nil},
		{"same bytes", Docs{Spec: spec("- a: 1"), BOM: bom("| R1 | 1k | R | | x |")}, Docs{Spec: spec("- a: 1"), BOM: bom("| R1 | 1k | R | | x |")}, nil},
		{"SPEC budgets",
			Docs{Spec: spec("- sleep_uA: 25", "- gone: 1")},
			Docs{Spec: spec("- sleep_uA: 30 (ASSUMED)", "- new: 2")},
			[]string{"spec gone: 1 -> —", "spec new: — -> 2", "spec sleep_uA: 25 -> 30"}},
		{"config budgets; formatting is no change",
			Docs{Config: []byte(`{"budgets": {"mass_g": 20, "cost": 5}}`)},
			Docs{Config: []byte("{\n  \"budgets\": {\"cost\": 5, \"mass_g\": 18.5}\n}\n")},
			[]string{"config mass_g: 20 -> 18.5"}},
		{"constraints added, removed, changed; key order is no change",
			Docs{Constraints: []byte(`{"a": {"max": 1, "source": "SPEC"}, "b": {"max": 2}, "c": {"min": 0, "max": 3}}`)},
			Docs{Constraints: []byte(`{"a": {"max": 1.5, "source": "SPEC"}, "c": {"max": 3, "min": 0}, "d": {"forbidden": ["IO0"]}}`)},
			[]string{`constraint a changed: max: 1 -> 1.5`, `constraint b removed (was {"max":2})`, `constraint d added: {"forbidden":["IO0"]}`}},
		{"BOM rows",
			Docs{BOM: bom("| R1 | 1k | R | | why |", "| R2 | 2k | R | | |")},
			Docs{BOM: bom("| R1 | 1.2k | R | RC0603 | why |", "| R3 | 3k | R | | |")},
			[]string{"bom added R3 | 3k | R", `bom changed R1 value: 1k -> 1.2k; mpn: "" -> RC0603`, "bom removed R2 | 2k | R"}},
		{"a file that does not parse is noted, not fatal",
			Docs{Constraints: []byte(`{"a": {"max": 1}}`)},
			Docs{Constraints: []byte(`{"a": `)},
			[]string{`constraint a removed (was {"max":1})`, "note head: .copperhead/constraints.json: unexpected end of JSON input"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := DiffDocs(tc.base, tc.head)
			var got []string
			for _, c := range d.SpecBudgets {
				got = append(got, "spec "+valueChange(c))
			}
			for _, c := range d.ConfigBudgets {
				got = append(got, "config "+valueChange(c))
			}
			for _, c := range d.Constraints {
				got = append(got, "constraint "+entryChange(c))
			}
			for _, r := range d.BOMAdded {
				got = append(got, "bom added "+bomRow(r))
			}
			for _, r := range d.BOMRemoved {
				got = append(got, "bom removed "+bomRow(r))
			}
			for _, r := range d.BOMChanged {
				got = append(got, "bom changed "+r.Refdes+" "+changeList(r.Changes))
			}
			for _, n := range d.Notes {
				got = append(got, "note "+n)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("docs diff:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestRenderings(t *testing.T) {
	r := Diff(
		netlist([]string{"R1=1", "R2=1"}, map[string][]string{"A": {"R1.1", "R2.1"}, "B": {"R1.2"}, "X": {"R2.2"}}),
		netlist([]string{"R1=2", "R2=1", "R3=1"}, map[string][]string{"A2": {"R1.1", "R2.1"}, "C": {"R1.2", "R2.2", "R3.1"}}),
		Docs{}, Docs{})
	if got, want := Summary(r), "1 part added, 1 part changed, 1 net renamed, 1 net added, 2 nets removed, 2 pins moved"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	var b strings.Builder
	if err := WriteText(&b, "HEAD (abc)", "working tree", r); err != nil {
		t.Fatal(err)
	}
	testkit.ContainsAll(t, "text", b.String(), "diff HEAD (abc) -> working tree\n", "net renamed   A -> A2 (2 pins, the same)\n", "pin moved     R1.2: B -> C\n", "part added    R3 1 FP:R (sheet /) pins 1 C\n")
	md := Markdown("main", "HEAD", r, []Picture{{Name: "sheet /", Path: "pics/x.svg"}})
	testkit.ContainsAll(t, "markdown", md, "**1 part added, 1 part changed", "| renamed | `A` → `A2` | 2 pins, the same |", "| `R1.2` | `B` | `C` |", "- [sheet /](pics/x.svg)")
	if got := Summary(Diff(nil, nil, Docs{}, Docs{})); got != "no changes" {
		t.Errorf("empty summary %q", got)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
}
