package llmtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"copperhead/internal/llm"
	"copperhead/internal/llm/llmtest"
)

// recordingTB captures Errorf calls so a test can assert that the server
// reports misuse, without failing itself.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func TestScriptExhaustedFailsTheTest(t *testing.T) {
	rec := &recordingTB{TB: t}
	s := llmtest.NewServer(rec, llmtest.OpenAI, llmtest.Reply{Text: "one"})
	p := llm.NewOpenAI(llm.OpenAIConfig{Name: "compat", Model: "m", BaseURL: s.URL})
	msgs := []llm.Message{{Role: llm.RoleUser, Text: "hi"}}
	if _, err := p.Chat(context.Background(), msgs, nil, llm.Options{}); err != nil {
		t.Fatal(err)
	}
	if errs := rec.errors(); len(errs) != 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
	_, err := p.Chat(context.Background(), msgs, nil, llm.Options{})
	if err == nil {
		t.Fatal("unscripted request succeeded")
	}
	if errs := rec.errors(); len(errs) != 1 || !strings.Contains(errs[0], "script has only 1 steps") {
		t.Errorf("errors = %v", errs)
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("%d requests recorded, want 2", n)
	}
}

func TestWrongEndpointFailsTheTest(t *testing.T) {
	rec := &recordingTB{TB: t}
	s := llmtest.NewServer(rec, llmtest.Anthropic, llmtest.Reply{Text: "one"})
	resp, err := http.Get(s.URL + "/v1/complete")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || len(rec.errors()) != 1 {
		t.Errorf("status %d, errors %v", resp.StatusCode, rec.errors())
	}
}

func TestRequestsAreCopies(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Anthropic, llmtest.Reply{Text: "one"})
	p := llm.NewAnthropic(llm.AnthropicConfig{APIKey: "k-test", BaseURL: s.URL})
	if _, err := p.Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "hi"}}, nil, llm.Options{}); err != nil {
		t.Fatal(err)
	}
	first := s.Requests()
	first[0].Body[0] = 'X'
	first[0].Header.Set("X-Api-Key", "changed")
	again := s.Requests()[0]
	if again.Body[0] != '{' || again.Header.Get("X-Api-Key") != "k-test" {
		t.Error("Requests returned shared storage")
	}
	var body map[string]any
	if err := json.Unmarshal(again.Body, &body); err != nil || body["model"] != llm.DefaultAnthropicModel {
		t.Errorf("body %s: %v", again.Body, err)
	}
}

// TestSlowThen: a Slow step answers with its Then step after the delay.
func TestSlowThen(t *testing.T) {
	s := llmtest.NewServer(t, llmtest.Anthropic, llmtest.Slow{Delay: 1, Then: llmtest.Status{Code: 529}})
	p := llm.NewAnthropic(llm.AnthropicConfig{APIKey: "k-test", BaseURL: s.URL})
	_, err := p.Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Text: "hi"}}, nil, llm.Options{})
	if e, ok := err.(*llm.Error); !ok || e.Kind != llm.ErrOverloaded {
		t.Errorf("err = %v", err)
	}
}
