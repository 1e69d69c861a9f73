package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"copperhead/internal/sourcing"
)

// Defaults of the "research" block (design D5, D7, D9).
const (
	// DefaultMaxPdfMB caps one cached datasheet: the cache is committed, so
	// every megabyte lands in every clone.
	DefaultMaxPdfMB = 10
	// DefaultStalenessDays is the age at which a sourcing snapshot stops
	// being evidence (D7).
	DefaultStalenessDays = sourcing.DefaultMaxAgeDays
)

// Limits of the "research" block's numbers.
const (
	// maxPdfMBLimit: beyond a gigabyte a datasheet is not a datasheet, and the
	// committed cache would need git-lfs anyway.
	maxPdfMBLimit = 1024
	// maxStalenessDays is a century: enough for "never stale" in a test
	// fixture, small enough that the age arithmetic cannot overflow.
	maxStalenessDays = 36500
)

// ResearchConfig is the "research" block of config.json. A repo without one
// has research disabled: the research tools are absent and `check` judges
// only the sourcing snapshots a repo already has (D2, D9).
type ResearchConfig struct {
	Enabled       bool     // research tools may be offered to the agent (they also need their keys)
	AllowHosts    []string // hosts research may reach besides the shipped list: "api.example.com" or "*.example.com"
	FetchPages    bool     // fetch_page (readable text of a search result page) is offered; off by default (D4)
	MaxPdfMB      int      // per-datasheet download cap in MB (default 10)
	StalenessDays int      // a sourcing snapshot older than this is stale (default 30)
	Extra         map[string]json.RawMessage

	// declared records that config.json has the block, so Marshal writes
	// it back even when every value is a default.
	declared bool
}

// DefaultResearch is the research block of a repo that has none: disabled.
func DefaultResearch() ResearchConfig {
	return ResearchConfig{MaxPdfMB: DefaultMaxPdfMB, StalenessDays: DefaultStalenessDays}
}

// hostPatternRE is an allowHosts entry: a lower-case DNS name, optionally
// behind "*." (that domain and every subdomain). No scheme, port or path:
// the allowlist is about hosts, and egress matches hosts only.
var hostPatternRE = regexp.MustCompile(`^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)

// parseResearch decodes the "research" block; errors name the key as
// "research.<field>".
func parseResearch(v json.RawMessage, name string) (ResearchConfig, error) {
	r := DefaultResearch()
	r.declared = true
	if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return r, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(v, &raw); err != nil || raw == nil {
		return ResearchConfig{}, fmt.Errorf("%s: key \"research\": expected an object, got %s", name, jsonKind(v))
	}
	if err := decodeKeys(raw, name, "research.", []configKey{
		{"enabled", &r.Enabled},
		{"allowHosts", &r.AllowHosts},
		{"fetchPages", &r.FetchPages},
		{"maxPdfMB", &r.MaxPdfMB},
		{"stalenessDays", &r.StalenessDays},
	}); err != nil {
		return ResearchConfig{}, err
	}
	if len(raw) > 0 {
		r.Extra = raw
	}
	if r.MaxPdfMB < 1 || r.MaxPdfMB > maxPdfMBLimit {
		return ResearchConfig{}, fmt.Errorf("%s: key \"research.maxPdfMB\" must be between 1 and %d, got %d", name, maxPdfMBLimit, r.MaxPdfMB)
	}
	if r.StalenessDays < 1 || r.StalenessDays > maxStalenessDays {
		return ResearchConfig{}, fmt.Errorf("%s: key \"research.stalenessDays\" must be between 1 and %d, got %d", name, maxStalenessDays, r.StalenessDays)
	}
	for i, h := range r.AllowHosts {
		// Host names are case-insensitive; egress compares lower case.
		r.AllowHosts[i] = strings.ToLower(strings.TrimSpace(h))
		if !hostPatternRE.MatchString(r.AllowHosts[i]) {
			return ResearchConfig{}, fmt.Errorf("%s: key \"research.allowHosts\": entry %d %q is not a host name or \"*.domain\" wildcard (no scheme, port or path)", name, i+1, h)
		}
	}
	return r, nil
}

// jsonKind names the kind of a JSON value for an error message.
func jsonKind(v json.RawMessage) string {
	t := bytes.TrimSpace(v)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '[':
		return "JSON array"
	case '"':
		return "JSON string"
	case 't', 'f':
		return "JSON bool"
	case 'n':
		return "JSON null"
	}
	return "JSON number"
}

// fields is the block as Marshal writes it, or nil when config.json had no
// block and every value is a default (an existing repo is not opted into
// anything by a rewrite).
func (r ResearchConfig) fields() map[string]any {
	def := DefaultResearch()
	if !r.declared && !r.Enabled && !r.FetchPages && len(r.AllowHosts) == 0 && len(r.Extra) == 0 &&
		r.MaxPdfMB == def.MaxPdfMB && r.StalenessDays == def.StalenessDays {
		return nil
	}
	out := map[string]any{}
	for k, v := range r.Extra {
		out[k] = v // provider, searchProvider (D9) and whatever a newer copperhead added
	}
	out["enabled"] = r.Enabled
	out["fetchPages"] = r.FetchPages
	out["maxPdfMB"] = r.MaxPdfMB
	out["stalenessDays"] = r.StalenessDays
	if len(r.AllowHosts) > 0 {
		out["allowHosts"] = slices.Clone(r.AllowHosts)
	}
	return out
}
