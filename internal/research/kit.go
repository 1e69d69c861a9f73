package research

import (
	"regexp"
	"slices"
	"strings"
	"sync/atomic"

	"copperhead/internal/config"
	"copperhead/internal/research/egress"
	"copperhead/internal/research/menu"
	"copperhead/internal/research/parts"
	"copperhead/internal/research/search"
)

// providerHosts are the API hosts the search and part-data providers call.
// They are always allowed, whatever the shipped list and the config say: a
// provider whose key is set must be able to answer.
var providerHosts = []string{
	"api.search.brave.com", "api.tavily.com", "openrouter.ai",
	"identity.nexar.com", "api.nexar.com", "api.mouser.com",
}

// Kit is one run's research: a single egress client (so one network log
// covers every request of the run), the run's URL menu, and the providers
// whose keys are in the environment. Tools built over one Kit share its menu:
// what web_search and search_parts add, fetch_page and fetch_datasheet may
// fetch, and nothing else.
type Kit struct {
	Client *egress.Client
	Menu   *menu.Menu
	// Search and Parts hold the providers whose keys are set, in preference
	// order; empty means the matching tools are absent.
	Search     []search.Provider
	Parts      []parts.Provider
	FetchPages bool
	MaxPdfMB   int

	requests, refused atomic.Int64
}

// egressForTests, when non-nil, adjusts the egress configuration of every
// Kit that New builds. Only SetEgressForTests sets it, and only test
// harnesses call that (cmd/copperhead/main_test.go, package tests): no flag,
// config key or environment variable of the production binary reaches it.
var egressForTests func(*egress.Config)

// SetEgressForTests makes every later New apply adjust to its egress
// configuration (to admit a loopback fake and its certificate) and returns a
// function restoring the previous state. It is for tests only.
func SetEgressForTests(adjust func(*egress.Config)) (restore func()) {
	prev := egressForTests
	egressForTests = adjust
	return func() { egressForTests = prev }
}

// New builds a Kit from the repository's research block and the provider
// keys getenv reports. It does not look at cfg.Enabled: the agent loop offers
// research tools only when it is set (D2), while a person's own `parts
// search` and `datasheet fetch` are their own opt-in. log receives every
// request and refusal of the Kit's client (nil: none are reported); the Kit
// counts them either way. The allowlist is the shipped list, the providers'
// API hosts and cfg.AllowHosts.
func New(cfg config.ResearchConfig, getenv func(string) string, log func(egress.Record)) *Kit {
	k := &Kit{Menu: menu.New(0), FetchPages: cfg.FetchPages, MaxPdfMB: cfg.MaxPdfMB}
	hosts := slices.Concat(egress.DefaultAllowHosts, providerHosts, cfg.AllowHosts)
	ecfg := egress.Config{
		AllowHosts: slices.Compact(slices.Sorted(slices.Values(hosts))),
		Log: func(r egress.Record) {
			k.requests.Add(1)
			if r.Refused != "" {
				k.refused.Add(1)
			}
			if log != nil {
				log(r)
			}
		},
	}
	if egressForTests != nil {
		egressForTests(&ecfg)
	}
	k.Client = egress.New(ecfg)
	k.Search = search.Available(getenv, k.Client)
	k.Parts = parts.Available(getenv, k.Client)
	return k
}

// Requests reports how many requests the Kit's client has logged, and how
// many of those were refused before or during sending. A redirect hop is a
// request of its own.
func (k *Kit) Requests() (total, refused int) {
	return int(k.requests.Load()), int(k.refused.Load())
}

// textURL finds http(s) URLs in prose; trailing punctuation is trimmed by
// AllowTextURLs.
var textURL = regexp.MustCompile("https?://[^\\s<>\"'`]+")

// AllowTextURLs adds every http(s) URL written in text to the menu under
// source and returns how many it added. It is for text a person wrote (the
// change request): a URL the human gave is one trusted code may fetch.
// Never pass it model or fetched text.
func (k *Kit) AllowTextURLs(text, source string) int {
	n := 0
	for _, u := range textURL.FindAllString(text, -1) {
		u = strings.TrimRight(u, ".,;:!?)]}")
		if _, ok := k.Menu.Add(u, source); ok {
			n++
		}
	}
	return n
}
