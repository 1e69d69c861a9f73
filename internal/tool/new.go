package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"copperhead/internal/llm"
)

// Option configures a tool built by New.
type Option func(*options)

type options struct{ mutating bool }

// Mutating marks a tool that changes the repository or the run's registry:
// the spec gate withholds it until the run's change validates.
func Mutating(o *options) { o.mutating = true }

// New builds the Tool named name from its model-facing description doc (the
// tool's embedded Markdown; surrounding space is trimmed) and its function.
// The JSON Schema the model sees is derived from A once, here
// (llm.ToolFor), and the arguments of every call are decoded into an A
// strictly before run sees them: a field A does not have, or a value of the
// wrong type, is an IsError result naming the tool, and run is not called.
// A tool file is therefore its arguments, its description and its function.
func New[A any](name, doc string, run func(ctx context.Context, s *Session, args A) (Result, error), opts ...Option) Tool {
	t := &typed[A]{spec: llm.ToolFor[A](name, strings.TrimSpace(doc)), run: run}
	for _, o := range opts {
		o(&t.options)
	}
	return t
}

// typed is a Tool built by New.
type typed[A any] struct {
	spec llm.Tool
	options
	run func(ctx context.Context, s *Session, args A) (Result, error)
}

func (t *typed[A]) Spec() llm.Tool { return t.spec }
func (t *typed[A]) Mutating() bool { return t.mutating }

func (t *typed[A]) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[A](t.spec.Name, raw)
	if bad != nil {
		return *bad, nil
	}
	return t.run(ctx, s, a)
}

// decodeArgs decodes a tool's JSON arguments strictly (unknown fields are
// refused, as the schema's additionalProperties: false says). On failure it
// returns an IsError result naming the tool and the problem.
func decodeArgs[T any](name string, raw json.RawMessage) (T, *Result) {
	var v T
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		r := Errorf("invalid arguments for %s: %v; call it again with arguments matching its schema", name, strings.TrimPrefix(err.Error(), "json: "))
		return v, &r
	}
	return v, nil
}
