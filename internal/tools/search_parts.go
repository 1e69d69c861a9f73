package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"copperhead/internal/design"
	"copperhead/internal/research"
	"copperhead/internal/research/parts"
	"copperhead/internal/sourcing"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

const (
	// defaultPartResults and maxPartResults bound a free-text search: enough
	// candidates to choose among, few enough to read.
	defaultPartResults = 5
	maxPartResults     = 10
	// maxPartsShown caps an MPN lookup's answer: packaging variants of one
	// part number rarely exceed a handful.
	maxPartsShown = 10
	// maxOffersShown caps the offers listed per part; the stock total still
	// counts every offer.
	maxOffersShown = 8
	// maxBreaksShown caps the price breaks listed per offer.
	maxBreaksShown = 6
)

type searchPartsArgs struct {
	MPN    string `json:"mpn,omitempty" desc:"exact manufacturer part number, e.g. TPS63020DSJR"`
	Query  string `json:"query,omitempty" desc:"free-text part search, e.g. 3.3V LDO SOT-23 500mA"`
	Refdes string `json:"refdes,omitempty" desc:"with mpn: the part (e.g. U3) whose sourcing snapshot to record in constraints.json and BOM.md"`
	Limit  int    `json:"limit,omitempty" desc:"query only: how many parts, 1 to 10 (default 5)"`
}

// searchPartsTool looks parts up through the first part-data provider that
// answers and, given a refdes, records the sourcing snapshot (D7).
//
// The spec gate (D7 versus invariant 1): recording a snapshot writes
// constraints.json and BOM.md, and no repository write happens before the
// run's change validates. Searching, though, is planning: the model needs
// part data to write a sound proposal. So the tool is not Mutating (present
// from the first turn) and the write is gated per call: before validation a
// refdes is answered with the search results and "nothing recorded", and the
// model records the snapshot with a second call once the edit tools unlock,
// which is also when the part it selected can have a BOM row.
var searchPartsTool = researchTool("search_parts", searchParts)

func searchParts(ctx context.Context, s *tool.Session, kit *research.Kit, a searchPartsArgs) (tool.Result, error) {
	mpn, query, refdes := strings.TrimSpace(a.MPN), textfmt.OneLine(a.Query), strings.TrimSpace(a.Refdes)
	switch {
	case (mpn == "") == (query == ""):
		return tool.Errorf("search_parts: give exactly one of mpn (an exact part number) or query (free text)"), nil
	case refdes != "" && mpn == "":
		return tool.Errorf("search_parts: refdes needs mpn: a sourcing snapshot records one exact part number"), nil
	case len(mpn) > 100 || len(query) > 200:
		return tool.Errorf("search_parts: mpn is at most 100 characters, query at most 200"), nil
	case a.Limit < 0 || a.Limit > maxPartResults:
		return tool.Errorf("search_parts: limit %d: must be 1 to %d", a.Limit, maxPartResults), nil
	}
	limit := a.Limit
	if limit == 0 {
		limit = defaultPartResults
	}

	var retrieved time.Time
	return firstAnswer(ctx, s, "search_parts", "part-data provider", kit.Parts, func(p parts.Provider) (found []parts.Part, err error) {
		if mpn != "" {
			found, err = p.ByMPN(ctx, mpn)
		} else {
			found, err = p.Search(ctx, query, limit)
		}
		retrieved = time.Now()
		return found, err
	}, func(p parts.Provider, found []parts.Part, failed string) (tool.Result, error) {
		what := fmt.Sprintf("query %q", query)
		if mpn != "" {
			what = fmt.Sprintf("mpn %q", mpn)
		}
		head := fmt.Sprintf("search_parts %s via %s: %s", what, p.Name(), textfmt.CountForms(len(found), "part", "parts")) + failed
		if len(found) == 0 {
			res := tool.Result{Text: head + "."}
			if refdes != "" {
				res.Text += fmt.Sprintf(" Nothing recorded for %s: %s knows no part %s.", refdes, p.Name(), mpn)
			}
			return res, nil
		}
		body := renderParts(kit, found, p.Name())
		res := tool.Result{Text: head + ".\n" + untrusted("search_parts ("+p.Name()+")", body)}
		if refdes != "" {
			note, changed, fail := recordSourcing(s, refdes, mpn, found, p.Name(), retrieved)
			res.Text += "\n\n" + note
			res.Changed, res.IsError = changed, fail
		}
		return res, nil
	})
}

// renderParts lists the parts for the model, putting each datasheet URL on the
// menu.
func renderParts(kit *research.Kit, found []parts.Part, provider string) string {
	var b strings.Builder
	for i, p := range found {
		if i == maxPartsShown {
			fmt.Fprintf(&b, "(%d more not shown)\n", len(found)-i)
			break
		}
		fmt.Fprintf(&b, "%d. %s — %s\n", i+1, p.MPN, orDash(p.Manufacturer))
		fmt.Fprintf(&b, "   lifecycle: %s\n", orDash(p.Lifecycle))
		if p.Description != "" {
			fmt.Fprintf(&b, "   description: %s\n", p.Description)
		}
		ds := "none given"
		if p.DatasheetURL != "" {
			if u, ok := kit.Menu.Add(p.DatasheetURL, provider+":datasheet"); ok {
				ds = u
			} else {
				ds = p.DatasheetURL + " (not fetchable)"
			}
		}
		fmt.Fprintf(&b, "   datasheet: %s\n", ds)
		snap := parts.NewSnapshot(p, provider, time.Time{})
		fmt.Fprintf(&b, "   stock: %d in total at %s holding stock\n", snap.Stock, textfmt.CountForms(snap.Distributors, "distributor", "distributors"))
		for j, o := range p.Offers {
			if j == maxOffersShown {
				fmt.Fprintf(&b, "   (%d more offers)\n", len(p.Offers)-j)
				break
			}
			line := fmt.Sprintf("   - %s: stock %d", orDash(o.Distributor), max(o.Stock, 0))
			if o.MOQ > 0 {
				line += fmt.Sprintf(", MOQ %d", o.MOQ)
			}
			var breaks []string
			for k, pb := range o.Prices {
				if k == maxBreaksShown {
					breaks = append(breaks, "…")
					break
				}
				breaks = append(breaks, fmt.Sprintf("%d+ %g %s", pb.Qty, pb.Price, pb.Currency))
			}
			if len(breaks) > 0 {
				line += "; " + strings.Join(breaks, ", ")
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// recordSourcing dual-writes refdes's snapshot of the part numbered mpn
// among found (design.RecordSourcing), or says why it did not. It returns
// the note for the model, the files written and whether the note is an
// error the model must act on.
func recordSourcing(s *tool.Session, refdes, mpn string, found []parts.Part, provider string, retrieved time.Time) (note string, changed []string, isError bool) {
	if !s.Validated {
		return fmt.Sprintf("Nothing recorded for %s: recording sourcing writes the repository, which waits until the change proposal validates. Call search_parts with mpn and refdes again once the edit tools are unlocked.", refdes), nil, false
	}
	i := slices.IndexFunc(found, func(p parts.Part) bool { return strings.EqualFold(p.MPN, mpn) })
	if i < 0 {
		var got []string
		for _, p := range found {
			got = append(got, p.MPN)
		}
		return fmt.Sprintf("Nothing recorded for %s: no result is exactly %s (got %s); call again with the exact part number.", refdes, mpn, strings.Join(got, ", ")), nil, true
	}
	bomRel := s.Config.DocPath(design.BOMDoc)
	if doc, err := os.ReadFile(filepath.Join(s.Repo, filepath.FromSlash(bomRel))); err == nil {
		rows, _ := design.ParseBOM(doc)
		if !slices.ContainsFunc(rows, func(r design.BOMRow) bool { return r.Refdes == refdes }) {
			return fmt.Sprintf("Nothing recorded: %s has no row for %s. Add the part first (add_part), or check the reference.", bomRel, refdes), nil, true
		}
	}
	snap := parts.NewSnapshot(found[i], provider, retrieved)
	changed, err := design.RecordSourcing(s.Repo, s.Config, refdes, snap)
	if err != nil {
		return "Sourcing not recorded: " + s.Scrub(err.Error()), changed, true
	}
	note = fmt.Sprintf("Recorded %s: %s", design.SourcingKey(refdes), textfmt.OneLine(sourcing.Summary(snap)))
	if len(changed) == 0 {
		return note + " (unchanged: the same snapshot was already recorded).", nil, false
	}
	return note + " in " + strings.Join(changed, " and ") + ".", changed, false
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
