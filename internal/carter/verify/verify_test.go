package verify

import (
	"errors"
	"strings"
	"testing"

	"copperhead/internal/carter/artifact"
)

const text = "The peak reflow temperature is 245 °C. Storage is cold. Ünïcode line here."

func fixture() Input {
	h := artifact.Hash([]byte(text))
	src := artifact.Source{ID: "S1", Title: "Guide", URL: "file:///g.md", RetrievedAt: "2026-01-01T00:00:00.000Z", ContentHash: "abc", TextHash: h, TextStored: true}
	unretrieved := artifact.Source{ID: "S2", URL: "https://x.org/", TextHash: h, TextStored: true}
	ev := []artifact.Evidence{
		{ID: "E1", SourceID: "S1", Quote: "The peak reflow temperature is 245 °C.", Start: 0, End: len("The peak reflow temperature is 245 °C.")},
		{ID: "E2", SourceID: "S1", Quote: "Storage is warm.", Start: 39, End: 55}, // quote differs from the text
		{ID: "E3", SourceID: "S2", Quote: "The peak", Start: 0, End: 8},           // source not retrieved
		{ID: "E4", SourceID: "S1", Quote: text[57:59], Start: 57, End: 59},        // valid but odd
		{ID: "E5", SourceID: "S1", Quote: "x", Start: 58, End: 9999},              // out of range
		{ID: "E6", SourceID: "S9", Quote: "The", Start: 0, End: 3},                // source missing
		{ID: "E7", SourceID: "S1", Quote: text[57:58], Start: 57, End: 58},        // splits Ü
	}
	return Input{Sources: []artifact.Source{src, unretrieved}, Evidence: ev, Text: func(hash string) (string, error) {
		if hash != h {
			return "", errors.New("no such text")
		}
		return text, nil
	}}
}

func TestRun(t *testing.T) {
	in := fixture()
	in.Claims = []artifact.Claim{
		{ID: "C1", Text: "The peak is 245 °C.", EvidenceIDs: []string{"E1"}, Tags: []string{"finding"}},
		{ID: "C2", Text: "Storage is warm.", EvidenceIDs: []string{"E2"}, Tags: []string{"finding"}},
		{ID: "C3", Text: "Unretrieved.", EvidenceIDs: []string{"E3", "E6", "E99"}, Tags: []string{"finding"}},
		{ID: "C4", Text: "No citation at all.", Tags: []string{"finding"}},
		{ID: "C5", Text: "The peak is 260 °C.", EvidenceIDs: []string{"E1"}, Tags: []string{"finding"}},
		{ID: "C6", Text: "Maybe nitrogen helps.", Tags: []string{"speculation"}},
		{ID: "C7", Text: "Half good.", EvidenceIDs: []string{"E1", "E5"}, Tags: []string{"finding"}},
		{ID: "C1", Text: "Duplicate id.", EvidenceIDs: []string{"E1"}},
	}
	res := Run(in)
	ids := func(cs []artifact.Claim) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return strings.Join(out, ",")
	}
	// C7 cites one valid and one invalid id: removed (the README's rule).
	if got := ids(res.Grounded); got != "C1" {
		t.Errorf("grounded = %s", got)
	}
	if got := ids(res.Speculation); got != "C4,C5,C6" {
		t.Errorf("speculation = %s", got)
	}
	if res.Removed != 4 || res.Moved != 2 {
		t.Errorf("removed %d moved %d, decisions %+v", res.Removed, res.Moved, res.Decisions)
	}
	for id, want := range map[string]string{"E2": "quote differs", "E3": "not retrieved", "E5": "outside the", "E6": "does not resolve", "E7": "split"} {
		if !strings.Contains(res.BadEvidence[id], want) {
			t.Errorf("BadEvidence[%s] = %q, want %q", id, res.BadEvidence[id], want)
		}
	}
	if res.QuotesExact != 2 || res.QuotesTotal != 7 {
		t.Errorf("quotes %d/%d", res.QuotesExact, res.QuotesTotal)
	}
	if len(res.References) != 1 || res.References[0].ID != "S1" || res.Unretrieved != 0 {
		t.Errorf("references %+v unretrieved %d", res.References, res.Unretrieved)
	}
	var moved string
	for _, d := range res.Decisions {
		if d.ClaimID == "C5" {
			moved = d.Reason
		}
	}
	if !strings.Contains(moved, `"260 °C"`) {
		t.Errorf("C5 reason = %q", moved)
	}
}

func TestCheckBrief(t *testing.T) {
	tests := []struct {
		name, brief string
		problems    int
	}{
		{"ok", "A [1]. B [2][1].\n## References\n\n1. a\n2. b\n", 0},
		{"dangling marker", "A [3].\n## References\n\n1. a\n", 2},
		{"uncited reference", "A [1].\n## References\n\n1. a\n2. b\n", 1},
		{"escaped and code are not citations", "A [1] \\[2] `[3]`.\n## References\n\n1. a\n", 0},
		{"misnumbered", "A [1][3].\n## References\n\n1. a\n3. c\n", 1},
	}
	for _, tt := range tests {
		if got := CheckBrief(tt.brief); len(got) != tt.problems {
			t.Errorf("%s: problems %v, want %d", tt.name, got, tt.problems)
		}
	}
}

// FuzzCitations: the citation reader never panics and every marker it
// returns was written as "[n]" in the body.
func FuzzCitations(f *testing.F) {
	for _, s := range []string{"a [1]\n## References\n1. x", "[", "[12345678]", "\\[1]", "`[1]`[2]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, brief string) {
		markers, refs := Citations(brief)
		body, _, _ := strings.Cut(brief, "\n"+ReferencesHeading+"\n")
		for _, m := range markers {
			if m < 0 || m > 999999 || !strings.Contains(body, "]") {
				t.Fatalf("marker %d from body %q", m, body)
			}
		}
		for _, r := range refs {
			if r <= 0 {
				t.Fatalf("reference number %d", r)
			}
		}
		_ = CheckBrief(brief)
	})
}

// TestEveryQuantityMustBeQuoted: bare numbers, sizes, bit widths,
// durations and percentages a claim states must be in its quotes; the old
// check knew only a few electrical units.
func TestEveryQuantityMustBeQuoted(t *testing.T) {
	const doc = "The priority of a magic rule ranges from 0 to 100. Pages are 4 KB. Words are 32-bit. Logs are kept 2 years. About 10% fail."
	src := artifact.Source{ID: "S1", URL: "file:///m.txt", RetrievedAt: "t", ContentHash: "h", TextHash: "th", TextStored: true}
	ev := artifact.Evidence{ID: "E1", SourceID: "S1", Quote: doc, Start: 0, End: len(doc)}
	for _, tt := range []struct {
		claim string
		kept  bool
	}{
		{"The maximum priority of a magic rule is 255.", false},
		{"The maximum priority of a magic rule is 100.", true},
		{"Pages are 8 KB.", false},
		{"Pages are 4KB.", true},
		{"Words are 64-bit.", false},
		{"Logs are kept 3 years.", false},
		{"About 20 percent fail.", false},
		{"About 10 percent fail.", true},
	} {
		res := Run(Input{Claims: []artifact.Claim{{ID: "C1", Text: tt.claim, EvidenceIDs: []string{"E1"}, Tags: []string{"finding"}}},
			Evidence: []artifact.Evidence{ev}, Sources: []artifact.Source{src}, Text: func(string) (string, error) { return doc, nil }})
		if kept := len(res.Grounded) == 1; kept != tt.kept {
			t.Errorf("%q kept=%v, want %v (%+v)", tt.claim, kept, tt.kept, res.Decisions)
		}
	}
}

// TestContextMustMatch: a quote's context line is checked against the
// stored text like the quote itself.
func TestContextMustMatch(t *testing.T) {
	const doc = "set [-e]\n  -e  Exit on error, immediately and always."
	src := artifact.Source{ID: "S1", URL: "file:///m.txt", RetrievedAt: "t", ContentHash: "h", TextHash: "th", TextStored: true}
	quote := "-e  Exit on error, immediately and always."
	start := strings.Index(doc, quote)
	for _, tt := range []struct {
		ctx  string
		cs   int
		ce   int
		kept bool
	}{{"set [-e]", 0, 8, true}, {"set [-x]", 0, 8, false}, {"set [-e]", 1, 9, false}} {
		ev := artifact.Evidence{ID: "E1", SourceID: "S1", Quote: quote, Start: start, End: start + len(quote), Context: tt.ctx, ContextStart: tt.cs, ContextEnd: tt.ce}
		res := Run(Input{Claims: []artifact.Claim{{ID: "C1", Text: "set -e exits on error.", EvidenceIDs: []string{"E1"}, Tags: []string{"finding"}}},
			Evidence: []artifact.Evidence{ev}, Sources: []artifact.Source{src}, Text: func(string) (string, error) { return doc, nil }})
		if kept := len(res.Grounded) == 1; kept != tt.kept {
			t.Errorf("context %q [%d:%d]: kept %v (%v)", tt.ctx, tt.cs, tt.ce, kept, res.BadEvidence)
		}
	}
}
