package kicadcli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/kicad"
)

// The testdata reports are real kicad-cli 9.0.8 output:
//   - erc_pic_programmer.json: the pic_programmer demo, whole.
//   - erc_vme_wren_sample.json: a few violations of the vme-wren demo's
//     3261, chosen to cover errors, warnings and library noise on 3 sheets.
//   - drc_pic_programmer_unrouted.json: pic_programmer with 3 track segments
//     deleted (unconnected items, dangling tracks), parity trimmed to 3, one
//     violation excluded in the .kicad_pro, and sections reversed to
//     stand in for DRC's run-to-run order.

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseERC(t *testing.T) {
	type summary struct {
		severity Severity
		typ      string
		sheet    string
		pos      kicad.Point
	}
	tests := []struct {
		file        string
		violations  []summary
		environment []summary
		counts      Counts
		failed      bool
		failedWarn  bool
	}{
		{
			file: "erc_pic_programmer.json",
			// J1 is placed at (31.75 91.44) in pic_programmer.kicad_sch; kicad-cli says (0.3175, 0.9144).
			environment: []summary{{SeverityWarning, "footprint_link_issues", "/", kicad.Point{X: 31.75, Y: 91.44}}},
			counts:      Counts{Environment: 1},
		},
		{
			file: "erc_vme_wren_sample.json",
			violations: []summary{
				{SeverityError, "pin_to_pin", "/ddr4-ps/", kicad.Point{X: 368.3, Y: 114.3}},
				{SeverityError, "power_pin_not_driven", "/", kicad.Point{X: 262.89, Y: 33.02}},
				{SeverityWarning, "pin_to_pin", "/fpga/fpga-config/", kicad.Point{X: 290.83, Y: 156.21}},
				{SeverityWarning, "unconnected_wire_endpoint", "/", kicad.Point{X: 196.85, Y: 38.1}},
			},
			environment: []summary{
				{SeverityWarning, "footprint_link_issues", "/", kicad.Point{X: 26.67, Y: 242.57}},
				{SeverityWarning, "lib_symbol_issues", "/", kicad.Point{X: 26.67, Y: 242.57}},
				{SeverityWarning, "lib_symbol_mismatch", "/", kicad.Point{X: 260.35, Y: 85.09}},
			},
			counts:     Counts{Errors: 2, Warnings: 2, Environment: 3},
			failed:     true,
			failedWarn: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			r, err := parseERC(readTestdata(t, tc.file), "hw/x.kicad_sch")
			if err != nil {
				t.Fatal(err)
			}
			sum := func(vs []Violation) []summary {
				var out []summary
				for _, v := range vs {
					out = append(out, summary{v.Severity, v.Type, v.Sheet, v.Pos})
				}
				return out
			}
			if got := sum(r.Violations); !reflect.DeepEqual(got, tc.violations) {
				t.Errorf("violations:\n got %v\nwant %v", got, tc.violations)
			}
			if got := sum(r.Environment); !reflect.DeepEqual(got, tc.environment) {
				t.Errorf("environment:\n got %v\nwant %v", got, tc.environment)
			}
			if got := r.Counts(); got != tc.counts {
				t.Errorf("Counts() = %+v, want %+v", got, tc.counts)
			}
			if r.Failed() != tc.failed || r.FailedAt(SeverityWarning) != tc.failedWarn {
				t.Errorf("Failed() = %v, FailedAt(warning) = %v; want %v, %v",
					r.Failed(), r.FailedAt(SeverityWarning), tc.failed, tc.failedWarn)
			}
			if r.Tool != "erc" || r.Source != "hw/x.kicad_sch" || r.KiCadVersion != "9.0.8" {
				t.Errorf("header = %q %q %q", r.Tool, r.Source, r.KiCadVersion)
			}
		})
	}
}

func TestParseDRC(t *testing.T) {
	r, err := parseDRC(readTestdata(t, "drc_pic_programmer_unrouted.json"), "x.kicad_pcb")
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string][]Violation{
		"violations": r.Violations, "unconnected": r.Unconnected, "parity": r.Parity,
		"environment": r.Environment, "excluded": r.Excluded,
	}
	want := map[string]int{"violations": 5, "unconnected": 3, "parity": 3, "environment": 1, "excluded": 1}
	for name, n := range want {
		if len(groups[name]) != n {
			t.Errorf("%s: %d violations, want %d", name, len(groups[name]), n)
		}
	}
	for _, v := range r.Violations {
		if v.Type != "track_dangling" || v.Sheet != "" {
			t.Errorf("violation %+v, want only track_dangling without a sheet", v)
		}
	}
	if ex := r.Excluded[0]; ex.Type != "lib_footprint_mismatch" || ex.Pos != (kicad.Point{X: 148.082, Y: 97.79}) {
		t.Errorf("excluded = %+v", ex)
	}
	if got, want := r.Counts(), (Counts{Errors: 3, Warnings: 8, Environment: 1, Excluded: 1}); got != want {
		t.Errorf("Counts() = %+v, want %+v", got, want)
	}
	if !r.Failed() {
		t.Error("unconnected items of severity error must fail a check")
	}
	// Sorted within each group: by position for same-type unconnected items.
	for i := 1; i < len(r.Unconnected); i++ {
		if compareViolations(r.Unconnected[i-1], r.Unconnected[i]) > 0 {
			t.Errorf("unconnected not sorted at %d", i)
		}
	}
}

// TestReportDeterministic: KiCad's DRC order varies between runs; the
// normalized report must not.
func TestReportDeterministic(t *testing.T) {
	data := readTestdata(t, "drc_pic_programmer_unrouted.json")
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"violations", "unconnected_items", "schematic_parity"} {
		s := raw[k].([]any)
		for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
			s[i], s[j] = s[j], s[i]
		}
	}
	shuffled, _ := json.Marshal(raw)
	a, err := parseDRC(data, "x.kicad_pcb")
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseDRC(shuffled, "x.kicad_pcb")
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("report depends on kicad-cli's order:\n%s\n%s", ja, jb)
	}
}

func TestReportJSONShape(t *testing.T) {
	r, err := parseERC(readTestdata(t, "erc_pic_programmer.json"), "x.kicad_sch")
	if err != nil {
		t.Fatal(err)
	}
	r.Cached = true
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"tool":"erc","source":"x.kicad_sch","kicad_version":"9.0.8","violations":[],"unconnected":[],"parity":[],` +
		`"environment":[{"severity":"warning","type":"footprint_link_issues",` +
		`"description":"Footprint 'DSUB-9_Female_Horizontal_P2.77x2.84mm_EdgePinOffset7.70mm_Housed_MountingHolesOffset9.12mm' not found in library 'Connector_Dsub'.",` +
		`"sheet":"/","pos_mm":{"x":31.75,"y":91.44},` +
		`"items":[{"description":"Symbol J1 [DB9]","uuid":"00000000-0000-0000-0000-0000442a4c93","pos_mm":{"x":31.75,"y":91.44}}]}],` +
		`"excluded":[]}`
	if string(data) != want {
		t.Errorf("JSON:\n got %s\nwant %s", data, want)
	}
}

func TestParseReportErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
		parse            func([]byte, string) (*Report, error)
	}{
		{"truncated ERC", `{"sheets": [`, "read ERC report: unexpected end of JSON input", parseERC},
		{"inches", `{"coordinate_units": "in", "violations": []}`, `coordinate_units is "in", want "mm"`, parseDRC},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.parse([]byte(tc.data), "x")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestFailedAt(t *testing.T) {
	warn := Violation{Severity: SeverityWarning, Type: "silk_overlap"}
	errV := Violation{Severity: SeverityError, Type: "clearance"}
	info := Violation{Severity: "info", Type: "x"}
	tests := []struct {
		name             string
		r                Report
		failed, failWarn bool
	}{
		{"empty", Report{}, false, false},
		{"warning only", Report{Violations: []Violation{warn}}, false, true},
		{"parity error", Report{Parity: []Violation{errV}}, true, true},
		{"info never fails", Report{Violations: []Violation{info}}, false, false},
		{"environment error never fails", Report{Environment: []Violation{errV}}, false, false},
		{"excluded error never fails", Report{Excluded: []Violation{errV}}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.Failed(); got != tc.failed {
				t.Errorf("Failed() = %v, want %v", got, tc.failed)
			}
			if got := tc.r.FailedAt(SeverityWarning); got != tc.failWarn {
				t.Errorf("FailedAt(warning) = %v, want %v", got, tc.failWarn)
			}
		})
	}
}

func FuzzParseReport(f *testing.F) {
	for _, name := range []string{"erc_pic_programmer.json", "drc_pic_programmer_unrouted.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, parse := range []func([]byte, string) (*Report, error){parseERC, parseDRC} {
			r, err := parse(data, "x")
			if err == nil && (r == nil || r.Violations == nil || r.Excluded == nil) {
				t.Fatal("report without groups and without an error")
			}
		}
	})
}

// TestPlaceSheets: a violation kicad-cli files under a sheet whose file does
// not declare its main item moves to the instance that does; of a file used
// several times, each report of the same item takes the next instance; a
// violation already on one of its item's instances, or whose item no file
// declares, keeps its sheet; and the report is sorted again.
func TestPlaceSheets(t *testing.T) {
	declared := map[string][]string{
		"label-in-amp": {"/amp/"},
		"label-in-ch":  {"/ch1/", "/ch2/"},
		"pin-on-root":  {"/"},
	}
	v := func(typ, sheet, uuid string, x float64) Violation {
		return Violation{Severity: SeverityError, Type: typ, Sheet: sheet, Pos: kicad.Point{X: x},
			Items: []AffectedItem{{Description: "Label", UUID: uuid, Pos: kicad.Point{X: x}}}}
	}
	r := newReport("erc", "root.kicad_sch", "9.0.8")
	r.Violations = []Violation{
		v("label_dangling", "/", "label-in-amp", 1),
		v("label_dangling", "/", "label-in-ch", 2),
		v("label_dangling", "/", "label-in-ch", 2),
		v("hier_label_mismatch", "/ch2/", "label-in-ch", 3),
		v("pin_not_connected", "/", "pin-on-root", 4),
		v("pin_not_connected", "/", "nowhere", 5),
		{Severity: SeverityError, Type: "bus_entry_needed", Sheet: "/"},
	}
	r.Environment = []Violation{{Severity: SeverityWarning, Type: "lib_symbol_issues", Sheet: "/",
		Items: []AffectedItem{{UUID: "label-in-amp"}}}}
	r.PlaceSheets(func(uuid string) []string { return declared[uuid] })
	var got []string
	for _, x := range r.Violations {
		got = append(got, x.Type+" "+x.Sheet)
	}
	want := []string{
		"bus_entry_needed /",
		"hier_label_mismatch /ch2/",
		"label_dangling /amp/",
		"label_dangling /ch1/",
		"label_dangling /ch2/",
		"pin_not_connected /",
		"pin_not_connected /",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sheets:\n got %q\nwant %q", got, want)
	}
	if r.Environment[0].Sheet != "/amp/" {
		t.Errorf("environment violation on %q, want /amp/", r.Environment[0].Sheet)
	}
}

// TestBreakdown: the gate line's counts never read as adding to one
// another: unconnected items and parity issues are named inside the
// severity count that holds them.
func TestBreakdown(t *testing.T) {
	v := func(sev Severity, n int) []Violation {
		out := make([]Violation, n)
		for i := range out {
			out[i].Severity = sev
		}
		return out
	}
	tests := []struct {
		name                     string
		violations, uncon, parit []Violation
		want                     string
	}{
		{"none", nil, nil, nil, ""},
		{"violations only", slices.Concat(v(SeverityError, 1), v(SeverityWarning, 2)), nil, nil, "1 error, 2 warnings"},
		{"parity and unconnected inside the warnings", v(SeverityWarning, 11), v(SeverityWarning, 2), v(SeverityWarning, 5),
			"18 warnings (2 unconnected, 5 parity)"},
		{"each group under its severity", v(SeverityWarning, 13), v(SeverityError, 2), slices.Concat(v(SeverityError, 1), v(SeverityWarning, 5)),
			"3 errors (2 unconnected, 1 parity), 18 warnings (5 parity)"},
		{"parity only", nil, nil, v(SeverityWarning, 1), "1 warning (1 parity)"},
		{"other severities last", v("info", 1), nil, v(SeverityError, 1), "1 error (1 parity), 1 info"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Breakdown(tc.violations, tc.uncon, tc.parit); got != tc.want {
				t.Errorf("Breakdown = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestBreakdownAgreesWithCounts: on kicad-cli's own DRC report, the words
// carry Counts' error and warning numbers.
func TestBreakdownAgreesWithCounts(t *testing.T) {
	r, err := parseDRC(readTestdata(t, "drc_pic_programmer_unrouted.json"), "x.kicad_pcb")
	if err != nil {
		t.Fatal(err)
	}
	c := r.Counts()
	got := Breakdown(r.Violations, r.Unconnected, r.Parity)
	for _, want := range []string{fmt.Sprintf("%d error", c.Errors), fmt.Sprintf("%d warning", c.Warnings)} {
		if !strings.Contains(got, want) {
			t.Errorf("Breakdown = %q, lacks %q (Counts %+v)", got, want, c)
		}
	}
	if len(r.Unconnected) == 0 || len(r.Parity) == 0 || !strings.Contains(got, "unconnected") || !strings.Contains(got, "parity") {
		t.Errorf("Breakdown = %q for %d unconnected, %d parity", got, len(r.Unconnected), len(r.Parity))
	}
	t.Log(got)
}
