// Package design owns docs-as-memory: the design docs a KiCad repository keeps
// beside its schematic (docs/SPEC.md, BOM.md, PINOUT.md, SUBSYSTEMS.md,
// LAYOUT.md, DECISIONS.md, CHANGELOG.md), the .copperhead/constraints.json
// registry, the init scaffold that generates the docs, the drift check that
// compares the doc tables with the as-built design, and the mechanical
// constraint checks. The config.json schema and the repo paths are
// internal/config's; design reads them from there.
//
// It takes already-loaded kicad types as input and returns bytes and structs:
// the CLI layer does the file writes (atomically); RecordSourcing, called by
// the search_parts tool in the middle of a turn, is the one writer here. It
// must never import llm, research or kicadcli, so that `copperhead check`
// stays LLM-free and network free by construction; a test asserts it. The
// research results it judges come through the network-free internal/sourcing
// and internal/datasheets.
//
// # Doc table contract
//
// BOM.md holds one GFM table with the columns
//
//	| Refdes | Value | Footprint | MPN | Rationale |
//
// and PINOUT.md one (or several) with the columns
//
//	| Refdes | Pin | Name | Net | Type | Notes |
//
// Columns are found by header name (case-insensitive), so their order is free
// and extra columns are ignored. Cells are read as plain text: Markdown
// emphasis and code spans are stripped, backslash escapes (including \|) are
// honoured. The generator escapes only what would not read back verbatim, so
// footprints such as Resistor_SMD:R_0603_1608Metric stay readable.
//
// A pin that is not connected to anything shows the net NCMarker ("NC"); see
// circuit.IsNoConnect for the exact rule.
//
// A BOM.md may end with a "## Sourcing" section: one list item per sourcing
// snapshot, "- `sourcing.<refdes>`: <summary>" (SourcingLine), the doc half
// of the D7 dual write. Drift ignores it.
//
// # Budgets
//
// docs/SPEC.md has a budgets section whose list items each read
// "- <key>: <number>", optionally followed by a space and a comment:
//
//	## Budgets
//	- sleep_current_uA: 25
//	- battery_life_days: 365 (ASSUMED)
//
// with <key> identical to a key of "budgets" in .copperhead/config.json (it may
// be wrapped in backticks) and <number> a decimal literal such as 25, 0.5 or
// 1e-3. Anything after the number and a space is a comment (units, ASSUMED).
// See ParseBudgets.
package design
