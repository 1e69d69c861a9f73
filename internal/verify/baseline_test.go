package verify

import (
	"slices"
	"strings"
	"testing"

	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
)

// drcClear is a DRC clearance violation between a track and a pad, as
// kicad-cli words it, at (x, y) with the track's length and the clearance
// it measured.
func drcClear(x, y float64, length, actual, pad, uuid string) kicadcli.Violation {
	return kicadcli.Violation{
		Severity: kicadcli.SeverityError, Type: "clearance",
		Description: "Clearance violation (rule 'big' clearance 0.5000 mm; actual " + actual + " mm)",
		Pos:         kicad.Point{X: x, Y: y},
		Items: []kicadcli.AffectedItem{
			{Description: "Track [KEY_DIT] on F.Cu, length " + length + " mm", UUID: uuid, Pos: kicad.Point{X: x, Y: y}},
			{Description: "Pad " + pad + " of R6 on F.Cu", UUID: "pad-" + pad, Pos: kicad.Point{X: x + 1, Y: y}},
		},
	}
}

func pinNC(sheet, pin string, x, y float64) kicadcli.Violation {
	return kicadcli.Violation{
		Severity: kicadcli.SeverityError, Type: "pin_not_connected", Description: "Pin not connected", Sheet: sheet,
		Pos:   kicad.Point{X: x, Y: y},
		Items: []kicadcli.AffectedItem{{Description: "Symbol U1 Pin " + pin + " [IO7, Bidirectional, Line]", UUID: "u-" + pin}},
	}
}

func states(vs []kicadcli.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.BaselineState)
	}
	return out
}

func TestApplyBaselineToolMatching(t *testing.T) {
	a := drcClear(10, 10, "1.0607", "0.4528", "1 [3V3]", "t1")
	tests := []struct {
		name      string
		cur, base []kicadcli.Violation
		want      []string
		ok        bool
	}{
		{"same violation", []kicadcli.Violation{a}, []kicadcli.Violation{a}, []string{"existing"}, true},
		{"no baseline violation", []kicadcli.Violation{a}, nil, []string{"new"}, false},
		{"moved board still matches: new position, track length and measured clearance",
			[]kicadcli.Violation{drcClear(35.5, -4, "1.2500", "0.3100", "1 [3V3]", "t9")}, []kicadcli.Violation{a}, []string{"existing"}, true},
		{"items named in the other order",
			[]kicadcli.Violation{{Severity: a.Severity, Type: a.Type, Description: a.Description, Items: []kicadcli.AffectedItem{a.Items[1], a.Items[0]}}},
			[]kicadcli.Violation{a}, []string{"existing"}, true},
		{"another pad is another violation",
			[]kicadcli.Violation{drcClear(10, 10, "1.0607", "0.4528", "2 [KEY_DIT]", "t1")}, []kicadcli.Violation{a}, []string{"new"}, false},
		{"another rule is another violation",
			[]kicadcli.Violation{func() kicadcli.Violation { v := a; v.Type = "hole_clearance"; return v }()}, []kicadcli.Violation{a}, []string{"new"}, false},
		{"another net is another violation",
			[]kicadcli.Violation{func() kicadcli.Violation {
				v := drcClear(10, 10, "1.0607", "0.4528", "1 [3V3]", "t1")
				v.Items[0].Description = "Track [KEY_DAH] on F.Cu, length 1.0607 mm"
				return v
			}()}, []kicadcli.Violation{a}, []string{"new"}, false},
		{"3 identical at the baseline, 4 now: the one farthest from them is new",
			[]kicadcli.Violation{drcClear(0, 0, "1", "0.4", "1 [3V3]", "x"), drcClear(10, 0, "1", "0.4", "1 [3V3]", "x"),
				drcClear(50, 50, "1", "0.4", "1 [3V3]", "x"), drcClear(20, 0, "1", "0.4", "1 [3V3]", "x")},
			[]kicadcli.Violation{drcClear(0, 0, "1", "0.4", "1 [3V3]", "x"), drcClear(10, 0, "1", "0.4", "1 [3V3]", "x"),
				drcClear(20, 0, "1", "0.4", "1 [3V3]", "x")},
			[]string{"existing", "existing", "new", "existing"}, false},
		{"4 at the baseline, 3 now: all existing",
			[]kicadcli.Violation{a, a, a}, []kicadcli.Violation{a, a, a, a}, []string{"existing", "existing", "existing"}, true},
		{"a baseline violation is paired once",
			[]kicadcli.Violation{a, a}, []kicadcli.Violation{a}, []string{"existing", "new"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := &Result{DRC: ToolGate{Violations: slices.Clone(tt.cur)}, ERC: ToolGate{OK: true}, OpenSpec: OpenSpecGate{OK: true}, Sourcing: SourcingGate{OK: true}}
			base := &Result{DRC: ToolGate{Violations: tt.base}}
			ApplyBaseline(cur, base, BaselineInfo{Rev: "HEAD", Commit: "abc"}, kicadcli.SeverityError)
			if got := states(cur.DRC.Violations); !slices.Equal(got, tt.want) {
				t.Errorf("states = %v, want %v", got, tt.want)
			}
			if cur.DRC.OK != tt.ok || cur.OK != tt.ok {
				t.Errorf("DRC.OK = %v, OK = %v, want %v", cur.DRC.OK, cur.OK, tt.ok)
			}
			if cur.Baseline == nil || cur.Baseline.Rev != "HEAD" || cur.Baseline.Commit != "abc" {
				t.Errorf("Baseline = %+v", cur.Baseline)
			}
		})
	}
}

// TestApplyBaselineSheetsAndGroups: an ERC violation prefers its own sheet
// when identical ones sit on two sheets, and groups never match each other.
func TestApplyBaselineSheetsAndGroups(t *testing.T) {
	cur := &Result{ERC: ToolGate{Violations: []kicadcli.Violation{pinNC("/B/", "7", 0, 0), pinNC("/A/", "7", 0, 0)}}}
	base := &Result{ERC: ToolGate{Violations: []kicadcli.Violation{pinNC("/A/", "7", 90, 90)}}}
	ApplyBaseline(cur, base, BaselineInfo{}, kicadcli.SeverityError)
	if got := states(cur.ERC.Violations); !slices.Equal(got, []string{"new", "existing"}) {
		t.Errorf("sheets: states = %v, want [new existing]", got)
	}

	v := drcClear(1, 1, "1", "0.4", "1 [3V3]", "t")
	cur = &Result{DRC: ToolGate{Parity: []kicadcli.Violation{v}, Unconnected: []kicadcli.Violation{v}}}
	base = &Result{DRC: ToolGate{Violations: []kicadcli.Violation{v}, Unconnected: []kicadcli.Violation{v}}}
	ApplyBaseline(cur, base, BaselineInfo{}, kicadcli.SeverityError)
	if p, u := states(cur.DRC.Parity), states(cur.DRC.Unconnected); !slices.Equal(p, []string{"new"}) || !slices.Equal(u, []string{"existing"}) {
		t.Errorf("groups: parity %v, unconnected %v; want [new], [existing]", p, u)
	}
	if cur.DRC.OK {
		t.Error("a new parity error must fail DRC")
	}
}

// TestApplyBaselineSeverityBar: a new warning fails only under --strict; an
// existing error never fails; a skipped gate stays as it was.
func TestApplyBaselineSeverityBar(t *testing.T) {
	warn := pinNC("/", "3", 0, 0)
	warn.Severity = kicadcli.SeverityWarning
	err := pinNC("/", "4", 0, 0)
	for _, tt := range []struct {
		name string
		bar  kicadcli.Severity
		ok   bool
	}{{"default bar", kicadcli.SeverityError, true}, {"strict", kicadcli.SeverityWarning, false}} {
		t.Run(tt.name, func(t *testing.T) {
			cur := &Result{ERC: ToolGate{Violations: []kicadcli.Violation{err, warn}}, DRC: ToolGate{OK: true, Skipped: "no board"}}
			base := &Result{ERC: ToolGate{Violations: []kicadcli.Violation{err}}}
			ApplyBaseline(cur, base, BaselineInfo{}, tt.bar)
			if cur.ERC.OK != tt.ok {
				t.Errorf("ERC.OK = %v, want %v (states %v)", cur.ERC.OK, tt.ok, states(cur.ERC.Violations))
			}
			if !cur.DRC.OK || cur.DRC.Skipped == "" {
				t.Errorf("skipped DRC changed: %+v", cur.DRC)
			}
			if n, old := cur.ERC.BaselineCounts(); n != 1 || old != 1 {
				t.Errorf("BaselineCounts = %d new, %d existing; want 1, 1", n, old)
			}
		})
	}
}

// TestApplyBaselineDocsAndConstraints: drift and constraint findings are
// matched too; sourcing and OpenSpec failures are never excused.
func TestApplyBaselineDocsAndConstraints(t *testing.T) {
	m1 := design.Mismatch{Doc: "docs/BOM.md", Kind: design.MismatchKind("value"), Refdes: "R1", Field: "value", Claim: "10k", Actual: "4k7", Message: "R1 value"}
	m2 := design.Mismatch{Doc: "docs/BOM.md", Kind: design.MismatchKind("value"), Refdes: "R2", Field: "value", Claim: "1k", Actual: "2k", Message: "R2 value"}
	c1 := design.ConstraintViolation{Key: "GPIO0", Kind: design.ViolationForbiddenPin, Message: "U1 GPIO0 is used by net BOOT", Source: "datasheet"}
	tests := []struct {
		name            string
		cur, base       *Result
		drift, cons, ok bool
	}{
		{"all existing",
			&Result{Drift: DriftGate{Mismatches: []design.Mismatch{m1}}, Constraints: ConstraintsGate{Violations: []design.ConstraintViolation{c1}}, OpenSpec: OpenSpecGate{OK: true}, Sourcing: SourcingGate{OK: true}},
			&Result{Drift: DriftGate{Mismatches: []design.Mismatch{m1}}, Constraints: ConstraintsGate{Violations: []design.ConstraintViolation{c1}}},
			true, true, true},
		{"a new mismatch",
			&Result{Drift: DriftGate{Mismatches: []design.Mismatch{m1, m2}}, OpenSpec: OpenSpecGate{OK: true}, Sourcing: SourcingGate{OK: true}},
			&Result{Drift: DriftGate{Mismatches: []design.Mismatch{m1}}},
			false, true, false},
		{"a new constraint violation",
			&Result{Constraints: ConstraintsGate{Violations: []design.ConstraintViolation{c1}}, OpenSpec: OpenSpecGate{OK: true}, Sourcing: SourcingGate{OK: true}},
			&Result{},
			true, false, false},
		{"sourcing failure stays a failure",
			&Result{OpenSpec: OpenSpecGate{OK: true}, Sourcing: SourcingGate{OK: false}},
			&Result{Sourcing: SourcingGate{OK: false}},
			true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cur.ERC.OK, tt.cur.DRC.OK = true, true
			ApplyBaseline(tt.cur, tt.base, BaselineInfo{}, kicadcli.SeverityError)
			if tt.cur.Drift.OK != tt.drift || tt.cur.Constraints.OK != tt.cons || tt.cur.OK != tt.ok {
				t.Errorf("drift %v constraints %v ok %v; want %v %v %v", tt.cur.Drift.OK, tt.cur.Constraints.OK, tt.cur.OK, tt.drift, tt.cons, tt.ok)
			}
			for _, m := range tt.cur.Drift.Mismatches {
				if m.BaselineState == "" {
					t.Errorf("mismatch %s has no baseline state", m.Refdes)
				}
			}
		})
	}
}

func TestNormText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Track [KEY_DIT] on F.Cu, length 1.0607 mm", "Track [KEY_DIT] on F.Cu, length #"},
		{"Clearance violation (rule 'big' clearance 0.5000 mm; actual 0.4528 mm)", "Clearance violation (rule 'big' clearance #; actual #)"},
		{"Pad 2 [GND] of C3 on F.Cu", "Pad 2 [GND] of C3 on F.Cu"},
		{"Via [3V3] on F.Cu - B.Cu", "Via [3V3] on F.Cu - B.Cu"},
		{"width 12 mil,   angle 45°", "width #, angle #"},
	} {
		if got := normText(tt.in); got != tt.want {
			t.Errorf("normText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if !strings.Contains(ViolationKey(pinNC("/", "7", 0, 0)), "Pin 7") {
		t.Error("ViolationKey drops the pin")
	}
}

// TestApplyBaselineBoardUnchanged: with the board's bytes as at the
// revision, a DRC violation KiCad reports only now (its DRC omits one of
// several clearances between the same items now and then) is existing; a
// parity issue, which follows the schematic, is still new.
func TestApplyBaselineBoardUnchanged(t *testing.T) {
	a := drcClear(10, 10, "1", "0.4", "1 [3V3]", "t1")
	b := drcClear(20, 10, "2", "0.3", "2 [KEY_DIT]", "t2")
	for _, tt := range []struct {
		same   bool
		want   []string
		parity string
		ok     bool
	}{
		{false, []string{"existing", "new"}, "new", false},
		{true, []string{"existing", "existing"}, "new", true},
	} {
		parity := pinNC("", "9", 0, 0)
		parity.Severity = kicadcli.SeverityWarning
		cur := &Result{DRC: ToolGate{Violations: []kicadcli.Violation{a, b}, Parity: []kicadcli.Violation{parity}}}
		base := &Result{DRC: ToolGate{Violations: []kicadcli.Violation{a}}}
		ApplyBaseline(cur, base, BaselineInfo{BoardUnchanged: tt.same}, kicadcli.SeverityError)
		if got := states(cur.DRC.Violations); !slices.Equal(got, tt.want) || cur.DRC.Parity[0].BaselineState != tt.parity || cur.DRC.OK != tt.ok {
			t.Errorf("BoardUnchanged %v: violations %v parity %s ok %v; want %v %s %v", tt.same, got, cur.DRC.Parity[0].BaselineState, cur.DRC.OK, tt.want, tt.parity, tt.ok)
		}
	}
}
