package explain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/testkit"
)

func TestMain(m *testing.M) { testkit.MainWithPrivateKiCad(m, "explain-test-*") }

var (
	fixtureOnce sync.Once
	fixture     Input
	fixtureErr  error
)

// loadFixture loads examples/open-telegraph once, with one DECISIONS.md
// entry added so decisions have something to find.
func loadFixture(t *testing.T) Input {
	t.Helper()
	fixtureOnce.Do(func() { fixture, fixtureErr = load(t.TempDir()) })
	if errors.Is(fixtureErr, kicadcli.ErrUnavailable) {
		t.Skipf("kicad-cli unavailable: %v", fixtureErr)
	}
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixture
}

func load(dst string) (Input, error) {
	src, _ := filepath.Abs("../../examples/open-telegraph")
	if err := testkit.CopyTree(dst, src, nil); err != nil {
		return Input{}, err
	}
	dec := filepath.Join(dst, "docs", "DECISIONS.md")
	f, err := os.OpenFile(dec, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return Input{}, err
	}
	fmt.Fprint(f, "\n## 2025-06-01 · 01JTEST · KEY_DAH pull-up stays 10k\n- Why: the paddle cable is long; 10k keeps the edge clean.\n- Affects: R7, KEY_DAH\n")
	f.Close()
	cfg, _, err := config.LoadConfig(dst)
	if err != nil {
		return Input{}, err
	}
	tool, err := kicadcli.Find(context.Background())
	if err != nil {
		return Input{}, err
	}
	sch := filepath.Join(dst, filepath.FromSlash(cfg.Schematic))
	in := Input{Config: cfg}
	if in.Files, err = design.ReadFiles(dst, cfg); err != nil {
		return in, err
	}
	if in.Constraints, err = design.LoadConstraints(dst); err != nil {
		return in, err
	}
	if in.Schematic, err = kicad.LoadSchematic(sch); err != nil {
		return in, err
	}
	in.Netlist, err = tool.Netlist(context.Background(), sch)
	return in, err
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestExplain(t *testing.T) {
	in := loadFixture(t)
	tests := []struct {
		subject string
		kind    Kind
		resolve string // Explanation.Subject
		has     []string
		hasNot  []string
	}{
		{"U1", KindPart, "U1", []string{
			`"value":"ESP32-S3-WROOM-1"`, `"footprint":"RF_Module:ESP32-S3-WROOM-1"`, `"sheet_path":"/"`,
			`"rationale":"TODO: why this part"`,
			`{"pin":"5","name":"IO5","type":"bidirectional","net":"KEY_DAH","notes":"RTC"}`,
			`{"pin":"27","name":"IO0","type":"bidirectional+no_connect","net":"NC","notes":"strapping, RTC"}`,
			`{"key":"pins.strapping","why":"affects U1","limit":"forbidden GPIO0, GPIO3, GPIO45, GPIO46","source":"ESP32-S3 datasheet, strapping pins"}`,
			`{"key":"power.sleep_current_uA","why":"affects U1","limit":"max 25","source":"docs/SPEC.md#budgets"}`,
			`"decisions":[]`,
		}, nil},
		{"u1", KindPart, "U1", nil, nil},
		{"R7", KindPart, "R7", []string{`"value":"10k"`, `"net":"KEY_DAH"`, `"rail":"3V3"`, `"idle_uA":0`, `"held_uA":330`,
			`"affects R7"`, `KEY_DAH pull-up stays 10k`}, nil},
		{"KEY_DAH", KindNet, "KEY_DAH", []string{
			`{"refdes":"C9","pin":"1"`, `{"refdes":"J3","pin":"2"`, `{"refdes":"R7","pin":"2"`, `{"refdes":"U1","pin":"5","pin_function":"IO5"`,
			`"labels":[{"name":"KEY_DAH","kind":"global","sheet_path":"/"`, `"sheets":["/"]`,
			`"pinout_rows":[{"refdes":"U1","pin":"5","name":"IO5","net":"KEY_DAH","type":"bidirectional","notes":"RTC"}]`,
			`"refdes":"R7","value":"10k"`, `"keys":["J3.2"]`, `"held_uA":330`,
			`"heading":"2025-06-01 · 01JTEST · KEY_DAH pull-up stays 10k"`,
		}, []string{"pins.strapping"}},
		{"U1.5", KindPin, "U1.5", []string{`"name":"IO5"`, `"net":"KEY_DAH"`, `"notes":"RTC"`, `"part":"ESP32-S3-WROOM-1"`,
			`"pinout_row":{"refdes":"U1","pin":"5"`, `"same_net":["C9.1","J3.2","R7.2"]`, `"key":"pins.strapping","why":"affects U1"`,
			`KEY_DAH pull-up stays 10k`}, nil},
		{"U1.IO5", KindPin, "U1.5", nil, nil},
		{"GPIO5", KindPin, "U1.5", nil, nil},
		{"IO0", KindPin, "U1.27", []string{`"net":"NC"`, `"notes":"strapping, RTC"`, `"same_net":[]`,
			`"why":"forbids GPIO0 (this pin, which is not connected); affects U1"`}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.subject, func(t *testing.T) {
			e, err := Explain(in, tc.subject)
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind != tc.kind || e.Subject != tc.resolve {
				t.Fatalf("%s resolved to %s %s, want %s %s", tc.subject, e.Kind, e.Subject, tc.kind, tc.resolve)
			}
			js := asJSON(t, e)
			for _, s := range tc.has {
				if !strings.Contains(js, s) {
					t.Errorf("lacks %s\n%s", s, js)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(js, s) {
					t.Errorf("has %s\n%s", s, js)
				}
			}
		})
	}
}

func TestExplainForbiddenPinInUse(t *testing.T) {
	in := loadFixture(t)
	in.Constraints = design.Constraints{"pins.strapping": {Forbidden: []string{"GPIO5"}, Source: "test"}}
	e, err := Explain(in, "KEY_DAH")
	if err != nil {
		t.Fatal(err)
	}
	if js := asJSON(t, e.Constraints); !strings.Contains(js, `"why":"forbids GPIO5 (used here)"`) {
		t.Errorf("constraints %s", js)
	}
}

func TestExplainUnknown(t *testing.T) {
	in := loadFixture(t)
	for subject, want := range map[string]string{
		"U9":      `no part, net or pin named "U9"; close: U1, U2, U3, U4`,
		"KEY_DA":  `no part, net or pin named "KEY_DA"; close: KEY_DAH, KEY_DIT`,
		"U1.99":   `no part, net or pin named "U1.99"`,
		"zzzzzzz": `no part, net or pin named "zzzzzzz"`,
	} {
		_, err := Explain(in, subject)
		var ue *UnknownError
		if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Explain(%q) = %v, want %s", subject, err, want)
		}
	}
}

// loadReused loads internal/kicad/testdata/reused3: bias.kicad_sch used
// three times (inst1..inst3), its local label RBIAS one net per instance,
// its global label VBIAS one net for all.
func loadReused(t *testing.T) Input {
	t.Helper()
	tool, err := kicadcli.Find(context.Background())
	if err != nil {
		t.Skipf("kicad-cli unavailable: %v", err)
	}
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS("../kicad/testdata/reused3")); err != nil {
		t.Fatal(err)
	}
	sch := filepath.Join(dst, "reused3.kicad_sch")
	in := Input{}
	if in.Schematic, err = kicad.LoadSchematic(sch); err != nil {
		t.Fatal(err)
	}
	if in.Netlist, err = tool.Netlist(context.Background(), sch); err != nil {
		t.Fatal(err)
	}
	return in
}

// Issue #12 item 10: explain listed the labels and sheets of all three
// copies of a reused sheet under one net, and a bare RBIAS silently picked
// one of the three nets.
func TestExplainReusedSheetPerInstance(t *testing.T) {
	in := loadReused(t)
	for _, c := range []struct {
		subject, resolve string
		labels           []string // "name kind sheet"
		sheets           []string
		pins             []string
	}{
		{"/inst2/RBIAS", "/inst2/RBIAS", []string{"RBIAS local /inst2/"}, []string{"/inst2/"}, []string{"R201.1", "R202.1"}},
		{"/INST3/rbias", "/inst3/RBIAS", []string{"RBIAS local /inst3/"}, []string{"/inst3/"}, []string{"R301.1", "R302.1"}},
		{"VBIAS", "VBIAS", []string{"VBIAS global /inst1/", "VBIAS global /inst2/", "VBIAS global /inst3/"},
			[]string{"/inst1/", "/inst2/", "/inst3/"}, []string{"R101.2", "R102.2", "R201.2", "R202.2", "R301.2", "R302.2"}},
	} {
		t.Run(c.subject, func(t *testing.T) {
			e, err := Explain(in, c.subject)
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind != KindNet || e.Subject != c.resolve {
				t.Fatalf("resolved to %s %s, want net %s", e.Kind, e.Subject, c.resolve)
			}
			var labels, pins []string
			for _, l := range e.Net.Labels {
				labels = append(labels, l.Name+" "+string(l.Kind)+" "+l.SheetPath)
			}
			for _, p := range e.Net.Pins {
				pins = append(pins, p.Refdes+"."+p.Pin)
			}
			if !slices.Equal(labels, c.labels) || !slices.Equal(e.Net.Sheets, c.sheets) || !slices.Equal(pins, c.pins) {
				t.Errorf("labels %v sheets %v pins %v; want %v %v %v", labels, e.Net.Sheets, pins, c.labels, c.sheets, c.pins)
			}
		})
	}
	for _, subject := range []string{"RBIAS", "rbias"} {
		_, err := Explain(in, subject)
		var amb *AmbiguousError
		if !errors.As(err, &amb) || !slices.Equal(amb.Candidates, []string{"/inst1/RBIAS", "/inst2/RBIAS", "/inst3/RBIAS"}) {
			t.Fatalf("Explain(%s) = %v, want the three nets as candidates", subject, err)
		}
		if want := `"` + subject + `" names 3 nets, one per sheet instance or sheet: /inst1/RBIAS, /inst2/RBIAS, /inst3/RBIAS; give the full name`; err.Error() != want {
			t.Errorf("message %q\nwant    %q", err, want)
		}
	}
	// A part of one instance: its own sheet path and nets.
	e, err := Explain(in, "R201")
	if err != nil {
		t.Fatal(err)
	}
	if e.Part.SheetPath != "/inst2/" || e.Part.Pins[0].Net != "/inst2/RBIAS" {
		t.Errorf("R201: sheet %s, pin 1 on %s", e.Part.SheetPath, e.Part.Pins[0].Net)
	}
}
