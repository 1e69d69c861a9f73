// Package tools holds the model's tools: one file per tool (edit_file.go),
// its model-facing description in a Markdown file beside it (edit_file.md,
// embedded), each built with tool.New from its arguments, its description and
// its function. All returns copperhead's own tools in their fixed order (the
// order is part of the prompt); Research returns the research tools a run's
// keys allow and WithResearch places them; OpenDeferredRevisits re-opens an
// earlier run's deferred revisits. The helpers several tools share live here
// too (runSchedit, runCheck, the untrusted-data fence).
//
// Research tools (web_search, search_parts, fetch_datasheet, fetch_page)
// fence everything they return as untrusted data and fetch only URLs on the
// run's menu.
//
// It imports tool, design, kicad, kicadcli, editdocs, schedit, openspec,
// consistency, draft, datasheets, sourcing, transcript and the research
// packages. It must never import agent or cli, and never net/http: research
// traffic goes through research/egress (internal/research's import test
// proves it).
package tools
