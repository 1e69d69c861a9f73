// Package llm is copperhead's one seam to language models: a provider-agnostic
// conversation model (Message, Tool, Turn), typed errors that carry an
// actionable hint, model selection, retry and failover, and the small
// hand-written net/http clients for each wire protocol (Anthropic Messages,
// OpenAI, OpenAI-compatible Chat Completions) plus replay of recorded runs.
//
// All model HTTP traffic goes through this package. It must never import
// design, kicad, kicadcli, agent or research: the loop above it owns tools and
// the design, and llm only moves turns.
package llm
