package cli

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"path"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/research"
	"copperhead/internal/research/datasheet"
	"copperhead/internal/research/egress"
	"copperhead/internal/research/menu"
	"copperhead/internal/textfmt"
)

func newDatasheetCmd(a *app) *cobra.Command {
	return groupCmd("datasheet", "Work with the repository's datasheet cache (.copperhead/datasheets)", newDatasheetFetchCmd(a))
}

// DatasheetFetchResult is `datasheet fetch --json`: the cache's index entry
// and the repo-relative paths of the files it names.
type DatasheetFetchResult struct {
	Entry    *datasheet.Entry `json:"entry"`
	PDF      string           `json:"pdf,omitempty"`  // repo-relative; "" when not cached
	Text     string           `json:"text,omitempty"` // repo-relative; "" when not cached
	Requests int              `json:"requests"`       // research requests made, redirect hops included
}

func newDatasheetFetchCmd(a *app) *cobra.Command {
	var mpn string
	cmd := &cobra.Command{
		Use:   "fetch <url> --mpn <part number>",
		Short: "Download a datasheet PDF into the cache and extract its text per page",
		Long: `datasheet fetch downloads a PDF into .copperhead/datasheets/<mpn>-<sha8>.pdf,
extracts its text page by page with pdftotext -layout into <file>.pdf.txt
(each page opened by a line "=== page N ==="), and records it in index.json:
the same cache the agent's fetch_datasheet tool fills, committed with the
repository as design evidence.

Fetching the same bytes again changes nothing. A document at a known URL
whose bytes changed is a new entry that supersedes the old file. A PDF over
research.maxPdfMB (default 10) is not stored: index.json keeps its URL as
"not-cached" so a citation stays traceable.

Requests go through copperhead's research egress: the shipped host allowlist
plus research.allowHosts from .copperhead/config.json, https only, no
private addresses; a refused URL names the reason.

Exit 0 when the document is cached (or recorded as not-cached), 1 when the
fetch was refused or failed, 2 for bad usage or no pdftotext.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
				return withHint(usagef("datasheet fetch takes one URL"), "e.g. copperhead datasheet fetch https://www.ti.com/lit/ds/symlink/tps63020.pdf --mpn TPS63020DSJR")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(mpn) == "" {
				return withHint(usagef("--mpn is required: it names the cached file"), "e.g. --mpn TPS63020DSJR")
			}
			return a.runDatasheetFetch(cmd.Context(), strings.TrimSpace(args[0]), strings.TrimSpace(mpn))
		},
	}
	cmd.Flags().StringVar(&mpn, "mpn", "", "the manufacturer part number the datasheet is for")
	return cmd
}

func (a *app) runDatasheetFetch(ctx context.Context, rawURL, mpn string) error {
	// The canonical form is what the agent's menu would store: the same
	// document fetched by a person and by the agent is one index entry.
	u, err := menu.Canonicalize(rawURL)
	if err != nil {
		return usagef("datasheet fetch %s: %v", rawURL, err)
	}
	repo, cfg, err := a.researchConfig()
	if err != nil {
		return err
	}
	kit := research.New(cfg.Research, os.Getenv, nil)
	e, err := datasheet.Open(repo).Fetch(ctx, kit.Client, u, mpn, cfg.Research.MaxPdfMB)
	if err != nil {
		var refused *egress.RefusedError
		switch {
		case errors.Is(err, datasheet.ErrNoPoppler):
			return withHint(usagef("%v", err), "run scripts/setup.sh")
		case errors.As(err, &refused) && strings.Contains(refused.Reason, "allowlist") && !isAddressLiteral(u):
			return withHint(failf("%v", err), `add the host to "research.allowHosts" in .copperhead/config.json if it is a supplier you trust`)
		}
		return failf("%v", err)
	}
	total, _ := kit.Requests()
	res := DatasheetFetchResult{Entry: e, Requests: total}
	if e.Status == datasheet.StatusCached {
		res.PDF, res.Text = path.Join(datasheet.DirName, e.File), path.Join(datasheet.DirName, e.TextFile)
	}
	if a.mode() == modeJSON {
		return writeJSON(a.io.Out, res)
	}
	w := a.io.Out
	if e.Status != datasheet.StatusCached {
		fmt.Fprintf(w, "not cached: %s\nthe URL is recorded in %s\n", e.Reason, path.Join(datasheet.DirName, datasheet.IndexName))
		return nil
	}
	fmt.Fprintf(w, "cached %s (%s, %d bytes, sha256 %s)\n", res.PDF, textfmt.Count(e.Pages, "page"), e.Size, e.SHA256)
	fmt.Fprintf(w, "text   %s\n", res.Text)
	if e.Title != "" {
		fmt.Fprintf(w, "title  %s\n", e.Title)
	}
	for _, old := range e.Supersedes {
		fmt.Fprintf(w, "supersedes %s: the document at this URL changed; revisit citations of the old file\n", path.Join(datasheet.DirName, old))
	}
	return nil
}

// isAddressLiteral reports whether the URL's host is an IP address: no
// supplier publishes datasheets at one, so the allowlist hint does not apply.
func isAddressLiteral(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	_, err = netip.ParseAddr(u.Hostname())
	return err == nil
}
