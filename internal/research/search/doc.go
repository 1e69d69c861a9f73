// Package search is the web_search tool's back end: it asks a search API for
// pages matching a query and returns metadata only — title, URL and a short
// plain-text snippet — never page bodies. Keeping results to metadata caps
// both the prompt-injection surface and the token cost (design D4): the agent
// uses a result to decide what to fetch as a datasheet or to cite a reference
// URL for human review, not as a machine-verified fact.
//
// Everything a provider returns is untrusted third-party text. Snippets are
// stripped of markup and trimmed, result URLs that are not absolute http(s)
// addresses are dropped, and callers must treat the text as data to cite,
// never as instructions (D10).
//
// Providers exist only when their key is in the environment (D2): Available
// returns the providers whose keys are set, so with no keys the tool is
// structurally absent. All HTTP goes through internal/research/egress, the
// single audited choke point (D1). Keys are sent in headers and never appear
// in returned errors.
//
// This package opens network connections. It must never be imported by
// check, verify, design, kicad or anything they import: `check` stays
// network-free and LLM-free (AC-2.1).
package search
