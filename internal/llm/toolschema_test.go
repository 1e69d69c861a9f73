package llm_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"copperhead/internal/llm"
)

// update rewrites the golden files in testdata instead of comparing against
// them: go test ./internal/llm/ -run Golden -update. It is the package's only
// -update flag; other test files reuse it rather than define their own.
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// checkGolden compares got with testdata/name byte for byte.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update to accept)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// checkGoldenBody checks a request body: it must be compact JSON (what the
// clients send), and its indented form must equal the golden file. Together
// these pin the exact bytes while keeping the golden file reviewable.
func checkGoldenBody(t *testing.T, name string, body []byte) {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, body)
	}
	if !bytes.Equal(compact.Bytes(), body) {
		t.Errorf("body is not compact JSON:\n%s", body)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, body, "", "  "); err != nil {
		t.Fatal(err)
	}
	indented.WriteByte('\n')
	checkGolden(t, name, indented.Bytes())
}

type schemaSample struct {
	Path     string   `json:"path" desc:"repository-relative path, e.g. docs/PINOUT.md"`
	MaxLines int      `json:"max_lines,omitempty" desc:"stop after this many lines"`
	Kind     string   `json:"kind" enum:"sch,pcb" desc:"which <artifact> & why"`
	Ratio    float64  `json:"ratio,omitzero"`
	Strict   bool     `json:"strict"`
	Nets     []string `json:"nets,omitempty" enum:"VBAT,GND"`
	Grid     [2]int   `json:"grid"`
	Level    int      `json:"level" enum:"1,2,3"`
	Pin      *struct {
		Refdes string `json:"refdes"`
		Number string `json:"number,omitempty"`
	} `json:"pin,omitempty" desc:"the pin to assign"`
	Rows    []schemaRow        `json:"rows"`
	Budgets map[string]float64 `json:"budgets,omitempty" desc:"free-form budgets"`
	Extra   json.RawMessage    `json:"extra,omitempty" desc:"anything"`
	When    time.Time          `json:"when,omitempty"`
	NoTag   string
	Skipped string `json:"-"`
	//lint:ignore U1000 present only to prove ToolFor skips unexported fields
	internal string
	schemaEmbedded
}

type schemaRow struct {
	Net string `json:"net"`
	Pin string `json:"pin"`
}

type schemaEmbedded struct {
	Rationale string `json:"rationale" desc:"one line, why"`
}

func TestToolForGolden(t *testing.T) {
	tool := llm.ToolFor[schemaSample]("sample", "A sample tool.")
	if tool.Name != "sample" || tool.Description != "A sample tool." {
		t.Errorf("name/description = %q/%q", tool.Name, tool.Description)
	}
	if !json.Valid(tool.Schema) {
		t.Fatalf("schema is not JSON: %s", tool.Schema)
	}
	checkGolden(t, "toolschema_sample.json", append(bytes.Clone(tool.Schema), '\n'))

	// Byte stability: a second derivation (and one through a pointer type)
	// yields the same bytes.
	for range 3 {
		if again := llm.ToolFor[*schemaSample]("sample", ""); !bytes.Equal(again.Schema, tool.Schema) {
			t.Fatalf("schema bytes changed between calls:\n%s\n%s", tool.Schema, again.Schema)
		}
	}
}

func TestToolForEmptyStruct(t *testing.T) {
	got := string(llm.ToolFor[struct{}]("noop", "").Schema)
	want := `{"type":"object","properties":{},"additionalProperties":false}`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestToolForPanics(t *testing.T) {
	type recursive struct {
		Next *recursive `json:"next"`
	}
	type withChan struct {
		C chan int `json:"c"`
	}
	type boolEnum struct {
		B bool `json:"b" enum:"true"`
	}
	type badIntEnum struct {
		N int `json:"n" enum:"one,two"`
	}
	type intKeys struct {
		M map[int]string `json:"m"`
	}
	type dupInner struct {
		A string `json:"x"`
	}
	type dup struct {
		dupInner
		B string `json:"x"`
	}
	cases := map[string]func(){
		"not a struct": func() { llm.ToolFor[string]("t", "") },
		"recursive":    func() { llm.ToolFor[recursive]("t", "") },
		"channel":      func() { llm.ToolFor[withChan]("t", "") },
		"bool enum":    func() { llm.ToolFor[boolEnum]("t", "") },
		"int enum":     func() { llm.ToolFor[badIntEnum]("t", "") },
		"int map keys": func() { llm.ToolFor[intKeys]("t", "") },
		"duplicate":    func() { llm.ToolFor[dup]("t", "") },
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil {
					t.Fatal("no panic")
				}
				if msg, _ := r.(string); !strings.Contains(msg, `llm.ToolFor("t")`) {
					t.Errorf("panic %v does not name the tool", r)
				}
			}()
			f()
		})
	}
}
