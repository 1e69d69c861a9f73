package research

import (
	"context"
	"errors"
	"strings"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/research/egress"
	"copperhead/internal/research/researchtest"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// TestNewProviders: providers exist exactly when their keys are set (D2).
func TestNewProviders(t *testing.T) {
	tests := []struct {
		name          string
		getenv        func(string) string
		search, parts []string
	}{
		{"no keys", env(), nil, nil},
		{"brave", env("BRAVE_API_KEY", "k"), []string{"brave"}, nil},
		{"all search", env("TAVILY_API_KEY", "t", "BRAVE_API_KEY", "b", "OPENROUTER_API_KEY", "o"), []string{"brave", "tavily", "openrouter"}, nil},
		{"nexar needs both", env("NEXAR_CLIENT_ID", "id"), nil, nil},
		{"nexar and mouser", env("NEXAR_CLIENT_ID", "id", "NEXAR_CLIENT_SECRET", "s", "MOUSER_API_KEY", "m"), nil, []string{"nexar", "mouser"}},
		{"blank key", env("BRAVE_API_KEY", "  "), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := New(config.DefaultResearch(), tt.getenv, nil)
			var s, p []string
			for _, x := range k.Search {
				s = append(s, x.Name())
			}
			for _, x := range k.Parts {
				p = append(p, x.Name())
			}
			if strings.Join(s, ",") != strings.Join(tt.search, ",") || strings.Join(p, ",") != strings.Join(tt.parts, ",") {
				t.Errorf("search %v parts %v, want %v %v", s, p, tt.search, tt.parts)
			}
		})
	}
}

// TestNewAllowlistAndLog: the allowlist is the shipped list plus
// research.allowHosts; every request and refusal is logged and counted.
func TestNewAllowlistAndLog(t *testing.T) {
	net := researchtest.NewInternet(t, "parts.example.org")
	net.Serve("www.ti.com", "/ok", "text/plain", []byte("ok"))
	net.Serve("parts.example.org", "/ok", "text/plain", []byte("ok"))
	defer SetEgressForTests(net.Configure)()

	var logged []egress.Record
	cfg := config.DefaultResearch()
	cfg.AllowHosts = []string{"parts.example.org"}
	k := New(cfg, env(), func(r egress.Record) { logged = append(logged, r) })
	ctx := context.Background()
	for _, u := range []string{"https://www.ti.com/ok", "https://parts.example.org/ok"} {
		if _, err := k.Client.Get(ctx, u, 0); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	var refused *egress.RefusedError
	if _, err := k.Client.Get(ctx, "https://evil.example.net/x", 0); !errors.As(err, &refused) {
		t.Errorf("off-list host: %v", err)
	}
	if total, nRefused := k.Requests(); total != 3 || nRefused != 1 {
		t.Errorf("Requests() = %d, %d; want 3, 1", total, nRefused)
	}
	if len(logged) != 3 || logged[2].Refused == "" {
		t.Errorf("log = %+v", logged)
	}
}

func TestAllowTextURLs(t *testing.T) {
	k := New(config.DefaultResearch(), env(), nil)
	n := k.AllowTextURLs("use the datasheet at https://www.ti.com/lit/ds/symlink/tps63020.pdf, and (see https://www.ti.com/product/TPS63020). Not ftp://x.com/y or mailto:a@b.c", "request")
	if n != 2 {
		t.Errorf("added %d, want 2: %+v", n, k.Menu.Entries())
	}
	for _, u := range []string{"https://www.ti.com/lit/ds/symlink/tps63020.pdf", "https://www.ti.com/product/TPS63020"} {
		if e, ok := k.Menu.Lookup(u); !ok || e.Source != "request" {
			t.Errorf("%s: %+v, %v", u, e, ok)
		}
	}
}
