package regress

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"copperhead/internal/carter/corpus"
	"copperhead/internal/carter/synth"
	"copperhead/internal/carter/web"
	"copperhead/internal/research/egress"
)

const shipped = "../../../tests/regression_cases.json"

func loadShipped(t *testing.T) (Suite, *corpus.Corpus) {
	t.Helper()
	s, err := Load(shipped)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) < 25 {
		t.Fatalf("only %d shipped cases", len(s.Cases))
	}
	if _, err := os.Stat(filepath.Join(s.Corpus, "pcbnew.html")); err != nil {
		t.Skipf("the kicad-doc-en manuals are not installed (%v): scripts/setup.sh installs them", err)
	}
	c, err := corpus.Load(context.Background(), s.Corpus)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func check(t *testing.T, outs []Outcome) {
	t.Helper()
	for _, o := range outs {
		if !o.Pass {
			t.Errorf("case %s failed: %v", o.Case, o.Problems)
		}
		if o.QuotesExact != o.QuotesTotal || o.Unretrieved != 0 || !o.ReplayOK || o.StopReason == "" {
			t.Errorf("case %s: quotes %d/%d, unretrieved %d, replay %v, stop %q", o.Case, o.QuotesExact, o.QuotesTotal, o.Unretrieved, o.ReplayOK, o.StopReason)
		}
	}
	t.Log("\n" + Table(outs))
}

func extractive() synth.Synthesizer { return synth.Extractive{} }

// TestShippedCasesOverCorpus runs tests/regression_cases.json with the local
// corpus retriever over the real KiCad manuals.
func TestShippedCasesOverCorpus(t *testing.T) {
	start := time.Now()
	s, c := loadShipped(t)
	rets, skips, loads, err := OpenCorpora(context.Background(), s, t.TempDir(), func(line string) { t.Log(line) })
	if err != nil {
		t.Fatal(err)
	}
	outs, err := Run(context.Background(), s, Config{Retriever: c, Retrievers: rets, Skips: skips, Loads: loads, Synth: extractive, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	check(t, outs)
	// The bars: at least 90% of answerable cases carry their facts,
	// every unanswerable one stops NO_EVIDENCE/NO_SOURCES, and grounding of
	// answered ones is at least 0.95.
	kinds := map[string]int{}
	answerable, withFacts := 0, 0
	for i, o := range outs {
		c := s.Cases[i]
		kinds[c.Kind]++
		if o.Skipped != "" {
			continue
		}
		if c.Kind == "unanswerable" {
			if o.StopReason != "NO_EVIDENCE" && o.StopReason != "NO_SOURCES" {
				t.Errorf("unanswerable %s stopped %s", o.Case, o.StopReason)
			}
			continue
		}
		answerable++
		if o.FactsFound == o.FactsTotal {
			withFacts++
		}
		if o.Grounding < 0.95 {
			t.Errorf("%s: grounding %.2f", o.Case, o.Grounding)
		}
	}
	for _, k := range Kinds {
		if kinds[k] == 0 {
			t.Errorf("the shipped suite has no %s question", k)
		}
	}
	if answerable > 0 && float64(withFacts) < 0.9*float64(answerable) {
		t.Errorf("%d of %d answerable cases carry their facts (< 90%%)", withFacts, answerable)
	}
	// Speed is measured (bench/README.md), never asserted: a loaded
	// machine must not fail the suite.
	t.Logf("the shipped suite took %v", time.Since(start))
}

// TestShippedCasesOverWeb serves the same manuals to the web retriever: a
// loopback search engine (SearXNG's JSON, BM25 over the manuals) and the
// pages themselves, fetched through egress.
func TestShippedCasesOverWeb(t *testing.T) {
	s, c := loadShipped(t)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/search" {
			hits, _ := c.Search(r.Context(), r.URL.Query().Get("q"), 20)
			var res []map[string]string
			for _, h := range hits {
				res = append(res, map[string]string{"title": h.Title, "content": h.Snippet,
					"url": srv.URL + "/manual/" + filepath.Base(strings.TrimPrefix(h.URL, "file://"))})
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"results": res})
			return
		}
		name := strings.TrimPrefix(r.URL.Path, "/manual/")
		if name == r.URL.Path || strings.Contains(name, "/") {
			http.NotFound(w, r)
			return
		}
		data, err := os.ReadFile(filepath.Join(s.Corpus, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(data)
	}))
	defer srv.Close()
	client := func(allow []string) *egress.Client {
		return egress.New(egress.Config{AllowHosts: allow, AllowLoopbackForTests: true, MaxBytes: 4 << 20})
	}
	r, err := web.New(web.Config{Search: web.SearXNG{BaseURL: srv.URL, Client: client([]string{"127.0.0.1"})}, MaxBytes: 4 << 20, NewClient: client})
	if err != nil {
		t.Fatal(err)
	}
	// The web retriever serves the KiCad manuals only: the cases over the
	// default corpus.
	var kicad []Case
	for _, c := range s.Cases {
		if c.Corpus == "" {
			kicad = append(kicad, c)
		}
	}
	s.Cases = kicad
	outs, err := Run(context.Background(), s, Config{Retriever: r, Synth: extractive, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	check(t, outs)
}

func TestLoadRejectsBadSuites(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"no cases", `{"corpus":"x","cases":[]}`, "no cases"},
		{"unknown field", `{"corpus":"x","cases":[{"name":"a","question":"q","min_grounding":1,"bogus":1}]}`, "unknown field"},
		{"duplicate name", `{"cases":[{"name":"a","question":"q"},{"name":"a","question":"r"}]}`, "duplicate name"},
		{"empty question", `{"cases":[{"name":"a","question":" "}]}`, "empty question"},
		{"minimum out of range", `{"cases":[{"name":"a","question":"q","min_coverage":2}]}`, "between 0 and 1"},
		{"unknown corpus", `{"cases":[{"name":"a","question":"q","corpus":"nope"}]}`, "corpus \"nope\" is not among"},
		{"unknown kind", `{"cases":[{"name":"a","question":"q","kind":"trivia"}]}`, "kind \"trivia\" is not one of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "cases.json")
			if err := os.WriteFile(p, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(p); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestMaterializeSkipsWhatIsMissing: a corpus folder or man page the
// machine lacks skips its cases with the reason; present pages render.
func TestMaterializeSkipsWhatIsMissing(t *testing.T) {
	ctx := context.Background()
	if _, why, err := Materialize(ctx, "x", CorpusSpec{Dir: "/nonexistent/docs", Needs: "pkg-x"}, t.TempDir()); err != nil || !strings.Contains(why, "/nonexistent/docs is not on this machine (pkg-x installs it)") {
		t.Errorf("missing dir: %q %v", why, err)
	}
	if _, why, err := Materialize(ctx, "m", CorpusSpec{ManPages: []string{"no-such-page-carter"}}, t.TempDir()); err != nil || !strings.Contains(why, "no-such-page-carter") {
		t.Errorf("missing page: %q %v", why, err)
	}
	dir, why, err := Materialize(ctx, "m", CorpusSpec{ManPages: []string{"git-commit"}}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if why != "" {
		t.Skip(why)
	}
	data, err := os.ReadFile(filepath.Join(dir, "git-commit.txt"))
	if err != nil || !strings.Contains(string(data), "--amend") || strings.ContainsAny(string(data), "\b\t") {
		t.Errorf("rendered page: %v %q", err, data[:min(len(data), 200)])
	}
}

func TestTimings(t *testing.T) {
	var outs []Outcome
	for i := 1; i <= 10; i++ {
		outs = append(outs, Outcome{Corpus: "man", ElapsedMS: int64(i * 100)})
	}
	outs = append(outs, Outcome{Corpus: "man", Skipped: "x", ElapsedMS: 99999})
	got := Timings(outs)
	if len(got) != 1 || got[0].P50MS != 500 || got[0].P90MS != 900 || got[0].Briefs != 10 {
		t.Errorf("Timings = %+v", got)
	}
}

// TestAcceptanceGoCompound is the acceptance example: over the Go
// distribution's docs, the compound question yields verified claims for
// both halves (coverage 1: each sub-question has a grounded claim that
// addresses it) and no gap.
func TestAcceptanceGoCompound(t *testing.T) {
	dir := expandVar("GOROOT") + "/doc"
	if _, err := os.Stat(filepath.Join(dir, "go_mem.html")); err != nil {
		t.Skipf("the Go docs are not at %s: %v", dir, err)
	}
	c, err := corpus.Load(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	q := "What does the Go memory model guarantee for programs with data races, and how can GODEBUG settings change runtime behaviour?"
	outs, err := Run(context.Background(), Suite{Cases: []Case{{Name: "go", Question: q, MinGrounding: 0.95, MinCoverage: 1,
		RequiredFacts: []string{"data race", "GODEBUG"}}}}, Config{Retriever: c, Synth: extractive, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	check(t, outs)
	if outs[0].Coverage != 1 || outs[0].StopReason != "COVERAGE_MET" {
		t.Errorf("coverage %v, stop %s", outs[0].Coverage, outs[0].StopReason)
	}
}

// TestBriefTimeCountsCorpusLoading: a brief's time includes loading its
// corpus (Config.Loads), as `carter run` counts it, though the suite loads
// each corpus once; the replay still matches.
func TestBriefTimeCountsCorpusLoading(t *testing.T) {
	dir := t.TempDir()
	doc := "Reflow profiles\n\nThe peak reflow temperature for SAC305 solder paste is 245 degrees in most profiles.\n"
	if err := os.WriteFile(filepath.Join(dir, "reflow.txt"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Load(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	suite := Suite{Cases: []Case{{Name: "reflow", Question: "What is the peak reflow temperature for SAC305 solder paste?", RequiredFacts: []string{"245"}}}}
	const load = 7 * time.Second
	for _, tt := range []struct {
		loads map[string]time.Duration
		min   int64
		max   int64
	}{
		{nil, 0, load.Milliseconds() - 1},
		{map[string]time.Duration{"": load}, load.Milliseconds(), 1 << 40},
	} {
		outs, err := Run(context.Background(), suite, Config{Retriever: c, Loads: tt.loads, Synth: extractive, OutDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		check(t, outs)
		if ms := outs[0].ElapsedMS; ms < tt.min || ms > tt.max {
			t.Errorf("loads %v: brief took %d ms, want %d..%d", tt.loads, ms, tt.min, tt.max)
		}
	}
}
