// Package transcript owns the record of one run: the folder
// .copperhead/runs/<run-id>/ with transcript.jsonl (one JSON event per line,
// appended as the run goes) and summary.md (the human-readable account written
// when it ends), plus the typed payloads of the events every run must record
// (spec AC-8: run-start metadata, run-end stats, tool calls).
//
// Every byte goes through a redact.Redactor before it reaches the disk, so a
// key in an environment value, a tool result, a model reply or a metadata
// field is never persisted (AC-4.1, AC-8.10). Redaction happens at write
// time, never as a later clean-up pass.
//
// Event lines have a fixed shape: {"type": ..., "time": ..., <payload
// fields in the payload's own order>}, with time in RFC 3339 UTC. The same
// file drives --replay, so readers must tolerate event types they do not
// know.
//
// transcript is a leaf: it imports redact, atomicfile, ulids (run ids),
// jsonl (the append-only file beneath the writer and the reader) and the
// standard library. It must never import llm,
// agent, design, kicad or any other copperhead package that produces what
// it records; producers convert their values into the types here (or pass
// their own JSON-tagged structs to Write).
package transcript
