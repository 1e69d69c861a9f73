package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		check   func(t *testing.T, c Config)
		wantErr string
	}{
		{
			name: "defaults",
			json: `{}`,
			check: func(t *testing.T, c Config) {
				if !reflect.DeepEqual(c, DefaultConfig()) {
					t.Errorf("got %+v, want defaults", c)
				}
			},
		},
		{
			name: "spec example",
			json: `{"schematic": "hardware/open-telegraph.kicad_sch", "board": "hardware/open-telegraph.kicad_pcb", "docs": "docs/",
				"model": "gpt-5", "maxTurns": 40, "stageMaxTurns": {"spec-seed": 60}, "budgets": {"sleep_current_uA": 25}}`,
			check: func(t *testing.T, c Config) {
				if c.Schematic != "hardware/open-telegraph.kicad_sch" || c.Model != "gpt-5" || c.StageMaxTurns["spec-seed"] != 60 ||
					c.Budgets["sleep_current_uA"] != 25 || c.MaxRepairCycles != DefaultMaxRepairCycles {
					t.Errorf("got %+v", c)
				}
			},
		},
		{
			name: "unknown keys kept",
			json: `{"future": {"a": [1, 2]}, "baseURL": "http://localhost:11434/v1", "apiKeyEnv": "GROQ_KEY"}`,
			check: func(t *testing.T, c Config) {
				if string(c.Extra["future"]) != `{"a": [1, 2]}` || c.BaseURL != "http://localhost:11434/v1" || c.APIKeyEnv != "GROQ_KEY" {
					t.Errorf("got %+v", c)
				}
			},
		},
		{
			name: "null is absent",
			json: `{"maxTurns": null, "budgets": null}`,
			check: func(t *testing.T, c Config) {
				if c.MaxTurns != DefaultMaxTurns || c.Budgets != nil {
					t.Errorf("got %+v", c)
				}
			},
		},
		{name: "syntax error names file and line", json: "{\n  \"maxTurns\": 40,\n}", wantErr: "cfg.json:3:1: malformed JSON"},
		{name: "truncated", json: `{"maxTurns": 4`, wantErr: "cfg.json"},
		{name: "not an object", json: `[1]`, wantErr: "cfg.json: top level must be a JSON object"},
		{name: "null document", json: `null`, wantErr: "top level must be a JSON object"},
		{name: "wrong type", json: `{"maxTurns": "forty"}`, wantErr: `cfg.json: key "maxTurns": expected a number, got JSON string`},
		{name: "wrong budget type", json: `{"budgets": {"sleep_current_uA": "25"}}`, wantErr: `key "budgets"`},
		{name: "zero turns", json: `{"maxTurns": 0}`, wantErr: `"maxTurns" must be at least 1`},
		{name: "negative repair cycles", json: `{"maxRepairCycles": -1}`, wantErr: `"maxRepairCycles" must not be negative`},
		{name: "bad stage turns", json: `{"stageMaxTurns": {"bom": 0}}`, wantErr: `stage "bom"`},
		{name: "docs outside repo", json: `{"docs": "../elsewhere"}`, wantErr: `"docs": "../elsewhere" must be a path inside the repo`},
		{name: "absolute schematic", json: `{"schematic": "/etc/x.kicad_sch"}`, wantErr: `"schematic"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := parseCase(t, tt.json, tt.wantErr)
			if !ok {
				return
			}
			tt.check(t, c)
		})
	}
}

func TestConfigMarshal(t *testing.T) {
	in := `{"zeta": true, "schematic": "hw/a.kicad_sch", "budgets": {"b": 2, "a": 0.5}, "model": "claude",
		"generated": {"docs/SPEC.md": "sha256:00"}, "stageMaxTurns": {"spec-seed": 60}, "alpha": [1,2]}`
	c, err := ParseConfig([]byte(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	got := string(c.Marshal())
	want := `{
  "alpha": [
    1,
    2
  ],
  "budgets": {
    "a": 0.5,
    "b": 2
  },
  "docs": "docs/",
  "generated": {
    "docs/SPEC.md": "sha256:00"
  },
  "maxRepairCycles": 5,
  "maxTurns": 40,
  "model": "claude",
  "schematic": "hw/a.kicad_sch",
  "stageMaxTurns": {
    "spec-seed": 60
  },
  "zeta": true
}
`
	if got != want {
		t.Errorf("Marshal:\n%s\nwant\n%s", got, want)
	}
	again, err := ParseConfig([]byte(got), "x")
	if err != nil {
		t.Fatal(err)
	}
	if string(again.Marshal()) != got {
		t.Error("Marshal is not stable across a parse round trip")
	}
}

func TestDocPath(t *testing.T) {
	tests := []struct{ docs, want string }{
		{"docs/", "docs/BOM.md"},
		{"docs", "docs/BOM.md"},
		{"", "docs/BOM.md"},
		{"./design/docs//", "design/docs/BOM.md"},
		{".", "BOM.md"},
	}
	for _, tt := range tests {
		if got := (Config{Docs: tt.docs}).DocPath("BOM.md"); got != tt.want {
			t.Errorf("DocPath with docs %q = %q, want %q", tt.docs, got, tt.want)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	c, found, err := LoadConfig(dir)
	if err != nil || found || !reflect.DeepEqual(c, DefaultConfig()) {
		t.Fatalf("missing file: got %+v, %v, %v", c, found, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".copperhead"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".copperhead", "config.json")
	if err := os.WriteFile(path, []byte(`{"maxTurns": 12}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, found, err = LoadConfig(dir)
	if err != nil || !found || c.MaxTurns != 12 {
		t.Fatalf("got %+v, %v, %v", c, found, err)
	}
	if err := os.WriteFile(path, []byte(`{"maxTurns": 12`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err = LoadConfig(dir); err == nil || !strings.Contains(err.Error(), ConfigPath) {
		t.Fatalf("malformed: err = %v, want it to name %s", err, ConfigPath)
	}
}

func TestConfigEncodingJSON(t *testing.T) {
	// The keyer fixture's config (internal/design's keyerConfig).
	c := DefaultConfig()
	c.Schematic, c.Board = "hardware/keyer.kicad_sch", "hardware/keyer.kicad_pcb"
	c.Budgets = map[string]float64{"sleep_current_uA": 25, "battery_life_days": 365.5}
	c.Extra = map[string]json.RawMessage{"x": json.RawMessage(`"<y>"`)}
	data, err := json.Marshal(struct {
		Config Config `json:"config"`
	}{c})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"config":{"board":"hardware/keyer.kicad_pcb","budgets":{`) {
		t.Errorf("embedded config JSON = %s", data)
	}
	var back struct {
		Config Config `json:"config"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	var x string
	if err := json.Unmarshal(back.Config.Extra["x"], &x); err != nil || x != "<y>" {
		t.Errorf("extra key after round trip = %s", back.Config.Extra["x"])
	}
	back.Config.Extra, c.Extra = nil, nil
	c.Generated = map[string]string{} // written as {}, read back empty, not nil
	if !reflect.DeepEqual(back.Config, c) {
		t.Errorf("round trip:\n%+v\nwant\n%+v", back.Config, c)
	}
	var bad Config
	if err := json.Unmarshal([]byte(`{"maxTurns": "x"}`), &bad); err == nil {
		t.Error("want an error for a bad maxTurns")
	}
}

func TestParseConfigResearch(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		want    ResearchConfig // compared without declared
		wantErr string
	}{
		{name: "absent: disabled, defaults", json: `{}`, want: DefaultResearch()},
		{name: "null block: defaults", json: `{"research": null}`, want: DefaultResearch()},
		{name: "enabled only", json: `{"research": {"enabled": true}}`,
			want: ResearchConfig{Enabled: true, MaxPdfMB: 10, StalenessDays: 30}},
		{name: "every key, provider names kept",
			json: `{"research": {"enabled": true, "allowHosts": ["*.Mouser.com", " api.nexar.com "], "fetchPages": true, "maxPdfMB": 25, "stalenessDays": 7, "provider": "nexar"}}`,
			want: ResearchConfig{Enabled: true, AllowHosts: []string{"*.mouser.com", "api.nexar.com"}, FetchPages: true, MaxPdfMB: 25, StalenessDays: 7,
				Extra: map[string]json.RawMessage{"provider": json.RawMessage(`"nexar"`)}}},
		{name: "null fields take defaults", json: `{"research": {"maxPdfMB": null, "stalenessDays": null}}`, want: DefaultResearch()},
		{name: "not an object", json: `{"research": true}`, wantErr: `cfg.json: key "research": expected an object, got JSON bool`},
		{name: "list", json: `{"research": ["x"]}`, wantErr: `key "research": expected an object, got JSON array`},
		{name: "enabled as a string", json: `{"research": {"enabled": "yes"}}`, wantErr: `cfg.json: key "research.enabled": expected true or false, got JSON string`},
		{name: "fetchPages as a number", json: `{"research": {"fetchPages": 1}}`, wantErr: `key "research.fetchPages": expected true or false, got JSON number`},
		{name: "allowHosts a string", json: `{"research": {"allowHosts": "*.ti.com"}}`, wantErr: `key "research.allowHosts": expected a list of strings, got JSON string`},
		{name: "allowHosts with a number", json: `{"research": {"allowHosts": ["ok.com", 3]}}`, wantErr: `key "research.allowHosts": expected a string`},
		{name: "allowHosts with a URL", json: `{"research": {"allowHosts": ["https://ti.com/x"]}}`, wantErr: `entry 1 "https://ti.com/x" is not a host name`},
		{name: "allowHosts with a port", json: `{"research": {"allowHosts": ["a.com", "ti.com:443"]}}`, wantErr: `entry 2 "ti.com:443"`},
		{name: "allowHosts with an inner wildcard", json: `{"research": {"allowHosts": ["a.*.com"]}}`, wantErr: `"a.*.com" is not a host name`},
		{name: "allowHosts empty entry", json: `{"research": {"allowHosts": [""]}}`, wantErr: `entry 1 ""`},
		{name: "maxPdfMB a string", json: `{"research": {"maxPdfMB": "10"}}`, wantErr: `key "research.maxPdfMB": expected a number, got JSON string`},
		{name: "maxPdfMB zero", json: `{"research": {"maxPdfMB": 0}}`, wantErr: `key "research.maxPdfMB" must be between 1 and 1024, got 0`},
		{name: "maxPdfMB fractional", json: `{"research": {"maxPdfMB": 2.5}}`, wantErr: `key "research.maxPdfMB": expected a number`},
		{name: "stalenessDays negative", json: `{"research": {"stalenessDays": -1}}`, wantErr: `key "research.stalenessDays" must be between 1 and 36500, got -1`},
		{name: "stalenessDays huge", json: `{"research": {"stalenessDays": 100000}}`, wantErr: `"research.stalenessDays" must be between 1 and 36500`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := parseCase(t, tt.json, tt.wantErr)
			if !ok {
				return
			}
			got := c.Research
			got.declared = false
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("research = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestConfigMarshalResearch(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // the "research" member as Marshal writes it; "" for none
	}{
		{"absent stays absent", `{}`, ""},
		{"declared with defaults is kept", `{"research": {}}`,
			`"research": {
    "enabled": false,
    "fetchPages": false,
    "maxPdfMB": 10,
    "stalenessDays": 30
  }`},
		{"every key and unknown ones", `{"research": {"provider": "nexar", "stalenessDays": 7, "allowHosts": ["*.ti.com"], "enabled": true}}`,
			`"research": {
    "allowHosts": [
      "*.ti.com"
    ],
    "enabled": true,
    "fetchPages": false,
    "maxPdfMB": 10,
    "provider": "nexar",
    "stalenessDays": 7
  }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tt.in), "x")
			if err != nil {
				t.Fatal(err)
			}
			got := string(c.Marshal())
			if tt.want == "" && strings.Contains(got, `"research"`) || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("Marshal:\n%s\nwant it to contain:\n%s", got, tt.want)
			}
			again, err := ParseConfig([]byte(got), "x")
			if err != nil || string(again.Marshal()) != got || !reflect.DeepEqual(again.Research, c.Research) {
				t.Errorf("round trip changed the config: %v\n%s", err, again.Marshal())
			}
		})
	}
	// A config built in code opts in by value, not by declaration.
	c := DefaultConfig()
	c.Research.Enabled = true
	if !strings.Contains(string(c.Marshal()), `"enabled": true`) {
		t.Errorf("enabled research not written:\n%s", c.Marshal())
	}
}

// TestConfigBaseline: "baseline" names the git revision check compares
// against; it round-trips through Marshal and refuses what git would read as
// an option or what cannot be a revision.
func TestConfigBaseline(t *testing.T) {
	for _, tt := range []struct {
		in, want, err string
	}{
		{`{}`, "", ""},
		{`{"baseline": "origin/main"}`, "origin/main", ""},
		{`{"baseline": "HEAD~2"}`, "HEAD~2", ""},
		{`{"baseline": "--all"}`, "", `key "baseline": "--all" is not a git revision`},
		{`{"baseline": " HEAD"}`, "", `key "baseline": " HEAD" is not a git revision`},
		{`{"baseline": 3}`, "", `"baseline"`},
	} {
		c, err := ParseConfig([]byte(tt.in), "config.json")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want it to say %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || c.Baseline != tt.want {
			t.Errorf("%s: Baseline = %q, %v; want %q", tt.in, c.Baseline, err, tt.want)
			continue
		}
		back, err := ParseConfig(c.Marshal(), "config.json")
		if err != nil || back.Baseline != tt.want {
			t.Errorf("%s: round trip Baseline = %q, %v", tt.in, back.Baseline, err)
		}
		if tt.want == "" && strings.Contains(string(c.Marshal()), `"baseline"`) {
			t.Errorf("%s: an unset baseline is written", tt.in)
		}
	}
}

// parseCase parses one table case's config.json: with wantErr, it asserts
// the error contains it and ok is false; without, a parse error fails t.
func parseCase(t *testing.T, json, wantErr string) (c Config, ok bool) {
	t.Helper()
	c, err := ParseConfig([]byte(json), "cfg.json")
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("err = %v, want it to contain %q", err, wantErr)
		}
		return c, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return c, true
}
