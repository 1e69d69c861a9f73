// Package kicad is the read model of a KiCad 9 project: schematics (with
// hierarchical sheets resolved per instance path), boards, and the netlist that
// kicad-cli exports. It is built on sexpr and knows nothing about design docs,
// LLMs or the network: it must never import design, llm or research.
package kicad
