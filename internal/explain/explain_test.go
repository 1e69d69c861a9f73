package explain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "explain-test-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("COPPERHEAD_KICAD_CONFIG", filepath.Join(dir, "config"))
	os.Setenv("COPPERHEAD_CACHE_DIR", filepath.Join(dir, "cache"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

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
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(filepath.Join(dst, rel), data, 0o644)
		}
		return err
	})
	if err != nil {
		return Input{}, err
	}
	dec := filepath.Join(dst, "docs", "DECISIONS.md")
	f, err := os.OpenFile(dec, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return Input{}, err
	}
	fmt.Fprint(f, "\n## 2025-06-01 · 01JTEST · KEY_DAH pull-up stays 10k\n- Why: the paddle cable is long; 10k keeps the edge clean.\n- Affects: R7, KEY_DAH\n")
	f.Close()
	cfg, _, err := design.LoadConfig(dst)
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

// TestNoModelImports: explain's facts are deterministic by construction.
func TestNoModelImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"copperhead/internal/llm", "copperhead/internal/agent", "copperhead/internal/research"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("explain depends on %s", dep)
			}
		}
	}
}
