// Package agent is copperhead's agent loop: it drives a model (through llm)
// over a KiCad repository with tools that read, propose, edit and verify, and
// it cannot skip the gates.
//
//   - Spec-gated in: mutating tools are absent from the tool list, and refused
//     at dispatch, until the run's OpenSpec change validates.
//   - Verification-gated out: finish(done) is refused while any obligation in
//     the ledger is open or the last ERC/DRC after the last KiCad edit is not
//     clean.
//   - Nothing lost: a failed run keeps its work in a stash entry and restores
//     the tree byte for byte.
//
// It imports llm, design, kicad, kicadcli, verify, openspec, gitrepo and
// transcript; it must never import cli or research (research tools arrive
// through the Tool interface).
package agent
