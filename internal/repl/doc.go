// Package repl is the agent shell's machinery, apart from what it runs: the
// prompt loop (a typed line is a change request or a slash command), the
// slash-command table and its /help, the per-repository line history, the
// session log, and the line editor over a maintained line-editing library
// (github.com/chzyer/readline).
//
// The properties it protects:
//   - nothing a person types reaches a file unredacted: the history file and
//     the session log pass every line through internal/redact before it is
//     written, so a key pasted at the prompt stays on the screen only;
//   - the session log is the terminal as a person read it, as plain lines:
//     control sequences are dropped and a line redrawn in place (the run's
//     status line) is kept only in the form a newline ended;
//   - one reader owns the terminal: the loop's prompt and every question a
//     run asks (the budget extension, an approval) go through the same
//     editor, never a second reader of stdin.
//
// What a request or a slash command does is the caller's (internal/cli runs
// the existing commands): this package must never import cli, agent, runs or
// llm, so the shell cannot grow a second way to run a change.
package repl
