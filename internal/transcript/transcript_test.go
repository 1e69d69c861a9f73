package transcript

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"copperhead/internal/redact"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// Planted secrets (shaped like real ones, none real), split in the source
// so the repository never holds a string the AC-4.1 grep would flag.
const (
	envOpenAIKey = "sk-" + "proj-PLANTEDenvKEY0123456789abcdefghij"
	envToken     = "ghtok-PLANTED-env-token-98765"
	toolSecret   = "sk-" + "ant-api03-PLANTEDtoolRESULT_0123456789"
	replySecret  = "sk-" + "PLANTEDmodelREPLY0123456789abcdef"
	bearerToken  = "PLANTEDbearer.abcDEF123456789"
	metaSecret   = "sk-PLANTEDmeta42"
)

var plantedEnv = []string{
	"OPENAI_API_KEY=" + envOpenAIKey,
	"MY_SERVICE_TOKEN=" + envToken,
	"PATH=/usr/bin",
}

var allSecrets = []string{envOpenAIKey, envToken, toolSecret, replySecret, bearerToken, metaSecret}

var fixedTime = time.Date(2025, 6, 1, 12, 0, 0, 123456789, time.UTC)

func stubClock(w *Writer) {
	w.now = func() time.Time { return fixedTime }
}

func TestRunIDsSortByTime(t *testing.T) {
	base := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var ids []string
	for i := range 50 {
		// Several ids per millisecond, and times out of creation order.
		at := base.Add(time.Duration((i*7)%10) * time.Millisecond)
		ids = append(ids, NewRunID(at))
	}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ {
		ti, _ := RunIDTime(sorted[i-1])
		tj, _ := RunIDTime(sorted[i])
		if ti.After(tj) {
			t.Fatalf("%s (%v) sorts before %s (%v)", sorted[i-1], ti, sorted[i], tj)
		}
		if sorted[i] == sorted[i-1] {
			t.Fatalf("duplicate run id %s", sorted[i])
		}
	}
	// Same millisecond: creation order.
	a, b := NewRunID(base), NewRunID(base)
	if a >= b {
		t.Errorf("ids in one millisecond out of order: %s then %s", a, b)
	}
	got, ok := RunIDTime(NewRunID(base))
	if !ok || !got.Equal(base) {
		t.Errorf("RunIDTime = %v, %v; want %v", got, ok, base)
	}
	if len(a) != 26 {
		t.Errorf("run id %q is not a 26-character ULID", a)
	}
	for _, bad := range []string{"", "repl-20250601", "01JX"} {
		if _, ok := RunIDTime(bad); ok {
			t.Errorf("RunIDTime(%q) accepted", bad)
		}
	}
	if id := NewRunID(time.Unix(-5, 0)); len(id) != 26 {
		t.Errorf("pre-1970 time gave %q", id)
	}
}

func TestCheckRunID(t *testing.T) {
	for id, ok := range map[string]bool{
		"01JX4ABCDEF": true, "repl-2025": true,
		"": false, ".": false, "..": false, "../x": false, "a/b": false, `a\b`: false, ".hidden": false,
	} {
		if err := checkRunID(id); (err == nil) != ok {
			t.Errorf("checkRunID(%q) = %v", id, err)
		}
	}
}

func TestWriteRead(t *testing.T) {
	repo := t.TempDir()
	id := NewRunID(fixedTime)
	w, err := Create(repo, id, redact.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	stubClock(w)
	if w.Dir() != filepath.Join(RunsDir(repo), id) || w.Path() != filepath.Join(w.Dir(), TranscriptFile) {
		t.Errorf("Dir %s Path %s", w.Dir(), w.Path())
	}
	start := sampleStart(id)
	tool := ToolEvent{Turn: 1, CallID: "c1", Name: "read_file", Args: json.RawMessage(`{"path": "docs/BOM.md"}`), Result: "| R7 | 10k |", DurationMS: 3}
	type chat struct {
		Turn int    `json:"turn"`
		Text string `json:"text"`
	}
	steps := []struct {
		typ    string
		fields any
	}{
		{TypeRunStart, start},
		{"chat", chat{Turn: 1, Text: "reading the BOM"}},
		{TypeTool, tool},
		{"note", map[string]any{"z": 1, "a": "x"}},
		{"marker", nil},
		{TypeRunEnd, sampleEnd()},
	}
	for _, s := range steps {
		if err := w.Write(s.typ, s.fields); err != nil {
			t.Fatalf("Write(%s): %v", s.typ, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.Write("late", nil); err == nil {
		t.Error("Write after Close succeeded")
	}

	events, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != len(steps) {
		t.Fatalf("%d events, want %d", len(events), len(steps))
	}
	for i, ev := range events {
		if ev.Type != steps[i].typ || !ev.Time.Equal(fixedTime) {
			t.Errorf("event %d = %s at %v", i, ev.Type, ev.Time)
		}
	}
	// Envelope first, then the payload's own order.
	if got, want := string(events[3].Raw), `{"type":"note","time":"2025-06-01T12:00:00.123456789Z","a":"x","z":1}`; got != want {
		t.Errorf("map event = %s, want %s", got, want)
	}
	if got, want := string(events[4].Raw), `{"type":"marker","time":"2025-06-01T12:00:00.123456789Z"}`; got != want {
		t.Errorf("empty event = %s, want %s", got, want)
	}
	if !strings.HasPrefix(string(events[0].Raw), `{"type":"run-start","time":"2025-06-01T12:00:00.123456789Z","run_id":"`+id+`","started_at":`) {
		t.Errorf("run-start line = %s", events[0].Raw)
	}
	var gotStart RunStart
	if err := events[0].Decode(&gotStart); err != nil {
		t.Fatal(err)
	}
	if !gotStart.StartedAt.Equal(start.StartedAt) {
		t.Errorf("started_at %v != %v", gotStart.StartedAt, start.StartedAt)
	}
	gotStart.StartedAt = start.StartedAt
	if a, b := mustJSON(t, gotStart), mustJSON(t, start); a != b {
		t.Errorf("run-start round trip:\n got %s\nwant %s", a, b)
	}
	var gotTool ToolEvent
	if err := events[2].Decode(&gotTool); err != nil {
		t.Fatal(err)
	}
	if string(gotTool.Args) != `{"path":"docs/BOM.md"}` || gotTool.Result != tool.Result || gotTool.Name != "read_file" {
		t.Errorf("tool round trip: %+v", gotTool)
	}
	var gotEnd RunEnd
	if err := events[5].Decode(&gotEnd); err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, gotEnd), mustJSON(t, sampleEnd()); a != b {
		t.Errorf("run-end round trip:\n got %s\nwant %s", a, b)
	}
}

func TestWriteRejects(t *testing.T) {
	repo := t.TempDir()
	w, err := Create(repo, "r1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for name, tc := range map[string]struct {
		typ    string
		fields any
	}{
		"empty type":      {"", nil},
		"array fields":    {"x", []int{1}},
		"string fields":   {"x", "hello"},
		"sets type":       {"x", map[string]string{"type": "forged"}},
		"sets time":       {"x", struct{ Time int }{1}},
		"bad raw message": {"x", ToolEvent{Args: json.RawMessage(`{`)}},
	} {
		if err := w.Write(tc.typ, tc.fields); err == nil {
			t.Errorf("%s: Write succeeded", name)
		}
	}
	if _, err := Create(repo, "r1", nil); err == nil || !strings.Contains(err.Error(), "already") {
		t.Errorf("reusing a run id: %v", err)
	}
	if _, err := Create(repo, "../escape", nil); err == nil {
		t.Error("Create accepted a path as run id")
	}
}

func TestConcurrentWritesMakeValidJSONL(t *testing.T) {
	repo := t.TempDir()
	w, err := Create(repo, NewRunID(time.Now()), redact.New(plantedEnv))
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, each = 8, 250
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				// Big enough results to overflow the buffer mid-run.
				ev := ToolEvent{Turn: i, CallID: fmt.Sprintf("g%d-%d", g, i), Name: "search", Args: json.RawMessage(`{}`),
					Result: strings.Repeat("net VBUS ", 50) + envToken}
				if err := w.Write(TypeTool, ev); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != goroutines*each {
		t.Fatalf("%d lines, want %d", len(lines), goroutines*each)
	}
	seen := map[string]bool{}
	for i, l := range lines {
		var ev ToolEvent
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %d is not JSON: %v", i+1, err)
		}
		seen[ev.CallID] = true
	}
	if len(seen) != goroutines*each {
		t.Errorf("%d distinct events, want %d", len(seen), goroutines*each)
	}
	if bytes.Contains(data, []byte(envToken)) {
		t.Error("env token on disk")
	}
}

func TestReadTolerance(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, TranscriptFile), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	good := `{"type":"a","time":"2025-06-01T12:00:00Z"}` + "\n"
	write(good + "\n" + good + `{"type":"b","ti`)
	events, err := Read(dir)
	if err != nil || len(events) != 2 {
		t.Fatalf("torn tail: %d events, %v", len(events), err)
	}
	write(good + "{oops}\n" + good)
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("malformed middle line: %v", err)
	}
	write(`{"time":"2025-06-01T12:00:00Z"}` + "\n")
	if _, err := Read(dir); err == nil {
		t.Error("event without type accepted")
	}
	if _, err := Read(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing transcript accepted")
	}
}

func TestListAndFind(t *testing.T) {
	repo := t.TempDir()
	if runs, err := List(repo); err != nil || runs != nil {
		t.Fatalf("no runs folder: %v, %v", runs, err)
	}
	if _, err := Find(repo, "01ABC"); err == nil || !strings.Contains(err.Error(), "no runs recorded") {
		t.Errorf("Find with no runs: %v", err)
	}
	base := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var ids []string
	for i := range 7 {
		id := NewRunID(base.Add(time.Duration(i) * time.Hour))
		ids = append(ids, id)
		w, err := Create(repo, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := sampleStart(id)
		st.Request = fmt.Sprintf("request %d", i)
		if err := w.Write(TypeRunStart, st); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	// Not runs: the repl's session log and a hidden folder.
	os.WriteFile(filepath.Join(RunsDir(repo), "repl-20250601.log"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(RunsDir(repo), ".tmp"), 0o755)

	runs, err := List(repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 7 {
		t.Fatalf("%d runs, want 7", len(runs))
	}
	for i, r := range runs {
		want := ids[len(ids)-1-i]
		if r.ID != want || r.Request != fmt.Sprintf("request %d", len(ids)-1-i) || r.Command != "do" {
			t.Errorf("runs[%d] = %+v, want id %s", i, r, want)
		}
	}
	if dir, err := Find(repo, ids[3]); err != nil || dir != filepath.Join(RunsDir(repo), ids[3]) {
		t.Errorf("Find exact = %s, %v", dir, err)
	}
	// The ids differ only from the 9th character on (hours apart).
	prefix := strings.ToLower(ids[5][:10])
	if dir, err := Find(repo, prefix); err != nil || filepath.Base(dir) != ids[5] {
		t.Errorf("Find prefix %s = %s, %v", prefix, dir, err)
	}
	if _, err := Find(repo, ids[0][:4]); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous prefix: %v", err)
	}
	_, err = Find(repo, "01ZZZZZZZZZZ")
	if err == nil {
		t.Fatal("Find of an unknown run succeeded")
	}
	msg := err.Error()
	for _, recent := range ids[2:] {
		if !strings.Contains(msg, recent) {
			t.Errorf("not-found error %q does not list recent run %s", msg, recent)
		}
	}
	if strings.Contains(msg, ids[0]) {
		t.Errorf("not-found error lists more than %d runs: %q", recentInErrors, msg)
	}
	if _, err := Find(repo, "../../etc"); err == nil {
		t.Error("Find accepted a path")
	}
}

// TestRedactionOnEverySurface is AC-4.1 and AC-8.10: secrets planted in the
// environment, a tool result, a model reply, a Bearer header and a run-start
// metadata field never reach transcript.jsonl, summary.md or the stderr log,
// and each surface shows the marker instead.
func TestRedactionOnEverySurface(t *testing.T) {
	r := redact.New(plantedEnv)
	repo := t.TempDir()
	id := NewRunID(time.Now())
	w, err := Create(repo, id, r)
	if err != nil {
		t.Fatal(err)
	}

	start := sampleStart(id)
	start.Request = "add a jack; my key is " + envOpenAIKey
	start.Model = "gpt-5 " + metaSecret
	start.Config.Schematic = new("hardware/" + metaSecret + ".kicad_sch")
	start.Git.Branch = new("feature/" + envToken)
	start.Config.Budgets = map[string]float64{metaSecret: 1}
	end := sampleEnd()
	end.Error = new("git push: Authorization: Bearer " + bearerToken)
	type chat struct {
		Turn  int    `json:"turn"`
		Reply string `json:"reply"`
	}
	for _, ev := range []struct {
		typ    string
		fields any
	}{
		{TypeRunStart, start},
		{"chat", chat{1, "Here is the key you asked for: " + replySecret}},
		{TypeTool, ToolEvent{Turn: 1, Name: "read_file", Args: json.RawMessage(`{"path":".env","token":"` + envToken + `"}`),
			Result: "OPENAI_API_KEY=" + envOpenAIKey + "\nANTHROPIC=" + toolSecret + "\n"}},
		{"http", map[string]string{"header": "Authorization: Bearer " + bearerToken}},
		{TypeRunEnd, end},
	} {
		if err := w.Write(ev.typ, ev.fields); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	sum := sampleSummary(start, end)
	sum.Plan = "1. read .env (" + toolSecret + ")"
	sum.Decisions = append(sum.Decisions, Decision{Decision: "used " + replySecret, Rationale: "Bearer " + bearerToken})
	sum.OpenObligations = []string{"rotate " + envToken}
	sum.FilesTouched = []string{"docs/" + metaSecret + ".md"}
	sum.ToolCalls = map[string]int{"x" + envToken: 1}
	if err := WriteSummary(w.Dir(), sum, r); err != nil {
		t.Fatal(err)
	}

	var stderr bytes.Buffer
	log := r.Writer(&stderr)
	fmt.Fprintf(log, "copperhead: provider error: Authorization: Bearer %s\n", bearerToken)
	fmt.Fprintf(log, "tool said %s and %s", toolSecret[:10], toolSecret[10:])
	fmt.Fprintf(log, " (env %s)\nmodel said %s", envOpenAIKey, replySecret)
	log.Close()

	surfaces := map[string][]byte{"stderr": stderr.Bytes()}
	for _, name := range []string{TranscriptFile, SummaryFile} {
		data, err := os.ReadFile(filepath.Join(w.Dir(), name))
		if err != nil {
			t.Fatal(err)
		}
		surfaces[name] = data
	}
	ac41 := regexp.MustCompile(`sk-[A-Za-z0-9_-]{20,}`)
	for name, data := range surfaces {
		for _, s := range allSecrets {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s contains planted secret %q", name, s)
			}
		}
		if m := ac41.Find(data); m != nil {
			t.Errorf("%s matches the AC-4.1 grep: %q", name, m)
		}
		if !bytes.Contains(data, []byte(redact.Marker)) {
			t.Errorf("%s has no redaction marker", name)
		}
	}

	// AC-8.10: the sk- in a metadata field is redacted in both the
	// persisted run-start and summary.md, and the two still agree.
	events, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var got RunStart
	if err := events[0].Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Model != "gpt-5 [REDACTED]" || *got.Config.Schematic != "hardware/[REDACTED].kicad_sch" || *got.Git.Branch != "feature/[REDACTED]" {
		t.Errorf("run-start metadata: model %q schematic %q branch %q", got.Model, *got.Config.Schematic, *got.Git.Branch)
	}
	if _, ok := got.Config.Budgets[redact.Marker]; !ok {
		t.Errorf("budget key not redacted: %v", got.Config.Budgets)
	}
	summary := string(surfaces[SummaryFile])
	for _, row := range []string{"| `model` | `gpt-5 [REDACTED]` |", "| `config.schematic` | `hardware/[REDACTED].kicad_sch` |", "| `git.branch` | `feature/[REDACTED]` |"} {
		if !strings.Contains(summary, row) {
			t.Errorf("summary.md lacks %q", row)
		}
	}
}

// TestEnvironmentMatchesRunStart is AC-8.4's "one source": every leaf of the
// persisted run-start event appears in summary.md's ## Environment with the
// same value.
func TestEnvironmentMatchesRunStart(t *testing.T) {
	repo := t.TempDir()
	id := NewRunID(fixedTime)
	w, err := Create(repo, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := sampleStart(id)
	start.Config.Schematic = nil // AC-8.2: key present, null
	start.Git.Branch = nil       // AC-8.3: failed probe, null for that field only
	if err := w.Write(TypeRunStart, start); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := WriteSummary(w.Dir(), sampleSummary(start, sampleEnd()), nil); err != nil {
		t.Fatal(err)
	}
	events, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	dec := json.NewDecoder(bytes.NewReader(events[0].Raw))
	dec.UseNumber()
	if err := dec.Decode(&fields); err != nil {
		t.Fatal(err)
	}
	cfg := fields["config"].(map[string]any)
	if v, ok := cfg["schematic"]; !ok || v != nil {
		t.Errorf("config.schematic = %v, %v; want present and null", v, ok)
	}
	md, _ := os.ReadFile(filepath.Join(w.Dir(), SummaryFile))
	env := sectionOf(string(md), "Environment")
	for _, want := range []string{
		"| `run_id` | `" + id + "` |",
		"| `started_at` | `2025-06-01T11:59:58Z` |",
		"| `config.schematic` | `null` |",
		"| `config.max_turns` | `12` |",
		"| `config.budgets.sleep_current_uA` | `25` |",
		"| `git.branch` | `null` |",
		"| `git.commit` | `" + *start.Git.Commit + "` |",
		"| `selection_source` | `flag` |",
		"| `stage` | `null` |",
	} {
		if !strings.Contains(env, want) {
			t.Errorf("## Environment lacks %q", want)
		}
	}
	if n := strings.Count(env, "\n| `"); n != 27 {
		t.Errorf("## Environment has %d rows, want 27 (every run-start leaf but request)", n)
	}
}

func TestSummaryGolden(t *testing.T) {
	tests := []struct {
		name string
		sum  func() Summary
	}{
		{"summary_done.md", func() Summary { return sampleSummary(sampleStart("01JWQ5Y2R8ZC4D7V0KTMXH3N6P"), sampleEnd()) }},
		{"summary_commit_failed.md", func() Summary {
			start := sampleStart("01JWQ5Y2R8ZC4D7V0KTMXH3N6Q")
			start.Stage = &Stage{Name: "schematic", Index: 4, Count: 8}
			start.Config.Schematic, start.Config.Board = nil, nil
			start.Git = GitState{Commit: nil, Branch: nil, Dirty: new(true), Uncommitted: new(3)}
			start.KicadCLIVersion = nil
			start.Request = "rename net `KEY|IN` to KEY_IN\n\n## Run stats\n(this heading is part of the request)"
			end := RunEnd{
				ExitPath: ExitCommitFailed, TurnsUsed: 3, TurnBudget: 40, RepairCyclesUsed: 0, RepairCycleBudget: 5,
				Tokens: Tokens{Input: 900, Output: 80}, DurationMS: 850,
				Verification: Verification{Status: VerifyPassed, Checks: []CheckOutcome{{Name: "erc", Status: VerifyPassed}}},
				StashRef:     new("stash@{0}"),
				Error:        new("git add -A: exit status 128\nfatal: 'hardware/lib' is an embedded ```repo```"),
			}
			s := Summary{Start: start, End: end}
			return s
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RenderSummary(tc.sum(), redact.New(plantedEnv))
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.name)
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("summary differs from %s (run with -update to accept):\n%s", golden, got)
			}
			again, _ := RenderSummary(tc.sum(), redact.New(plantedEnv))
			if !bytes.Equal(got, again) {
				t.Error("rendering is not deterministic")
			}
			sections := regexp.MustCompile(`(?m)^## .*$`).FindAllString(string(got), -1)
			wantSections := []string{"## Environment", "## Tools used", "## Files touched", "## Verification", "## Run stats", "## Decisions", "## Open obligations"}
			if s := tc.sum(); s.Plan != "" {
				wantSections = append([]string{"## Plan"}, wantSections...)
			}
			if !slices.Equal(sections, wantSections) {
				t.Errorf("sections %q, want %q", sections, wantSections)
			}
		})
	}
}

func TestWriteSummaryIsAtomic(t *testing.T) {
	dir := t.TempDir()
	s := sampleSummary(sampleStart("r"), sampleEnd())
	for range 2 {
		if err := WriteSummary(dir, s, nil); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != SummaryFile {
		t.Errorf("run folder holds %v", entries)
	}
}

func TestExitPathValid(t *testing.T) {
	for _, p := range []ExitPath{ExitDone, ExitRefused, ExitTurnBudgetExhausted, ExitRepairCyclesExhausted, ExitCommitFailed, ExitProviderError, ExitStalled, ExitNoChange, ExitInterrupted} {
		if !p.Valid() {
			t.Errorf("%s invalid", p)
		}
	}
	if ExitPath("crashed").Valid() {
		t.Error("unknown exit path valid")
	}
}

func TestNilSlicesMarshalEmpty(t *testing.T) {
	got := mustJSON(t, RunEnd{})
	for _, want := range []string{`"per_turn":[]`, `"checks":[]`, `"status":"not-run"`, `"commit":null`, `"error":null`} {
		if !strings.Contains(got, want) {
			t.Errorf("RunEnd{} = %s, lacks %s", got, want)
		}
	}
	if got := mustJSON(t, ConfigSnapshot{}); !strings.Contains(got, `"budgets":{}`) || !strings.Contains(got, `"schematic":null`) {
		t.Errorf("ConfigSnapshot{} = %s", got)
	}
}

func sectionOf(md, title string) string {
	_, rest, _ := strings.Cut(md, "\n## "+title+"\n")
	sec, _, _ := strings.Cut(rest, "\n## ")
	return sec
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sampleStart(id string) RunStart {
	return RunStart{
		RunID:             id,
		StartedAt:         time.Date(2025, 6, 1, 11, 59, 58, 0, time.UTC),
		Command:           "do",
		Request:           "add an external key jack on an RTC-capable pin",
		Model:             "gpt-5",
		Provider:          "openai",
		SelectionSource:   SourceFlag,
		Interactive:       false,
		CopperheadVersion: "0.1.0",
		InstallPath:       new("/usr/local/bin/copperhead"),
		KicadCLIVersion:   new("9.0.2"),
		NodeVersion:       nil,
		Platform:          "linux/amd64 (Debian GNU/Linux 12)",
		Config: ConfigSnapshot{
			Schematic:       new("hardware/keyer.kicad_sch"),
			Board:           new("hardware/keyer.kicad_pcb"),
			Docs:            "docs/",
			MaxTurns:        12,
			MaxRepairCycles: 5,
			Budgets:         map[string]float64{"sleep_current_uA": 25, "bom_cost_usd": 7.5},
		},
		Git: GitState{
			Commit:      new("3f2c1a9e0b7d4c6f8a1e2d3c4b5a69788796a5b4"),
			Branch:      new("main"),
			Dirty:       new(false),
			Uncommitted: new(0),
		},
		PreCommitHook:   new(true),
		OpenConstraints: new(4),
		PriorRuns:       new(7),
	}
}

func sampleEnd() RunEnd {
	return RunEnd{
		ExitPath:          ExitDone,
		TurnsUsed:         3,
		TurnBudget:        12,
		RepairCyclesUsed:  1,
		RepairCycleBudget: 5,
		Tokens:            Tokens{Input: 24500, Output: 1830, CacheRead: 18000, CacheWrite: 2100},
		PerTurn: []TurnTokens{
			{Turn: 1, Tokens: Tokens{Input: 6100, Output: 420, CacheWrite: 2100}},
			{Turn: 2, Tokens: Tokens{Input: 8300, Output: 910, CacheRead: 6000}},
			{Turn: 3, Tokens: Tokens{Input: 10100, Output: 500, CacheRead: 12000}},
		},
		DurationMS: 42137,
		Verification: Verification{Status: VerifyPassed, Checks: []CheckOutcome{
			{Name: "erc", Status: VerifyPassed},
			{Name: "drc", Status: VerifyPassed, Detail: "2 environment | library warnings"},
			{Name: "drift", Status: VerifyPassed},
		}},
		Commit: new("9a8b7c6"),
	}
}

func sampleSummary(start RunStart, end RunEnd) Summary {
	return Summary{
		Start:        start,
		End:          end,
		ChangeID:     "add-key-jack",
		Plan:         "Add J3 (3.5 mm jack) on GPIO4.\n\n## Risks\n- sleep current: the 100k pull-up adds 33 uA",
		ToolCalls:    map[string]int{"read_file": 5, "edit_file": 3, "run_erc": 2, "check_drift": 2, "search": 1},
		FilesTouched: []string{"docs/PINOUT.md", "hardware/keyer.kicad_sch", "docs/BOM.md", "docs/PINOUT.md"},
		Decisions: []Decision{
			{Decision: "GPIO4 for the key input", Rationale: "RTC-capable, not a strapping pin", Affects: []string{"J3", "KEY_IN", "docs/PINOUT.md"}},
			{Decision: "1M pull-up instead of 100k", Rationale: "keeps sleep current under the 25 uA budget"},
		},
		OpenObligations: nil,
	}
}

// TestSummaryResearchRow: a run with research tools states its research
// request count; a run without them renders exactly as before research
// existed.
func TestSummaryResearchRow(t *testing.T) {
	tests := []struct {
		name     string
		research *ResearchStats
		want     string
	}{
		{"no research tools", nil, ""},
		{"research", &ResearchStats{Requests: 7, Refused: 2}, "| Research requests | 7 (2 refused) |\n"},
		{"research, no requests", &ResearchStats{}, "| Research requests | 0 (0 refused) |\n"},
	}
	base := sampleSummary(sampleStart("01JRESEARCH0000000000000000"), sampleEnd())
	plain, err := RenderSummary(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base
			s.Research = tt.research
			got, err := RenderSummary(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if !bytes.Equal(got, plain) || bytes.Contains(got, []byte("Research")) {
					t.Errorf("summary without research changed")
				}
				return
			}
			stash := "| Stash | `null` |\n"
			if !bytes.Contains(got, []byte(stash+tt.want)) {
				t.Errorf("summary lacks %q after the stash row:\n%s", tt.want, got)
			}
		})
	}
}

// TestReopen: a killed run's transcript, its last line torn, takes the
// run-end recover writes as a whole line after the last whole one.
func TestReopen(t *testing.T) {
	repo := t.TempDir()
	w, err := Create(repo, "01TORN", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(TypeRunStart, RunStart{RunID: "01TORN", Command: "do"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(w.Dir(), TranscriptFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"chat","time":"2026-`)
	f.Close()
	w, err = Reopen(w.Dir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(TypeRunEnd, RunEnd{ExitPath: ExitInterrupted}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	events, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || events[0].Type != TypeRunStart || events[1].Type != TypeRunEnd {
		t.Fatalf("events %+v", events)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), `"chat"`) {
		t.Errorf("torn line kept:\n%s", b)
	}
}
