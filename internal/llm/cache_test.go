package llm_test

import (
	"context"
	"testing"

	"copperhead/internal/llm"
	"copperhead/internal/llm/llmtest"
)

func TestCacheScope(t *testing.T) {
	a := llm.Selection{Backend: llm.BackendCompat, ModelID: "llama3", BaseURL: "http://127.0.0.1:11434/v1"}
	b := a
	b.BaseURL = "http://127.0.0.1:8000/v1"
	if llm.CacheScope(a) == llm.CacheScope(b) {
		t.Error("compat: two endpoints share a cache scope")
	}
	c := llm.Selection{Backend: llm.BackendAnthropic, ModelID: "claude-sonnet-4-5", BaseURL: "http://elsewhere"}
	d := c
	d.BaseURL = ""
	if llm.CacheScope(c) != llm.CacheScope(d) {
		t.Error("a non-compat route's scope depends on an endpoint")
	}
}

// TestCacheCompatIsEndpointScoped is AC-3.20: a cached compat:<id> request
// re-run against a different baseURL reaches the new endpoint, while the same
// endpoint is served from the cache.
func TestCacheCompatIsEndpointScoped(t *testing.T) {
	dir := t.TempDir()
	msgs := []llm.Message{{Role: llm.RoleUser, Text: "which GPIO is RTC-capable?"}}
	chat := func(url string) *llm.Turn {
		t.Helper()
		sel := llm.Selection{Backend: llm.BackendCompat, ModelID: "llama3", BaseURL: url}
		p := llm.WithCache(llm.NewOpenAI(llm.OpenAIConfig{Name: llm.BackendCompat, Model: "llama3", BaseURL: url}), sel, dir)
		turn, err := p.Chat(context.Background(), msgs, nil, llm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return turn
	}
	first := llmtest.NewServer(t, llmtest.OpenAI, llmtest.Reply{Text: "GPIO4"})
	if got := chat(first.URL); got.Text != "GPIO4" || got.Cached {
		t.Fatalf("first call: %+v", got)
	}
	if got := chat(first.URL); got.Text != "GPIO4" || !got.Cached {
		t.Fatalf("same endpoint again: %+v, want the cached turn", got)
	}
	if n := len(first.Requests()); n != 1 {
		t.Fatalf("first endpoint got %d requests, want 1", n)
	}
	second := llmtest.NewServer(t, llmtest.OpenAI, llmtest.Reply{Text: "GPIO5"})
	if got := chat(second.URL); got.Text != "GPIO5" || got.Cached {
		t.Fatalf("new endpoint: %+v, want its own answer", got)
	}
	if n := len(second.Requests()); n != 1 {
		t.Fatalf("second endpoint got %d requests, want 1", n)
	}
}

// TestCacheKeyedRouteIgnoresEndpoint: an anthropic entry replays whatever
// host served it, so existing entries stay valid.
func TestCacheKeyedRouteIgnoresEndpoint(t *testing.T) {
	dir := t.TempDir()
	sel := llm.Selection{Backend: llm.BackendAnthropic, ModelID: "claude-sonnet-4-5"}
	msgs := []llm.Message{{Role: llm.RoleUser, Text: "hello"}}
	first := llmtest.NewServer(t, llmtest.Anthropic, llmtest.Reply{Text: "hi"})
	p := llm.WithCache(llm.NewAnthropic(llm.AnthropicConfig{APIKey: "test-key", Model: sel.ModelID, BaseURL: first.URL}), sel, dir)
	if _, err := p.Chat(context.Background(), msgs, nil, llm.Options{}); err != nil {
		t.Fatal(err)
	}
	second := llmtest.NewServer(t, llmtest.Anthropic)
	q := llm.WithCache(llm.NewAnthropic(llm.AnthropicConfig{APIKey: "test-key", Model: sel.ModelID, BaseURL: second.URL}), sel, dir)
	turn, err := q.Chat(context.Background(), msgs, nil, llm.Options{})
	if err != nil || !turn.Cached || turn.Text != "hi" {
		t.Fatalf("turn %+v, err %v: want the cached answer", turn, err)
	}
	if n := len(second.Requests()); n != 0 {
		t.Errorf("second host got %d requests", n)
	}
}
