package parts

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"copperhead/internal/research/egress"
	"copperhead/internal/research/researchtest"
)

const (
	testNexarID     = "nexar-test-client-id-0123"
	testNexarSecret = "nexar-test-client-secret-4567"
	testMouserKey   = "mouser-test-key-89ab-cdef"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type logSink struct {
	mu      sync.Mutex
	records []egress.Record
}

func (l *logSink) all() []egress.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]egress.Record(nil), l.records...)
}

func testClient(log *logSink) *egress.Client {
	return egress.New(egress.Config{
		AllowLoopbackForTests: true,
		Log: func(r egress.Record) {
			if log != nil {
				log.mu.Lock()
				defer log.mu.Unlock()
				log.records = append(log.records, r)
			}
		},
	})
}

func TestAvailableKeyGating(t *testing.T) {
	client := testClient(nil)
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"no keys", nil, ""},
		{"nexar id without secret is absent", map[string]string{NexarClientIDEnv: "id"}, ""},
		{"nexar secret without id is absent", map[string]string{NexarClientSecretEnv: "s"}, ""},
		{"nexar", map[string]string{NexarClientIDEnv: "id", NexarClientSecretEnv: "s"}, "nexar"},
		{"mouser", map[string]string{MouserKeyEnv: "k"}, "mouser"},
		{"blank mouser key is absent", map[string]string{MouserKeyEnv: " "}, ""},
		{"preference order", map[string]string{MouserKeyEnv: "k", NexarClientIDEnv: "id", NexarClientSecretEnv: "s"}, "nexar,mouser"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var names []string
			for _, p := range Available(func(k string) string { return tt.env[k] }, client) {
				names = append(names, p.Name())
			}
			if got := strings.Join(names, ","); got != tt.want {
				t.Fatalf("providers = %q, want %q", got, tt.want)
			}
		})
	}
}

// fakeNexar serves the identity and GraphQL endpoints and counts calls.
type fakeNexar struct {
	mu            sync.Mutex
	tokenRequests int
	tokenForms    []url.Values
	gqlAuth       []string
	gqlBodies     []nexarGraphQLRequest
	tokenStatus   int
	gqlStatus     []int // status per GraphQL call; 200 once exhausted
	gqlBody       []byte
}

func newFakeNexar(t *testing.T, gqlFile string) (*fakeNexar, *httptest.Server) {
	t.Helper()
	f := &fakeNexar{tokenStatus: 200, gqlBody: readTestdata(t, gqlFile)}
	token := readTestdata(t, "nexar_token.json")
	mux := http.NewServeMux()
	mux.HandleFunc("POST /connect/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		f.mu.Lock()
		f.tokenRequests++
		f.tokenForms = append(f.tokenForms, r.PostForm)
		status := f.tokenStatus
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			status = 415
		}
		w.WriteHeader(status)
		if status == 200 {
			_, _ = w.Write(token)
		} else {
			_, _ = io.WriteString(w, `{"error":"invalid_client"}`)
		}
	})
	mux.HandleFunc("POST /graphql", func(w http.ResponseWriter, r *http.Request) {
		var body nexarGraphQLRequest
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.gqlAuth = append(f.gqlAuth, r.Header.Get("Authorization"))
		f.gqlBodies = append(f.gqlBodies, body)
		status := 200
		if len(f.gqlStatus) > 0 {
			status, f.gqlStatus = f.gqlStatus[0], f.gqlStatus[1:]
		}
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status == 200 {
			_, _ = w.Write(f.gqlBody)
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, srv
}

// testNexar returns a Nexar pointed at srv with a settable clock.
func testNexar(srv *httptest.Server, now *time.Time) *Nexar {
	n := NewNexar(testNexarID, testNexarSecret, testClient(nil))
	n.tokenURL = srv.URL + "/connect/token"
	n.graphqlURL = srv.URL + "/graphql"
	n.now = func() time.Time { return *now }
	return n
}

func TestNexarByMPN(t *testing.T) {
	fake, srv := newFakeNexar(t, "nexar_supsearchmpn.json")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	n := testNexar(srv, &now)

	got, err := n.ByMPN(context.Background(), "TPS63020DSJR")
	if err != nil {
		t.Fatal(err)
	}
	form := fake.tokenForms[0]
	if form.Get("grant_type") != "client_credentials" || form.Get("client_id") != testNexarID || form.Get("client_secret") != testNexarSecret {
		t.Errorf("token form = %v", form)
	}
	if fake.gqlAuth[0] != "Bearer eyJhbGciOiJSUzI1NiJ9.test-nexar-access-token" {
		t.Errorf("Authorization = %q", fake.gqlAuth[0])
	}
	body := fake.gqlBodies[0]
	if !strings.Contains(body.Query, "supSearchMpn(q: $q, limit: $limit)") || body.Variables["q"] != "TPS63020DSJR" {
		t.Errorf("graphql body = %+v", body)
	}
	for _, field := range []string{"mpn", "manufacturer { name }", "shortDescription", "bestDatasheet { url }", "inventoryLevel", "moq", "clickUrl", "prices { quantity price currency }"} {
		if !strings.Contains(body.Query, field) {
			t.Errorf("query does not select %q", field)
		}
	}
	if len(got) != 2 {
		t.Fatalf("got %d parts, want 2", len(got))
	}
	p := got[0]
	if p.MPN != "TPS63020DSJR" || p.Manufacturer != "Texas Instruments" || p.DatasheetURL != "https://www.ti.com/lit/ds/symlink/tps63020.pdf" ||
		!strings.HasPrefix(p.Description, "Buck-Boost") || !strings.HasPrefix(p.Lifecycle, "Production") {
		t.Errorf("part = %+v", p)
	}
	if len(p.Offers) != 4 {
		t.Fatalf("offers = %+v", p.Offers)
	}
	dk := p.Offers[0]
	if dk.Distributor != "Digi-Key" || dk.Stock != 12450 || dk.MOQ != 1 || len(dk.Prices) != 3 ||
		dk.Prices[2] != (PriceBreak{Qty: 1000, Price: 2.07, Currency: "USD"}) || !strings.Contains(dk.URL, "digikey-1") {
		t.Errorf("digi-key offer = %+v", dk)
	}
	if m := p.Offers[2]; m.Distributor != "Mouser" || m.Stock != 0 || m.MOQ != 0 {
		t.Errorf("mouser offer = %+v", m)
	}
	if b := p.Offers[3]; b.Stock != 0 {
		t.Errorf("unknown inventory (-1) should normalize to 0 stock, got %d", b.Stock)
	}
	if q := got[1]; q.DatasheetURL != "" || q.Lifecycle != "" || len(q.Offers) != 0 {
		t.Errorf("sparse part = %+v", q)
	}
}

func TestNexarSearch(t *testing.T) {
	fake, srv := newFakeNexar(t, "nexar_supsearch.json")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	got, err := testNexar(srv, &now).Search(context.Background(), "3.3V LDO SOT-223", 500)
	if err != nil {
		t.Fatal(err)
	}
	body := fake.gqlBodies[0]
	if !strings.Contains(body.Query, "supSearch(q: $q, limit: $limit)") || body.Variables["q"] != "3.3V LDO SOT-223" || body.Variables["limit"] != float64(maxLimit) {
		t.Errorf("graphql body = %+v", body)
	}
	if len(got) != 1 || got[0].MPN != "LM1117IMP-3.3" || got[0].Lifecycle != "NRND" {
		t.Errorf("parts = %+v", got)
	}
}

func TestNexarTokenCaching(t *testing.T) {
	fake, srv := newFakeNexar(t, "nexar_supsearchmpn.json")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	n := testNexar(srv, &now)
	ctx := context.Background()

	for range 2 {
		if _, err := n.ByMPN(ctx, "TPS63020DSJR"); err != nil {
			t.Fatal(err)
		}
	}
	if fake.tokenRequests != 1 {
		t.Fatalf("two searches made %d token requests, want 1", fake.tokenRequests)
	}

	// expires_in is 86400 s; the token is refreshed a minute early.
	now = now.Add(24*time.Hour - 2*time.Minute)
	if _, err := n.ByMPN(ctx, "TPS63020DSJR"); err != nil {
		t.Fatal(err)
	}
	if fake.tokenRequests != 1 {
		t.Fatalf("token refreshed %v before expiry; want it reused", 2*time.Minute)
	}
	now = now.Add(90 * time.Second)
	if _, err := n.ByMPN(ctx, "TPS63020DSJR"); err != nil {
		t.Fatal(err)
	}
	if fake.tokenRequests != 2 {
		t.Fatalf("token requests = %d inside the refresh minute, want 2", fake.tokenRequests)
	}
}

func TestNexarTokenSharedAcrossGoroutines(t *testing.T) {
	fake, srv := newFakeNexar(t, "nexar_supsearchmpn.json")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	n := testNexar(srv, &now)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := n.ByMPN(context.Background(), "X"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if fake.tokenRequests != 1 {
		t.Fatalf("concurrent searches made %d token requests, want 1", fake.tokenRequests)
	}
}

func TestNexarRetriesOnceAfterRejectedToken(t *testing.T) {
	fake, srv := newFakeNexar(t, "nexar_supsearchmpn.json")
	fake.gqlStatus = []int{401}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if _, err := testNexar(srv, &now).ByMPN(context.Background(), "X"); err != nil {
		t.Fatal(err)
	}
	if fake.tokenRequests != 2 || len(fake.gqlAuth) != 2 {
		t.Fatalf("token requests = %d, graphql calls = %d; want 2 and 2", fake.tokenRequests, len(fake.gqlAuth))
	}
}

func TestNexarErrors(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		tokenStatus int
		gqlStatus   []int
		gqlBody     string
		is          error
		mention     string
	}{
		{"bad client credentials", 400, nil, "", ErrUnauthorized, NexarClientIDEnv},
		{"token 401", 401, nil, "", ErrUnauthorized, NexarClientSecretEnv},
		{"graphql 401 twice", 200, []int{401, 401}, "", ErrUnauthorized, NexarClientIDEnv},
		{"rate limited", 200, []int{429}, "", ErrRateLimited, "rate limited"},
		{"server error", 200, []int{502}, "", nil, "502"},
		{"graphql error", 200, nil, `{"errors":[{"message":"Query exceeds your plan's part limit"}],"data":null}`, nil, "part limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, srv := newFakeNexar(t, "nexar_supsearchmpn.json")
			fake.tokenStatus, fake.gqlStatus = tt.tokenStatus, tt.gqlStatus
			if tt.gqlBody != "" {
				fake.gqlBody = []byte(tt.gqlBody)
			}
			_, err := testNexar(srv, &now).ByMPN(context.Background(), "X")
			if err == nil {
				t.Fatal("want error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("%v is not %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.mention) || !strings.Contains(err.Error(), "nexar") {
				t.Errorf("error %q should mention %q", err, tt.mention)
			}
			for _, secret := range []string{testNexarID, testNexarSecret, "test-nexar-access-token"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error leaks a credential: %q", err)
				}
			}
		})
	}
}

// newFakeMouser is the Mouser API answering status with the testdata file.
func newFakeMouser(t *testing.T, status int, file string) *researchtest.API {
	t.Helper()
	return researchtest.NewAPI(t, status, readTestdata(t, file))
}

func testMouser(url string, log *logSink) *Mouser {
	m := NewMouser(testMouserKey, testClient(log))
	m.baseURL = url + "/api/v1"
	return m
}

func TestMouserByMPN(t *testing.T) {
	fake := newFakeMouser(t, 200, "mouser_partnumber.json")
	log := &logSink{}
	got, err := testMouser(fake.URL, log).ByMPN(context.Background(), "TPS63020DSJR")
	if err != nil {
		t.Fatal(err)
	}
	req := fake.Requests()[0]
	if req.Method+" "+req.Path != "POST /api/v1/search/partnumber" || req.Query.Get("apiKey") != testMouserKey {
		t.Errorf("request = %s %s apiKey=%q", req.Method, req.Path, req.Query.Get("apiKey"))
	}
	var body mouserPartNumberRequest
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.SearchByPartRequest.MouserPartNumber != "TPS63020DSJR" || body.SearchByPartRequest.PartSearchOptions != "Exact" {
		t.Errorf("body = %s", req.Body)
	}
	want0 := Part{
		MPN: "TPS63020DSJR", Manufacturer: "Texas Instruments",
		Description:  "Switching Voltage Regulators 96% Buck-Boost Converter w/4A Switch",
		DatasheetURL: "https://www.mouser.com/datasheet/2/405/tps63020-1.pdf",
		Offers: []Offer{{
			Distributor: "Mouser", Stock: 6178, MOQ: 1,
			URL: "https://www.mouser.com/ProductDetail/Texas-Instruments/TPS63020DSJR?qs=abc",
			Prices: []PriceBreak{
				{Qty: 1, Price: 4.61, Currency: "USD"},
				{Qty: 10, Price: 3.32, Currency: "USD"},
				{Qty: 3000, Price: 1912.50, Currency: "USD"},
			},
		}},
	}
	if len(got) != 2 {
		t.Fatalf("got %d parts", len(got))
	}
	assertPart(t, got[0], want0)
	if p := got[1]; p.Lifecycle != "End of Life" || p.Offers[0].Stock != 0 || p.Offers[0].MOQ != 250 ||
		p.Offers[0].Prices[0] != (PriceBreak{Qty: 250, Price: 2.10, Currency: "EUR"}) {
		t.Errorf("second part = %+v", p)
	}
	for _, rec := range log.all() {
		if strings.Contains(rec.URL, testMouserKey) {
			t.Errorf("egress log holds the Mouser key in clear: %q", rec.URL)
		}
	}
}

func TestMouserSearch(t *testing.T) {
	fake := newFakeMouser(t, 200, "mouser_partnumber.json")
	got, err := testMouser(fake.URL, nil).Search(context.Background(), "buck-boost 4A", 1)
	if err != nil {
		t.Fatal(err)
	}
	req := fake.Requests()[0]
	if req.Method+" "+req.Path != "POST /api/v1/search/keyword" {
		t.Errorf("path = %s %s", req.Method, req.Path)
	}
	var body mouserKeywordRequest
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.SearchByKeywordRequest.Keyword != "buck-boost 4A" || body.SearchByKeywordRequest.Records != 1 {
		t.Errorf("body = %s", req.Body)
	}
	if len(got) != 1 {
		t.Errorf("limit 1 returned %d parts", len(got))
	}
}

func TestMouserErrors(t *testing.T) {
	tests := []struct {
		name, file string
		status     int
		is         error
		mention    string
	}{
		{"invalid key in Errors with 200", "mouser_invalid_key.json", 200, ErrUnauthorized, MouserKeyEnv},
		{"invalid key in Errors with 400", "mouser_invalid_key.json", 400, ErrUnauthorized, MouserKeyEnv},
		{"http 401", "mouser_partnumber.json", 401, ErrUnauthorized, MouserKeyEnv},
		{"http 429", "mouser_partnumber.json", 429, ErrRateLimited, "rate limited"},
		{"http 500", "mouser_partnumber.json", 500, nil, "500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := testMouser(newFakeMouser(t, tt.status, tt.file).URL, nil).ByMPN(context.Background(), "X")
			if err == nil {
				t.Fatal("want error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("%v is not %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("error %q should mention %q", err, tt.mention)
			}
			if strings.Contains(err.Error(), testMouserKey) {
				t.Errorf("error leaks the key: %q", err)
			}
		})
	}
}

func TestMouserTransportErrorHidesKey(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // connection refused: the transport error names the URL
	_, err := testMouser(srv.URL, nil).ByMPN(context.Background(), "X")
	if err == nil {
		t.Fatal("want error")
	}
	if strings.Contains(err.Error(), testMouserKey) {
		t.Errorf("transport error leaks the key: %q", err)
	}
}

func TestParsePrice(t *testing.T) {
	tests := []struct {
		in, currency string
		want         float64
		ok           bool
	}{
		{"$0.48", "USD", 0.48, true},
		{"$1,912.50", "USD", 1912.50, true},
		{"$1,234", "USD", 1234, true},
		{"¥1,234", "JPY", 1234, true},
		{"¥32.8", "JPY", 32.8, true},
		{"0,480 €", "EUR", 0.48, true},
		{"2,10 €", "EUR", 2.10, true},
		{"1.234,56 €", "EUR", 1234.56, true},
		{"1,234,567", "USD", 1234567, true},
		{"", "USD", 0, false},
		{"Quote", "USD", 0, false},
	}
	for _, tt := range tests {
		got, ok := parsePrice(tt.in, tt.currency)
		if ok != tt.ok || (ok && (got-tt.want > 1e-9 || tt.want-got > 1e-9)) {
			t.Errorf("parsePrice(%q, %s) = %v, %v; want %v, %v", tt.in, tt.currency, got, ok, tt.want, tt.ok)
		}
	}
}

func TestLeadingInt(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"6178", 6178, true},
		{"6178 In Stock", 6178, true},
		{"6,178 In Stock", 6178, true},
		{"6.178 auf Lager", 6178, true},
		{"None", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		if got, ok := leadingInt(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("leadingInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"$0.48", "0,480 €", "1.234,56", ",", ".", "1,2,3.4.5"} {
		f.Add(s, "USD")
	}
	f.Fuzz(func(t *testing.T, s, currency string) {
		if v, ok := parsePrice(s, currency); ok && v < 0 {
			t.Fatalf("negative price %v from %q", v, s)
		}
	})
}

func assertPart(t *testing.T, got, want Part) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("part:\n got %s\nwant %s", g, w)
	}
}
