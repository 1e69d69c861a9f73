package redact

import "strings"

// A rule recognises one secret shape starting at s[i] and returns the byte
// range to redact. Rules are hand-written scanners rather than regular
// expressions: one pass over the text, dispatched on the current byte, keeps
// redaction of multi-megabyte tool output and transcripts at memory speed,
// where a dozen regexp passes (several without a literal prefix to skip to)
// would not be.
type rule func(s string, i int) (lo, hi int, ok bool)

// rulesByFirstByte lists, for each byte, the rules whose match can start
// there.
var rulesByFirstByte [256][]rule

func init() {
	on := func(first string, r rule) {
		for i := 0; i < len(first); i++ {
			rulesByFirstByte[first[i]] = append(rulesByFirstByte[first[i]], r)
		}
	}
	on("s", openAIKey)
	on("A", awsKeyID)
	on("A", googleAPIKey)
	on("g", gitHubToken)
	on("x", slackToken)
	on("e", jwt)
	on("bB", bearerToken)
	on("t", tavilyKey)
	on("B", braveKey)
	firsts := ""
	for _, name := range credentialHeaders {
		if !strings.Contains(firsts, name[:1]) {
			firsts += name[:1]
		}
	}
	on(firsts+strings.ToUpper(firsts), credentialHeader)
}

// Byte classes.
var (
	keyChar    = class("A-Z", "a-z", "0-9", "_-")           // sk- keys, Google keys
	upperAlnum = class("A-Z", "", "0-9", "")                // AWS key ids
	alnum      = class("A-Z", "a-z", "0-9", "")             // word characters for boundaries
	patChar    = class("A-Z", "a-z", "0-9", "_")            // github_pat_
	slackChar  = class("A-Z", "a-z", "0-9", "-")            // xoxb-...
	b64urlChar = class("A-Z", "a-z", "0-9", "_-")           // JWT segments
	token68    = class("A-Z", "a-z", "0-9", "-._~+/=")      // RFC 7235 token68: bearer credentials
	blank      = class("", "", "", " \t")                   // header whitespace
	headerStop = class("", "", "", " \t\r\n\"',;`<>()[]{}") // ends a header value
)

func class(upper, lower, digit, extra string) *[256]bool {
	var t [256]bool
	for _, rg := range []string{upper, lower, digit} {
		if rg != "" {
			for c := rg[0]; c <= rg[2]; c++ {
				t[c] = true
			}
		}
	}
	for i := 0; i < len(extra); i++ {
		t[extra[i]] = true
	}
	return &t
}

// run returns the end of the run of bytes in c starting at i.
func run(s string, i int, c *[256]bool) int {
	for i < len(s) && c[s[i]] {
		i++
	}
	return i
}

// wordStart reports whether s[i] does not continue a word, so "sk-" in
// "task-list" or "AKIA" inside a longer identifier is not taken for a key.
func wordStart(s string, i int) bool {
	return i == 0 || !alnum[s[i-1]]
}

// prefixedKey matches prefix at a word start followed by at least least
// bytes of c: the shape of most vendors' keys.
func prefixedKey(s string, i int, prefix string, c *[256]bool, least int) (int, int, bool) {
	if !strings.HasPrefix(s[i:], prefix) || !wordStart(s, i) {
		return 0, 0, false
	}
	return keyAfter(s, i, len(prefix), c, least)
}

// keyAfter matches the key at i whose n-byte prefix the caller has checked:
// it needs at least least bytes of c after the prefix, and ends where c does.
func keyAfter(s string, i, n int, c *[256]bool, least int) (int, int, bool) {
	if end := run(s, i+n, c); end-(i+n) >= least {
		return i, end, true
	}
	return 0, 0, false
}

// hasPrefixFold is strings.HasPrefix ignoring ASCII case; prefix is lower-case.
func hasPrefixFold(s string, i int, prefix string) bool {
	if len(s)-i < len(prefix) {
		return false
	}
	for k := 0; k < len(prefix); k++ {
		c := s[i+k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[k] {
			return false
		}
	}
	return true
}

// openAIKey matches OpenAI and Anthropic style keys, sk-[A-Za-z0-9_-]+
// (sk-proj-..., sk-ant-api03-..., sk-ant-oat01-...). Spec §7 redacts anything
// of that shape. A short one counts only at a word start, so "risk-free" and
// "solder-mask-defined" survive; from 20 characters on it counts anywhere,
// which is exactly what the AC-4.1 grep (sk-[A-Za-z0-9_-]{20,}) looks for.
func openAIKey(s string, i int) (int, int, bool) {
	if !strings.HasPrefix(s[i:], "sk-") {
		return 0, 0, false
	}
	end := run(s, i+3, keyChar)
	n := end - (i + 3)
	if n >= 20 || (n >= 1 && wordStart(s, i)) {
		return i, end, true
	}
	return 0, 0, false
}

// awsKeyID matches AWS access key ids: AKIA (long-term) or ASIA (session)
// and 16 upper-case letters or digits.
func awsKeyID(s string, i int) (int, int, bool) {
	if start, end, ok := prefixedKey(s, i, "AKIA", upperAlnum, 16); ok {
		return start, end, ok
	}
	return prefixedKey(s, i, "ASIA", upperAlnum, 16)
}

// googleAPIKey matches Google API keys: AIza and 35 key characters.
func googleAPIKey(s string, i int) (int, int, bool) {
	return prefixedKey(s, i, "AIza", keyChar, 30)
}

// gitHubToken matches GitHub tokens: ghp_ (personal), gho_ (OAuth), ghs_
// (app installation), ghu_ (app user), ghr_ (refresh), github_pat_
// (fine-grained).
func gitHubToken(s string, i int) (int, int, bool) {
	if !wordStart(s, i) {
		return 0, 0, false
	}
	if strings.HasPrefix(s[i:], "github_pat_") {
		return keyAfter(s, i, len("github_pat_"), patChar, 20)
	}
	if len(s)-i < 4 || s[i+1] != 'h' || s[i+3] != '_' || !strings.ContainsRune("pousr", rune(s[i+2])) {
		return 0, 0, false
	}
	return keyAfter(s, i, 4, alnum, 20)
}

// tavilyKey matches Tavily API keys (web_search's alternative provider):
// tvly- and the key, which newer keys prefix with their tier (tvly-dev-...).
func tavilyKey(s string, i int) (int, int, bool) {
	return prefixedKey(s, i, "tvly-", keyChar, 20)
}

// braveKey matches Brave Search API keys (web_search's default provider):
// BSA and at least 24 key characters. The prefix is short, so the run must
// be long: hardware text has no 27-character words starting BSA.
func braveKey(s string, i int) (int, int, bool) {
	return prefixedKey(s, i, "BSA", keyChar, 24)
}

// slackToken matches Slack tokens: xoxa-, xoxb-, xoxp-, xoxr-, xoxs-.
func slackToken(s string, i int) (int, int, bool) {
	if len(s)-i < 5 || !strings.HasPrefix(s[i:], "xox") || !strings.ContainsRune("abprs", rune(s[i+3])) || s[i+4] != '-' || !wordStart(s, i) {
		return 0, 0, false
	}
	return keyAfter(s, i, 5, slackChar, 10)
}

// jwt matches JSON Web Tokens: a base64url JSON header (always starting
// eyJ, the encoding of `{"`), a dot, a payload and an optional signature.
func jwt(s string, i int) (int, int, bool) {
	if !strings.HasPrefix(s[i:], "eyJ") || !wordStart(s, i) {
		return 0, 0, false
	}
	head := run(s, i, b64urlChar)
	if head-i < 10 || head >= len(s) || s[head] != '.' {
		return 0, 0, false
	}
	body := run(s, head+1, b64urlChar)
	if body-(head+1) < 8 {
		return 0, 0, false
	}
	if body < len(s) && s[body] == '.' {
		return i, run(s, body+1, b64urlChar), true
	}
	return i, body, true
}

// minCredentialLen is the shortest credential after "Bearer " or a
// credential header that is redacted: real tokens are far longer, and prose
// such as "the Authorization: header" must stay readable.
const minCredentialLen = 8

// bearerToken matches "Bearer <token>" (any case) and redacts the token only.
func bearerToken(s string, i int) (int, int, bool) {
	if !hasPrefixFold(s, i, "bearer") || !wordStart(s, i) {
		return 0, 0, false
	}
	lo := run(s, i+6, blank)
	if lo == i+6 {
		return 0, 0, false
	}
	if hi := run(s, lo, token68); hi-lo >= minCredentialLen {
		return lo, hi, true
	}
	return 0, 0, false
}

// credentialHeaders name headers, settings and fields whose value is a
// credential. Matching is case-insensitive and at a word start, so
// Proxy-Authorization, X-Api-Key, x-goog-api-key, OPENAI_API_KEY=...,
// Mouser's ?apiKey=..., Brave's X-Subscription-Token, an OAuth
// client_secret=... form field (Nexar's token request) and a token
// response's "access_token" are covered too.
var credentialHeaders = []string{"authorization", "api-key", "api_key", "apikey",
	"subscription-token", "client_secret", "client-secret", "access_token", "refresh_token"}

// credentialHeader matches "<name>: <value>" or "<name>=<value>", also in
// JSON form ("name": "value"), and redacts the value. An Authorization value
// keeps its scheme word: "Authorization: Basic [REDACTED]".
func credentialHeader(s string, i int) (int, int, bool) {
	if !wordStart(s, i) {
		return 0, 0, false
	}
	for _, name := range credentialHeaders {
		if !hasPrefixFold(s, i, name) {
			continue
		}
		j := i + len(name)
		if j < len(s) && s[j] == '"' {
			j++
		}
		j = run(s, j, blank)
		if j >= len(s) || (s[j] != ':' && s[j] != '=') {
			return 0, 0, false
		}
		j = run(s, j+1, blank)
		if j < len(s) && s[j] == '"' {
			j++
		}
		lo, hi := j, valueEnd(s, j)
		// A leading all-letter word followed by a blank and more text
		// is an auth scheme (Bearer, Basic, token, Bot, ...).
		if hi < len(s) && blank[s[hi]] && isLetters(s[lo:hi]) {
			if lo2 := run(s, hi, blank); lo2 < len(s) {
				if hi2 := valueEnd(s, lo2); hi2-lo2 >= minCredentialLen {
					return lo2, hi2, true
				}
			}
		}
		if hi-lo >= minCredentialLen {
			return lo, hi, true
		}
		return 0, 0, false
	}
	return 0, 0, false
}

func valueEnd(s string, i int) int {
	for i < len(s) && !headerStop[s[i]] && s[i] >= 0x20 {
		i++
	}
	return i
}

func isLetters(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
