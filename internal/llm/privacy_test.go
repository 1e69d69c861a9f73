package llm

import "testing"

func TestEndpointPromptPolicy(t *testing.T) {
	tests := []struct {
		url                     string
		local, trains, onRecord bool
	}{
		{"http://localhost:11434/v1", true, false, false},
		{"http://127.0.0.1:8000/v1", true, false, false},
		{"http://[::1]:8000/v1", true, false, false},
		{"http://gpu-box.local:8000/v1", false, false, false}, // LAN: not bypassed
		{"https://generativelanguage.googleapis.com/v1beta/openai", false, true, true},
		{"https://api.openai.com/v1", false, false, true},
		{"https://api.groq.com/openai/v1", false, false, false},
	}
	for _, tc := range tests {
		p := EndpointPromptPolicy(tc.url)
		if p.Local != tc.local || p.Trains != tc.trains || p.OnRecord != tc.onRecord {
			t.Errorf("%s: %+v", tc.url, p)
		}
		if p.Note == "" {
			t.Errorf("%s: no note", tc.url)
		}
	}
}
