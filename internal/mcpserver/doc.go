// Package mcpserver is `copperhead mcp`: copperhead's tools for any MCP
// client (Claude Code, Cursor, Codex), behind the same gates as `do`. It
// owns the MCP surface only, on the official Go SDK: which tools, resources
// and prompts a client sees, and the bridge from a tools/call to the code
// that already answers it.
//
// Two kinds of tools. The read tools (check, parts, nets, explain, drift,
// constraints, diff) write nothing and call no model: they run what the
// CLI runs and return the same JSON. The session tools are the agent's own
// (internal/tools): a client's first call to one opens a change session,
// which is an agent.Session on a runs.Run whose reasoner is the client, so
// the spec gate, the ledger, the finish gate, the snapshot with its ref, the
// commit and the rollback are the loop's own code, not a copy. The mutating
// tools are absent from tools/list until the session's proposal validates,
// and gone again when the session ends; the SDK sends
// notifications/tools/list_changed on every change. finish ends a session
// as the loop's finish does; abort stops one (the tree restored, the work
// in a stash); a client that leaves with work in the tree leaves the run
// for `copperhead recover`, as a kill would.
//
// stdout carries protocol messages only: nothing here writes to it, and the
// command (internal/cli/mcp.go) hands the reused CLI code stderr instead.
//
// It must never import cli (cli wires it). It opens no socket: the session
// tools are built without research, and the do tool is the CLI's.
package mcpserver
