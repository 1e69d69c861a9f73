package config

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// Defaults for config keys a repo leaves out.
const (
	DefaultDocs            = "docs/"
	DefaultMaxTurns        = 40
	DefaultMaxRepairCycles = 5
)

// Config is .copperhead/config.json. Keys a repo leaves out take their
// defaults; keys copperhead does not know are kept verbatim in Extra and
// written back by Marshal, so a newer or hand-extended config survives init.
type Config struct {
	Schematic       string             // root .kicad_sch, repo-relative
	Board           string             // .kicad_pcb, repo-relative; "" when there is none yet
	Docs            string             // docs folder, repo-relative (default "docs/")
	Model           string             // default model id; "" lets the key fallback decide
	BaseURL         string             // OpenAI-compatible endpoint for compat:<id> models only
	APIKeyEnv       string             // name of the environment variable holding the compat key
	MaxTurns        int                // agent turn budget per run (default 40)
	MaxRepairCycles int                // ERC/DRC fix-and-rerun cycles before rollback (default 5)
	StageMaxTurns   map[string]int     // per create-pipeline stage turn budgets, override MaxTurns
	MaxStageRetries *int               // create: retries of a model stage whose gate failed; nil: the pipeline's default
	Budgets         map[string]float64 // free-form hard budgets, mirrored in SPEC.md ## Budgets
	Generated       map[string]string  // doc path -> ContentHash of the doc as init last wrote it
	Research        ResearchConfig     // the "research" block: part research tools and the sourcing checks
	Baseline        string             // git revision check compares against (check --baseline wins); "" for none
	Extra           map[string]json.RawMessage
}

// DefaultConfig is the config of a repo that has none.
func DefaultConfig() Config {
	return Config{Docs: DefaultDocs, MaxTurns: DefaultMaxTurns, MaxRepairCycles: DefaultMaxRepairCycles, Research: DefaultResearch()}
}

// DocsDir is the docs folder as a clean slash path without trailing slash.
func (c Config) DocsDir() string {
	d := strings.TrimSpace(c.Docs)
	if d == "" {
		d = DefaultDocs
	}
	return path.Clean(filepath.ToSlash(d))
}

// DocPath is the repo-relative path of a doc, e.g. DocPath("BOM.md") =
// "docs/BOM.md". It is the name every message and config.json "generated" use.
func (c Config) DocPath(name string) string {
	return path.Join(c.DocsDir(), name)
}

// LoadConfig reads <repoRoot>/.copperhead/config.json. A missing file is not an
// error: found is false and cfg is DefaultConfig().
func LoadConfig(repoRoot string) (cfg Config, found bool, err error) {
	data, err := ReadRepoFile(repoRoot, ConfigPath)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultConfig(), false, nil
	}
	if err != nil {
		return Config{}, false, ReadError(ConfigPath, err)
	}
	cfg, err = ParseConfig(data, ConfigPath)
	return cfg, err == nil, err
}

// ParseConfig decodes config.json bytes; name is the file name errors quote.
// Malformed JSON is reported with its line and column; a known key with the
// wrong type or an invalid value is reported by key.
func ParseConfig(data []byte, name string) (cfg Config, err error) {
	cfg = DefaultConfig()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Config{}, JSONError(name, data, err)
	}
	if raw == nil {
		return Config{}, fmt.Errorf("%s: top level must be a JSON object", name)
	}
	if err := decodeKeys(raw, name, "", []configKey{
		{"schematic", &cfg.Schematic},
		{"board", &cfg.Board},
		{"docs", &cfg.Docs},
		{"model", &cfg.Model},
		{"baseURL", &cfg.BaseURL},
		{"apiKeyEnv", &cfg.APIKeyEnv},
		{"maxTurns", &cfg.MaxTurns},
		{"maxRepairCycles", &cfg.MaxRepairCycles},
		{"stageMaxTurns", &cfg.StageMaxTurns},
		{"maxStageRetries", &cfg.MaxStageRetries},
		{"budgets", &cfg.Budgets},
		{"generated", &cfg.Generated},
		{"baseline", &cfg.Baseline},
	}); err != nil {
		return Config{}, err
	}
	if v, ok := raw["research"]; ok {
		delete(raw, "research")
		if cfg.Research, err = parseResearch(v, name); err != nil {
			return Config{}, err
		}
	}
	if len(raw) > 0 {
		cfg.Extra = raw
	}
	if cfg.MaxTurns < 1 {
		return Config{}, fmt.Errorf("%s: key \"maxTurns\" must be at least 1, got %d", name, cfg.MaxTurns)
	}
	if cfg.MaxRepairCycles < 0 {
		return Config{}, fmt.Errorf("%s: key \"maxRepairCycles\" must not be negative, got %d", name, cfg.MaxRepairCycles)
	}
	if cfg.MaxStageRetries != nil && *cfg.MaxStageRetries < 0 {
		return Config{}, fmt.Errorf("%s: key \"maxStageRetries\" must not be negative, got %d", name, *cfg.MaxStageRetries)
	}
	for stage, n := range cfg.StageMaxTurns {
		if n < 1 {
			return Config{}, fmt.Errorf("%s: key \"stageMaxTurns\": stage %q must be at least 1, got %d", name, stage, n)
		}
	}
	if b := cfg.Baseline; b != "" && (strings.TrimSpace(b) != b || strings.HasPrefix(b, "-")) {
		return Config{}, fmt.Errorf("%s: key \"baseline\": %q is not a git revision", name, b)
	}
	for _, p := range []struct{ key, val string }{{"schematic", cfg.Schematic}, {"board", cfg.Board}, {"docs", cfg.Docs}} {
		if p.val != "" && !repoRelative(p.val) {
			return Config{}, fmt.Errorf("%s: key %q: %q must be a path inside the repo", name, p.key, p.val)
		}
	}
	return cfg, nil
}

// repoRelative rejects absolute paths and paths that climb out of the repo.
func repoRelative(p string) bool {
	p = filepath.ToSlash(p)
	if path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return false
	}
	c := path.Clean(p)
	return c != ".." && !strings.HasPrefix(c, "../")
}

// JSONError words a failed decode of a whole JSON file: a syntax error with
// its line and column, a top level that is not an object, anything else as
// malformed JSON. name is the file name it quotes.
func JSONError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := lineCol(data, syn.Offset)
		return fmt.Errorf("%s:%d:%d: malformed JSON: %v", name, line, col, err)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Errorf("%s: top level must be a JSON object, got %s", name, typ.Value)
	}
	return fmt.Errorf("%s: malformed JSON: %v", name, err)
}

// TypeErrorText words a JSON value of the wrong type for a message that names
// its key: "expected a number, got JSON string".
func TypeErrorText(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		where := ""
		if typ.Field != "" {
			where = " at " + typ.Field
		}
		return fmt.Sprintf("expected %s%s, got JSON %s", goTypeWord(typ.Type.String()), where, typ.Value)
	}
	return err.Error()
}

func goTypeWord(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "int" || t == "float64":
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "[]string":
		return "a list of strings"
	case strings.HasPrefix(t, "map["):
		return "an object of " + goTypeWord(t[strings.Index(t, "]")+1:]) + " values"
	}
	return t
}

func lineCol(data []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset-1 && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// Marshal renders config.json deterministically: keys sorted, two-space
// indent, trailing newline. Unset optional keys (model, baseURL, apiKeyEnv,
// board, empty stageMaxTurns) are left out; budgets and generated are always
// written so a human sees where they go.
func (c Config) Marshal() []byte {
	out := map[string]any{}
	for k, v := range c.Extra {
		out[k] = v
	}
	putString := func(k, v string) {
		if v != "" {
			out[k] = v
		}
	}
	out["schematic"] = c.Schematic
	putString("board", c.Board)
	out["docs"] = cmp.Or(c.Docs, DefaultDocs)
	putString("model", c.Model)
	putString("baseURL", c.BaseURL)
	putString("apiKeyEnv", c.APIKeyEnv)
	putString("baseline", c.Baseline)
	out["maxTurns"] = c.MaxTurns
	out["maxRepairCycles"] = c.MaxRepairCycles
	if len(c.StageMaxTurns) > 0 {
		out["stageMaxTurns"] = c.StageMaxTurns
	}
	if c.MaxStageRetries != nil {
		out["maxStageRetries"] = *c.MaxStageRetries
	}
	out["budgets"] = nonNil(c.Budgets)
	out["generated"] = nonNil(c.Generated)
	if r := c.Research.fields(); r != nil {
		out["research"] = r
	}
	return MarshalSorted(out)
}

// MarshalJSON makes a Config embeddable in other JSON (run metadata): the
// same keys as Marshal, compact.
func (c Config) MarshalJSON() ([]byte, error) {
	var out bytes.Buffer
	if err := json.Compact(&out, c.Marshal()); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// UnmarshalJSON is ParseConfig: defaults for absent keys, unknown keys kept.
func (c *Config) UnmarshalJSON(data []byte) error {
	parsed, err := ParseConfig(data, "config")
	if err != nil {
		return err
	}
	*c = parsed
	return nil
}

func nonNil[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}

// marshalSorted is encoding/json (which sorts map keys) with two-space indent,
// no HTML escaping and a trailing newline.
func MarshalSorted(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		// Only maps of strings, numbers and RawMessages that already parsed
		// reach here; a failure is a bug, not user input.
		panic(fmt.Sprintf("config: marshal: %v", err))
	}
	return buf.Bytes()
}

// configKey is one known key of a config.json object and where it decodes.
type configKey struct {
	key string
	dst any
}

// decodeKeys decodes the known keys of raw into their destinations and
// deletes them from raw, so what remains is the unknown keys, kept as they
// are. A null is a key left out. Errors name the key, under prefix
// ("research." for the research block).
func decodeKeys(raw map[string]json.RawMessage, name, prefix string, keys []configKey) error {
	for _, f := range keys {
		v, ok := raw[f.key]
		if !ok {
			continue
		}
		delete(raw, f.key)
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			continue
		}
		if err := json.Unmarshal(v, f.dst); err != nil {
			return fmt.Errorf("%s: key %q: %v", name, prefix+f.key, TypeErrorText(err))
		}
	}
	return nil
}
