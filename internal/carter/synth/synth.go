// Package synth drafts a brief's claims from collected evidence, and only
// from it (spec §6 "evidence-first writing"). Two synthesizers share one
// interface: Extractive, which needs no model (claims are grouped,
// de-duplicated evidence sentences, plus contradictions found between
// sources), and LLM, which asks any internal/llm provider for claims as JSON
// that must cite evidence ids. Neither is trusted: the verifier checks every
// claim afterwards.
//
// synth may import artifact, terms, ids, internal/llm and the standard
// library; it must never import a retriever, the egress client, verify or
// the orchestrator (a synthesizer sees evidence, never the network).
package synth

import (
	"context"
	"time"

	"copperhead/internal/carter/artifact"
)

// Input is what a synthesizer may use: the question and the evidence
// collected for it. Sources are given for titles only.
type Input struct {
	RunID    string
	Start    time.Time // the run's start: claim ids derive from it
	Question string
	Sources  []artifact.Source
	Evidence []artifact.Evidence
	Weights  map[string]float64 // the question words' collection weights (the record's); nil: unweighted
}

// Output is a synthesizer's draft and what it cost.
type Output struct {
	Claims     []artifact.Claim
	ModelCalls int
	TokensIn   int
	TokensOut  int
	// Turns are the model exchanges, recorded for replay.
	Turns []artifact.ModelTurn
}

// Synthesizer drafts claims from evidence.
type Synthesizer interface {
	// Name is "extractive" or "llm".
	Name() string
	Synthesize(ctx context.Context, in Input) (Output, error)
}
