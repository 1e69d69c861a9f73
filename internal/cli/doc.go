// Package cli holds copperhead's commands, one file each, and renders their
// results for a terminal, for plain line-oriented output, or as JSON. Commands
// receive their I/O streams rather than touching os.Stdout, which is what makes
// every output mode testable. The deterministic commands (init, check, doctor,
// parts, nets) call design, kicad and kicadcli directly; check must never reach
// llm or research code. The research commands (parts search, datasheet fetch)
// build a research Kit and reach the network only through its egress client.
//
// The CLI contract every command shares lives in one place, contract.go,
// not in the commands: strict command groups (a missing or unknown
// subcommand is exit 2, naming it and listing the valid ones), --version
// after any command, and under --json exactly one JSON object on stdout on
// every path (Main adds "ok", and on failure "error" and "hint"). Nested runs
// (create's stages, sync's resolution run) print their results to stderr.
package cli
