package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"copperhead/internal/textfmt"
)

// The saved-login backends (claude-code, codex, cursor) reach a model
// through a CLI that only answers text. copperhead's loop stays the driver:
// the prompt carries the system prompt, the tools with their schemas and the
// conversation, and the CLI must answer with one JSON object of this
// protocol, which parseProtocol turns back into a Turn.

// protocolRules is what every saved-login prompt opens with; claude-code
// also gets it as its system prompt, replacing Claude Code's own.
const protocolRules = `You are the reasoning engine of copperhead, an agent that changes a KiCad repository.
You cannot see the repository and you must not use any tool, command, file or web access of your own:
copperhead runs the tools listed below for you and sends you their results in the next message.

Answer with exactly one JSON object and nothing else, in this form:
{"text": "<what you say to the engineer; may be empty>", "tool_calls": [{"name": "<a tool listed below>", "args": {<arguments matching that tool's schema>}}]}
"tool_calls" is an empty list when you request nothing. Request only tools listed below.`

const protocolReminder = `Answer now with exactly one JSON object: {"text": "...", "tool_calls": [{"name": "...", "args": {...}}]}.`

// buildPrompt renders the whole request as one prompt: the rules, the
// system prompt, the tools and every message.
func buildPrompt(msgs []Message, tools []Tool, opts Options) string {
	var b strings.Builder
	b.WriteString(protocolRules)
	if s := strings.TrimSpace(opts.System); s != "" {
		b.WriteString("\n\n# Instructions from copperhead\n\n")
		b.WriteString(s)
	}
	writeTools(&b, tools)
	b.WriteString("\n\n# Conversation so far\n")
	writeMessages(&b, msgs, callNames(msgs))
	b.WriteString("\n\n")
	b.WriteString(protocolReminder)
	b.WriteString("\n")
	return b.String()
}

// buildDelta renders the messages from msgs[from] on, which a resumed
// session has not seen, and the tool list again when it changed (the edit
// tools unlock mid-run).
func buildDelta(msgs []Message, from int, tools []Tool, toolsChanged bool) string {
	var b strings.Builder
	if toolsChanged {
		b.WriteString("The tools you may request have changed; this list replaces the earlier one.")
		writeTools(&b, tools)
		b.WriteString("\n\n")
	}
	b.WriteString("# New messages\n")
	writeMessages(&b, msgs[from:], callNames(msgs))
	b.WriteString("\n\n")
	b.WriteString(protocolReminder)
	b.WriteString("\n")
	return b.String()
}

func writeTools(b *strings.Builder, tools []Tool) {
	b.WriteString("\n\n# Tools you may request\n")
	if len(tools) == 0 {
		b.WriteString("\n(none in this turn)\n")
	}
	for _, t := range tools {
		fmt.Fprintf(b, "\n## %s\n%s\nArguments (JSON Schema): %s\n", t.Name, strings.TrimSpace(t.Description), compactJSON(t.Schema))
	}
}

// callNames maps each tool call's id to its tool, so a result can name it.
func callNames(msgs []Message) map[string]string {
	names := map[string]string{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Name
		}
	}
	return names
}

func writeMessages(b *strings.Builder, msgs []Message, names map[string]string) {
	for _, m := range msgs {
		if len(m.ToolResults) > 0 {
			b.WriteString("\n### tool results\n")
			for _, r := range m.ToolResults {
				status := "ok"
				if r.IsError {
					status = "error"
				}
				fmt.Fprintf(b, "[%s] %s (%s)\n%s\n", r.CallID, names[r.CallID], status, r.Content)
			}
		}
		if m.Text == "" && len(m.ToolCalls) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n### %s\n", m.Role)
		if m.Text != "" {
			b.WriteString(m.Text)
			b.WriteString("\n")
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(b, "requested tool [%s] %s %s\n", c.ID, c.Name, compactJSON(c.Args))
		}
	}
}

func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// protocolReply is the JSON object a CLI must answer with.
type protocolReply struct {
	Text      string
	ToolCalls []ToolCall
}

// parseProtocol finds the protocol object in a CLI's reply: the whole reply,
// else a fenced code block, else the first JSON object after leading prose.
// An object that is JSON but not of the protocol's shape is refused with the
// reason; a reply with no object at all is refused quoting its start.
func parseProtocol(reply string) (protocolReply, error) {
	var shapeErr error
	for _, cand := range protocolCandidates(reply) {
		r, ok, err := decodeProtocol(cand)
		if ok {
			return r, err
		}
		if err != nil && shapeErr == nil {
			shapeErr = err
		}
	}
	if shapeErr != nil {
		return protocolReply{}, shapeErr
	}
	return protocolReply{}, fmt.Errorf("the reply is not one JSON object of copperhead's protocol: %q", textfmt.Clip(textfmt.OneLine(reply), 160))
}

// protocolCandidates are the texts that may hold the protocol object, most
// deliberate first.
func protocolCandidates(reply string) []string {
	s := strings.TrimSpace(reply)
	out := []string{s}
	// Fenced blocks: ```json ... ``` or ``` ... ```.
	rest := s
	for {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		body := rest[i+3:]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.Contains(body[:nl], "{") {
			body = body[nl+1:] // the info string (json)
		}
		j := strings.Index(body, "```")
		if j < 0 {
			break
		}
		out = append(out, strings.TrimSpace(body[:j]))
		rest = body[j+3:]
	}
	// The first decodable object after leading prose.
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		var raw json.RawMessage
		if json.NewDecoder(strings.NewReader(s[i:])).Decode(&raw) == nil {
			out = append(out, string(raw))
		}
	}
	return out
}

// decodeProtocol reports ok when cand is a JSON object naming text or
// tool_calls; err says what is wrong with one that does but is malformed.
func decodeProtocol(cand string) (protocolReply, bool, error) {
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(cand))
	if dec.Decode(&obj) != nil || dec.More() {
		return protocolReply{}, false, nil
	}
	rawText, hasText := obj["text"]
	rawCalls, hasCalls := obj["tool_calls"]
	if !hasText && !hasCalls {
		return protocolReply{}, false, fmt.Errorf("the reply's JSON object has neither \"text\" nor \"tool_calls\": %s", textfmt.Clip(cand, 160))
	}
	var r protocolReply
	if hasText && string(rawText) != "null" {
		if err := json.Unmarshal(rawText, &r.Text); err != nil {
			return protocolReply{}, true, fmt.Errorf("the reply's \"text\" is not a string")
		}
	}
	if !hasCalls || string(rawCalls) == "null" {
		return r, true, nil
	}
	var calls []struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(rawCalls, &calls); err != nil {
		return protocolReply{}, true, fmt.Errorf("the reply's \"tool_calls\" is not a list of {\"name\", \"args\"} objects")
	}
	for i, c := range calls {
		if strings.TrimSpace(c.Name) == "" {
			return protocolReply{}, true, fmt.Errorf("tool call %d of the reply has no name", i+1)
		}
		args, err := protocolArgs(c.Args)
		if err != nil {
			return protocolReply{}, true, fmt.Errorf("tool call %d (%s) of the reply: %v", i+1, c.Name, err)
		}
		// Unknown names pass through: the loop refuses them as it refuses
		// any model's.
		r.ToolCalls = append(r.ToolCalls, ToolCall{Name: strings.TrimSpace(c.Name), Args: args})
	}
	return r, true, nil
}

// protocolArgs accepts an object, a missing/null value ({}), or a string
// holding an object (a model that double-encoded it).
func protocolArgs(raw json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage(`{}`), nil
	}
	if t[0] == '"' {
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return nil, fmt.Errorf("\"args\" is not an object")
		}
		t = bytes.TrimSpace([]byte(s))
	}
	var obj map[string]json.RawMessage
	if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &obj) != nil {
		return nil, fmt.Errorf("\"args\" is not an object")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, t); err != nil {
		return nil, fmt.Errorf("\"args\" is not an object")
	}
	return json.RawMessage(buf.Bytes()), nil
}
