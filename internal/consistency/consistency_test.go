package consistency

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"copperhead/internal/circuit"
	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/testkit"
)

// TestMain keeps kicad-cli's config and cache off the user's folders; the
// cache lets every fixture copy reuse one netlist export.
func TestMain(m *testing.M) { testkit.MainWithPrivateKiCad(m, "consistency-test-*") }

var (
	toolOnce sync.Once
	tool     *kicadcli.Tool
	toolErr  error
)

func kicadTool(t *testing.T) *kicadcli.Tool {
	t.Helper()
	toolOnce.Do(func() { tool, toolErr = kicadcli.Find(context.Background()) })
	if toolErr != nil {
		t.Skipf("kicad-cli unavailable: %v", toolErr)
	}
	return tool
}

// fixtureCopy copies examples/open-telegraph into a temporary folder.
func fixtureCopy(t *testing.T) string {
	t.Helper()
	return testkit.CopyFixture(t, "../../examples/open-telegraph")
}

func loadFixture(t *testing.T, repo string) State {
	t.Helper()
	cfg, _, err := config.LoadConfig(repo)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Load(context.Background(), Input{Repo: repo, Config: cfg,
		Schematic: filepath.Join(repo, filepath.FromSlash(cfg.Schematic)), Tool: kicadTool(t)})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func replaceIn(t *testing.T, repo, rel, old, new string) {
	t.Helper()
	p := filepath.Join(repo, filepath.FromSlash(rel))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", rel, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, repo, rel, content string) {
	t.Helper()
	p := filepath.Join(repo, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// addResistor puts a resistor between two nets of a netlist, creating a net
// that does not exist yet.
func addResistor(nl *kicad.Netlist, ref, value, netA, netB string) {
	nl.Components = append(nl.Components, kicad.NetComponent{Refdes: ref, Value: value, LibID: "Device:R"})
	for pin, name := range []string{netA, netB} {
		node := kicad.NetNode{Refdes: ref, Pin: fmt.Sprint(pin + 1), PinType: "passive"}
		found := false
		for i := range nl.Nets {
			if nl.Nets[i].Name == name {
				nl.Nets[i].Nodes = append(nl.Nets[i].Nodes, node)
				found = true
			}
		}
		if !found {
			nl.Nets = append(nl.Nets, kicad.Net{Name: name, Nodes: []kicad.NetNode{node}})
		}
	}
}

// want is what a test asserts about one inconsistency; empty strings are not
// checked, contains are substrings of the whole rendered inconsistency.
type want struct {
	kind       Kind
	doc        string
	subject    string
	resolvable bool
	violation  bool
	contains   []string
}

func TestAnalyzeFixture(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(t *testing.T, repo string)
		netlist func(nl *kicad.Netlist)
		want    []want
	}{
		{name: "clean fixture"},
		{
			name: "BOM value edited",
			edit: func(t *testing.T, repo string) {
				replaceIn(t, repo, "docs/BOM.md", "| R6 | 10k |", "| R6 | 100k |")
			},
			want: []want{{kind: KindDocDrift, doc: "docs/BOM.md", subject: "R6 value", resolvable: true,
				contains: []string{`"claim":"100k"`, `"actual":"10k"`, `in docs/BOM.md set the R6 value to \"10k\", as in the schematic`,
					`"governing":"hardware/open-telegraph.kicad_sch (as built)"`}}},
		},
		{
			name: "constraint only in the registry",
			edit: func(t *testing.T, repo string) {
				replaceIn(t, repo, ".copperhead/constraints.json", "{\n", "{\n  \"rf.antenna_keepout_mm\": {\"min\": 5, \"source\": \"docs/LAYOUT.md#keepouts\", \"affects\": [\"zone:top\"]},\n")
			},
			want: []want{{kind: KindUndocumented, doc: "docs/LAYOUT.md", subject: "rf.antenna_keepout_mm", resolvable: true,
				contains: []string{"under ## Keepouts in docs/LAYOUT.md", "- `rf.antenna_keepout_mm`: at least 5 (source: docs/LAYOUT.md#keepouts)"}}},
		},
		{
			name: "constraint only in a doc",
			edit: func(t *testing.T, repo string) {
				replaceIn(t, repo, "docs/SPEC.md", "- TODO(human): size envelope", "- `mech.max_height_mm`: at most 8 mm over J3 and U1\n- Keep KEY_DIT and KEY_DAH on RTC pins (GPIO4, GPIO5)\n- TODO(human): size envelope")
			},
			want: []want{
				{kind: KindUnregistered, doc: ".copperhead/constraints.json", subject: "mech.max_height_mm", resolvable: true,
					contains: []string{`source \"docs/SPEC.md#constraints\"`, `affects [\"J3\", \"U1\"]`}},
				{kind: KindUnregistered, doc: ".copperhead/constraints.json", subject: "<area>.<name>", resolvable: true,
					contains: []string{`affects [\"KEY_DIT\", \"KEY_DAH\", \"GPIO4\", \"GPIO5\"]`, "start the doc line with that key in backticks"}},
			},
		},
		{
			name: "constraint stated with its key is registered",
			edit: func(t *testing.T, repo string) {
				replaceIn(t, repo, "docs/SPEC.md", "- TODO(human): size envelope", "- `pins.strapping`: must not use GPIO0, GPIO3, GPIO45, GPIO46\n- TODO(human): size envelope")
			},
		},
		{
			name: "budget only in SPEC.md",
			edit: func(t *testing.T, repo string) {
				replaceIn(t, repo, "docs/SPEC.md", "- sleep_current_uA: 25", "- sleep_current_uA: 25\n- battery_life_days: 365 (ASSUMED)")
			},
			want: []want{
				{kind: KindUnregistered, doc: ".copperhead/constraints.json", subject: "battery_life_days", resolvable: true,
					contains: []string{`add the entry \"power.battery_life_days\"`, "max 365"}},
				{kind: KindBudgetMirror, doc: ".copperhead/config.json", subject: "battery_life_days", resolvable: true,
					contains: []string{"add budgets.battery_life_days = 365 to .copperhead/config.json"}},
			},
		},
		{
			name: "registry limit differs from the SPEC.md budget",
			edit: func(t *testing.T, repo string) {
				replaceIn(t, repo, ".copperhead/constraints.json", `"max": 25`, `"max": 30`)
			},
			want: []want{{kind: KindConstraintValue, doc: ".copperhead/constraints.json", subject: "power.sleep_current_uA", resolvable: true,
				contains: []string{`"claim":"max 30"`, `set max of \"power.sleep_current_uA\" to 25`}}},
		},
		{
			name: "config budget differs from SPEC.md",
			edit: func(t *testing.T, repo string) {
				replaceIn(t, repo, ".copperhead/config.json", `"sleep_current_uA": 25`, `"sleep_current_uA": 30`)
			},
			want: []want{{kind: KindBudgetMirror, doc: ".copperhead/config.json", subject: "sleep_current_uA", resolvable: true,
				contains: []string{"set budgets.sleep_current_uA in .copperhead/config.json to 25"}}},
		},
		{
			name: "forbidden pin in use",
			edit: func(t *testing.T, repo string) {
				replaceIn(t, repo, ".copperhead/constraints.json", `"GPIO0"`, `"GPIO5"`)
			},
			want: []want{
				{kind: KindForbiddenPin, doc: ".copperhead/constraints.json", subject: "pins.strapping", violation: true,
					contains: []string{"pins.strapping forbids GPIO5, GPIO3, GPIO45, GPIO46", `U1 pin 5 (IO5) is on net \"KEY_DAH\"`, "source: ESP32-S3 datasheet, strapping pins"}},
				{kind: KindUndocumented, doc: "docs/SPEC.md", subject: "pins.strapping", resolvable: true},
			},
		},
		{
			name: "pins.h disagrees with PINOUT.md",
			edit: func(t *testing.T, repo string) {
				writeFile(t, repo, "firmware/main/pins.h", `#pragma once
// Generated from docs/PINOUT.md.
#define PIN_KEY_DIT 4
#define PIN_KEY_DAH GPIO_NUM_6  // wrong on purpose
#define PIN_LED_R (6)
#define PIN_LED_G 7
#define PIN_LED_B 15
#define PIN_CHG_STAT 16U
#define PIN_BUZZER 12
#define LED_ACTIVE_LOW 1
`)
			},
			want: []want{
				{kind: KindPinHeader, doc: "firmware/main/pins.h", subject: "PIN_BUZZER", resolvable: true,
					contains: []string{"remove the PIN_BUZZER define"}},
				{kind: KindPinHeader, doc: "firmware/main/pins.h", subject: "PIN_KEY_DAH", resolvable: true,
					contains: []string{`"claim":"#define PIN_KEY_DAH GPIO_NUM_6"`, "GPIO5 (docs/PINOUT.md: U1 pin 5 IO5 on KEY_DAH)", `change it to \"#define PIN_KEY_DAH 5\"`}},
			},
		},
		{
			// One walker (pinsh.ReadAll): build output is not the design's
			// header, for sync as for check's drift gate.
			name: "a pins.h under firmware/build is build output, not audited",
			edit: func(t *testing.T, repo string) {
				writeFile(t, repo, "firmware/build/pins.h", "#define PIN_KEY_DIT 9\n#define PIN_BUZZER 12\n")
			},
		},
		{
			// A marker that no longer parses is not copperhead's to check:
			// check's drift gate ignores the header, so sync audits it.
			name: "pins.h with a damaged copperhead marker is audited",
			edit: func(t *testing.T, repo string) {
				writeFile(t, repo, "firmware/main/pins.h", "/* copperhead:pins family=esp32 target=esp32s3 */\n#define PIN_KEY_DIT 4\n#define PIN_KEY_DAH 5\n#define PIN_LED_R 6\n#define PIN_LED_G 7\n#define PIN_LED_B 15\n#define PIN_CHG_STAT 16\n#define PIN_BUZZER 12\n")
			},
			want: []want{
				{kind: KindPinHeader, doc: "firmware/main/pins.h", subject: "PIN_BUZZER", resolvable: true,
					contains: []string{"remove the PIN_BUZZER define"}},
			},
		},
		{
			name: "pins.h that agrees",
			edit: func(t *testing.T, repo string) {
				writeFile(t, repo, "firmware/pins.h", "#define PIN_KEY_DIT 4\n#define PIN_KEY_DAH 5\n#define PIN_LED_R 6\n#define PIN_LED_G 7\n#define PIN_LED_B 15\n#define PIN_CHG_STAT 16\n")
			},
		},
		{
			name: "DECISIONS.md missing",
			edit: func(t *testing.T, repo string) {
				if err := os.Remove(filepath.Join(repo, "docs", "DECISIONS.md")); err != nil {
					t.Fatal(err)
				}
			},
			want: []want{{kind: KindLogMissing, doc: "docs/DECISIONS.md", subject: "DECISIONS.md", resolvable: true}},
		},
		{
			name: "battery-sense divider breaks the sleep budget",
			netlist: func(nl *kicad.Netlist) {
				addResistor(nl, "R11", "47k", "VBAT", "VBAT_SENSE")
				addResistor(nl, "R12", "47k", "VBAT_SENSE", "GND")
			},
			want: []want{{kind: KindBudgetExceeded, doc: "docs/SPEC.md", subject: "sleep_current_uA", violation: true,
				contains: []string{`"claim":"sleep_current_uA ≤ 25 µA"`, "at least 44.681 µA", "R11 47k from VBAT to VBAT_SENSE with R12 47k to ground: 44.681 µA",
					`"governing":"docs/SPEC.md ## Budgets"`}}},
		},
		{
			name: "bleeder across 3V3 breaks the sleep budget",
			netlist: func(nl *kicad.Netlist) {
				addResistor(nl, "R11", "100k", "3V3", "GND")
			},
			want: []want{{kind: KindBudgetExceeded, violation: true, contains: []string{"R11 100k from 3V3 to GND straight to ground: 33 µA"}}},
		},
		{
			// AC-3.4's 100k pull-up on KEY_DAH: 33 µA only while the key is
			// held, nothing while asleep, so no violation in this model.
			name: "100k pull-up on KEY_DAH",
			netlist: func(nl *kicad.Netlist) {
				for i := range nl.Components {
					if nl.Components[i].Refdes == "R7" {
						nl.Components[i].Value = "100k"
					}
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo := fixtureCopy(t)
			if tc.edit != nil {
				tc.edit(t, repo)
			}
			st := loadFixture(t, repo)
			if tc.netlist != nil {
				tc.netlist(st.Netlist)
			}
			r := Analyze(st)
			if len(r.Inconsistencies) != len(tc.want) {
				t.Fatalf("%d inconsistencies, want %d:\n%s", len(r.Inconsistencies), len(tc.want), render(r.Inconsistencies))
			}
			for i, w := range tc.want {
				got := r.Inconsistencies[i]
				if got.Kind != w.kind || (w.doc != "" && got.Doc != w.doc) || (w.subject != "" && got.Subject != w.subject) ||
					got.Resolvable != w.resolvable || got.Violation != w.violation {
					t.Errorf("inconsistency %d = %s\nwant kind %s doc %q subject %q resolvable %v violation %v",
						i, render(r.Inconsistencies[i:i+1]), w.kind, w.doc, w.subject, w.resolvable, w.violation)
				}
				js := render(r.Inconsistencies[i : i+1])
				for _, s := range w.contains {
					if !strings.Contains(js, s) {
						t.Errorf("inconsistency %d lacks %q:\n%s", i, s, js)
					}
				}
				if got.Claim == "" || got.Actual == "" || got.ProposedResolution == "" || got.Governing == "" {
					t.Errorf("inconsistency %d has an empty side: %s", i, js)
				}
				// A resolution sends the person to files: they must exist.
				for _, f := range repoFileRef.FindAllString(got.ProposedResolution, -1) {
					if _, err := os.Stat(filepath.Join(repo, filepath.FromSlash(f))); err != nil && !strings.Contains(got.ProposedResolution, "create "+f) {
						t.Errorf("inconsistency %d's resolution names %s, which does not exist: %s", i, f, got.ProposedResolution)
					}
				}
			}
			if len(tc.want) == 0 && !r.Clean() {
				t.Errorf("not clean")
			}
		})
	}
}

// repoFileRef finds repository paths in prose ("docs/SPEC.md",
// ".copperhead/config.json").
var repoFileRef = regexp.MustCompile(`(?:\.?[A-Za-z0-9_-]+/)+[A-Za-z0-9_.-]+\.(?:md|json|kicad_sch|kicad_pcb)`)

func TestSleepLeakageFixture(t *testing.T) {
	st := loadFixture(t, fixtureCopy(t))
	l := sleepLeakage(st)
	if l.Budget == nil || *l.Budget != 25 || l.BudgetSource != "docs/SPEC.md ## Budgets" {
		t.Errorf("budget %v from %q, want 25 from SPEC.md", l.Budget, l.BudgetSource)
	}
	if l.IdleUA != 0 || l.HeldUA != 660 {
		t.Errorf("idle %v µA held %v µA, want 0 and 660", l.IdleUA, l.HeldUA)
	}
	got := map[string]circuit.PullUp{}
	for _, p := range l.PullUps {
		got[p.Refdes] = p
	}
	if p := got["R7"]; p.Net != "KEY_DAH" || p.Rail != "3V3" || p.Volts != 3.3 || p.HeldUA != 330 || p.IdleUA != 0 || strings.Join(p.Keys, ",") != "J3.2" {
		t.Errorf("R7 = %+v", p)
	}
	if p := got["R5"]; p.Net != "EN" || p.HeldUA != 0 {
		t.Errorf("R5 = %+v (EN has no key)", p)
	}
	if len(l.PullUps) != 3 {
		t.Errorf("pull-ups %+v, want R5, R6, R7", l.PullUps)
	}
}

func TestResolutionRequest(t *testing.T) {
	r := &Report{Inconsistencies: []Inconsistency{
		{Kind: KindForbiddenPin, Doc: "x", Subject: "pins.forbidden_here", Violation: true},
		{Kind: KindDocDrift, Doc: "docs/BOM.md", Subject: "R6 value", Claim: "100k", Actual: "10k",
			ProposedResolution: "in docs/BOM.md set the R6 value to \"10k\"", Resolvable: true, Governing: "hw"},
	}}
	req := r.ResolutionRequest()
	testkit.ContainsAll(t, "request", req, "KiCad files (.kicad_sch, .kicad_pcb) are ground truth for as-built facts",
		"Inconsistencies to resolve (1):", "1. [doc_drift] docs/BOM.md: R6 value", "   claim: 100k", "   resolution: in docs/BOM.md set")
	if strings.Contains(req, "pins.forbidden_here") {
		t.Errorf("a violation leaked into the request:\n%s", req)
	}
	if (&Report{}).ResolutionRequest() != "" {
		t.Error("empty report has a request")
	}
}

func render(is []Inconsistency) string {
	var b strings.Builder
	for _, i := range is {
		data, _ := json.Marshal(i)
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

// A broken citation is resolvable by editing BOM.md; a sourcing finding is
// flagged for a human, never rewritten and never a requirement violation.
func TestEvidenceInconsistencies(t *testing.T) {
	st := State{
		Citations: []design.Mismatch{{Doc: "docs/BOM.md", Kind: design.MismatchCitation, Refdes: "U3", Field: "citation",
			Claim: ".copperhead/datasheets/X.pdf §7 (p.4)", Actual: "the cited text is not on page 4", Cause: "text_not_on_page"}},
		Sourcing: design.SourcingReport{Findings: []design.SourcingFinding{{Refdes: "U1", MPN: "OLD123", Kind: "lifecycle",
			Severity: design.SeverityFail, Message: "OLD123: lifecycle \"Obsolete\": obsolete"}}},
	}
	r := Analyze(st)
	var cit, src *Inconsistency
	for i := range r.Inconsistencies {
		switch r.Inconsistencies[i].Kind {
		case KindCitation:
			cit = &r.Inconsistencies[i]
		case KindSourcing:
			src = &r.Inconsistencies[i]
		}
	}
	if cit == nil || !cit.Resolvable || cit.Violation || cit.Subject != "U3 citation" {
		t.Errorf("citation inconsistency = %+v, want a resolvable U3 citation", cit)
	}
	if src == nil || src.Resolvable || src.Violation || src.Subject != "sourcing.U1" {
		t.Errorf("sourcing inconsistency = %+v, want one flagged for a human", src)
	}
	if len(r.Violations()) != 0 {
		t.Errorf("violations %v, want none", r.Violations())
	}
}
