package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/research"
	"copperhead/internal/research/parts"
	"copperhead/internal/sourcing"
)

// PartsSearchResult is `parts search --json`.
type PartsSearchResult struct {
	Provider string       `json:"provider"`
	MPN      string       `json:"mpn,omitempty"`   // the part number looked up, when it was one
	Query    string       `json:"query,omitempty"` // the free-text search, when it was one
	Parts    []parts.Part `json:"parts"`
	// Recorded is the sourcing snapshot written for --refdes; null without it.
	Recorded *RecordedSourcing `json:"recorded"`
}

// RecordedSourcing is what --refdes wrote.
type RecordedSourcing struct {
	Key      string            `json:"key"` // "sourcing.<refdes>"
	Snapshot sourcing.Snapshot `json:"snapshot"`
	Changed  []string          `json:"changed"` // repo-relative files written; [] when already recorded
}

type partsSearchOptions struct {
	query  bool
	refdes string
	limit  int
}

func newPartsSearchCmd(a *app) *cobra.Command {
	var o partsSearchOptions
	cmd := &cobra.Command{
		Use:   "search <mpn|query>",
		Short: "Look a part up in a part-data service: lifecycle, stock, prices, datasheet",
		Long: `parts search asks a part-data service (Nexar/Octopart with NEXAR_CLIENT_ID and
NEXAR_CLIENT_SECRET, else Mouser with MOUSER_API_KEY) about a part: the same
lookup the agent's search_parts tool makes. One word is an exact
manufacturer part number; several words (or --query) are a free-text search.

With --refdes, the part's sourcing snapshot is recorded: "sourcing.<refdes>"
in .copperhead/constraints.json and its line under ## Sourcing in BOM.md,
which 'copperhead check' judges offline (lifecycle, stock, age).

Requests go through copperhead's research egress: the shipped host allowlist
plus research.allowHosts from .copperhead/config.json, https only, no
private addresses.

Exit 0 on an answer (also "no such part"), 1 when the service failed,
2 for bad usage or no provider key.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
				return withHint(usagef("parts search takes one part number or quoted query"), `e.g. copperhead parts search TPS63020DSJR`)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runPartsSearch(cmd.Context(), strings.TrimSpace(args[0]), o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.query, "query", false, "search free text even for a single word")
	f.StringVar(&o.refdes, "refdes", "", "record the part's sourcing snapshot for this reference (needs an exact part number)")
	f.IntVar(&o.limit, "limit", 5, "free-text search: how many parts, 1 to 50")
	return cmd
}

func (a *app) runPartsSearch(ctx context.Context, arg string, o partsSearchOptions) error {
	isQuery := o.query || strings.ContainsFunc(arg, func(r rune) bool { return r == ' ' || r == '\t' })
	refdes := strings.TrimSpace(o.refdes)
	switch {
	case refdes != "" && isQuery:
		return usagef("--refdes needs an exact part number, not a free-text search")
	case o.limit < 1 || o.limit > 50:
		return usagef("--limit %d: must be 1 to 50", o.limit)
	}
	repo, cfg, err := a.researchConfig()
	if err != nil {
		return err
	}
	kit := research.New(cfg.Research, os.Getenv, nil)
	if len(kit.Parts) == 0 {
		return withHint(usagef("no part-data provider: no key is set"),
			"set "+parts.NexarClientIDEnv+" and "+parts.NexarClientSecretEnv+", or "+parts.MouserKeyEnv)
	}
	var failures []string
	for _, p := range kit.Parts {
		var found []parts.Part
		if isQuery {
			found, err = p.Search(ctx, arg, o.limit)
		} else {
			found, err = p.ByMPN(ctx, arg)
		}
		retrieved := time.Now()
		if err != nil {
			if ctx.Err() != nil {
				return failf("parts search: %v", context.Cause(ctx))
			}
			failures = append(failures, err.Error())
			continue
		}
		res := PartsSearchResult{Provider: p.Name(), Parts: nonNil(found)}
		if isQuery {
			res.Query = arg
		} else {
			res.MPN = arg
		}
		if refdes != "" {
			rec, err := recordPartSourcing(repo, cfg, refdes, arg, found, p.Name(), retrieved)
			if err != nil {
				return err
			}
			res.Recorded = rec
		}
		if a.mode() == modeJSON {
			return writeJSON(a.io.Out, res)
		}
		return writePartsSearch(a.io.Out, res)
	}
	return failf("parts search: %s", strings.Join(failures, "; "))
}

// researchConfig is the repository folder and its config, for the research
// commands: they need no KiCad project, only the research block (allowlist,
// size cap) and, for --refdes, the docs folder.
func (a *app) researchConfig() (string, config.Config, error) {
	repo, err := a.repoDir()
	if err != nil {
		return "", config.Config{}, err
	}
	cfg, _, err := config.LoadConfig(repo)
	if err != nil {
		return "", config.Config{}, failf("%v", err)
	}
	return repo, cfg, nil
}

// recordPartSourcing writes refdes's snapshot of the part numbered mpn.
func recordPartSourcing(repo string, cfg config.Config, refdes, mpn string, found []parts.Part, provider string, retrieved time.Time) (*RecordedSourcing, error) {
	for _, p := range found {
		if !strings.EqualFold(p.MPN, mpn) {
			continue
		}
		snap := parts.NewSnapshot(p, provider, retrieved)
		changed, err := design.RecordSourcing(repo, cfg, refdes, snap)
		if err != nil {
			return nil, failf("%v", err)
		}
		return &RecordedSourcing{Key: design.SourcingKey(refdes), Snapshot: snap, Changed: nonNil(changed)}, nil
	}
	return nil, failf("record sourcing for %s: %s knows no part numbered exactly %s; nothing recorded", refdes, provider, mpn)
}

// writePartsSearch renders the result for a person: one block per part.
func writePartsSearch(w io.Writer, r PartsSearchResult) error {
	what := "mpn " + r.MPN
	if r.Query != "" {
		what = fmt.Sprintf("query %q", r.Query)
	}
	fmt.Fprintf(w, "%s via %s: %s\n", what, r.Provider, plural(len(r.Parts), "part"))
	for _, p := range r.Parts {
		snap := parts.NewSnapshot(p, r.Provider, time.Time{})
		fmt.Fprintf(w, "\n%s  %s\n", p.MPN, dash(p.Manufacturer))
		fmt.Fprintf(w, "  lifecycle  %s\n", dash(p.Lifecycle))
		if p.Description != "" {
			fmt.Fprintf(w, "  about      %s\n", p.Description)
		}
		fmt.Fprintf(w, "  datasheet  %s\n", dash(p.DatasheetURL))
		fmt.Fprintf(w, "  stock      %d at %s\n", snap.Stock, plural(snap.Distributors, "distributor"))
		if len(p.Offers) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, o := range p.Offers {
			var breaks []string
			for _, pb := range o.Prices {
				breaks = append(breaks, fmt.Sprintf("%d+ %g %s", pb.Qty, pb.Price, pb.Currency))
			}
			moq := "-"
			if o.MOQ > 0 {
				moq = fmt.Sprintf("MOQ %d", o.MOQ)
			}
			fmt.Fprintf(tw, "    %s\t%d\t%s\t%s\n", dash(o.Distributor), max(o.Stock, 0), moq, dash(strings.Join(breaks, ", ")))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if rec := r.Recorded; rec != nil {
		state := "recorded in " + strings.Join(rec.Changed, " and ")
		if len(rec.Changed) == 0 {
			state = "already recorded, nothing changed"
		}
		fmt.Fprintf(w, "\n%s: %s (%s)\n", rec.Key, strings.Join(strings.Fields(sourcing.Summary(rec.Snapshot)), " "), state)
	}
	return nil
}
