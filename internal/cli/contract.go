package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// This file is the CLI contract every command shares, enforced in one place
// rather than by each command (README, "Commands" and "Exit codes"):
//
//   - a command group (copperhead itself, edit, draft, export, parts,
//     datasheet, and any added later) given no subcommand, or one it does not
//     have, is a usage error (exit 2) naming it and listing the valid ones;
//   - --version works after any command;
//   - --help after an unknown subcommand is that usage error, not the
//     group's help;
//   - with --json, stdout carries exactly one JSON object, on failure too:
//     the command's own object with "ok" (and, on failure, "error") added
//     when it lacks them, or {"ok": false, "error": "..."} when the command
//     failed before printing one. The human line still goes to stderr.

// wireContract applies the shared rules to every command under root. It runs
// once the tree is complete, so a command added later is covered too.
func wireContract(root *cobra.Command, a *app) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Version = root.Version
		if c.HasSubCommands() {
			strictGroup(c)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	// cobra answers "copperhead edit bogus --help" with edit's help and exit
	// 0: the unknown name is a usage error there too.
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c.HasSubCommands() {
			if rest := c.Flags().Args(); len(rest) > 0 {
				a.helpErr = unknownSubcommand(c, rest[0])
				return
			}
		}
		help(c, args)
	})
	// "copperhead help bogus" would show the root's help, exit 0.
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(_ *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil {
				return withHint(usagef("%v", err), "see 'copperhead --help'")
			}
			if len(rest) > 0 {
				return unknownSubcommand(target, rest[0])
			}
			return target.Help()
		},
	})
}

// strictGroup makes a command with subcommands refuse what it does not know.
// cobra would print help and exit 0 for a bare group, and report an unknown
// subcommand without saying what exists.
func strictGroup(c *cobra.Command) {
	runnable := c.Runnable()
	own := c.Args
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return unknownSubcommand(cmd, args[0])
		}
		if !runnable {
			return needsSubcommand(cmd)
		}
		if own != nil {
			return own(cmd, args)
		}
		return nil
	}
	if !runnable {
		c.RunE = func(cmd *cobra.Command, _ []string) error { return needsSubcommand(cmd) }
	}
}

// subcommandNames lists what a group offers, in its help's order.
func subcommandNames(c *cobra.Command) string {
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return strings.Join(names, ", ")
}

func unknownSubcommand(c *cobra.Command, name string) error {
	msg := "unknown command " + strconv.Quote(name) + " for " + strconv.Quote(c.CommandPath())
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2
	}
	if s := c.SuggestionsFor(name); len(s) > 0 {
		msg += " (did you mean " + strings.Join(s, " or ") + "?)"
	}
	if names := subcommandNames(c); names != "" {
		msg += ": valid commands are " + names
	}
	return withHint(usagef("%s", msg), "see '"+c.CommandPath()+" --help'")
}

func needsSubcommand(c *cobra.Command) error {
	hint := "see '" + c.CommandPath() + " --help'"
	if !c.HasParent() {
		return withHint(usagef("no command given: one of %s", subcommandNames(c)), hint)
	}
	return withHint(usagef("%s needs a subcommand: one of %s", strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" "), subcommandNames(c)), hint)
}

// versionTemplate prints the version, as JSON under --json.
const versionTemplate = `{{if eq (.Flags.Lookup "json").Value.String "true"}}{"ok": true, "version": {{printf "%q" .Version}}}
{{else}}copperhead {{.Version}}
{{end}}`

// argsWantJSON reports whether --json is among args (before a "--"). Main
// needs it before cobra parses the flags: a usage error (an unknown flag
// ahead of --json) stops parsing before --json is seen.
func argsWantJSON(args []string) bool {
	for _, arg := range args {
		switch {
		case arg == "--":
			return false
		case arg == "--json":
			return true
		case strings.HasPrefix(arg, "--json="):
			v, err := strconv.ParseBool(strings.TrimPrefix(arg, "--json="))
			return err == nil && v
		}
	}
	return false
}

// jsonStdout holds stdout while --json is in effect, so that Main can hand
// over exactly one JSON object when the command ends, whatever the outcome.
type jsonStdout struct {
	w   io.Writer
	on  func() bool
	buf bytes.Buffer
}

func (g *jsonStdout) Write(p []byte) (int, error) {
	if g.on() {
		return g.buf.Write(p)
	}
	return g.w.Write(p)
}

// finish writes what the command printed, completed with its outcome: ok
// (true only for exit 0) and, on failure, the one-line error and hint. A
// command that printed nothing gets an object of its own; text that is not
// one JSON object (help asked for with --help) passes unchanged.
func (g *jsonStdout) finish(code int, msg, hint string) error {
	if !g.on() && g.buf.Len() == 0 {
		return nil
	}
	out := g.buf.Bytes()
	if code == ExitOK {
		msg, hint = "", ""
	}
	if len(bytes.TrimSpace(out)) == 0 {
		out = outcomeObject(code == ExitOK, msg, hint)
	} else if fields, ok := oneObject(out); ok {
		out = addOutcome(out, fields, code == ExitOK, msg, hint)
	}
	_, err := g.w.Write(out)
	return err
}

// oneObject reports whether b is exactly one JSON object, and its keys.
func oneObject(b []byte) (map[string]json.RawMessage, bool) {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	var m map[string]json.RawMessage
	if err := dec.Decode(&m); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return m, true
}

// outcomeFields are the keys Main adds, in order, each only when absent.
func outcomeFields(have map[string]json.RawMessage, ok bool, msg, hint string) [][2]string {
	var add [][2]string
	put := func(k string, v any) {
		if _, exists := have[k]; exists {
			return
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		add = append(add, [2]string{k, strings.TrimSpace(b.String())})
	}
	put("ok", ok)
	if msg != "" {
		put("error", msg)
	}
	if hint != "" {
		put("hint", hint)
	}
	return add
}

func outcomeObject(ok bool, msg, hint string) []byte {
	var b strings.Builder
	b.WriteString("{")
	for i, f := range outcomeFields(nil, ok, msg, hint) {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  " + strconv.Quote(f[0]) + ": " + f[1])
	}
	b.WriteString("\n}\n")
	return []byte(b.String())
}

// addOutcome inserts the missing outcome keys at the top of the object,
// leaving every byte the command wrote in place.
func addOutcome(out []byte, have map[string]json.RawMessage, ok bool, msg, hint string) []byte {
	add := outcomeFields(have, ok, msg, hint)
	if len(add) == 0 {
		return out
	}
	if len(have) == 0 {
		return outcomeObject(ok, msg, hint)
	}
	i := bytes.IndexByte(out, '{') + 1
	// After the command's own "ok" when it leads the object, so that ok
	// stays first.
	if rest := out[i:]; bytes.HasPrefix(bytes.TrimLeft(rest, " \n"), []byte(`"ok": `)) {
		if j := bytes.Index(rest, []byte(",\n")); j >= 0 {
			i += j + 1
		}
	}
	var b bytes.Buffer
	b.Write(out[:i])
	for _, f := range add {
		b.WriteString("\n  " + strconv.Quote(f[0]) + ": " + f[1] + ",")
	}
	b.Write(out[i:])
	return b.Bytes()
}

// nested is the app a run inside another command uses (create's stage runs):
// with --json, the inner run's progress and its result object go to stderr,
// so stdout keeps the one object of the command the user ran.
func (a *app) nested() *app {
	if a.mode() != modeJSON {
		return a
	}
	cp := *a
	cp.io.Out = a.io.Err
	return &cp
}
