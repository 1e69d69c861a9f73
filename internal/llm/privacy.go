package llm

import (
	"net/url"
	"strings"
)

// PromptPolicy is what is on record about whether an endpoint's operator may
// train on the prompts sent to it (AC-3.17). Prompts carry a hardware
// project's design, so a user should know before pointing compat at a host.
type PromptPolicy struct {
	Host     string `json:"host"`
	Local    bool   `json:"local"`     // a true loopback endpoint: nothing leaves the machine
	Trains   bool   `json:"trains"`    // documented as using submitted prompts for training
	OnRecord bool   `json:"on_record"` // copperhead has a policy note for this host
	Note     string `json:"note"`
}

// promptPolicies are hosts whose published terms say how prompts are used.
// Only documented facts belong here: an unknown host gets an "info" line, not
// a guess. Suffix matches cover regional subdomains.
var promptPolicies = []struct {
	suffix string
	trains bool
	note   string
}{
	{"generativelanguage.googleapis.com", true, "Gemini API: Google's terms for the unpaid tier allow using prompts and responses to improve its products; use a paid (Cloud Billing) project to keep design data out"},
	{"api.openai.com", false, "OpenAI API: API inputs are not used for training by default"},
	{"api.anthropic.com", false, "Anthropic API: API inputs are not used for training by default"},
}

// EndpointPromptPolicy looks up baseURL's host. A loopback endpoint
// (localhost, 127.0.0.0/8, ::1) is Local and bypasses the check; a .local or
// LAN host is not loopback and is looked up like any other.
func EndpointPromptPolicy(baseURL string) PromptPolicy {
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() == "" {
		return PromptPolicy{Host: baseURL, Note: "unparseable endpoint"}
	}
	host := strings.ToLower(u.Hostname())
	pp := PromptPolicy{Host: host}
	if IsLoopbackHost(host) {
		pp.Local = true
		pp.Note = "loopback endpoint: prompts never leave this machine"
		return pp
	}
	for _, p := range promptPolicies {
		if host == p.suffix || strings.HasSuffix(host, "."+p.suffix) {
			pp.OnRecord, pp.Trains, pp.Note = true, p.trains, p.note
			return pp
		}
	}
	pp.Note = "no prompt-data policy on record for " + host + ": check its terms before sending design data"
	return pp
}
