// Package orchestrator is carter's control loop (spec §3): normalize the
// task, then in rounds search, select sources under policy, fetch them,
// extract evidence, and evaluate a provisional draft, stopping on a hard
// budget (tool calls, minutes, sources) or when another round stops paying
// off; then synthesize claims from the evidence, verify them, evaluate,
// and render the brief. Every step is appended to the event log as it
// happens.
//
// A run is split in two on purpose. Gathering (everything that touches the
// network, the clock or a model) ends in artifacts/run.json and
// artifacts/model.jsonl; composing (verify, evaluate, render) is a pure
// function of those files and the stored texts. Replay re-runs the
// composition, with the recorded model turns standing in for the model, and
// must reproduce brief.md, claims.json and run_report.json byte for byte.
//
// orchestrator may import every carter plugin package and internal/redact;
// it must never import internal/research/egress or net/http directly (the
// web retriever owns the network) nor the command layer.
package orchestrator
