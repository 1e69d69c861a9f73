package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"copperhead/internal/kicadcli"
	"copperhead/internal/llm"
	"copperhead/internal/openspec"
	"copperhead/internal/research"
	"copperhead/internal/tool"
	"copperhead/internal/tools/toolstest"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// The repository helpers every tool test uses.
var (
	emptySession = toolstest.EmptySession
	readRepo     = toolstest.ReadRepo
	writeRepo    = toolstest.WriteRepo
)

// toolsKiCad is the real kicad-cli, found once per test binary with its
// private KiCad config in a temporary folder (never the user's).
var toolsKiCad struct {
	once sync.Once
	tool *kicadcli.Tool
	err  error
}

// realKiCad returns the real kicad-cli with a fresh cache, or skips.
func realKiCad(t *testing.T) *kicadcli.Tool {
	t.Helper()
	if _, err := exec.LookPath("kicad-cli"); err != nil && os.Getenv("COPPERHEAD_KICAD_CLI") == "" {
		t.Skip("kicad-cli not installed (scripts/setup.sh installs it)")
	}
	toolsKiCad.once.Do(func() {
		dir, err := os.MkdirTemp("", "agent-tools-kicad-*")
		if err != nil {
			toolsKiCad.err = err
			return
		}
		os.Setenv("COPPERHEAD_KICAD_CONFIG", filepath.Join(dir, "config"))
		toolsKiCad.tool, toolsKiCad.err = kicadcli.Find(context.Background())
	})
	if toolsKiCad.err != nil {
		t.Fatal(toolsKiCad.err)
	}
	tool := *toolsKiCad.tool
	tool.CacheDir = t.TempDir()
	return &tool
}

func needOpenSpecCLI(t *testing.T) {
	t.Helper()
	if _, err := openspec.Binary(); err != nil {
		t.Skip("openspec not installed (run scripts/setup.sh)")
	}
}

// toolSession copies the open-telegraph fixture into a temporary git
// repository and returns a session on it; kicad-cli is attached when
// withKiCad is set (the test is skipped without one).
func toolSession(t *testing.T, withKiCad bool) *tool.Session {
	t.Helper()
	repo := toolstest.CopyFixture(t)
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	cfg, pr := toolstest.Locate(t, repo)
	s := &tool.Session{Repo: repo, Config: cfg, Project: pr, RunID: "test-run", Request: "test", Ledger: tool.NewLedger()}
	if withKiCad {
		s.KiCad = realKiCad(t)
	}
	return s
}

// call dispatches one tool call with args marshalled to JSON.
func call(t *testing.T, s *tool.Session, name string, args any) tool.Result {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	res := tool.Dispatch(context.Background(), s, All(), llm.ToolCall{ID: "c1", Name: name, Args: json.RawMessage(raw)})
	if res.Fatal != nil {
		t.Fatalf("%s: fatal: %v (%s)", name, res.Fatal, res.Text)
	}
	return res
}

// mustOK fails the test when res is an error result.
func mustOK(t *testing.T, res tool.Result) tool.Result {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error result: %s", res.Text)
	}
	return res
}

// mustFail fails the test unless res is an error result mentioning want.
func mustFail(t *testing.T, res tool.Result, want ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want an error result, got: %s", res.Text)
	}
	for _, w := range want {
		if !strings.Contains(res.Text, w) {
			t.Errorf("error result does not mention %q:\n%s", w, res.Text)
		}
	}
}

func specNames(ts []llm.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

var mutatingNames = []string{"edit_file", "write_file", "record_constraint", "resolve_affected",
	"rename_net", "set_field", "swap_pins", "add_part", "remove_part", "connect_pin", "disconnect_pin", "no_connect_pin", "draft_schematic"}

func TestToolListGate(t *testing.T) {
	s := emptySession(t)
	before := specNames(tool.ToolList(s, All()))
	for _, m := range mutatingNames {
		if slices.Contains(before, m) {
			t.Errorf("%s offered before validation: %v", m, before)
		}
	}
	for _, want := range []string{"read_file", "search", "propose_change", "validate_change", "record_decision", "finish"} {
		if !slices.Contains(before, want) {
			t.Errorf("%s missing before validation: %v", want, before)
		}
	}
	s.Validated = true
	after := specNames(tool.ToolList(s, All()))
	if !slices.Equal(after[:len(before)], before) {
		t.Errorf("unlocking reordered the list: %v then %v", before, after)
	}
	if got := after[len(before):]; !slices.Equal(got, mutatingNames) {
		t.Errorf("unlocked tools = %v, want %v appended", got, mutatingNames)
	}
	if got := mutatingToolNames(s); !slices.Equal(got, mutatingNames) {
		t.Errorf("mutatingToolNames = %v", got)
	}
}

// A sync run's tool list never holds the tools that change KiCad files,
// before or after validation; every other tool is where a do run has it.
func TestToolListSync(t *testing.T) {
	kicadEditors := []string{"rename_net", "set_field", "swap_pins", "add_part", "remove_part",
		"connect_pin", "disconnect_pin", "no_connect_pin", "draft_schematic"}
	for _, validated := range []bool{false, true} {
		do := &tool.Session{Validated: validated}
		sync := &tool.Session{Validated: validated, Sync: true}
		var want []string
		for _, name := range specNames(tool.ToolList(do, All())) {
			if !slices.Contains(kicadEditors, name) {
				want = append(want, name)
			}
		}
		got := specNames(tool.ToolList(sync, All()))
		if !slices.Equal(got, want) {
			t.Errorf("validated=%v: sync tool list = %v, want %v", validated, got, want)
		}
		if validated {
			for _, name := range []string{"edit_file", "write_file", "record_constraint", "resolve_affected"} {
				if !slices.Contains(got, name) {
					t.Errorf("sync run lacks %s after validation: %v", name, got)
				}
			}
		}
	}
	if got := mutatingToolNames(&tool.Session{Sync: true}); slices.ContainsFunc(got, tool.SyncWithheld) {
		t.Errorf("validate_change would announce KiCad edit tools in a sync run: %v", got)
	}
	for _, name := range kicadEditors {
		if !tool.SyncWithheld(name) {
			t.Errorf("tool.SyncWithheld(%s) = false", name)
		}
	}
}

// A validated sync run refuses the KiCad-changing tools it was not shown,
// and edit_file/write_file refuse KiCad files while still editing docs.
func TestDispatchSyncRefusesKiCadEdits(t *testing.T) {
	s := toolSession(t, false)
	s.Validated, s.Sync = true, true
	sch := "hardware/open-telegraph.kicad_sch"
	orig := readRepo(t, s, sch)
	mustFail(t, call(t, s, "set_field", map[string]any{"ref": "R7", "field": "Value", "value": "4.7k"}), "set_field is not available in a sync run", "KiCad files as the truth")
	mustFail(t, call(t, s, "rename_net", map[string]any{"old": "KEY_DAH", "new": "KEY_DASH"}), "rename_net is not available in a sync run")
	mustFail(t, call(t, s, "edit_file", map[string]any{"path": sch, "old_string": "(kicad_sch", "new_string": "(kicad_sch "}), "edit_file: refuses "+sch+" in a sync run")
	for _, p := range []string{"hardware/x.kicad_sym", "lib/sym-lib-table", "fp-lib-table", "hardware/new.kicad_pro"} {
		mustFail(t, call(t, s, "write_file", map[string]any{"path": p, "content": "x"}), "write_file: refuses "+p+" in a sync run")
		if _, err := os.Stat(filepath.Join(s.Repo, filepath.FromSlash(p))); err == nil {
			t.Errorf("write_file created %s in a sync run", p)
		}
	}
	if readRepo(t, s, sch) != orig {
		t.Fatal("a sync run changed the schematic")
	}
	mustOK(t, call(t, s, "write_file", map[string]any{"path": "docs/NOTES.md", "content": "notes\n"}))
	if len(s.Touched) != 1 || s.Touched[0] != "docs/NOTES.md" {
		t.Fatalf("touched = %v", s.Touched)
	}
}

func TestDispatchRefusesLockedTools(t *testing.T) {
	s := toolSession(t, false)
	orig := readRepo(t, s, "docs/SPEC.md")
	args := map[string]any{
		"edit_file":         map[string]any{"path": "docs/SPEC.md", "old_string": "Budgets", "new_string": "Limits"},
		"write_file":        map[string]any{"path": "docs/NEW.md", "content": "x"},
		"record_constraint": map[string]any{"key": "a.b", "source": "x", "affects": []string{}, "doc": "docs/SPEC.md", "doc_text": "x"},
		"resolve_affected":  map[string]any{"resolutions": []any{}},
	}
	for _, name := range mutatingNames {
		mustFail(t, call(t, s, name, args[name]), "locked until validate_change passes")
	}
	if readRepo(t, s, "docs/SPEC.md") != orig {
		t.Fatal("a locked tool changed docs/SPEC.md")
	}
	if _, err := os.Stat(filepath.Join(s.Repo, "docs/NEW.md")); err == nil {
		t.Fatal("a locked tool created docs/NEW.md")
	}
	if len(s.Touched) != 0 {
		t.Fatalf("touched = %v", s.Touched)
	}
}

func TestDispatchBadCalls(t *testing.T) {
	s := emptySession(t)
	tests := []struct {
		name, args string
		want       []string
	}{
		{"no_such_tool", `{}`, []string{`unknown tool "no_such_tool"`, "read_file", "finish"}},
		{"read_file", `{"path": `, []string{"must be one JSON object"}},
		{"read_file", `["docs"]`, []string{"must be one JSON object"}},
		{"read_file", `{"path": 3}`, []string{"invalid arguments for read_file"}},
		{"read_file", `{"file": "x"}`, []string{"invalid arguments for read_file", `unknown field "file"`}},
	}
	for _, tc := range tests {
		res := tool.Dispatch(context.Background(), s, All(), llm.ToolCall{Name: tc.name, Args: json.RawMessage(tc.args)})
		mustFail(t, res, tc.want...)
		if res.Fatal != nil {
			t.Errorf("%s %s: fatal %v", tc.name, tc.args, res.Fatal)
		}
	}
	// Missing arguments read as {} (tools without parameters).
	res := tool.Dispatch(context.Background(), s, All(), llm.ToolCall{Name: "run_erc"})
	mustOK(t, res)
	if !strings.Contains(res.Text, "not applicable yet") {
		t.Errorf("run_erc without a schematic: %s", res.Text)
	}
}

func TestDispatchCancelled(t *testing.T) {
	s := emptySession(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := tool.Dispatch(ctx, s, All(), llm.ToolCall{Name: "read_file", Args: json.RawMessage(`{"path":"."}`)})
	if res.Fatal == nil {
		t.Fatalf("cancelled dispatch is not fatal: %+v", res)
	}
}

// TestToolListStable: the tool list is byte-identical between turns (prompt
// caching keys on it) and matches the golden schemas.
func TestToolListStable(t *testing.T) {
	s := emptySession(t)
	s.Validated = true
	first, err := json.Marshal(tool.ToolList(s, All()))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		s.Touched = append(s.Touched, "docs/x.md")
		s.KiCadEditSeq++
		again, _ := json.Marshal(tool.ToolList(s, All()))
		if !bytes.Equal(first, again) {
			t.Fatal("tool list bytes changed between turns")
		}
	}
	checkSchemas(t, tool.ToolList(s, All()), "tool_schemas.golden", "TestToolListStable")
	for _, sp := range tool.ToolList(s, All()) {
		if strings.TrimSpace(sp.Description) == "" || strings.Contains(sp.Description, "\t") {
			t.Errorf("%s: description empty or tabbed", sp.Name)
		}
	}
}

// TestAllIsFresh: All returns a new slice each call, so a caller appending
// its own tools (or overwriting one) never changes the next run's list.
func TestAllIsFresh(t *testing.T) {
	a := All()
	a[0] = nil
	_ = append(a[:1], nil)
	if b := All(); b[0] == nil || b[1] == nil || b[0].Spec().Name != "read_file" {
		t.Fatalf("All() shares its slice: %v", b[:2])
	}
}

// checkSchemas compares each schema's exact bytes, indented (json.Indent
// keeps key order), with testdata/<golden>, so a reordered key fails here as
// it would defeat prompt caching. With -update it rewrites the file first.
func checkSchemas(t *testing.T, specs []llm.Tool, golden, test string) {
	t.Helper()
	var pretty bytes.Buffer
	for _, sp := range specs {
		pretty.WriteString("## " + sp.Name + "\n")
		if err := json.Indent(&pretty, sp.Schema, "", "  "); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", sp.Name, err)
		}
		pretty.WriteString("\n")
	}
	golden = filepath.Join("testdata", golden)
	if *update {
		if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update)", err, test)
	}
	if !bytes.Equal(pretty.Bytes(), want) {
		t.Errorf("tool schemas differ from %s (review, then run go test -run %s -update after an intended change):\n%s", golden, test, pretty.String())
	}
}

// TestEveryToolDescribed: every tool's description is its Markdown file,
// and every Markdown file describes a tool.
func TestEveryToolDescribed(t *testing.T) {
	all := All()
	for _, build := range []func(*research.Kit) tool.Tool{webSearchTool, searchPartsTool, fetchDatasheetTool, fetchPageTool} {
		all = append(all, build(nil))
	}
	described := map[string]bool{}
	for _, tl := range all {
		spec := tl.Spec()
		b, err := docs.ReadFile(spec.Name + ".md")
		if err != nil || spec.Description == "" || spec.Description != strings.TrimSpace(string(b)) {
			t.Errorf("%s: description %q is not its %s.md (%v)", spec.Name, spec.Description, spec.Name, err)
		}
		described[spec.Name+".md"] = true
	}
	files, err := fs.Glob(docs, "*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !described[f] {
			t.Errorf("%s describes no tool", f)
		}
	}
}
