// Package redact owns copperhead's one rule for what counts as a secret in
// anything it writes to disk or to a log: API keys and tokens by their shape,
// credential-bearing HTTP headers, and the values of the process's own
// secret-named environment variables. Every transcript, summary and log line
// passes through a Redactor before its bytes leave the process (spec §7,
// AC-4.1, AC-8.10), so a key the model echoes, a tool prints or a user pastes
// is never persisted.
//
// Redaction replaces each secret with Marker ("[REDACTED]"). For header-style
// matches only the credential is replaced and the header name and scheme stay
// readable ("Authorization: Bearer [REDACTED]"). The marker contains no
// character a key can contain, so redacting twice changes nothing and a marker
// can never combine with neighbouring text into something that looks like a
// key.
//
// redact imports only the standard library. It must never import any other
// copperhead package: everything that writes to disk depends on it, so it
// must depend on nothing.
package redact

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// Marker replaces every redacted secret.
const Marker = "[REDACTED]"

// MinSecretLen is the shortest environment value (or With secret) that is
// redacted as a literal. A short value such as "1" or "true" in FOO_TOKEN
// would otherwise shred every number and word of the text it appears in;
// real keys and tokens are far longer.
const MinSecretLen = 8

// secretNameSuffixes mark environment variables whose values are secrets
// (OPENAI_API_KEY, CLIENT_SECRET, CLAUDE_CODE_OAUTH_TOKEN, ...). Matched on
// the upper-cased name.
var secretNameSuffixes = []string{"_KEY", "_SECRET", "_TOKEN"}

// Redactor removes secrets from text. Build it once per process with New and
// share it: it is immutable and safe for concurrent use. The nil *Redactor is
// usable and applies the shape rules only (no environment values).
type Redactor struct {
	// literals are known secret values, longest first, then lexically, so
	// the result never depends on environment order.
	literals []string
}

// New returns a Redactor that, besides the shape rules, redacts the value of
// every variable in environ (in os.Environ "NAME=value" form) whose name ends
// in _KEY, _SECRET or _TOKEN, when the value is at least MinSecretLen bytes.
func New(environ []string) *Redactor {
	var values []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !IsSecretName(name) {
			continue
		}
		values = append(values, value)
	}
	return (*Redactor)(nil).With(values...)
}

// IsSecretName reports whether an environment variable's value is treated as
// a secret: its name ends in _KEY, _SECRET or _TOKEN (case-insensitive).
func IsSecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, suf := range secretNameSuffixes {
		if strings.HasSuffix(up, suf) {
			return true
		}
	}
	return false
}

// With returns a Redactor that also redacts the given secret values (for
// example the value of the variable a compat: endpoint's apiKeyEnv names,
// whatever that name is). Values shorter than MinSecretLen are ignored. r is
// not modified.
//
// Each value is also redacted in the forms it takes once quoted by JSON or
// Go (a value containing a quote or backslash is written escaped) and, for a
// multi-line value such as a PEM key, line by line, so a log that splits it
// across lines still hides every line.
func (r *Redactor) With(secrets ...string) *Redactor {
	seen := map[string]bool{}
	var lits []string
	add := func(s string) {
		if len(s) >= MinSecretLen && !seen[s] {
			seen[s] = true
			lits = append(lits, s)
		}
	}
	if r != nil {
		for _, s := range r.literals {
			add(s)
		}
	}
	for _, s := range secrets {
		for _, v := range secretForms(s) {
			add(v)
		}
	}
	slices.SortFunc(lits, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return &Redactor{literals: lits}
}

// secretForms is s and the spellings it takes inside quoted or line-split
// output.
func secretForms(s string) []string {
	forms := []string{s, strings.TrimSpace(s)}
	if q := strconv.Quote(s); len(q) >= 2 {
		forms = append(forms, q[1:len(q)-1])
	}
	for _, html := range []bool{true, false} {
		forms = append(forms, jsonInner(s, html))
	}
	if strings.ContainsAny(s, "\r\n") {
		for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
			forms = append(forms, strings.TrimSpace(line))
		}
	}
	return forms
}

// jsonInner is s as encoding/json writes it inside a string literal, without
// the quotes.
func jsonInner(s string, escapeHTML bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(s); err != nil {
		return s
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// String returns s with every secret replaced by Marker. It returns s itself
// when there is nothing to redact.
func (r *Redactor) String(s string) string {
	out, _ := r.redacted(s)
	return out
}

// redacted is s with every secret replaced by Marker, and whether there was
// any (when not, s itself).
func (r *Redactor) redacted(s string) (string, bool) {
	spans := r.find(s)
	if len(spans) == 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	writeRedacted(&b, s, spans)
	return b.String(), true
}

// Bytes returns b with every secret replaced by Marker. When there is nothing
// to redact it returns b itself (not a copy); otherwise a new slice, and b is
// never modified.
func (r *Redactor) Bytes(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	// Scanning reads b as a string without copying it; b is not modified
	// while s is in use.
	out, changed := r.redacted(unsafe.String(unsafe.SliceData(b), len(b)))
	if !changed {
		return b
	}
	return []byte(out)
}

// Contains reports whether s holds anything String would redact.
func (r *Redactor) Contains(s string) bool {
	return len(r.find(s)) > 0
}

// span is a half-open byte range [lo, hi) to replace with Marker.
type span struct{ lo, hi int }

// find returns every range to redact in s, in no particular order and
// possibly overlapping; writeRedacted merges them. Taking the union of every
// rule's matches (rather than applying rules one after another) means two
// overlapping secrets are both hidden completely and a replacement can never
// create a new match.
func (r *Redactor) find(s string) []span {
	var spans []span
	for i := 0; i < len(s); i++ {
		for _, rule := range rulesByFirstByte[s[i]] {
			if lo, hi, ok := rule(s, i); ok {
				spans = append(spans, span{lo, hi})
				i = hi - 1
				break
			}
		}
	}
	if r != nil {
		for _, lit := range r.literals {
			for off := 0; off < len(s); {
				j := strings.Index(s[off:], lit)
				if j < 0 {
					break
				}
				spans = append(spans, span{off + j, off + j + len(lit)})
				off += j + len(lit)
			}
		}
	}
	return spans
}

// writeRedacted writes s to b with the union of spans replaced, one Marker
// per maximal run of overlapping or touching spans.
func writeRedacted(b *strings.Builder, s string, spans []span) {
	slices.SortFunc(spans, func(x, y span) int { return cmp.Compare(x.lo, y.lo) })
	last := 0
	for k := 0; k < len(spans); {
		lo, hi := spans[k].lo, spans[k].hi
		for k++; k < len(spans) && spans[k].lo <= hi; k++ {
			hi = max(hi, spans[k].hi)
		}
		b.WriteString(s[last:lo])
		b.WriteString(Marker)
		last = hi
	}
	b.WriteString(s[last:])
}
