// Package policy is carter's policy engine (spec §1, §6): which sources a run
// may use (domain allow and deny lists, the recency window), what fetched
// text may carry into the artifacts (secrets are redacted before anything is
// hashed, stored or quoted), and the untrusted-content rule: text addressed
// to an AI agent is flagged, never used as evidence and never obeyed.
//
// policy may import internal/redact, internal/carter/task and the standard
// library. It must never import a retriever, synth or the orchestrator: the
// rules are applied by them, not shaped by them.
package policy

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"copperhead/internal/carter/task"
	"copperhead/internal/redact"
)

// LocalDomain is the "domain" of a local corpus file: all files of a corpus
// are one origin for diversity.
const LocalDomain = "local"

// Policy holds one run's rules. Build it with New from a normalized spec.
type Policy struct {
	allow, deny []string
	recency     time.Duration
	now         time.Time
	redactor    *redact.Redactor
}

// New returns the policy for spec, judged at time now. r redacts secrets in
// fetched text (nil: the shape rules only).
func New(spec task.Spec, now time.Time, r *redact.Redactor) *Policy {
	return &Policy{
		allow:    spec.Constraints.AllowDomains,
		deny:     spec.Constraints.DenyDomains,
		recency:  time.Duration(spec.Constraints.RecencyDays) * 24 * time.Hour,
		now:      now,
		redactor: r,
	}
}

// Host returns the lower-case host of an http(s) URL, or "" for anything
// else (file:// corpus paths have no host).
func Host(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

// CheckURL says whether a source at raw may be used: "" when it may, or why
// not. Deny wins over allow; with an allow list, only hosts under one of its
// domains pass. Local corpus files are not subject to domain rules: the
// user chose the folder.
func (p *Policy) CheckURL(raw string) string {
	if strings.HasPrefix(raw, "file://") {
		return ""
	}
	host := Host(raw)
	if host == "" {
		return "not an http(s) URL"
	}
	for _, d := range p.deny {
		if Under(host, d) {
			return fmt.Sprintf("domain %s is denied", d)
		}
	}
	if len(p.allow) == 0 {
		return ""
	}
	for _, d := range p.allow {
		if Under(host, d) {
			return ""
		}
	}
	return fmt.Sprintf("host %s is not under an allowed domain (%s)", host, strings.Join(p.allow, ", "))
}

// AllowDomains returns the allow list (empty: any domain not denied).
func (p *Policy) AllowDomains() []string { return p.allow }

// Under reports whether host is domain or one of its subdomains.
func Under(host, domain string) bool {
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// CheckPublished says whether a source published on date (YYYY-MM-DD, or
// nil when unknown) is inside the recency window: "" when it is. An unknown
// date passes (most documentation carries none); the brief shows it as
// unknown.
func (p *Policy) CheckPublished(date *string) string {
	if date == nil {
		return ""
	}
	t, err := time.Parse("2006-01-02", *date)
	if err != nil {
		return ""
	}
	if age := p.now.Sub(t); age > p.recency {
		return fmt.Sprintf("published %s, older than the %d-day recency window", *date, int(p.recency.Hours()/24))
	}
	return ""
}

// Redact replaces anything shaped like a credential in fetched text and
// reports whether it did. It runs before the text is hashed, stored or
// quoted, so a key a page leaks never reaches the artifacts.
func (p *Policy) Redact(text string) (string, bool) {
	out := p.redactor.String(text)
	return out, out != text
}

// RegistrableDomain returns the part of host a registrant controls
// ("docs.kicad.org" -> "kicad.org", "www.bbc.co.uk" -> "bbc.co.uk"). IP
// addresses are their own domain. The suffix list is small on purpose: a
// miss makes two sites on one shared suffix count as one domain, which
// under-reports diversity rather than inflating it.
func RegistrableDomain(host string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return LocalDomain
	}
	if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return host
	}
	labels := strings.Split(host, ".")
	if len(labels) <= 2 {
		return host
	}
	last2 := strings.Join(labels[len(labels)-2:], ".")
	if multiLabelSuffixes[last2] {
		return strings.Join(labels[len(labels)-3:], ".")
	}
	return last2
}

// multiLabelSuffixes are the public suffixes of more than one label that
// research sources commonly sit under: country second-level domains and
// shared hosting platforms whose subdomains belong to different people.
var multiLabelSuffixes = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields(`co.uk ac.uk gov.uk org.uk ltd.uk me.uk net.uk
		com.au net.au org.au edu.au gov.au co.nz org.nz ac.nz govt.nz
		co.jp ne.jp or.jp ac.jp go.jp co.kr or.kr ac.kr com.cn net.cn org.cn edu.cn gov.cn
		com.tw org.tw edu.tw com.hk org.hk edu.hk com.sg edu.sg gov.sg co.in org.in ac.in gov.in
		com.br org.br gov.br com.mx com.ar co.za org.za ac.za com.tr co.il ac.il com.my
		github.io gitlab.io pages.dev netlify.app vercel.app herokuapp.com blogspot.com
		readthedocs.io appspot.com azurewebsites.net cloudfront.net s3.amazonaws.com web.app firebaseapp.com`) {
		m[s] = true
	}
	return m
}()
