// Package tool is the seam between the agent loop and the model's tools. It
// owns the Tool interface and New, the one constructor every tool is built
// with (strict argument decoding, the JSON Schema derived once from the
// arguments type, the Mutating option); the Result a call returns; the
// Session a run's tools share, with its ledger of obligations, its
// verifications, decisions and finish; ToolList and Dispatch, which hold the
// spec gate, the sync run's withheld tools and the post-call hook; the path
// gate every file tool resolves through (Session.ResolvePath, the sandbox);
// the edit guard (Session.Loads); and the design-file helpers the tools share
// (Session.DesignFile, Session.Netlist).
//
// It imports llm, config, design, project, kicad, kicadcli, sexpr, redact,
// textfmt and atomicfile. It must never import tools (the tools import it), agent, cli or
// net/http.
package tool
