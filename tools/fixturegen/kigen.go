package main

import (
	"copperhead/internal/kicad/kigen"
	"copperhead/internal/sexpr"
)

// The node builders and library reader live in internal/kicad/kigen, shared
// with copperhead's drafting engines; these names keep the generator terse.
type (
	Sym          = kigen.Sym
	Library      = kigen.Library
	Pin          = kigen.Pin
	SymDef       = kigen.SymDef
	Pad          = kigen.Pad
	FootprintDef = kigen.FootprintDef
)

var N = kigen.N

func clone(n *sexpr.Node) sexpr.Node            { return kigen.Clone(n) }
func setArg(n *sexpr.Node, i int, v sexpr.Node) { kigen.SetArg(n, i, v) }
func str(v string) sexpr.Node                   { return kigen.Str(v) }
func format(n *sexpr.Node) string               { return kigen.Format(n) }

func removeChildren(n *sexpr.Node, names ...string) { kigen.RemoveChildren(n, names...) }

func insertAfter(n *sexpr.Node, after string, kids ...sexpr.Node) {
	kigen.InsertAfter(n, after, kids...)
}

func twoLayerStack() sexpr.Node { return kigen.TwoLayerStack() }
func setupNode() sexpr.Node     { return kigen.TwoLayerSetup() }
