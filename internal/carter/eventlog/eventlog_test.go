package eventlog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"copperhead/internal/redact"
)

func TestAppendReadAndRedact(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	secret := "sk-" + "live0123456789abcdefghijklmnop"
	clock := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	w, err := Create(path, redact.New(nil), func() time.Time { clock = clock.Add(time.Millisecond); return clock })
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		typ     Type
		payload any
	}{
		{TaskCreated, map[string]any{"question": "q"}},
		{Searched, map[string]any{"query": "uses " + secret}},
		{Stopped, map[string]any{"stop_reason": "COVERAGE_MET"}},
	} {
		if _, err := w.Append(e.typ, e.payload); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Append("MADE_UP", map[string]any{}); err == nil {
		t.Error("an unknown event type was accepted")
	}
	if _, err := w.Append(Error, []int{1}); err == nil {
		t.Error("a non-object payload was accepted")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(Error, map[string]any{}); err == nil {
		t.Error("append after close succeeded")
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), secret) {
		t.Fatal("the secret reached the log")
	}
	events, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 3 || events[0].Type != TaskCreated || events[2].Type != Stopped {
		t.Fatalf("events = %+v", events)
	}
	if events[0].TS != "2026-01-02T03:04:05.007Z" {
		t.Errorf("ts = %s", events[0].TS)
	}
	var p map[string]string
	if err := json.Unmarshal(events[1].Payload, &p); err != nil || !strings.Contains(p["query"], redact.Marker) {
		t.Errorf("payload = %s (%v)", events[1].Payload, err)
	}
	// Never rewritten: a second Create on the same path is refused.
	if _, err := Create(path, nil, nil); err == nil {
		t.Fatal("Create reopened an existing log")
	}
}

func TestReadRejectsDamagedLogs(t *testing.T) {
	good := `{"event_id":"01J0000000000000000000000A","ts":"2026-01-02T03:04:05.000Z","type":"TASK_CREATED","payload":{}}`
	tests := []struct {
		name, body, want string
	}{
		{"not json", "nope\n", "invalid character"},
		{"bad id", strings.Replace(good, "01J0000000000000000000000A", "x", 1), "is not a ULID"},
		{"bad ts", strings.Replace(good, "2026-01-02T03:04:05.000Z", "yesterday", 1), "not an ISO 8601"},
		{"bad type", strings.Replace(good, "TASK_CREATED", "HACKED", 1), "unknown event type"},
		{"array payload", strings.Replace(good, `"payload":{}`, `"payload":[]`, 1), "payload is not an object"},
		{"reordered", strings.Replace(good, "0A", "0B", 1) + "\n" + good, "does not follow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if err := os.WriteFile(path, []byte(tt.body+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Read(path); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
