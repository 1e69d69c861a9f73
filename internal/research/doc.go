// Package research holds copperhead's part-research tools: web search, part
// data, datasheet fetching and the URL menu that bounds what a run may fetch.
// This package itself builds one run's Kit from the repository's research
// config: one egress client (so one network log covers the run), one URL
// menu, and the providers whose keys are set; the agent's research tools and
// the research commands are built over a Kit.
//
// Research code is the only research network client in copperhead. Every
// research socket is opened by the egress subpackage (host allowlist, SSRF
// guard after DNS resolution, size and time caps, one log record per
// request), and nothing else in the module may open one; LLM traffic has its
// own seam in internal/llm. The dependency arrow points one way: research may
// read the design, but check, verify, design, kicad and kicadcli never import
// anything under internal/research, so `check` stays offline by construction
// (AC-2.1). imports_test.go proves both rules with `go list`.
//
// Everything fetched is untrusted: text from datasheets, search snippets and
// pages is data to cite, never instructions, and nothing fetched may cause a
// tool call on its own authority.
package research
