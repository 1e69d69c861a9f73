// Package llm is copperhead's one seam to language models: a provider-agnostic
// conversation model (Message, Tool, Turn), typed errors that carry an
// actionable hint, model selection, retry and failover, and the small
// hand-written net/http clients for each wire protocol (Anthropic Messages,
// OpenAI, OpenAI-compatible Chat Completions) plus replay of recorded runs,
// and the saved-login backends: the claude, codex and Cursor agent CLIs run
// as subprocesses (savedlogin.go), each answering in copperhead's own JSON
// protocol (protocol.go) with its tools off, in an empty folder, with a
// scrubbed environment.
//
// All model HTTP traffic, and every saved-login CLI process, goes through
// this package. It must never import
// design, kicad, kicadcli, agent or research: the loop above it owns tools and
// the design, and llm only moves turns.
package llm
