package verify

import (
	"slices"
	"strings"
	"testing"

	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
)

// netlist builds a netlist from "NET=R1.1,R2.2" specs; its parts are the
// refdes the nets name.
func netlist(specs ...string) *kicad.Netlist {
	nl := &kicad.Netlist{}
	parts := map[string]bool{}
	for _, s := range specs {
		name, pins, _ := strings.Cut(s, "=")
		n := kicad.Net{Name: name}
		for _, p := range strings.Split(pins, ",") {
			ref, pin, _ := strings.Cut(p, ".")
			n.Nodes = append(n.Nodes, kicad.NetNode{Refdes: ref, Pin: pin})
			if !parts[ref] {
				parts[ref] = true
				nl.Components = append(nl.Components, kicad.NetComponent{Refdes: ref})
			}
		}
		nl.Nets = append(nl.Nets, n)
	}
	return nl
}

// trackWidth is a DRC track_width error on a track of net.
func trackWidth(net string, x float64) kicadcli.Violation {
	return kicadcli.Violation{
		Severity: kicadcli.SeverityError, Type: "track_width",
		Description: "Track width (board setup constraints min width 0.6000 mm; actual 0.2500 mm)",
		Pos:         kicad.Point{X: x},
		Items:       []kicadcli.AffectedItem{{Description: "Track [" + net + "] on F.Cu, length 1.4142 mm", UUID: "t"}},
	}
}

// isolatedLabel is an ERC warning on a local label of sheet.
func isolatedLabel(sheet, text string) kicadcli.Violation {
	return kicadcli.Violation{
		Severity: kicadcli.SeverityError, Type: "isolated_pin_label", Description: "Label connected to only one pin", Sheet: sheet,
		Items: []kicadcli.AffectedItem{{Description: "Label '" + text + "'", UUID: "l"}},
	}
}

// TestApplyBaselineRenamedNets: a net renamed with the very same pins
// (netdiff's exact rename) keeps its violations existing, whether the board
// was updated to the new name or still says the old one; a net whose pins
// changed as well is another net, and its violations are new.
func TestApplyBaselineRenamedNets(t *testing.T) {
	baseNL := netlist("KEY_DAH=R7.2,J3.2,C9.1,U1.5", "GND=C9.2,U1.1", "/Power/EN=U2.1,R3.1")
	renamed := netlist("KEY_DASH=R7.2,J3.2,C9.1,U1.5", "GND=C9.2,U1.1", "/Power/EN=U2.1,R3.1")
	tests := []renameCase{
		{"renamed, board updated: existing",
			baseNL, renamed,
			[]kicadcli.Violation{trackWidth("KEY_DAH", 1), trackWidth("GND", 2)},
			[]kicadcli.Violation{trackWidth("KEY_DASH", 1), trackWidth("GND", 2)}, false,
			[]string{"existing", "existing"}, []NetRename{{"KEY_DAH", "KEY_DASH"}}},
		{"renamed in the schematic, the board still names the old net: existing",
			baseNL, renamed,
			[]kicadcli.Violation{trackWidth("KEY_DAH", 1)}, []kicadcli.Violation{trackWidth("KEY_DAH", 1)}, false,
			[]string{"existing"}, []NetRename{{"KEY_DAH", "KEY_DASH"}}},
		{"renamed and a pin left: the net changed, its violation is new",
			baseNL, netlist("KEY_DASH=R7.2,J3.2,C9.1", "unconnected-(U1-IO5-Pad5)=U1.5", "GND=C9.2,U1.1", "/Power/EN=U2.1,R3.1"),
			[]kicadcli.Violation{trackWidth("KEY_DAH", 1)}, []kicadcli.Violation{trackWidth("KEY_DASH", 1)}, false,
			[]string{"new"}, nil},
		{"renamed and a pin joined: new",
			baseNL, netlist("KEY_DASH=R7.2,J3.2,C9.1,U1.5,U1.6", "GND=C9.2,U1.1", "/Power/EN=U2.1,R3.1"),
			[]kicadcli.Violation{trackWidth("KEY_DAH", 1)}, []kicadcli.Violation{trackWidth("KEY_DASH", 1)}, false,
			[]string{"new"}, nil},
		{"another net under the new name: new",
			baseNL, renamed,
			[]kicadcli.Violation{trackWidth("GND", 1)}, []kicadcli.Violation{trackWidth("KEY_DASH", 1)}, false,
			[]string{"new"}, []NetRename{{"KEY_DAH", "KEY_DASH"}}},
		{"no netlists (a revision without the schematic): matched by name",
			nil, renamed,
			[]kicadcli.Violation{trackWidth("KEY_DAH", 1)}, []kicadcli.Violation{trackWidth("KEY_DASH", 1)}, false,
			[]string{"new"}, nil},
		{"a local label renamed on its own sheet: existing",
			baseNL, netlist("KEY_DAH=R7.2,J3.2,C9.1,U1.5", "GND=C9.2,U1.1", "/Power/ENABLE=U2.1,R3.1"),
			[]kicadcli.Violation{isolatedLabel("/Power/", "EN")}, []kicadcli.Violation{isolatedLabel("/Power/", "ENABLE")}, true,
			[]string{"existing"}, []NetRename{{"/Power/EN", "/Power/ENABLE"}}},
		{"a label of that text on another sheet is another net: new",
			baseNL, netlist("KEY_DAH=R7.2,J3.2,C9.1,U1.5", "GND=C9.2,U1.1", "/Power/ENABLE=U2.1,R3.1"),
			[]kicadcli.Violation{isolatedLabel("/", "EN")}, []kicadcli.Violation{isolatedLabel("/", "ENABLE")}, true,
			[]string{"new"}, []NetRename{{"/Power/EN", "/Power/ENABLE"}}},
	}
	for _, tt := range tests {
		// A cached baseline keeps only RenameNets of its netlist: the
		// verdict must be the same.
		for _, cached := range []bool{false, true} {
			name := tt.name
			if cached {
				name += " (cached baseline)"
			}
			t.Run(name, func(t *testing.T) { tt.run(t, cached) })
		}
	}
}

// renameCase is one baseline comparison across a rename: the two sides'
// netlists and violations, and the states and renames expected.
type renameCase struct {
	name          string
	baseNL, curNL *kicad.Netlist
	base, cur     []kicadcli.Violation
	erc           bool // the violations are ERC's, not DRC's
	want          []string
	renames       []NetRename
}

// run applies the baseline, its netlist reduced to RenameNets when cached.
func (tt renameCase) run(t *testing.T, cached bool) {
	baseNL := tt.baseNL
	if cached {
		baseNL = RenameNets(baseNL)
	}
	cur := &Result{Netlist: tt.curNL, ERC: ToolGate{OK: true}, DRC: ToolGate{OK: true}, OpenSpec: OpenSpecGate{OK: true}, Sourcing: SourcingGate{OK: true}}
	base := &Result{Netlist: baseNL}
	gate, baseGate := &cur.DRC, &base.DRC
	if tt.erc {
		gate, baseGate = &cur.ERC, &base.ERC
	}
	gate.Violations, baseGate.Violations = slices.Clone(tt.cur), tt.base
	ApplyBaseline(cur, base, BaselineInfo{Rev: "HEAD~1"}, kicadcli.SeverityError)
	if got := states(gate.Violations); !slices.Equal(got, tt.want) {
		t.Errorf("states = %v, want %v", got, tt.want)
	}
	if !slices.Equal(cur.Baseline.RenamedNets, tt.renames) {
		t.Errorf("RenamedNets = %v, want %v", cur.Baseline.RenamedNets, tt.renames)
	}
	if ok := !slices.Contains(tt.want, StateNew); cur.OK != ok {
		t.Errorf("OK = %v, want %v", cur.OK, ok)
	}
	if gate.Violations[0].Items[0].Description != tt.cur[0].Items[0].Description {
		t.Error("matching rewrote the violation itself")
	}
}

// TestNetAliasesRewrite: old names become new ones only as whole names,
// label texts only on their own sheet.
func TestNetAliasesRewrite(t *testing.T) {
	a := newNetAliases([]NetRename{{"KEY", "KEY2"}, {"KEY_DAH", "KEY_DASH"}, {"/Power/EN", "/Power/ENABLE"},
		{"Net-(R1-Pad1)", "LED"}})
	for _, tt := range []struct{ in, sheet, want string }{
		{"Track [KEY_DAH] on F.Cu, length 1.4142 mm", "", "Track [KEY_DASH] on F.Cu, length 1.4142 mm"},
		{"Track [KEY] on F.Cu", "", "Track [KEY2] on F.Cu"},
		{"Track [KEY_DIT] on F.Cu", "", "Track [KEY_DIT] on F.Cu"},
		{"Track [XKEY] on F.Cu", "", "Track [XKEY] on F.Cu"},
		{"Pad net (KEY_DAH) doesn't match net given by schematic (KEY_DASH).", "",
			"Pad net (KEY_DASH) doesn't match net given by schematic (KEY_DASH)."},
		{"Both KEY and GND are attached to the same items; KEY will be used in the netlist", "/",
			"Both KEY2 and GND are attached to the same items; KEY2 will be used in the netlist"},
		{"Pad 1 [Net-(R1-Pad1)] of R1 on F.Cu", "", "Pad 1 [LED] of R1 on F.Cu"},
		{"Track [/Power/EN] on F.Cu", "", "Track [/Power/ENABLE] on F.Cu"},
		{"Label 'EN'", "/Power/", "Label 'ENABLE'"},
		{"Label 'EN'", "/", "Label 'EN'"},
		{"Label 'EN'", "", "Label 'EN'"},
		{"KEY", "", "KEY2"},
		{"", "", ""},
	} {
		if got := a.rewrite(tt.in, tt.sheet); got != tt.want {
			t.Errorf("rewrite(%q, %q) = %q, want %q", tt.in, tt.sheet, got, tt.want)
		}
	}
	var none *netAliases
	if got := none.rewrite("Track [KEY] on F.Cu", ""); got != "Track [KEY] on F.Cu" {
		t.Errorf("nil aliases rewrote: %q", got)
	}
}
