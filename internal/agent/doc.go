// Package agent is copperhead's agent loop: it drives a model (through llm)
// over a KiCad repository with tools that read, propose, edit and verify, and
// it cannot skip the gates. It holds the loop and its prompts only: the
// tools are in internal/tools, and the seam they are dispatched through (the
// Tool interface, Session, Dispatch, the ledger, the edit guard and the path
// gate) is internal/tool.
//
//   - Spec-gated in: mutating tools are absent from the tool list, and refused
//     at dispatch, until the run's OpenSpec change validates.
//   - Verification-gated out: finish(done) is refused while any obligation in
//     the ledger is open or the last ERC/DRC after the last KiCad edit is not
//     clean.
//   - Nothing lost: a failed run keeps its work in a stash entry and restores
//     the tree byte for byte; before turn 1 the snapshot is referenced as
//     refs/copperhead/runs/<run-id> (runs.Run.Protect; deleted once the
//     run-end is written), so a SIGKILL leaves the way back for `copperhead
//     recover`.
//
// Research tools (web_search, search_parts, fetch_datasheet, fetch_page)
// exist only when the repository enabled research and the providers' keys
// are set (tools.Research); everything they return is fenced as untrusted
// data, and fetching is limited to the run's URL menu.
//
// A run is given to it (agent.Run takes a *runs.Run): the model, the
// transcript, the budgets, the tree and its snapshot ref, the events the
// renderer watches and the Outcome are internal/runs'; the loop drives the
// turns and carries out the ending (commit, restore, stash).
//
// It imports runs, tool, tools, llm, design, config, kicadcli, openspec,
// gitrepo, transcript and the research packages; it must never import cli. It opens no socket itself: research traffic goes through
// research/egress and model traffic through llm (internal/research's import
// test proves it).
package agent
