package task

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name    string
		in      Spec
		wantErr string
		check   func(t *testing.T, s Spec)
	}{
		{name: "defaults", in: Spec{Question: "  What   is\tKiCad? "}, check: func(t *testing.T, s Spec) {
			c := s.Constraints
			if s.Question != "What is KiCad?" || c.MaxToolCalls != 25 || c.MaxMinutes != 10 || c.MaxSources != 10 || c.RecencyDays != 3650 {
				t.Errorf("got %+v", s)
			}
			if c.AllowDomains == nil || c.DenyDomains == nil {
				t.Error("domain lists must be non-nil so the JSON says []")
			}
		}},
		{name: "explicit budgets kept", in: Spec{Question: "q", Constraints: Constraints{MaxToolCalls: 3, MaxMinutes: 0.5, MaxSources: 2, RecencyDays: 30}},
			check: func(t *testing.T, s Spec) {
				if c := s.Constraints; c.MaxToolCalls != 3 || c.MaxMinutes != 0.5 || c.MaxSources != 2 || c.RecencyDays != 30 {
					t.Errorf("got %+v", c)
				}
			}},
		{name: "domains normalized", in: Spec{Question: "q", Constraints: Constraints{
			AllowDomains: []string{"https://Docs.KiCad.org/9.0/", "*.kicad.org", "kicad.org.", "docs.kicad.org"}}},
			check: func(t *testing.T, s Spec) {
				if got := strings.Join(s.Constraints.AllowDomains, ","); got != "docs.kicad.org,kicad.org" {
					t.Errorf("allow = %s", got)
				}
			}},
		{name: "empty question", in: Spec{Question: " \n\t "}, wantErr: "the question is empty"},
		{name: "control character", in: Spec{Question: "a\x00b"}, wantErr: "control character"},
		{name: "too long", in: Spec{Question: strings.Repeat("a", 2001)}, wantErr: "2001 bytes long"},
		{name: "negative sources", in: Spec{Question: "q", Constraints: Constraints{MaxSources: -1}}, wantErr: "max_sources must be between 1 and 100"},
		{name: "huge tool calls", in: Spec{Question: "q", Constraints: Constraints{MaxToolCalls: 100000}}, wantErr: "max_tool_calls"},
		{name: "negative minutes", in: Spec{Question: "q", Constraints: Constraints{MaxMinutes: -2}}, wantErr: "max_minutes"},
		{name: "negative recency", in: Spec{Question: "q", Constraints: Constraints{RecencyDays: -1}}, wantErr: "recency_days"},
		{name: "allowed and denied", in: Spec{Question: "q", Constraints: Constraints{AllowDomains: []string{"a.com"}, DenyDomains: []string{"A.com"}}}, wantErr: "both allowed and denied"},
		{name: "bad domain", in: Spec{Question: "q", Constraints: Constraints{DenyDomains: []string{"exa mple.com"}}}, wantErr: `--deny-domain "exa mple.com"`},
		{name: "empty label", in: Spec{Question: "q", Constraints: Constraints{DenyDomains: []string{"a..com"}}}, wantErr: "empty or over-long label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("err = %v, want ErrInvalid containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, got)
			again, err := Normalize(got)
			if err != nil || again.Question != got.Question || again.Constraints.MaxSources != got.Constraints.MaxSources {
				t.Errorf("Normalize is not idempotent: %+v, %v", again, err)
			}
		})
	}
}
