package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Planted secrets. None is a real credential; each has the shape of one.
// Each is split in two in the source so that the repository itself never
// holds a key-shaped string (the AC-4.1 grep runs over the whole tree, and
// secret scanners over every push).
const (
	plantedOpenAIKey = "sk-" + "proj-Abc123_def456-GHI789jkl012MNO345"
	anthropicKey     = "sk-" + "ant-api03-ZYXwvu987654321_-abcdefghijkl"
	envToken         = "tok_9f8e7d6c5b4a39281706"
	envSecret        = `pa"ss\word-1234`
	bearer           = "eyJhbGciOiJIUzI1NiJ9abcdefghijklmnop"
	awsID            = "AKIA" + "IOSFODNN7EXAMPLE"
	ghToken          = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
	slackTok         = "xoxb-" + "1234567890-abcdefghij"
	googleKey        = "AIza" + "SyA-abcdefghijklmnopqrstuvwxyz01234"
	jwtToken         = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	githubPatTok     = "github_pat_" + "11ABCDEFG0abcdefghijklmnopqrstuvwxyz"
	multiLineKey     = "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----"
	shortEnvValue    = "abc"
)

var testEnv = []string{
	"OPENAI_API_KEY=" + plantedOpenAIKey,
	"GITHUB_TOKEN=" + envToken,
	"CLIENT_SECRET=" + envSecret,
	"SSH_PRIVATE_KEY=" + multiLineKey,
	"SHORT_TOKEN=" + shortEnvValue,
	"HOME=/home/maker",
	"EDITOR_THEME_KEYS=not-a-secret-name-value",
	"malformed",
}

func TestString(t *testing.T) {
	r := New(testEnv)
	tests := []struct {
		name, in, want string
	}{
		{"openai key", "key " + plantedOpenAIKey + " end", "key [REDACTED] end"},
		{"anthropic key in quotes", `"` + anthropicKey + `"`, `"[REDACTED]"`},
		{"short sk key at word start", "use sk-test123 here", "use [REDACTED] here"},
		{"sk after punctuation", "k=sk-x,", "k=[REDACTED],"},
		{"long sk glued to a word", "xsk-" + "abcdefghijklmnopqrstuvwxyz", "x[REDACTED]"},
		{"words containing sk- survive", "risk-free task-list solder-mask-defined desk-lamp", "risk-free task-list solder-mask-defined desk-lamp"},
		{"bare sk- survives", "sk- and sk-", "sk- and sk-"},
		{"bearer header", "Authorization: Bearer " + bearer, "Authorization: Bearer [REDACTED]"},
		{"bearer lower case", "bearer abcdefgh12345", "bearer [REDACTED]"},
		{"short bearer word survives", "Bearer token", "Bearer token"},
		{"basic auth keeps scheme", "authorization: Basic dXNlcjpwYXNzd29yZA==", "authorization: Basic [REDACTED]"},
		{"auth header no scheme", "Authorization=abcdef123456;", "Authorization=[REDACTED];"},
		{"json header", `{"Authorization":"token abcdef0123456789"}`, `{"Authorization":"token [REDACTED]"}`},
		{"x-api-key", "x-api-key: abcdefghijk0123", "x-api-key: [REDACTED]"},
		{"env dump", "ANTHROPIC_API_KEY=mysecretvalue99", "ANTHROPIC_API_KEY=[REDACTED]"},
		{"api key env name is not a value", "apiKeyEnv: GROQ_API_KEY", "apiKeyEnv: GROQ_API_KEY"},
		{"aws id", "id=" + awsID + ".", "id=[REDACTED]."},
		{"github token", "t " + ghToken, "t [REDACTED]"},
		{"github pat", githubPatTok + "!", "[REDACTED]!"},
		{"slack", slackTok, "[REDACTED]"},
		{"google", "key=" + googleKey, "key=[REDACTED]"},
		{"jwt", "jwt " + jwtToken + " x", "jwt [REDACTED] x"},
		{"env token value", "cloned with " + envToken + "!", "cloned with [REDACTED]!"},
		{"env value with quote and backslash", "pw " + envSecret, "pw [REDACTED]"},
		{"env value json-escaped", `"pa\"ss\\word-1234"`, `"[REDACTED]"`},
		{"multi-line env value one line at a time", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n", "[REDACTED]\n"},
		{"short env value ignored", "abc abc", "abc abc"},
		{"non-secret env names ignored", "not-a-secret-name-value", "not-a-secret-name-value"},
		{"overlapping secrets merge", plantedOpenAIKey + envToken, "[REDACTED]"},
		{"marker is stable", "[REDACTED] Bearer [REDACTED] Authorization: [REDACTED]", "[REDACTED] Bearer [REDACTED] Authorization: [REDACTED]"},
		{"nothing to do", "R7 10k 0402, net VBUS", "R7 10k 0402, net VBUS"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.String(tc.in); got != tc.want {
				t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if got := string(r.Bytes([]byte(tc.in))); got != tc.want {
				t.Errorf("Bytes(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if got := r.String(r.String(tc.in)); got != tc.want {
				t.Errorf("redacting twice = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNilRedactorAppliesShapeRules(t *testing.T) {
	var r *Redactor
	if got := r.String("k " + plantedOpenAIKey + " " + envToken); got != "k [REDACTED] "+envToken {
		t.Errorf("got %q", got)
	}
}

func TestWith(t *testing.T) {
	r := New(nil).With("compat-endpoint-key-777", "short")
	if got := r.String("a compat-endpoint-key-777 short"); got != "a [REDACTED] short" {
		t.Errorf("got %q", got)
	}
	if got := New(nil).String("compat-endpoint-key-777"); got != "compat-endpoint-key-777" {
		t.Errorf("With modified its receiver: %q", got)
	}
}

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "CLAUDE_CODE_OAUTH_TOKEN": true, "client_secret": true,
		"COPPERHEAD_API_KEY_ENV": false, "KEY": false, "HOME": false, "MONKEY": false,
	} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestBytesDoesNotModifyInput(t *testing.T) {
	r := New(testEnv)
	in := []byte("x " + plantedOpenAIKey)
	orig := string(in)
	_ = r.Bytes(in)
	if string(in) != orig {
		t.Fatalf("input modified: %q", in)
	}
}

func TestJSON(t *testing.T) {
	r := New(testEnv)
	tests := []struct {
		name, in, want string
	}{
		{"order numbers and nesting kept", `{"z": 1.50, "a": [true, null, {"k": "v"}], "m": -0e3}`, `{"z":1.50,"a":[true,null,{"k":"v"}],"m":-0e3}`},
		{"escaped newline before key", `{"t": "line\nsk-abc"}`, `{"t":"line\n[REDACTED]"}`},
		{"escaped env value", `{"t": "pa\"ss\\word-1234"}`, `{"t":"[REDACTED]"}`},
		{"keys redacted", `{"` + envToken + `": 1}`, `{"[REDACTED]":1}`},
		{"credential key value", `{"headers": {"Authorization": "Basic abc", "Accept": "x"}}`, `{"headers":{"Authorization":"[REDACTED]","Accept":"x"}}`},
		{"env-style key value", `{"MY_SERVICE_TOKEN": "hunter2", "sort_key": "refdes"}`, `{"MY_SERVICE_TOKEN":"[REDACTED]","sort_key":"refdes"}`},
		{"no html escaping", `{"t": "<a & b>"}`, `{"t":"<a & b>"}`},
		{"unicode and controls", `"\u0001 é \u2028"`, `"\u0001 é \u2028"`},
		{"scalar", `"` + plantedOpenAIKey + `"`, `"[REDACTED]"`},
		{"empty containers", `{"a":{},"b":[]}`, `{"a":{},"b":[]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.JSON([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("JSON(%s) = %s, want %s", tc.in, got, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("output is not valid JSON: %s", got)
			}
		})
	}
	for _, bad := range []string{``, `{`, `{"a":1}{}`, `[1,]`, `1 2`} {
		if _, err := r.JSON([]byte(bad)); err == nil {
			t.Errorf("JSON(%q) succeeded", bad)
		}
	}
}

func TestWriter(t *testing.T) {
	r := New(testEnv)
	var out bytes.Buffer
	w := r.Writer(&out)
	// The key arrives in three writes; no line break until the end.
	for _, part := range []string{"calling openai with sk-proj-Abc123_de", "f456-GHI789jkl0", "12MNO345 and Bearer abcdefghi", "jklmnop\n"} {
		if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if got, want := out.String(), "calling openai with [REDACTED] and Bearer [REDACTED]\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	out.Reset()
	w.Write([]byte("partial " + envToken[:5]))
	if out.Len() != 0 {
		t.Errorf("partial line written before Flush: %q", out.String())
	}
	w.Write([]byte(envToken[5:]))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "partial [REDACTED]" {
		t.Errorf("after Close: %q", got)
	}
	// Carriage returns end a line too, so status lines are not held back.
	out.Reset()
	w.Write([]byte("\rturn 3/40 " + envToken + "\r"))
	if got := out.String(); got != "\rturn 3/40 [REDACTED]\r" {
		t.Errorf("carriage return: %q", got)
	}
}

func TestWriterConcurrent(t *testing.T) {
	r := New(testEnv)
	var out bytes.Buffer
	w := r.Writer(&out)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				w.Write([]byte("log " + plantedOpenAIKey + " " + envToken + "\n"))
			}
		}()
	}
	wg.Wait()
	w.Flush()
	if strings.Contains(out.String(), plantedOpenAIKey) || strings.Contains(out.String(), envToken) {
		t.Fatal("secret leaked through concurrent writes")
	}
	if got := strings.Count(out.String(), "log [REDACTED] [REDACTED]\n"); got != 1600 {
		t.Errorf("%d redacted lines, want 1600", got)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errFail }

var errFail = errors.New("disk full")

func TestWriterStickyError(t *testing.T) {
	w := New(nil).Writer(failWriter{})
	if _, err := w.Write([]byte("a\n")); err != errFail {
		t.Fatalf("err = %v", err)
	}
	if _, err := w.Write([]byte("b")); err != errFail {
		t.Fatalf("second err = %v", err)
	}
}

// acKeyPattern is the AC-4.1 acceptance grep.
var acKeyPattern = regexp.MustCompile(`sk-[A-Za-z0-9_-]{20,}`)

// FuzzString plants secrets into arbitrary text: redaction must never panic,
// the output must hold none of the planted secrets and nothing the AC-4.1
// grep would flag, and Bytes, String and Writer must agree.
func FuzzString(f *testing.F) {
	f.Add("", uint8(0), uint8(0))
	f.Add("hello world", uint8(3), uint8(1))
	f.Add("Authorization: Bearer x", uint8(200), uint8(2))
	f.Add("xsk-aaaa risk-free \n\r\"\\ eyJ", uint8(7), uint8(5))
	f.Add(string([]byte{0xff, 0xfe, 's', 'k', '-'}), uint8(1), uint8(9))
	secrets := []string{plantedOpenAIKey, anthropicKey, envToken, envSecret, ghToken, awsID}
	r := New(testEnv)
	f.Fuzz(func(t *testing.T, text string, pos, which uint8) {
		planted := secrets[int(which)%len(secrets)]
		at := 0
		if len(text) > 0 {
			at = int(pos) % (len(text) + 1)
		}
		in := text[:at] + " " + planted + " " + text[at:]
		out := r.String(in)
		if strings.Contains(out, planted) {
			t.Fatalf("planted secret %q survives in %q", planted, out)
		}
		for _, env := range []string{plantedOpenAIKey, envToken, envSecret} {
			if strings.Contains(out, env) {
				t.Fatalf("env secret %q survives in %q", env, out)
			}
		}
		if m := acKeyPattern.FindString(out); m != "" {
			t.Fatalf("output %q still matches AC-4.1: %q", out, m)
		}
		if !strings.Contains(out, Marker) {
			t.Fatalf("no marker in %q", out)
		}
		if b := string(r.Bytes([]byte(in))); b != out {
			t.Fatalf("Bytes %q != String %q", b, out)
		}
		// Unredacted text must come through untouched.
		if got := r.String(text); !r.Contains(text) && got != text {
			t.Fatalf("String changed text without a match: %q -> %q", text, got)
		}
	})
}

// FuzzJSON: redacting a JSON document never panics, keeps valid JSON
// valid, and removes a secret planted in a string however it is escaped.
func FuzzJSON(f *testing.F) {
	f.Add(`{"a":[1,2.5e3,true,null,{"b":"c"}]}`, "x")
	f.Add(`"\u00e9\n"`, "line\nbreak")
	f.Add(`[`, `"quoted"`)
	r := New(testEnv)
	f.Fuzz(func(t *testing.T, doc, text string) {
		out, err := r.JSON([]byte(doc))
		if err == nil && !json.Valid(out) {
			t.Fatalf("JSON(%q) = %q, not valid", doc, out)
		}
		if (err == nil) != json.Valid([]byte(doc)) {
			t.Fatalf("JSON(%q) error %v disagrees with json.Valid", doc, err)
		}
		planted, _ := json.Marshal(map[string]string{text: text + envSecret + "\n" + plantedOpenAIKey})
		out, err = r.JSON(planted)
		if err != nil {
			t.Fatalf("JSON(%s): %v", planted, err)
		}
		var back map[string]string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("output %s: %v", out, err)
		}
		for k, v := range back {
			for _, secret := range []string{envSecret, plantedOpenAIKey} {
				if strings.Contains(k+v, secret) {
					t.Fatalf("secret survives in %s", out)
				}
			}
		}
	})
}

func BenchmarkString(b *testing.B) {
	r := New(testEnv)
	var sb strings.Builder
	for sb.Len() < 4<<20 {
		sb.WriteString("(symbol (lib_id \"Device:R\") (at 101.6 50.8 0) (property \"Reference\" \"R7\") risk-free task sk- bearer)\n")
	}
	sb.WriteString(plantedOpenAIKey)
	text := sb.String()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		r.String(text)
	}
}

// TestResearchProviderSecrets covers the research providers' credentials
// (design D9): by their shapes with no environment at all, and by value when
// they sit in the providers' environment variables, whatever their shape.
func TestResearchProviderSecrets(t *testing.T) {
	const (
		braveKey      = "BSA" + "k3yF0rBr4veS3archAPI0123x"
		tavilyKey     = "tvly-" + "dev-AbCdEf0123456789GhIjKlMn"
		openRouterKey = "sk-" + "or-v1-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"
		nexarSecret   = "nx" + "Secr3t-vAlue_0123456789"
		mouserKey     = "0b1c2d3e-" + "4f50-6172-8394-a5b6c7d8e9f0"
		nexarToken    = "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ" + ".eyJzdWIiOiJjbGllbnQifQ.c2lnbmF0dXJl"
	)
	env := []string{
		"BRAVE_API_KEY=" + braveKey, "TAVILY_API_KEY=" + tavilyKey, "OPENROUTER_API_KEY=" + openRouterKey,
		"NEXAR_CLIENT_ID=client-id-is-not-secret", "NEXAR_CLIENT_SECRET=" + nexarSecret, "MOUSER_API_KEY=" + mouserKey,
	}
	tests := []struct {
		name, in, want string
		byShape        bool // redacted even without the environment
	}{
		{"brave key by shape", "key " + braveKey + ".", "key [REDACTED].", true},
		{"brave subscription header", "X-Subscription-Token: " + "abcdefgh12345678", "X-Subscription-Token: [REDACTED]", true},
		{"tavily key by shape", `{"api_key":"` + tavilyKey + `"}`, `{"api_key":"[REDACTED]"}`, true},
		{"tavily key in prose", "use " + tavilyKey, "use [REDACTED]", true},
		{"openrouter key by shape", "Bearer " + openRouterKey, "Bearer [REDACTED]", true},
		{"nexar client secret form field", "grant_type=client_credentials&client_id=abc&client_secret=" + nexarSecret, "grant_type=client_credentials&client_id=abc&client_secret=[REDACTED]", true},
		{"nexar token response", `{"access_token": "` + nexarToken + `", "expires_in": 86400}`, `{"access_token": "[REDACTED]", "expires_in": 86400}`, true},
		{"mouser key in a query", "https://api.mouser.com/api/v1/search/partnumber?apiKey=" + mouserKey, "https://api.mouser.com/api/v1/search/partnumber?apiKey=[REDACTED]", true},
		{"mouser key bare, from the environment", "key " + mouserKey + " used", "key [REDACTED] used", false},
		{"nexar secret bare, from the environment", "secret " + nexarSecret, "secret [REDACTED]", false},
		{"client id is not a secret", "client-id-is-not-secret", "client-id-is-not-secret", false},
		{"short BSA words survive", "BSAS BSA-1 BSAxyz", "BSAS BSA-1 BSAxyz", false},
		{"short tvly survives", "tvly-dev", "tvly-dev", false},
		{"prose about tokens survives", "the access_token field and the client_secret", "the access_token field and the client_secret", false},
		{"KiCad UUIDs survive", `(uuid "0b1c2d3e-4f50-6172-8394-000000000000")`, `(uuid "0b1c2d3e-4f50-6172-8394-000000000000")`, false},
	}
	withEnv := New(env)
	var shapesOnly *Redactor
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withEnv.String(tt.in); got != tt.want {
				t.Errorf("with the environment: %q\n                      want %q", got, tt.want)
			}
			want := tt.in
			if tt.byShape {
				want = tt.want
			}
			if got := shapesOnly.String(tt.in); got != want {
				t.Errorf("by shape only: %q\n         want %q", got, want)
			}
		})
	}
}
