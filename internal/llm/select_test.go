package llm

import (
	"errors"
	"strings"
	"testing"
)

// envOf is a Getenv over a fixed map, so no test reads the real environment.
func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestSelect(t *testing.T) {
	const (
		oKey = "sk-" + "openai-test-000000000000000000000000"
		aKey = "sk-" + "ant-test-00000000000000000000000000"
	)
	tests := []struct {
		name string
		s    Settings
		want Selection
	}{
		// Precedence: flag > COPPERHEAD_MODEL > config > the one key present.
		{"flag beats env and config", Settings{Flag: "gpt-5", ConfigModel: "claude", Getenv: envOf(EnvModel, "o3")},
			Selection{Spec: "gpt-5", Backend: BackendOpenAI, ModelID: "gpt-5", Source: SourceFlag}},
		{"env beats config", Settings{ConfigModel: "gpt-5", Getenv: envOf(EnvModel, "claude")},
			Selection{Spec: "claude", Backend: BackendAnthropic, ModelID: DefaultAnthropicModel, Source: SourceEnv}},
		{"config beats keys", Settings{ConfigModel: "claude-opus-4-1", Getenv: envOf(EnvOpenAIKey, oKey, EnvAnthropicKey, aKey)},
			Selection{Spec: "claude-opus-4-1", Backend: BackendAnthropic, ModelID: "claude-opus-4-1", Source: SourceConfig}},
		{"blank flag and env fall through", Settings{Flag: "  ", ConfigModel: "gpt-5", Getenv: envOf(EnvModel, " ")},
			Selection{Spec: "gpt-5", Backend: BackendOpenAI, ModelID: "gpt-5", Source: SourceConfig}},
		{"only OPENAI_API_KEY", Settings{Getenv: envOf(EnvOpenAIKey, oKey)},
			Selection{Spec: DefaultOpenAIModel, Backend: BackendOpenAI, ModelID: DefaultOpenAIModel, Source: SourceOpenAIKey}},
		{"only ANTHROPIC_API_KEY", Settings{Getenv: envOf(EnvAnthropicKey, aKey)},
			Selection{Spec: "claude", Backend: BackendAnthropic, ModelID: DefaultAnthropicModel, Source: SourceAnthropicKey}},
		{"an empty key is no key", Settings{Getenv: envOf(EnvAnthropicKey, aKey, EnvOpenAIKey, "")},
			Selection{Spec: "claude", Backend: BackendAnthropic, ModelID: DefaultAnthropicModel, Source: SourceAnthropicKey}},
		{"explicit choice with both keys", Settings{Flag: "claude", Getenv: envOf(EnvOpenAIKey, oKey, EnvAnthropicKey, aKey)},
			Selection{Spec: "claude", Backend: BackendAnthropic, ModelID: DefaultAnthropicModel, Source: SourceFlag}},

		// Routing.
		{"claude-code before claude*", Settings{Flag: "claude-code"},
			Selection{Spec: "claude-code", Backend: BackendClaudeCode, Source: SourceFlag}},
		{"claude-code with id", Settings{Flag: "claude-code:opus"},
			Selection{Spec: "claude-code:opus", Backend: BackendClaudeCode, ModelID: "opus", Source: SourceFlag}},
		{"claude-<id>", Settings{Flag: "claude-haiku-4-5"},
			Selection{Spec: "claude-haiku-4-5", Backend: BackendAnthropic, ModelID: "claude-haiku-4-5", Source: SourceFlag}},
		{"codex", Settings{Flag: "codex"}, Selection{Spec: "codex", Backend: BackendCodex, Source: SourceFlag}},
		{"codex with id", Settings{Flag: "codex:gpt-5-codex"},
			Selection{Spec: "codex:gpt-5-codex", Backend: BackendCodex, ModelID: "gpt-5-codex", Source: SourceFlag}},
		{"cursor", Settings{Flag: "cursor"}, Selection{Spec: "cursor", Backend: BackendCursor, Source: SourceFlag}},
		{"cursor with id", Settings{Flag: "cursor:sonnet-4"},
			Selection{Spec: "cursor:sonnet-4", Backend: BackendCursor, ModelID: "sonnet-4", Source: SourceFlag}},
		{"o-series", Settings{Flag: "o3"}, Selection{Spec: "o3", Backend: BackendOpenAI, ModelID: "o3", Source: SourceFlag}},
		{"fine-tuned id with colons stays openai", Settings{Flag: "ft:gpt-4o-mini:acme::abc"},
			Selection{Spec: "ft:gpt-4o-mini:acme::abc", Backend: BackendOpenAI, ModelID: "ft:gpt-4o-mini:acme::abc", Source: SourceFlag}},
		{"replay", Settings{Flag: "replay:20250101-120000-abcd"},
			Selection{Spec: "replay:20250101-120000-abcd", Backend: BackendReplay, RunID: "20250101-120000-abcd", Source: SourceFlag}},

		// compat reads the endpoint settings; the environment wins over config.
		{"compat from config", Settings{Flag: "compat:llama3.1:8b", ConfigBaseURL: "http://localhost:11434/v1", ConfigAPIKeyEnv: "OLLAMA_KEY"},
			Selection{Spec: "compat:llama3.1:8b", Backend: BackendCompat, ModelID: "llama3.1:8b", Source: SourceFlag,
				BaseURL: "http://localhost:11434/v1", APIKeyEnv: "OLLAMA_KEY"}},
		{"compat env beats config", Settings{ConfigModel: "compat:mixtral", ConfigBaseURL: "http://localhost:1/v1", ConfigAPIKeyEnv: "A_KEY",
			Getenv: envOf(EnvBaseURL, "https://api.groq.com/openai/v1", EnvAPIKeyEnv, "GROQ_API_KEY")},
			Selection{Spec: "compat:mixtral", Backend: BackendCompat, ModelID: "mixtral", Source: SourceConfig,
				BaseURL: "https://api.groq.com/openai/v1", APIKeyEnv: "GROQ_API_KEY"}},

		// AC-3.16: the endpoint settings never reach other routes.
		{"COPPERHEAD_BASE_URL ignored for gpt-5", Settings{Flag: "gpt-5", ConfigBaseURL: "http://x/v1", ConfigAPIKeyEnv: "X",
			Getenv: envOf(EnvBaseURL, "http://127.0.0.1:1/v1", EnvAPIKeyEnv, "GROQ_API_KEY")},
			Selection{Spec: "gpt-5", Backend: BackendOpenAI, ModelID: "gpt-5", Source: SourceFlag}},
		{"COPPERHEAD_BASE_URL ignored for claude", Settings{Flag: "claude", Getenv: envOf(EnvBaseURL, "http://127.0.0.1:1/v1")},
			Selection{Spec: "claude", Backend: BackendAnthropic, ModelID: DefaultAnthropicModel, Source: SourceFlag}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.s.Getenv == nil {
				tt.s.Getenv = envOf()
			}
			got, err := Select(tt.s)
			if err != nil {
				t.Fatalf("Select: %v", err)
			}
			if got != tt.want {
				t.Fatalf("Select =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

func TestSelectRefuses(t *testing.T) {
	tests := []struct {
		name     string
		s        Settings
		is       error
		contains []string
		absent   []string
	}{
		{"both keys and no choice is ambiguous (AC-3.19)",
			Settings{Getenv: envOf(EnvOpenAIKey, "sk-"+"a-000000000000000000000000", EnvAnthropicKey, "sk-"+"b-000000000000000000000000")},
			ErrAmbiguousModel, []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "--model", "COPPERHEAD_MODEL", "config.json"},
			[]string{"sk-a-", "sk-b-"}},
		{"nothing at all", Settings{Getenv: envOf()},
			ErrNoModel, []string{"--model", "COPPERHEAD_MODEL", "config.json", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"}, nil},
		{"bare compat (AC-3.15)", Settings{Flag: "compat"}, ErrInvalidModel, []string{"compat:<model-id>", "--model"}, nil},
		{"compat: with empty id (AC-3.15)", Settings{Getenv: envOf(EnvModel, "compat:")}, ErrInvalidModel, []string{"compat:<model-id>", EnvModel}, nil},
		{"compat: with blank id", Settings{ConfigModel: "compat: "}, ErrInvalidModel, []string{"compat:<model-id>", "config.json"}, nil},
		{"bare replay", Settings{Flag: "replay"}, ErrInvalidModel, []string{"replay:<run-id>"}, nil},
		{"codex: with empty id", Settings{Flag: "codex:"}, ErrInvalidModel, []string{"codex:<model-id>"}, nil},
		{"claude-code: with empty id", Settings{Flag: "claude-code:"}, ErrInvalidModel, []string{"claude-code:<model-id>"}, nil},
		{"apiKeyEnv holding a key is refused without echoing it",
			Settings{Flag: "compat:m", ConfigBaseURL: "https://api.example.com/v1", ConfigAPIKeyEnv: "sk-" + "live-0123456789abcdefghijkl"},
			ErrInvalidModel, []string{"apiKeyEnv", "environment variable"}, []string{"sk-live"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.s.Getenv == nil {
				tt.s.Getenv = envOf()
			}
			_, err := Select(tt.s)
			if !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
			for _, c := range tt.contains {
				if !strings.Contains(err.Error(), c) {
					t.Errorf("error %q does not mention %q", err, c)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(err.Error(), a) {
					t.Errorf("error %q leaks %q", err, a)
				}
			}
		})
	}
}
