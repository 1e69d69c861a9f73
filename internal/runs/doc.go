// Package runs owns a model run from its start to its record: the provider
// chosen and opened, the recording of every chat turn (decided here, once),
// the run id, the transcript writer and the redactor, the run-start metadata,
// the budgets, the tree the run works on with the snapshot that makes it
// safe to change (and the ref that lets it survive a kill), the event stream
// every surface watches, and the outcome every surface renders: the CLI's
// text and --json, create's stage reports, and the REPL, viewer and MCP
// server that subscribe to a run instead of scraping its output.
//
// An agent run (internal/agent) and a one-shot call (models --probe,
// explain --phrase, create's diagnosis) are both runs. Only this package,
// through transcript and runmeta beneath it, writes run records.
//
// It must never import agent, cli, create or the tool packages: they stand
// on it.
package runs
