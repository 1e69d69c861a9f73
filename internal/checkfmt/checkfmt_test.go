package checkfmt

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/openspec"
	"copperhead/internal/verify"
)

// project writes a minimal repository: a root sheet and a sub-sheet holding
// known UUIDs, a board, a BOM.
func project(t *testing.T) Project {
	t.Helper()
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("hw/top.kicad_sch", "(kicad_sch\n  (uuid \"0a1b2c3d-0000-4000-8000-000000000010\")\n  (symbol\n    (uuid \"0a1b2c3d-0000-4000-8000-000000000001\")\n  )\n)\n")
	write("hw/power.kicad_sch", "(kicad_sch\n  (uuid \"0a1b2c3d-0000-4000-8000-000000000011\")\n\n  (symbol\n    (uuid \"0a1b2c3d-0000-4000-8000-000000000002\")\n  )\n)\n")
	write("hw/top.kicad_pcb", "(kicad_pcb\n  (segment\n    (uuid \"0a1b2c3d-0000-4000-8000-000000000003\")\n  )\n)\n")
	write("docs/BOM.md", "# BOM\n\n| Refdes | Value |\n| --- | --- |\n| R1, R2 | 10k |\n| U2 | LDO |\n")
	write(".copperhead/constraints.json", "{}\n")
	return Project{
		Repo: dir, Schematic: filepath.Join(dir, "hw/top.kicad_sch"), Board: filepath.Join(dir, "hw/top.kicad_pcb"),
		Sheets: []kicad.SheetInstance{{Path: "/", File: "top.kicad_sch"}, {Path: "/Power/", Name: "Power", File: "power.kicad_sch"}},
		Config: config.DefaultConfig(), Version: "v1.2.3",
	}
}

func viol(sev kicadcli.Severity, typ, desc, sheet, uuid string, x float64, state string) kicadcli.Violation {
	return kicadcli.Violation{Severity: sev, Type: typ, Description: desc, Sheet: sheet, Pos: kicad.Point{X: x, Y: 2},
		Items: []kicadcli.AffectedItem{{Description: "Symbol U2 Pin 1", UUID: uuid, Pos: kicad.Point{X: x, Y: 2}}}, BaselineState: state}
}

// result has a finding of every kind; with baseline states when based.
func result(based bool) *verify.Result {
	st := func(s string) string {
		if based {
			return s
		}
		return ""
	}
	r := &verify.Result{
		ERC: verify.ToolGate{Violations: []kicadcli.Violation{
			viol(kicadcli.SeverityError, "pin_not_connected", "Pin not connected", "/Power/", "0a1b2c3d-0000-4000-8000-000000000002", 1, st("new")),
			viol(kicadcli.SeverityWarning, "lib_symbol_mismatch", "Symbol differs", "/", "0a1b2c3d-0000-4000-8000-000000000001", 2, st("existing")),
		}},
		DRC: verify.ToolGate{
			Violations: []kicadcli.Violation{
				viol(kicadcli.SeverityError, "clearance", "Clearance violation (rule 'big' clearance 0.5 mm; actual 0.4 mm)", "", "0a1b2c3d-0000-4000-8000-000000000003", 3, st("existing")),
				viol(kicadcli.SeverityError, "clearance", "Clearance violation (rule 'big' clearance 0.5 mm; actual 0.4 mm)", "", "0a1b2c3d-0000-4000-8000-000000000003", 3, st("existing")),
			},
			Parity: []kicadcli.Violation{viol(kicadcli.SeverityWarning, "net_conflict", "Pad net (A) doesn't match", "", "nowhere", 4, st("new"))},
		},
		Drift: verify.DriftGate{Mismatches: []design.Mismatch{{Doc: "docs/BOM.md", Kind: "value", Refdes: "R2", Field: "value",
			Claim: "10k", Actual: "4k7", Message: "BOM.md R2 value 10k, schematic 4k7", BaselineState: st("new")}}},
		Constraints: verify.ConstraintsGate{Violations: []design.ConstraintViolation{{Key: "GPIO0", Kind: design.ViolationForbiddenPin,
			Message: "U1 GPIO0 is used", Source: "datasheet p. 12", BaselineState: st("existing")}}},
		Sourcing: verify.SourcingGate{Findings: []design.SourcingFinding{{Refdes: "U2", MPN: "LDO1", Kind: "stale", Severity: design.SeverityWarn, Message: "U2 snapshot is old"}}},
		OpenSpec: verify.OpenSpecGate{Issues: []openspec.Issue{{Item: "power", Type: "spec", Level: "ERROR", Message: "no scenario"}}},
	}
	if based {
		r.Baseline = &verify.BaselineInfo{Rev: "HEAD", Commit: strings.Repeat("a", 40)}
	}
	return r
}

type sarifDoc struct {
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Version string `json:"version"`
				Rules   []struct {
					ID               string            `json:"id"`
					ShortDescription map[string]string `json:"shortDescription"`
					FullDescription  map[string]string `json:"fullDescription"`
					HelpURI          string            `json:"helpUri"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string            `json:"ruleId"`
			RuleIndex int               `json:"ruleIndex"`
			Level     string            `json:"level"`
			Message   map[string]string `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region *struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			BaselineState       string            `json:"baselineState"`
			Properties          map[string]any    `json:"properties"`
		} `json:"results"`
	} `json:"runs"`
}

func render(t *testing.T, r *verify.Result, p Project) (sarifDoc, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := SARIF(&b, r, p); err != nil {
		t.Fatal(err)
	}
	var doc sarifDoc
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("SARIF is not JSON: %v", err)
	}
	return doc, b.Bytes()
}

func TestSARIFResults(t *testing.T) {
	p := project(t)
	doc, _ := render(t, result(true), p)
	if doc.Version != "2.1.0" || len(doc.Runs) != 1 {
		t.Fatalf("version %q, %d runs", doc.Version, len(doc.Runs))
	}
	run := doc.Runs[0]
	if run.Tool.Driver.Version != "1.2.3" {
		t.Errorf("driver version %q, want 1.2.3", run.Tool.Driver.Version)
	}
	type want struct {
		rule, level, uri string
		line             int
		state            string
	}
	wants := []want{
		{"erc/pin_not_connected", "error", "hw/power.kicad_sch", 5, "new"},         // the sub-sheet, the line of its UUID
		{"erc/lib_symbol_mismatch", "warning", "hw/top.kicad_sch", 4, "unchanged"}, // root sheet
		{"drc/clearance", "error", "hw/top.kicad_pcb", 3, "unchanged"},
		{"drc/clearance", "error", "hw/top.kicad_pcb", 3, "unchanged"},
		{"drc/net_conflict", "warning", "hw/top.kicad_pcb", 0, "new"}, // UUID not in the file: no region
		{"drift/value", "error", "docs/BOM.md", 5, "new"},             // the row naming R2
		{"constraints/forbidden_pin", "error", ".copperhead/constraints.json", 0, "unchanged"},
		{"sourcing/stale", "warning", ".copperhead/constraints.json", 0, ""},
		{"openspec/spec", "error", "", 0, ""},
	}
	if len(run.Results) != len(wants) {
		t.Fatalf("%d results, want %d", len(run.Results), len(wants))
	}
	prints := map[string]bool{}
	for i, w := range wants {
		res := run.Results[i]
		uri, line := "", 0
		if len(res.Locations) > 0 {
			uri = res.Locations[0].PhysicalLocation.ArtifactLocation.URI
			if reg := res.Locations[0].PhysicalLocation.Region; reg != nil {
				line = reg.StartLine
			}
		}
		if res.RuleID != w.rule || res.Level != w.level || uri != w.uri || line != w.line || res.BaselineState != w.state {
			t.Errorf("result %d = %s %s %s:%d %q; want %s %s %s:%d %q", i, res.RuleID, res.Level, uri, line, res.BaselineState,
				w.rule, w.level, w.uri, w.line, w.state)
		}
		if run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %d: ruleIndex %d is rule %s", i, res.RuleIndex, run.Tool.Driver.Rules[res.RuleIndex].ID)
		}
		fp := res.PartialFingerprints["copperhead/v1"]
		if fp == "" || prints[fp] {
			t.Errorf("result %d: fingerprint %q empty or not unique", i, fp)
		}
		prints[fp] = true
		if res.Message["text"] == "" {
			t.Errorf("result %d has no message", i)
		}
	}
	if pos, ok := run.Results[0].Properties["kicadPosition"].(map[string]any); !ok || pos["x_mm"] != 1.0 || pos["y_mm"] != 2.0 {
		t.Errorf("kicadPosition = %v", run.Results[0].Properties["kicadPosition"])
	}
	if got := run.Results[0].Properties["sheet"]; got != "/Power/" {
		t.Errorf("sheet = %v", got)
	}
	// One rule per kind, each with help text; KiCad's rules link its docs.
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
		if r.ShortDescription["text"] == "" || r.FullDescription["text"] == "" {
			t.Errorf("rule %s lacks help text", r.ID)
		}
		if strings.HasPrefix(r.ID, "erc/") || strings.HasPrefix(r.ID, "drc/") {
			if !strings.HasPrefix(r.HelpURI, "https://docs.kicad.org/") {
				t.Errorf("rule %s helpUri %q", r.ID, r.HelpURI)
			}
		}
	}
	wantIDs := []string{"erc/pin_not_connected", "erc/lib_symbol_mismatch", "drc/clearance", "drc/net_conflict", "drift/value",
		"constraints/forbidden_pin", "sourcing/stale", "openspec/spec"}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("rules %v, want %v", ids, wantIDs)
	}
	if run.Tool.Driver.Rules[2].ShortDescription["text"] != "Clearance violation" {
		t.Errorf("clearance short description %q", run.Tool.Driver.Rules[2].ShortDescription["text"])
	}
}

// TestSARIFStable: the same findings give the same bytes, and the
// fingerprints survive a move (new positions, new track lengths).
func TestSARIFStable(t *testing.T) {
	p := project(t)
	_, a := render(t, result(false), p)
	_, b := render(t, result(false), p)
	if !bytes.Equal(a, b) {
		t.Error("two renderings differ")
	}
	moved := result(false)
	for i := range moved.DRC.Violations {
		moved.DRC.Violations[i].Pos.X += 40
		moved.DRC.Violations[i].Description = "Clearance violation (rule 'big' clearance 0.5 mm; actual 0.1 mm)"
	}
	d1, _ := render(t, result(false), p)
	d2, _ := render(t, moved, p)
	for i := range d1.Runs[0].Results {
		if d1.Runs[0].Results[i].PartialFingerprints["copperhead/v1"] != d2.Runs[0].Results[i].PartialFingerprints["copperhead/v1"] {
			t.Errorf("result %d (%s): fingerprint changed with the move", i, d1.Runs[0].Results[i].RuleID)
		}
		if d1.Runs[0].Results[i].BaselineState != "" {
			t.Errorf("result %d has a baselineState without a baseline", i)
		}
	}
}

// TestSARIFValidator runs the official validator (npm
// @microsoft/sarif-multitool, installed by scripts/setup.sh) on a log with
// every kind of finding. It first shows the validator rejects a broken log
// here, so that a silent validator cannot pass the real one.
func TestSARIFValidator(t *testing.T) {
	tool, err := exec.LookPath("sarif-multitool")
	if err != nil {
		t.Skip("sarif-multitool is not installed (scripts/setup.sh installs @microsoft/sarif-multitool 5.7.0)")
	}
	dir := t.TempDir()
	validate := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(tool, "validate", p).CombinedOutput()
		if err != nil {
			t.Fatalf("sarif-multitool validate %s: %v\n%s", name, err, out)
		}
		return string(out)
	}
	if out := validate("broken.sarif", []byte(`{"version": "2.1.0", "runs": [{"results": []}]}`)); !strings.Contains(out, ": error ") {
		t.Fatalf("the validator accepts a run without a tool:\n%s", out)
	}
	if out := validate("bare.sarif", []byte(`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x", "rules": []}}, "results": []}]}`)); !slices.Contains(validatorWarnings(out), "SARIF2005") {
		t.Fatalf("the validator does not warn on a driver without informationUri, so the warning check below proves nothing:\n%s", out)
	}
	p := project(t)
	defer func(uri string) { InformationURI = uri }(InformationURI)
	for _, tc := range []struct {
		based bool
		uri   string
	}{{false, "https://github.com/example/copperhead"}, {true, "https://github.com/example/copperhead"}, {false, ""}} {
		based := tc.based
		InformationURI = tc.uri
		_, data := render(t, result(based), p)
		if got := strings.Contains(string(data), `"informationUri"`); got != (tc.uri != "") {
			t.Errorf("informationUri %q: in the SARIF %v", tc.uri, got)
		}
		out := validate("check.sarif", data)
		if strings.Contains(out, ": error ") || !strings.Contains(out, "Analysis completed successfully") {
			t.Errorf("baseline %v: the validator rejects check's SARIF:\n%s", based, out)
		}
		// Its warnings (SARIF2005: no tool.driver.informationUri, ...) are
		// its advice on what a consumer needs: none may stand but those
		// tolerated, each with its reason.
		w := validatorWarnings(out)
		if tc.uri == "" {
			// A build that does not know where it came from leaves the
			// address out: that one warning stands, and only it.
			w = slices.DeleteFunc(w, func(id string) bool { return id == "SARIF2005" })
		}
		if len(w) > 0 {
			t.Errorf("baseline %v, informationUri %q: the validator warns on check's SARIF: %v\n%s", based, tc.uri, w, out)
		}
	}
}

// toleratedWarnings are the validator's warnings check's SARIF may carry.
var toleratedWarnings = map[string]string{
	// A whole-file finding (a BOM.md row gone from the schematic, a
	// constraint on constraints.json) points at its file with no region:
	// inventing a line range would send the reader to the wrong place.
	"SARIF2017": "whole-file locations have no region",
}

var warningRE = regexp.MustCompile(`: warning (SARIF\d+):`)

// validatorWarnings are the rule ids of the warnings in a sarif-multitool
// validate report that toleratedWarnings does not excuse, in order.
func validatorWarnings(out string) []string {
	var ids []string
	for _, m := range warningRE.FindAllStringSubmatch(out, -1) {
		if _, ok := toleratedWarnings[m[1]]; !ok && !slices.Contains(ids, m[1]) {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// TestSARIFEnums checks what the validator does not: every level and
// baselineState is one SARIF 2.1.0 defines (§3.27.10, §3.27.24).
func TestSARIFEnums(t *testing.T) {
	doc, _ := render(t, result(true), project(t))
	for _, r := range doc.Runs[0].Results {
		if !slices.Contains([]string{"none", "note", "warning", "error"}, r.Level) {
			t.Errorf("%s: level %q", r.RuleID, r.Level)
		}
		if r.BaselineState != "" && !slices.Contains([]string{"new", "unchanged", "updated", "absent"}, r.BaselineState) {
			t.Errorf("%s: baselineState %q", r.RuleID, r.BaselineState)
		}
	}
}

type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnit(t *testing.T) {
	tests := []struct {
		name   string
		r      *verify.Result
		strict bool
		// per suite: tests, failures, skipped
		want map[string][3]int
	}{
		{"no baseline: errors fail, warnings pass", result(false), false, map[string][3]int{
			"erc": {2, 1, 0}, "drc": {3, 2, 0}, "drift": {1, 1, 0}, "constraints": {1, 1, 0}, "openspec": {1, 1, 0}, "sourcing": {1, 0, 0}}},
		{"strict: warnings fail too", result(false), true, map[string][3]int{
			"erc": {2, 2, 0}, "drc": {3, 3, 0}, "drift": {1, 1, 0}, "constraints": {1, 1, 0}, "openspec": {1, 1, 0}, "sourcing": {1, 0, 0}}},
		{"baseline: only new findings fail", result(true), false, map[string][3]int{
			"erc": {2, 1, 0}, "drc": {3, 0, 0}, "drift": {1, 1, 0}, "constraints": {1, 0, 0}, "openspec": {1, 1, 0}, "sourcing": {1, 0, 0}}},
		{"clean and skipped gates", &verify.Result{DRC: verify.ToolGate{Skipped: "no board"}, OpenSpec: verify.OpenSpecGate{Skipped: "no openspec/ folder"},
			Sourcing: verify.SourcingGate{Skipped: "research is not enabled"}}, false, map[string][3]int{
			"erc": {1, 0, 0}, "drc": {1, 0, 1}, "drift": {1, 0, 0}, "constraints": {1, 0, 0}, "openspec": {1, 0, 1}, "sourcing": {1, 0, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := JUnit(&b, tt.r, tt.strict); err != nil {
				t.Fatal(err)
			}
			var doc junitDoc
			if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatalf("not XML: %v\n%s", err, b.String())
			}
			got := map[string][3]int{}
			total, failed := 0, 0
			for _, s := range doc.Suites {
				f := 0
				for _, c := range s.Cases {
					if c.Failure != nil {
						f++
					}
				}
				if f != s.Failures || len(s.Cases) != s.Tests {
					t.Errorf("suite %s: attributes tests=%d failures=%d, cases %d failing %d", s.Name, s.Tests, s.Failures, len(s.Cases), f)
				}
				got[s.Name] = [3]int{s.Tests, s.Failures, s.Skipped}
				total += s.Tests
				failed += s.Failures
			}
			if len(got) != len(tt.want) {
				t.Errorf("suites %v, want %v", got, tt.want)
			}
			for name, w := range tt.want {
				if got[name] != w {
					t.Errorf("suite %s = %v, want %v", name, got[name], w)
				}
			}
			if doc.Tests != total || doc.Failures != failed {
				t.Errorf("testsuites tests=%d failures=%d, suites sum to %d, %d", doc.Tests, doc.Failures, total, failed)
			}
		})
	}
}
