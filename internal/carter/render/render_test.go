package render

import (
	"strings"
	"testing"

	"copperhead/internal/carter/artifact"
	"copperhead/internal/carter/evaluate"
	"copperhead/internal/carter/verify"
	"copperhead/internal/testkit"
)

func TestRenderEscapesUntrustedText(t *testing.T) {
	src := artifact.Source{ID: "S1", Title: "<script>x</script> [9]", URL: "https://a.org/", RetrievedAt: "t", ContentHash: strings.Repeat("a", 64), Flags: []string{artifact.FlagPromptInjection}}
	ev := artifact.Evidence{ID: "E1", SourceID: "S1", Quote: "See [2] and *this* | pipe.", Start: 0, End: 26}
	in := Input{
		Record: artifact.Record{RunID: "R", Sources: []artifact.Source{src}, Evidence: []artifact.Evidence{ev},
			Facts: artifact.Facts{StopReason: evaluate.StopMaxToolCalls, Cost: artifact.Cost{ToolCalls: 3}}},
		Verified: verify.Result{
			Grounded:   []artifact.Claim{{ID: "C1", Text: "Claim with [7] inside <b>.", EvidenceIDs: []string{"E1"}, Tags: []string{"finding"}}},
			Evidence:   []artifact.Evidence{ev},
			References: []artifact.Source{src},
		},
		EventLog: "event_log.jsonl",
	}
	in.Record.Spec.Question = "Why?"
	in.Record.Spec.Constraints.MaxToolCalls = 3
	out, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	brief := string(out.Brief)
	if strings.Contains(brief, "<script>") || strings.Contains(brief, "<b>") {
		t.Error("HTML from a source reached the brief")
	}
	if problems := verify.CheckBrief(brief); len(problems) != 0 {
		t.Errorf("brief citations: %v\n%s", problems, brief)
	}
	testkit.ContainsAll(t, "brief", brief, "**Partial brief.**", "tool-call budget (3 of 3 calls)", "⚠ contained instructions addressed to AI agents (ignored)", `\| pipe`)
	if !out.Parsed.Partial || out.Parsed.StopReason != evaluate.StopMaxToolCalls {
		t.Errorf("report %+v", out.Parsed)
	}
	again, _ := Render(in)
	if string(again.Brief) != brief || string(again.Claims) != string(out.Claims) || string(again.Report) != string(out.Report) {
		t.Error("rendering is not deterministic")
	}
}
