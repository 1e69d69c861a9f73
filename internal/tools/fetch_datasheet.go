package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"copperhead/internal/design"
	"copperhead/internal/research"
	"copperhead/internal/research/datasheet"
	"copperhead/internal/research/egress"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

type fetchDatasheetArgs struct {
	URL string `json:"url" desc:"the datasheet's URL exactly as web_search or search_parts returned it"`
	MPN string `json:"mpn" desc:"the manufacturer part number the datasheet is for, e.g. TPS63020DSJR (names the cached file)"`
}

// fetchDatasheetTool caches one menu URL's PDF (design D5, D6). It writes
// only the datasheet cache: evidence, not design, and committed with the run
// like everything else the run changed. It is not Mutating, because the
// model needs datasheets while it plans, before any proposal exists.
var fetchDatasheetTool = researchTool("fetch_datasheet", fetchDatasheet)

func fetchDatasheet(ctx context.Context, s *tool.Session, kit *research.Kit, a fetchDatasheetArgs) (tool.Result, error) {
	mpn := strings.TrimSpace(a.MPN)
	if mpn == "" || len(mpn) > 100 {
		return tool.Errorf("fetch_datasheet: mpn must name the part, at most 100 characters"), nil
	}
	entry, ok := kit.Menu.Lookup(a.URL)
	if !ok {
		return menuRefusal("fetch_datasheet", a.URL), nil
	}
	cache := datasheet.Open(s.Repo)
	before := dirState(cache.Dir)
	e, err := cache.Fetch(ctx, kit.Client, entry.URL, mpn, kit.MaxPdfMB)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		var refused *egress.RefusedError
		if errors.As(err, &refused) {
			return tool.Errorf("fetch_datasheet: refused: %s", s.Scrub(refused.Error())), nil
		}
		return tool.Errorf("fetch_datasheet: %s", s.Scrub(err.Error())), nil
	}
	res := tool.Result{Changed: changedFiles(s.Repo, cache.Dir, before, dirState(cache.Dir))}
	dir := datasheet.DirName
	if e.Status == datasheet.StatusNotCached {
		res.Text = fmt.Sprintf("fetch_datasheet %s: not cached: %s. The URL is recorded in %s/%s so a citation of it stays traceable; cite the URL and flag the fact for human review.",
			entry.URL, e.Reason, dir, datasheet.IndexName)
		return res, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fetch_datasheet %s: %s/%s, %s, %d bytes, sha256 %s.\n", entry.URL, dir, e.File, textfmt.CountForms(e.Pages, "page", "pages"), e.Size, e.SHA256)
	if len(res.Changed) == 0 {
		b.WriteString("Already cached: the same document, nothing changed.\n")
	}
	fmt.Fprintf(&b, "Text: %s/%s (read it with read_file; each page starts with \"=== page N ===\"). Cite as %s/%s §<section> (p.N).\n", dir, e.TextFile, dir, e.File)
	if e.Title != "" {
		b.WriteString(untrusted("the PDF's title", e.Title) + "\n")
	}
	if len(e.Supersedes) > 0 {
		b.WriteString(supersede(s, e.Supersedes, e.File))
	}
	res.Text = strings.TrimRight(b.String(), "\n")
	return res, nil
}

// supersede handles a changed hash for a known URL (D5): the document at the
// URL is not the one earlier citations read. Every constraint whose source
// cites an old file gets a revisit obligation per affects item (the ledger,
// not the model, decides that it must be looked at again), and the docs that
// cite an old file are named.
func supersede(s *tool.Session, oldFiles []string, newFile string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The document at this URL changed since it was last cached: %s supersedes %s. Citations of the old file must be revisited.\n",
		newFile, strings.Join(oldFiles, ", "))
	reg, err := design.LoadConstraints(s.Repo)
	if err != nil {
		fmt.Fprintf(&b, "Constraints not checked for citations: %s\n", s.Scrub(err.Error()))
	}
	var opened []string
	for _, key := range slices.Sorted(maps.Keys(reg)) {
		c := reg[key]
		for _, old := range oldFiles {
			if !strings.Contains(c.Source, old) {
				continue
			}
			for _, item := range c.Affects {
				if s.EnsureLedger().Open(tool.OblRevisit, revisitSubject(key, item), "its source "+old+" was superseded by "+newFile) {
					opened = append(opened, revisitSubject(key, item))
				}
			}
		}
	}
	if len(opened) > 0 {
		fmt.Fprintf(&b, "Ledger: opened revisit for %s (resolve_affected closes them).\n", strings.Join(opened, "; "))
	}
	if docs := citingDocs(s, oldFiles); len(docs) > 0 {
		fmt.Fprintf(&b, "Docs citing an old file: %s.\n", strings.Join(docs, ", "))
	}
	return b.String()
}

// citingDocs lists the design docs that mention any of files.
func citingDocs(s *tool.Session, files []string) []string {
	dir := s.Config.DocsDir()
	entries, err := os.ReadDir(filepath.Join(s.Repo, filepath.FromSlash(dir)))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || !strings.EqualFold(path.Ext(e.Name()), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(s.Repo, filepath.FromSlash(dir), e.Name()))
		if err != nil {
			continue
		}
		for _, f := range files {
			if bytes.Contains(data, []byte(f)) {
				out = append(out, path.Join(dir, e.Name()))
				break
			}
		}
	}
	return out
}

// dirState maps each file name in dir to its size and modification time,
// for telling which files a fetch wrote: every cache write replaces the file
// (temp file and rename), so a rewritten file has a new time.
func dirState(dir string) map[string]string {
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			out[e.Name()] = fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return out
}

// changedFiles lists, repo-relative and sorted, the files of dir that were
// created or rewritten between before and after.
func changedFiles(repo, dir string, before, after map[string]string) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(after)) {
		if old, ok := before[name]; ok && old == after[name] {
			continue
		}
		if rel, err := filepath.Rel(repo, filepath.Join(dir, name)); err == nil {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}
