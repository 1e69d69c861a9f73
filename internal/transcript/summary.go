package transcript

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"copperhead/internal/atomicfile"
	"copperhead/internal/redact"
)

// Summary is everything summary.md reports about a run (D12, D13, AC-8.4,
// AC-8.5). A human can audit a run from it without reading the JSONL.
type Summary struct {
	Start RunStart // rendered as the header and ## Environment
	End   RunEnd   // rendered as the outcome line, ## Verification and ## Run stats

	ChangeID        string         // the run's OpenSpec change id; "" when it made none
	Plan            string         // the plan the model stated, Markdown
	ToolCalls       map[string]int // calls per tool name
	FilesTouched    []string       // repo-relative paths the run changed
	Decisions       []Decision     // mirrors the run's docs/DECISIONS.md entries
	OpenObligations []string       // obligations ledger entries still open at the end (D13)
	// Research counts the run's research network requests; nil when the
	// run had no research tools, which leaves summary.md exactly as it was
	// before research existed.
	Research *ResearchStats
}

// Decision is one non-trivial decision and why it was made.
type Decision struct {
	Decision  string
	Rationale string
	Affects   []string // refdes, nets, docs
}

// WriteSummary renders s as runDir/summary.md, atomically and redacted with
// r. Rendering is deterministic: the same Summary always yields the same
// bytes.
func WriteSummary(runDir string, s Summary, r *redact.Redactor) error {
	md, err := RenderSummary(s, r)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(runDir, SummaryFile), md, 0o644)
}

// RenderSummary returns the Markdown of summary.md, redacted with r.
//
// The ## Environment table is generated from the run-start event's own JSON
// (one row per leaf field, named by its JSON path, request excepted), so it
// can never disagree with the transcript: both come from the same value
// through the same redaction.
func RenderSummary(s Summary, r *redact.Redactor) ([]byte, error) {
	m := &markdown{r: r}
	st, end := s.Start, s.End

	m.linef("# Run %s", m.code(st.RunID))
	m.line("")
	m.line("**Request**")
	m.line("")
	m.quote(st.Request)
	m.line("")
	m.linef("- Command: %s", m.code(st.Command))
	m.linef("- Model: %s via %s, selected by %s", m.code(st.Model), m.code(st.Provider), m.code(string(st.SelectionSource)))
	if st.Stage != nil {
		m.linef("- Stage: %s", m.code(fmt.Sprintf("%s (%d/%d)", st.Stage.Name, st.Stage.Index, st.Stage.Count)))
	}
	m.linef("- Started: %s", m.code(st.StartedAt.UTC().Format(time.RFC3339)))
	if s.ChangeID != "" {
		m.linef("- OpenSpec change: %s", m.code(s.ChangeID))
	}
	m.linef("- Outcome: %s", outcome(m, end))

	if strings.TrimSpace(s.Plan) != "" {
		m.section("Plan")
		m.quote(s.Plan)
	}

	m.section("Environment")
	rows, err := environmentRows(st, r)
	if err != nil {
		return nil, err
	}
	m.line("| Field | Value |")
	m.line("| --- | --- |")
	for _, row := range rows {
		m.linef("| %s | %s |", m.cellCode(row.path), m.cellCode(row.value))
	}

	m.section("Tools used")
	if len(s.ToolCalls) == 0 {
		m.line("None.")
	} else {
		names := make([]string, 0, len(s.ToolCalls))
		for name := range s.ToolCalls {
			names = append(names, name)
		}
		slices.SortFunc(names, func(a, b string) int {
			return cmp.Or(cmp.Compare(s.ToolCalls[b], s.ToolCalls[a]), strings.Compare(a, b))
		})
		m.line("| Tool | Calls |")
		m.line("| --- | ---: |")
		for _, name := range names {
			m.linef("| %s | %d |", m.cellCode(name), s.ToolCalls[name])
		}
	}

	m.section("Files touched")
	files := slices.Compact(slices.Sorted(slices.Values(s.FilesTouched)))
	if len(files) == 0 {
		m.line("None.")
	}
	for _, f := range files {
		m.linef("- %s", m.code(f))
	}

	m.section("Verification")
	m.linef("Result: **%s**", m.text(verificationStatus(end.Verification)))
	if len(end.Verification.Checks) > 0 {
		m.line("")
		m.line("| Check | Status | Violations | Detail |")
		m.line("| --- | --- | ---: | --- |")
		for _, c := range end.Verification.Checks {
			m.linef("| %s | %s | %d | %s |", m.cellCode(c.Name), m.cellText(c.Status), c.Violations, m.cellText(c.Detail))
		}
	}

	m.section("Run stats")
	m.line("| Stat | Value |")
	m.line("| --- | --- |")
	m.linef("| Exit path | %s |", m.cellCode(string(end.ExitPath)))
	m.linef("| Turns | %d / %d |", end.TurnsUsed, end.TurnBudget)
	m.linef("| Repair cycles | %d / %d |", end.RepairCyclesUsed, end.RepairCycleBudget)
	m.linef("| Input tokens | %d |", end.Tokens.Input)
	m.linef("| Output tokens | %d |", end.Tokens.Output)
	m.linef("| Cache read tokens | %d |", end.Tokens.CacheRead)
	m.linef("| Cache write tokens | %d |", end.Tokens.CacheWrite)
	m.linef("| Duration | %s (%d ms) |", formatDuration(end.DurationMS), end.DurationMS)
	m.linef("| Commit | %s |", m.cellCode(orNull(end.Commit)))
	m.linef("| Stash | %s |", m.cellCode(orNull(end.StashRef)))
	if s.Research != nil {
		m.linef("| Research requests | %d (%d refused) |", s.Research.Requests, s.Research.Refused)
	}
	if len(end.PerTurn) > 0 {
		m.line("")
		m.line("### Tokens per turn")
		m.line("")
		m.line("| Turn | Input | Output | Cache read | Cache write |")
		m.line("| ---: | ---: | ---: | ---: | ---: |")
		for _, t := range end.PerTurn {
			m.linef("| %d | %d | %d | %d | %d |", t.Turn, t.Input, t.Output, t.CacheRead, t.CacheWrite)
		}
	}
	if end.Error != nil {
		m.line("")
		m.line("### Error")
		m.line("")
		m.fenced(*end.Error)
	}

	m.section("Decisions")
	if len(s.Decisions) == 0 {
		m.line("None.")
	}
	for _, d := range s.Decisions {
		item := "- " + m.text(d.Decision)
		if d.Rationale != "" {
			item += " — " + m.text(d.Rationale)
		}
		if len(d.Affects) > 0 {
			codes := make([]string, len(d.Affects))
			for i, a := range d.Affects {
				codes[i] = m.code(a)
			}
			item += " (affects " + strings.Join(codes, ", ") + ")"
		}
		m.line(item)
	}

	m.section("Open obligations")
	if len(s.OpenObligations) == 0 {
		m.line("None.")
	}
	for _, o := range s.OpenObligations {
		m.linef("- %s", m.text(o))
	}

	// Every value was redacted as it was placed; this pass also covers
	// the fixed text around them, so no rendering path can skip it.
	return r.Bytes(m.buf.Bytes()), nil
}

func outcome(m *markdown, end RunEnd) string {
	parts := []string{"**" + m.text(string(end.ExitPath)) + "**", m.text(VerificationWords(end.ExitPath, end.Verification))}
	if end.Commit != nil {
		parts = append(parts, "commit "+m.code(*end.Commit))
	}
	parts = append(parts, formatDuration(end.DurationMS))
	parts = append(parts, fmt.Sprintf("%d in / %d out tokens", end.Tokens.Input, end.Tokens.Output))
	return strings.Join(parts, " · ")
}

// VerificationWords is the verification as an outcome line states it:
// "verification passed". A refused run commits nothing, so its checks
// judge nothing: it says "nothing committed", never "verification
// failed" (its checks stay in the record for whoever reads them).
func VerificationWords(exit ExitPath, v Verification) string {
	if exit == ExitRefused {
		return "nothing committed"
	}
	return "verification " + verificationStatus(v)
}

func verificationStatus(v Verification) string {
	if v.Status == "" {
		return VerifyNotRun
	}
	return v.Status
}

func orNull(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// formatDuration is a wall-clock duration to a tenth of a second (to the
// millisecond below one second).
func formatDuration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d < time.Second {
		return d.String()
	}
	return d.Round(100 * time.Millisecond).String()
}

// envRow is one leaf of the run-start JSON: its dotted path and its value as
// the transcript spells it (strings unquoted, null as null).
type envRow struct{ path, value string }

func environmentRows(st RunStart, r *redact.Redactor) ([]envRow, error) {
	raw, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("render summary: %w", err)
	}
	if raw, err = r.JSON(raw); err != nil {
		return nil, fmt.Errorf("render summary: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var rows []envRow
	if err := flatten(dec, "", &rows); err != nil {
		return nil, fmt.Errorf("render summary: %w", err)
	}
	return slices.DeleteFunc(rows, func(row envRow) bool { return row.path == "request" }), nil
}

// flatten reads one JSON value from dec and appends a row per leaf. An empty
// object or array is a leaf ({} or []).
func flatten(dec *json.Decoder, path string, rows *[]envRow) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	join := func(key string) string {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	switch v := tok.(type) {
	case json.Delim:
		n := 0
		for ; dec.More(); n++ {
			key := strconv.Itoa(n)
			if v == '{' {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				key = kt.(string)
			}
			if err := flatten(dec, join(key), rows); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return err
		}
		if n == 0 {
			*rows = append(*rows, envRow{path, map[json.Delim]string{'{': "{}", '[': "[]"}[v]})
		}
	case string:
		*rows = append(*rows, envRow{path, v})
	case json.Number:
		*rows = append(*rows, envRow{path, v.String()})
	case bool:
		*rows = append(*rows, envRow{path, strconv.FormatBool(v)})
	case nil:
		*rows = append(*rows, envRow{path, "null"})
	}
	return nil
}

// markdown builds summary.md. Its helpers redact every value they place and
// escape it for where it goes, so user and model text (a request, a plan, a
// decision) can neither leak a secret nor break the document's structure.
type markdown struct {
	r   *redact.Redactor
	buf bytes.Buffer
}

func (m *markdown) line(s string) {
	m.buf.WriteString(s)
	m.buf.WriteByte('\n')
}

func (m *markdown) linef(format string, args ...any) {
	m.line(fmt.Sprintf(format, args...))
}

func (m *markdown) section(title string) {
	m.line("")
	m.line("## " + title)
	m.line("")
}

// quote writes text as a block quote, so headings inside it (a plan's
// "## Steps") stay inside it and cannot pose as sections of the summary.
func (m *markdown) quote(text string) {
	text = strings.TrimRight(m.r.String(text), "\n")
	if text == "" {
		m.line("> (none)")
		return
	}
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if l == "" {
			m.line(">")
		} else {
			m.line("> " + l)
		}
	}
}

// fenced writes text as a fenced code block whose fence is longer than any
// backtick run inside it.
func (m *markdown) fenced(text string) {
	text = strings.TrimRight(m.r.String(text), "\n")
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	m.line(fence)
	m.line(text)
	m.line(fence)
}

// text is s redacted on one line, for list items and prose.
func (m *markdown) text(s string) string {
	return strings.Join(strings.Fields(m.r.String(s)), " ")
}

// code is s redacted as an inline code span.
func (m *markdown) code(s string) string {
	s = m.r.String(s)
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	if s == "" {
		return "` `"
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// cellCode is code for a table cell: a pipe would end the cell, even inside
// a code span, unless escaped.
func (m *markdown) cellCode(s string) string {
	return strings.ReplaceAll(m.code(s), "|", `\|`)
}

// cellText is text for a table cell.
func (m *markdown) cellText(s string) string {
	return strings.ReplaceAll(m.text(s), "|", `\|`)
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
