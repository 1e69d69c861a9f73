// Package menu holds a run's URL menu. A URL menu is the set of URLs a run
// may fetch: the model selects from it and can never add to it. Only trusted
// code writes entries (search results, datasheet URLs a part-data API
// returned, links harvested from fetched pages by our own parser), so every
// fetched URL is one the ecosystem presented, never one the model composed.
// That closes the exfiltration channel: an injected model cannot address a
// byte of its context to an attacker's endpoint, only choose among endpoints
// trusted code already saw.
//
// Canonicalize is the one canonicalization: the string it returns is both
// what the menu stores and what the HTTP client is handed, byte for byte, so
// the menu check and the request can never disagree about which URL it is.
package menu

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// DefaultMaxEntries caps one run's menu. A research run sees a few hundred
// URLs (tens of searches of ten results, plus datasheet links); 2000 sits
// well above that and exists only to stop a pathological page whose
// thousands of harvested links would bloat the menu and the prompt.
const DefaultMaxEntries = 2000

// maxURLLen rejects URLs longer than any real datasheet or product link;
// very long URLs are almost always encoded payloads or tracking junk.
const maxURLLen = 4096

// Entry is one fetchable URL and where trusted code saw it.
type Entry struct {
	URL    string // canonical form; fetch exactly this
	Source string // e.g. "web_search:brave", "nexar:datasheet", "link:<page>"
}

// Menu is one run's URL menu. It is safe for concurrent use.
type Menu struct {
	mu      sync.Mutex
	max     int
	index   map[string]int
	entries []Entry
}

// New returns an empty menu holding at most max entries (<= 0: DefaultMaxEntries).
func New(max int) *Menu {
	if max <= 0 {
		max = DefaultMaxEntries
	}
	return &Menu{max: max, index: map[string]int{}}
}

// Add records raw as fetchable, returning its canonical form. It reports
// false, and records nothing, when raw does not canonicalize (relative links,
// mailto:, userinfo, junk are simply not fetchable, not errors) or the menu
// is full. Adding a URL already present keeps the first source.
func (m *Menu) Add(raw, source string) (canonical string, ok bool) {
	c, err := Canonicalize(raw)
	if err != nil {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.index[c]; dup {
		return c, true
	}
	if len(m.entries) >= m.max {
		return "", false
	}
	m.index[c] = len(m.entries)
	m.entries = append(m.entries, Entry{URL: c, Source: source})
	return c, true
}

// Lookup canonicalizes raw and reports the menu entry it names. A URL the
// model composed itself is not in the menu, so it is refused here.
func (m *Menu) Lookup(raw string) (Entry, bool) {
	c, err := Canonicalize(raw)
	if err != nil {
		return Entry{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	i, ok := m.index[c]
	if !ok {
		return Entry{}, false
	}
	return m.entries[i], true
}

// Entries returns the menu in the order entries were added.
func (m *Menu) Entries() []Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Entry(nil), m.entries...)
}

// Len reports how many entries the menu holds.
func (m *Menu) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}

// Canonicalize returns the one canonical form of an absolute http(s) URL:
// scheme and host lower-cased, a trailing dot on the host dropped, the
// default port (80/443) dropped, the fragment dropped (it never reaches the
// wire), dot segments resolved, and an empty path made "/". Userinfo and any
// other scheme are rejected. Nothing else changes: query order and percent
// encoding are kept as given, because servers may depend on them.
func Canonicalize(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", errors.New("empty URL")
	}
	// The limit applies to the canonical form, which is what is fetched and
	// stored: escaping can make it up to three times longer than the input,
	// and checking only the input would let a canonical string fail its own
	// re-canonicalization (found by FuzzCanonicalize). The input bound only
	// keeps parsing cheap.
	if len(raw) > maxURLLen {
		return "", fmt.Errorf("URL longer than %d bytes", maxURLLen)
	}
	if strings.Contains(raw, `\`) {
		// Browsers read a backslash as a slash; Go does not. Refusing it
		// keeps every reader agreeing on the host.
		return "", errors.New("backslash in URL")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("scheme %q is not http(s)", u.Scheme)
	}
	if u.Opaque != "" {
		return "", errors.New("not an absolute http(s) URL")
	}
	if u.User != nil {
		return "", errors.New("userinfo in URL")
	}
	// Hosts are ASCII (IDNs travel as punycode): anything else is refused
	// here rather than lower-cased, which would turn each invalid byte into
	// a three-byte replacement character and make canonicalization grow the
	// URL on every pass (found by FuzzCanonicalize). egress refuses such
	// hosts too.
	for i := 0; i < len(u.Hostname()); i++ {
		if c := u.Hostname()[i]; c <= ' ' || c >= 0x7f {
			return "", fmt.Errorf("bad host: non-ASCII or control byte 0x%02x (use the punycode form)", c)
		}
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" || strings.HasPrefix(host, ".") || strings.Contains(host, "..") || strings.HasSuffix(host, ".") {
		return "", fmt.Errorf("bad host %q", u.Hostname())
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port := u.Port(); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n <= 0 || n > 65535 {
			return "", fmt.Errorf("bad port %q", port)
		}
		if !(scheme == "http" && n == 80) && !(scheme == "https" && n == 443) {
			host += ":" + strconv.Itoa(n)
		}
	}
	path := removeDotSegments(u.EscapedPath())
	if path == "" {
		path = "/"
	}
	out := scheme + "://" + host + path
	if u.RawQuery != "" || u.ForceQuery {
		out += "?" + escapeQuery(u.RawQuery)
	}
	if len(out) > maxURLLen {
		return "", fmt.Errorf("URL longer than %d bytes once escaped", maxURLLen)
	}
	return out, nil
}

// escapeQuery percent-encodes the bytes a query may not hold as they are
// (spaces, controls, non-ASCII), as a browser sends them: left raw, a
// trailing space was trimmed on the next pass, so the canonical form was
// not stable (found by FuzzCanonicalize). Everything else is kept as
// written, escapes included.
func escapeQuery(q string) string {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		if c := q[i]; c <= ' ' || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// removeDotSegments implements RFC 3986 §5.2.4 on an escaped path.
func removeDotSegments(p string) string {
	if p == "" {
		return ""
	}
	var out []string
	segs := strings.Split(p, "/")
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}
