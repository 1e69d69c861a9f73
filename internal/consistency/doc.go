// Package consistency is the deterministic half of `copperhead sync`: it
// audits a repository's whole design state and reports every inconsistency
// with the side that is wrong, what it claims, what is actually true, and the
// resolution the truth-precedence rule allows. It never edits anything.
//
// It must never import llm, agent or research: the report is computed from the
// files, the schematic, kicad-cli's netlist and openspec alone, so `sync
// --dry-run` is as LLM-free as `check`, and the agent run that resolves the
// report cannot influence what the report says. A test asserts it. Nor does
// it import firmware (firmware's tests import it): the pins.h format both
// read is internal/pinsh's.
//
// # Truth precedence
//
// KiCad files are ground truth for as-built facts: a doc that disagrees with
// the schematic is fixed to match it. openspec specs and the SPEC.md budgets
// are ground truth for requirements: the config.json budgets, the constraint
// registry and pins.h mirror them. When the as-built design breaks a
// requirement (a forbidden pin in use, a budget exceeded) the inconsistency is
// a Violation: it is reported with both sides and the governing requirement
// and is never Resolvable, because making the report green by rewriting
// either side is exactly the drift sync exists to stop.
//
// # What is checked
//
//   - Doc drift: BOM.md and PINOUT.md against the schematic and netlist
//     (design.Drift).
//   - The dual write of constraints (spec §2.6), both ways: a constraint a doc
//     states that .copperhead/constraints.json lacks, and a registry entry no
//     doc states. See "Constraint mentions" below.
//   - Budgets: config.json "budgets" against SPEC.md ## Budgets
//     (design.CheckBudgets); SPEC.md wins a disagreement.
//   - Pin header: every firmware/**/pins.h against PINOUT.md. See "pins.h".
//   - DECISIONS.md and CHANGELOG.md exist.
//   - openspec validate --all, when the repository has an openspec/ folder.
//   - Requirement violations: forbidden pins in use
//     (design.CheckForbiddenPins) and the sleep-current budget against the
//     resistive leakage the netlist implies (circuit.SleepLeakage).
//
// The last two and the budget mirror are CheckRequirements, the one
// requirement analysis: `check`'s constraints gate (internal/verify), the
// agent's check_drift tool and finish gate, and sync all call it on KiCad's
// netlist of the files as written, so the loop cannot commit what check
// fails and check fails what sync flags.
//
// # Constraint mentions
//
// A constraint is stated in a doc when it appears in one of the docs/*.md
// files other than DECISIONS.md and CHANGELOG.md (those are history, not
// statements):
//
//   - A list item of a "## Budgets" section of SPEC.md, "- <key>: <number>"
//     (design.ParseBudgets), states the registry entry whose key is <key> or
//     ends in ".<key>" (power.sleep_current_uA for sleep_current_uA). Their
//     numbers must agree; SPEC.md is the truth.
//   - A list item of any "## Constraints" section states the registry entries
//     whose keys it names, best as its first word in backticks:
//     "- `rf.antenna_keepout_mm`: at least 5 mm from the antenna". An item
//     that names no registry key is a constraint missing from the registry;
//     items starting with TODO are placeholders, not constraints.
//   - A registry entry is also stated where its key appears verbatim, and an
//     entry with a "forbidden" list where one line of a doc names every
//     forbidden pin (PINOUT.md's strapping-pin note does).
//
// An entry whose source names a repository file ("docs/LAYOUT.md#keepouts",
// "openspec/specs/power/spec.md#R2") counts that file as a doc too, and the
// file must exist.
//
// # pins.h
//
// Every firmware/**/pins.h (internal/pinsh: its format, PinMacro's net
// spelling and the one walker, shared with internal/firmware) is audited
// against PINOUT.md, its source of truth: every row whose pin name is
// GPIO<n> or IO<n> and whose net is connected must have its define with value
// n, and every PIN_ define must have such a row. A header copperhead firmware
// generated (its marker parses) is left to check's drift gate, which judges
// it in the MCU family's own notation.
//
// # What it owns
//
// Only sync's audit and the requirement analysis: the Inconsistency report,
// truth precedence, constraint mentions, the budget mirror and the budget the
// leakage is judged against. The circuit facts it judges (grounds, rails,
// the leakage model) are internal/circuit's, the docs internal/design's, the
// config internal/config's.
package consistency
