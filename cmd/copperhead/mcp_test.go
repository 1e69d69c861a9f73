package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"copperhead/internal/testkit"
)

// TestMCPInspector: the real MCP Inspector (npm
// @modelcontextprotocol/inspector, pinned in scripts/setup.sh) in --cli mode
// lists copperhead mcp's tools (the edit tools absent before a proposal)
// and calls check, whose structured result is check --json's object.
// Skipped when the Inspector is not installed.
func TestMCPInspector(t *testing.T) {
	inspector, err := exec.LookPath("mcp-inspector")
	if err != nil {
		t.Skip("mcp-inspector not installed (scripts/setup.sh installs it)")
	}
	bin, err := exec.LookPath("copperhead") // testscript.Main puts it on PATH
	if err != nil {
		t.Skip("copperhead command not on PATH")
	}
	testkit.NeedKiCadCLI(t)
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if err := os.CopyFS(repo, os.DirFS("../../examples/open-telegraph")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+dir, "MCP_CATALOG_PATH="+filepath.Join(dir, "mcp.json"),
		"COPPERHEAD_CACHE_DIR="+filepath.Join(dir, "cache"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=t@example.invalid")
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env, cmd.Dir = env, dir
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s\n%s", filepath.Base(name), strings.Join(args, " "), err, out, stderr.String())
		}
		return out
	}
	run("git", "-C", repo, "init", "-q", "-b", "main")
	run("git", "-C", repo, "add", "-A")
	run("git", "-C", repo, "commit", "-qm", "open-telegraph")
	server := []string{"--cli", bin, "mcp", "--repo", repo}

	var list struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(run(inspector, append(server, "--method", "tools/list")...), &list); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		if len(tl.InputSchema) == 0 || len(tl.OutputSchema) == 0 {
			t.Errorf("%s lacks an input or output schema", tl.Name)
		}
	}
	for _, want := range []string{"check", "parts", "nets", "explain", "drift", "constraints", "diff", "do", "propose_change", "validate_change", "finish", "search_symbols", "symbol_pins"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	if slices.Contains(names, "edit_file") || slices.Contains(names, "rename_net") {
		t.Errorf("tools/list offers edit tools before any proposal: %v", names)
	}

	var call struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(run(inspector, append(server, "--method", "tools/call", "--tool-name", "check")...), &call); err != nil {
		t.Fatalf("tools/call check: %v", err)
	}
	var direct map[string]any
	if err := json.Unmarshal(run(bin, "--repo", repo, "--json", "check"), &direct); err != nil {
		t.Fatalf("check --json: %v", err)
	}
	// The second run may reuse the first's kicad-cli results.
	for _, m := range []map[string]any{call.StructuredContent, direct} {
		for _, gate := range []string{"erc", "drc"} {
			if g, ok := m[gate].(map[string]any); ok {
				delete(g, "cached")
			}
		}
	}
	if call.IsError || !reflect.DeepEqual(call.StructuredContent, direct) {
		t.Errorf("check over MCP (error=%v)\n%v\nwant check --json's object\n%v", call.IsError, call.StructuredContent, direct)
	}
}
