package design

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/kicad"
)

const specExample = `{
"power.sleep_current_uA": { "max": 25, "source": "openspec/specs/power/spec.md#R2",
"affects": ["U2", "R7-absent", "GPIO-pullups"] },
"rf.antenna_keepout_mm": { "min": 5, "source": "docs/LAYOUT.md", "affects": ["zone:top"], "deferred": true },
"pins.strapping": { "forbidden": ["GPIO0","GPIO3","GPIO45","GPIO46"],
"source": "esp32-s3 datasheet §2.4", "note": {"keep": "me"} }
}`

func TestParseConstraints(t *testing.T) {
	reg, err := ParseConstraints([]byte(specExample), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(reg) != 3 {
		t.Fatalf("got %d entries", len(reg))
	}
	sleep := reg["power.sleep_current_uA"]
	if sleep.Max == nil || *sleep.Max != 25 || sleep.Min != nil || !slices.Equal(sleep.Affects, []string{"U2", "R7-absent", "GPIO-pullups"}) {
		t.Errorf("sleep = %+v", sleep)
	}
	if rf := reg["rf.antenna_keepout_mm"]; !slices.Equal(rf.Deferred, []string{"zone:top"}) || *rf.Min != 5 {
		t.Errorf("deferred: true should defer all affects: %+v", rf)
	}
	if pins := reg["pins.strapping"]; len(pins.Forbidden) != 4 || string(pins.Extra["note"]) != `{"keep": "me"}` {
		t.Errorf("pins = %+v", pins)
	}

	errs := []struct{ json, want string }{
		{`{"a": 1}`, `c.json: constraint "a": must be a JSON object`},
		{`{"a": {"max": "25"}}`, `c.json: constraint "a": field "max": expected`},
		{`{"a": {"deferred": 3}}`, `field "deferred"`},
		{`{"a": `, `c.json:1:6: malformed JSON`},
		{`[]`, `top level must be a JSON object`},
	}
	for _, e := range errs {
		if _, err := ParseConstraints([]byte(e.json), "c.json"); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("ParseConstraints(%s) err = %v, want %q", e.json, err, e.want)
		}
	}
	if reg, err := ParseConstraints([]byte(`{"a": {"deferred": ["x"], "source": "s"}, "b": {"deferred": false, "affects": ["y"]}}`), "c"); err != nil ||
		!slices.Equal(reg["a"].Deferred, []string{"x"}) || reg["b"].Deferred != nil {
		t.Errorf("deferred list/false: %+v, %v", reg, err)
	}
}

func TestConstraintsMarshal(t *testing.T) {
	reg, err := ParseConstraints([]byte(specExample), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	got := string(reg.Marshal())
	want := `{
  "pins.strapping": {
    "forbidden": [
      "GPIO0",
      "GPIO3",
      "GPIO45",
      "GPIO46"
    ],
    "note": {
      "keep": "me"
    },
    "source": "esp32-s3 datasheet §2.4"
  },
  "power.sleep_current_uA": {
    "affects": [
      "U2",
      "R7-absent",
      "GPIO-pullups"
    ],
    "max": 25,
    "source": "openspec/specs/power/spec.md#R2"
  },
  "rf.antenna_keepout_mm": {
    "affects": [
      "zone:top"
    ],
    "deferred": [
      "zone:top"
    ],
    "min": 5,
    "source": "docs/LAYOUT.md"
  }
}
`
	if got != want {
		t.Errorf("Marshal:\n%s", got)
	}
	again, err := ParseConstraints([]byte(got), "c.json")
	if err != nil || !reflect.DeepEqual(again.Marshal(), reg.Marshal()) {
		t.Errorf("round trip: %v", err)
	}
}

func TestCheckForbiddenPins(t *testing.T) {
	reg := Constraints{"pins.strapping": {Forbidden: []string{"GPIO0", "GPIO3", "GPIO45", "GPIO46"}, Source: "esp32-s3 datasheet §2.4"}}
	nl := keyerNetlist()
	got := CheckForbiddenPins(reg, nl)
	// IO0 is on /BOOT: a violation. IO3 (unconnected-…) and IO46 (a lone
	// auto-named net) are unused.
	want := []ConstraintViolation{{
		Key: "pins.strapping", Kind: ViolationForbiddenPin, Source: "esp32-s3 datasheet §2.4",
		Message: `U1 pin 27 (IO0) is on net "/BOOT", but constraint pins.strapping forbids GPIO0 (source: esp32-s3 datasheet §2.4)`,
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}

	tests := []struct {
		name      string
		forbidden []string
		net       kicad.Net
		comp      kicad.NetComponent
		want      int
	}{
		{"IOn forbids GPIOn", []string{"IO5"}, net2("/KEY", "U9", "GPIO5"), kicad.NetComponent{Refdes: "U9"}, 1},
		{"alias on a known MCU", []string{"GPIO39"}, net2("/JTAG", "U1", "MTCK"), kicad.NetComponent{Refdes: "U1", LibID: "MCU_Espressif:ESP32-S3"}, 1},
		{"alias on an unknown part", []string{"GPIO39"}, net2("/JTAG", "U1", "MTCK"), kicad.NetComponent{Refdes: "U1"}, 0},
		{"multi-function name", []string{"USB_D-"}, net2("/DM", "U1", "GPIO19/USB_D-"), kicad.NetComponent{Refdes: "U1"}, 1},
		{"connector pins are not checked", []string{"GPIO0"}, net2("/X", "J1", "GPIO0"), kicad.NetComponent{Refdes: "J1"}, 0},
		{"labelled single-pin net is used", []string{"GPIO0"}, kicad.Net{Name: "/BOOT", Nodes: []kicad.NetNode{{Refdes: "U1", Pin: "1", PinFunction: "IO0"}}}, kicad.NetComponent{Refdes: "U1"}, 1},
		{"no forbidden list", nil, net2("/X", "U1", "IO0"), kicad.NetComponent{Refdes: "U1"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := Constraints{"k": {Forbidden: tt.forbidden, Source: "s"}}
			nl := &kicad.Netlist{Components: []kicad.NetComponent{tt.comp}, Nets: []kicad.Net{tt.net}}
			if got := CheckForbiddenPins(reg, nl); len(got) != tt.want {
				t.Errorf("got %d violations, want %d: %+v", len(got), tt.want, got)
			}
		})
	}
	if CheckForbiddenPins(reg, nil) != nil {
		t.Error("nil netlist: want no violations")
	}
}

// net2 is a net joining pin 1 (named name) of ref with R1 pin 1.
func net2(net, ref, name string) kicad.Net {
	return kicad.Net{Name: net, Nodes: []kicad.NetNode{{Refdes: ref, Pin: "1", PinFunction: name}, {Refdes: "R1", Pin: "1"}}}
}

func TestCheckBudgets(t *testing.T) {
	spec := func(lines string) Files { return Files{"docs/SPEC.md": []byte("# S\n\n## Budgets\n\n" + lines)} }
	tests := []struct {
		name    string
		budgets map[string]float64
		files   Files
		want    []string
	}{
		{"agree", map[string]float64{"sleep_current_uA": 25}, spec("- sleep_current_uA: 25.0 uA\n"), nil},
		{"nothing declared", nil, Files{}, nil},
		{"differ", map[string]float64{"sleep_current_uA": 25}, spec("- sleep_current_uA: 30\n"),
			[]string{"budget sleep_current_uA: .copperhead/config.json says 25 but docs/SPEC.md ## Budgets says 30"}},
		{"missing line", map[string]float64{"sleep_current_uA": 25}, spec("- other: 1\n"),
			[]string{"budget sleep_current_uA: .copperhead/config.json says 25 but docs/SPEC.md ## Budgets has no line for it",
				"budget other: docs/SPEC.md ## Budgets says 1 but .copperhead/config.json budgets has no such key"}},
		{"no section", map[string]float64{"a": 1}, Files{"docs/SPEC.md": []byte("# S\n")},
			[]string{"budget a: .copperhead/config.json says 1 but docs/SPEC.md has no ## Budgets section"}},
		{"no spec", map[string]float64{"a": 1}, Files{},
			[]string{"budget a: .copperhead/config.json says 1 but docs/SPEC.md does not exist"}},
		{"malformed", nil, spec("- a: many\n"),
			[]string{`docs/SPEC.md ## Budgets: "a: many" is not a budget line; write "- <key>: <number>"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.DefaultConfig()
			cfg.Budgets = tt.budgets
			var got []string
			for _, v := range CheckBudgets(cfg, tt.files) {
				got = append(got, v.Message)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCheckConstraintsOnGeneratedDocs(t *testing.T) {
	p := keyerProject()
	files := GenerateDocs(p)
	check := func(reg Constraints) []ConstraintViolation {
		return append(CheckForbiddenPins(reg, p.Netlist), CheckBudgets(p.Config, files)...)
	}
	if v := check(Constraints{}); len(v) != 0 {
		t.Errorf("generated SPEC.md disagrees with config budgets: %+v", v)
	}
	p.Config.Budgets["sleep_current_uA"] = 20
	v := check(Constraints{"pins.strapping": {Forbidden: []string{"GPIO0"}, Source: "ds"}})
	if len(v) != 2 || v[0].Kind != ViolationForbiddenPin || v[1].Kind != ViolationBudgetMismatch || v[1].Key != "sleep_current_uA" {
		t.Errorf("got %+v", v)
	}
}

func TestConstraintNoHTMLEscaping(t *testing.T) {
	reg := Constraints{"a": {Source: "leak < 1 uA & more"}}
	if got := string(reg.Marshal()); !strings.Contains(got, `"leak < 1 uA & more"`) {
		t.Errorf("Marshal = %s", got)
	}
	if got := string(Constraints(nil).Marshal()); got != "{}\n" {
		t.Errorf("empty registry = %q", got)
	}
}
