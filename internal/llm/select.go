package llm

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Default model ids for the bare family names and for the key fallback. They
// are the one place to change when a family's recommended model moves on.
const (
	DefaultAnthropicModel = "claude-sonnet-4-5"
	DefaultOpenAIModel    = "gpt-5"
)

// Backends a Selection can route to. Name() of the provider Open builds is
// the backend name, so retry, failover and recording all key on these.
const (
	BackendAnthropic  = "anthropic"
	BackendOpenAI     = "openai"
	BackendCompat     = "compat"
	BackendReplay     = "replay"
	BackendCodex      = "codex"
	BackendClaudeCode = "claude-code"
	BackendCursor     = "cursor"
)

// Sources say which setting chose the model (AC-8.1 records them verbatim).
const (
	SourceFlag         = "flag"          // --model
	SourceEnv          = "env"           // COPPERHEAD_MODEL
	SourceConfig       = "config"        // "model" in .copperhead/config.json
	SourceOpenAIKey    = "openai-key"    // only OPENAI_API_KEY was set
	SourceAnthropicKey = "anthropic-key" // only ANTHROPIC_API_KEY was set
)

// The environment variables model selection and the providers read. A backend
// reads only the variables named for it: the keyed families their own key,
// compat only the variable its apiKeyEnv names, so a credential never reaches
// an endpoint it was not meant for.
const (
	EnvModel          = "COPPERHEAD_MODEL"
	EnvBaseURL        = "COPPERHEAD_BASE_URL"    // compat route only
	EnvAPIKeyEnv      = "COPPERHEAD_API_KEY_ENV" // compat route only
	EnvAnthropicKey   = "ANTHROPIC_API_KEY"
	EnvOpenAIKey      = "OPENAI_API_KEY"
	EnvOpenAIOrg      = "OPENAI_ORG_ID"
	EnvOpenAIProject  = "OPENAI_PROJECT_ID"
	compatSpecExample = "compat:<model-id>"
)

// Selection failures the CLI can tell apart: repl offers its interactive
// picker for the first two instead of failing (AC-3.19).
var (
	ErrNoModel        = errors.New("no model selected")
	ErrAmbiguousModel = errors.New("ambiguous model selection")
	ErrInvalidModel   = errors.New("invalid model")
)

// Settings are the inputs to model selection: the --model flag, the repo
// config's model/baseURL/apiKeyEnv, and the environment. Getenv is injectable
// so selection is a pure function in tests; nil means os.Getenv.
type Settings struct {
	Flag            string
	ConfigModel     string
	ConfigBaseURL   string
	ConfigAPIKeyEnv string
	Getenv          func(string) string
}

func (s Settings) env(name string) string {
	get := s.Getenv
	if get == nil {
		get = os.Getenv
	}
	return strings.TrimSpace(get(name))
}

// Selection is the model a run will use and why.
type Selection struct {
	Spec      string `json:"spec"`                  // the model as the user wrote it
	Backend   string `json:"backend"`               // one of the Backend* names
	ModelID   string `json:"model_id,omitempty"`    // "" for a saved-login backend's own default
	Source    string `json:"source"`                // one of the Source* names
	BaseURL   string `json:"base_url,omitempty"`    // compat only
	APIKeyEnv string `json:"api_key_env,omitempty"` // compat only: the variable's name, never its value
	RunID     string `json:"run_id,omitempty"`      // replay only
}

// Select resolves the model by precedence: --model flag > COPPERHEAD_MODEL >
// config "model" > the one model API key present. With both OPENAI_API_KEY
// and ANTHROPIC_API_KEY set and nothing chosen it refuses (ErrAmbiguousModel)
// rather than silently spending one of them; with neither it returns
// ErrNoModel naming what would select a model.
func Select(s Settings) (Selection, error) {
	for _, c := range []struct{ value, source string }{
		{strings.TrimSpace(s.Flag), SourceFlag},
		{s.env(EnvModel), SourceEnv},
		{strings.TrimSpace(s.ConfigModel), SourceConfig},
	} {
		if c.value != "" {
			return route(c.value, c.source, s)
		}
	}
	openai, anthropic := s.env(EnvOpenAIKey) != "", s.env(EnvAnthropicKey) != ""
	switch {
	case openai && anthropic:
		return Selection{}, fmt.Errorf("%w: %s and %s are both set and no model was chosen; pick one with --model %s or --model claude, %s, or \"model\" in .copperhead/config.json",
			ErrAmbiguousModel, EnvOpenAIKey, EnvAnthropicKey, DefaultOpenAIModel, EnvModel)
	case openai:
		return Selection{Spec: DefaultOpenAIModel, Backend: BackendOpenAI, ModelID: DefaultOpenAIModel, Source: SourceOpenAIKey}, nil
	case anthropic:
		return Selection{Spec: "claude", Backend: BackendAnthropic, ModelID: DefaultAnthropicModel, Source: SourceAnthropicKey}, nil
	}
	return Selection{}, fmt.Errorf("%w: pass --model (claude, %s, %s, or a saved login: %s, %s, %s), set %s or \"model\" in .copperhead/config.json, or export one of %s / %s",
		ErrNoModel, DefaultOpenAIModel, compatSpecExample, BackendClaudeCode, BackendCodex, BackendCursor, EnvModel, EnvOpenAIKey, EnvAnthropicKey)
}

// route maps a model spec to its backend. Order matters: claude-code is a
// saved-login backend and must be matched before the claude* family prefix.
func route(spec, source string, s Settings) (Selection, error) {
	sel := Selection{Spec: spec, Source: source}
	lower := strings.ToLower(spec)
	prefixed := func(name string) (id string, ok bool) {
		if lower == name {
			return "", true
		}
		if strings.HasPrefix(lower, name+":") {
			return spec[len(name)+1:], true
		}
		return "", false
	}
	bad := func(why string) (Selection, error) {
		return Selection{}, fmt.Errorf("%w %q (from %s): %s", ErrInvalidModel, spec, sourceLabel(source), why)
	}

	if id, ok := prefixed(BackendClaudeCode); ok {
		if lower != BackendClaudeCode && id == "" {
			return bad("write claude-code or claude-code:<model-id>")
		}
		sel.Backend, sel.ModelID = BackendClaudeCode, id
		return sel, nil
	}
	for _, name := range []string{BackendCodex, BackendCursor} {
		if id, ok := prefixed(name); ok {
			if lower != name && id == "" {
				return bad("write " + name + " or " + name + ":<model-id>")
			}
			sel.Backend, sel.ModelID = name, id
			return sel, nil
		}
	}
	if id, ok := prefixed(BackendCompat); ok {
		if strings.TrimSpace(id) == "" {
			return bad("a compatible endpoint has no default model; name it as " + compatSpecExample)
		}
		sel.Backend, sel.ModelID = BackendCompat, id
		sel.BaseURL, sel.APIKeyEnv = compatSettings(s)
		if err := checkAPIKeyEnv(sel.APIKeyEnv); err != nil {
			return Selection{}, fmt.Errorf("%w %q: %v", ErrInvalidModel, spec, err)
		}
		return sel, nil
	}
	if id, ok := prefixed(BackendReplay); ok {
		if strings.TrimSpace(id) == "" {
			return bad("name the recorded run as replay:<run-id>")
		}
		sel.Backend, sel.RunID = BackendReplay, strings.TrimSpace(id)
		return sel, nil
	}
	switch {
	case lower == "claude":
		sel.Backend, sel.ModelID = BackendAnthropic, DefaultAnthropicModel
	case strings.HasPrefix(lower, "claude"):
		sel.Backend, sel.ModelID = BackendAnthropic, spec
	default: // gpt-*, o*, and any other id an OpenAI account may serve
		sel.Backend, sel.ModelID = BackendOpenAI, spec
	}
	return sel, nil
}

// compatSettings reads the compat endpoint settings; only the compat route
// calls it (AC-3.16). The environment wins over config, as COPPERHEAD_MODEL
// wins over "model".
func compatSettings(s Settings) (baseURL, apiKeyEnv string) {
	return cmp.Or(s.env(EnvBaseURL), strings.TrimSpace(s.ConfigBaseURL)),
		cmp.Or(s.env(EnvAPIKeyEnv), strings.TrimSpace(s.ConfigAPIKeyEnv))
}

// checkAPIKeyEnv refuses an apiKeyEnv that is not a variable name, without
// echoing it: a key pasted there by mistake would otherwise land on the
// terminal and in the transcript. Select and Open both call it.
func checkAPIKeyEnv(name string) error {
	if name != "" && !envNamePattern.MatchString(name) {
		return fmt.Errorf("apiKeyEnv (or %s) must name an environment variable such as GROQ_API_KEY, not hold the key itself", EnvAPIKeyEnv)
	}
	return nil
}

// envNamePattern is what a POSIX environment variable name looks like.
var envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func sourceLabel(source string) string {
	switch source {
	case SourceFlag:
		return "--model"
	case SourceEnv:
		return EnvModel
	case SourceConfig:
		return "model in .copperhead/config.json"
	}
	return source
}
