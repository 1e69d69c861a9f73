package layering

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// loadGraph is Load for a test: without a go command it skips.
func loadGraph(t *testing.T) Graph {
	t.Helper()
	g, err := Load()
	if errors.Is(err, exec.ErrNotFound) {
		t.Skipf("go unavailable: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Packages) < 20 {
		t.Fatalf("go list found %d packages: too few to judge", len(g.Packages))
	}
	return g
}

// TestArchitectureTable is the module's one layering test: every package is
// in docs/ARCHITECTURE.md's table, every row names a real package, and no
// package imports what its row or the reserved-imports table forbids.
func TestArchitectureTable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	md, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	table, err := Parse(string(md))
	if err != nil {
		t.Fatalf("docs/ARCHITECTURE.md: %v", err)
	}
	rows, err := ParseDiagram(string(md))
	if err != nil {
		t.Fatalf("docs/ARCHITECTURE.md: %v", err)
	}
	g := loadGraph(t)
	for _, v := range append(g.Check(table), g.CheckDiagram(rows)...) {
		t.Error(v)
	}
}

// TestCheckDiagram proves the diagram check fails on a package missing from
// it, a name that is no package, a package in two rows, and an import that
// points sideways or up; and passes rows the graph keeps.
func TestCheckDiagram(t *testing.T) {
	tests := []struct {
		name, diagram string
		want          []string
	}{
		{name: "the diagram holds", diagram: "cmd/tool\ncli  llm/fake\nkicad\n  llm\nsexpr\n"},
		{name: "a package missing", diagram: "cmd/tool\ncli\nkicad  llm\nsexpr\n",
			want: []string{"diagram: internal/llm/fake is missing from the layer diagram"}},
		{name: "no such package", diagram: "cmd/tool\ncli  llm/fake  ghost\nkicad  llm\nsexpr\n",
			want: []string{"diagram row 2: ghost is no package of the module"}},
		{name: "a package in two rows", diagram: "cmd/tool\ncli  llm/fake\nkicad  llm\nsexpr\nllm\n",
			want: []string{"diagram row 5: llm is already in row 3"}},
		{name: "an import sideways", diagram: "cmd/tool\ncli  llm/fake\nkicad  llm  sexpr\n",
			want: []string{"diagram row 3: internal/kicad imports internal/sexpr, which is not below it (row 3)"}},
		{name: "an import up", diagram: "cmd/tool\nllm/fake\nkicad  llm\nsexpr\ncli\n",
			want: []string{
				"diagram row 5: internal/cli imports internal/kicad, which is not below it (row 3)",
				"diagram row 5: internal/cli imports internal/llm, which is not below it (row 3)",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := ParseDiagram("# x\n\n## Layers\n\n```\n" + tc.diagram + "```\n")
			if err != nil {
				t.Fatal(err)
			}
			wantViolations(t, synthetic().CheckDiagram(rows), tc.want)
		})
	}
}

func TestParseRules(t *testing.T) {
	tests := []struct {
		cell, want, wantErr string
	}{
		{cell: "", want: ""},
		{cell: "`llm`, `research`, `net/http`", want: "0[llm research net/http]"},
		{cell: "anything outside the standard library", want: "1[]"},
		{cell: "anything outside the standard library; `net/...`, `os/exec`", want: "1[] 0[net/... os/exec]"},
		{cell: "anything in the module but `redact`, `atomicfile`", want: "2[redact atomicfile]"},
		{cell: "imported only by `cmd/carter`", want: "3[cmd/carter]"},
		{cell: "linked into no shipped binary", want: "4[]"},
		{cell: "`llm`, `net/http` (a test runs `go list -deps`)", wantErr: "is not a backticked package name"},
		{cell: "retrievers, synth", wantErr: `"retrievers" is not a backticked package name`},
		{cell: "KiCad parsing", wantErr: "is not a backticked package name"},
		{cell: "anything in the module but", wantErr: "is not a backticked package name"},
	}
	for _, tc := range tests {
		rules, err := ParseRules(tc.cell)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseRules(%q) error = %v, want %q", tc.cell, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRules(%q): %v", tc.cell, err)
			continue
		}
		var got []string
		for _, r := range rules {
			got = append(got, fmt.Sprintf("%d%v", r.Kind, r.Paths))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("ParseRules(%q) = %s, want %s", tc.cell, g, tc.want)
		}
	}
}

const syntheticHead = "# x\n\n| package | owns | never imports |\n|---|---|---|\n"
const syntheticReserved = "\n| import | imported directly only by |\n|---|---|\n| `net/http` | `llm` |\n"

// synthetic is a small module: a command on top of cli, cli on kicad and
// llm, kicad on sexpr (standard library only), llm on net/http, and a test
// fake nothing ships.
func synthetic() Graph {
	return Graph{
		Std: map[string]bool{"fmt": true, "net": true, "net/http": true, "net/url": true, "os/exec": true},
		Packages: map[string]Package{
			"cmd/tool":          {Path: "cmd/tool", Main: true, Imports: []string{"internal/cli"}, Deps: []string{"fmt", "internal/cli", "internal/kicad", "internal/llm", "internal/sexpr", "net", "net/http", "net/url"}},
			"internal/cli":      {Path: "internal/cli", Imports: []string{"internal/kicad", "internal/llm"}, Deps: []string{"fmt", "internal/kicad", "internal/llm", "internal/sexpr", "net", "net/http", "net/url"}},
			"internal/kicad":    {Path: "internal/kicad", Imports: []string{"internal/sexpr", "net/url"}, Deps: []string{"fmt", "internal/sexpr", "net/url"}},
			"internal/sexpr":    {Path: "internal/sexpr", Imports: []string{"fmt"}, Deps: []string{"fmt"}},
			"internal/llm":      {Path: "internal/llm", Imports: []string{"net/http"}, Deps: []string{"net", "net/http", "net/url"}},
			"internal/llm/fake": {Path: "internal/llm/fake", Imports: []string{"internal/llm", "net/http"}, Deps: []string{"internal/llm", "net", "net/http", "net/url"}},
		},
	}
}

// goodRows is a table the synthetic module keeps.
var goodRows = []string{
	"| `cmd/tool` | main | |",
	"| `internal/cli` | commands | imported only by `cmd/tool` |",
	"| `internal/kicad`, `sexpr` | read model; reader | `llm`, `cli`, `net/http`, `os/exec` |",
	"| `internal/llm` | models | `kicad`, `os/exec` |",
	"| `internal/llm/fake` | test fake | linked into no shipped binary |",
}

func syntheticTable(rows []string, reserved string) string {
	return syntheticHead + strings.Join(rows, "\n") + "\n" + reserved
}

// TestCheck proves the checker fails on each kind of drift between the table
// and the graph, and passes a table the graph keeps.
func TestCheck(t *testing.T) {
	replace := func(i int, row string) []string {
		rows := append([]string(nil), goodRows...)
		rows[i] = row
		return rows
	}
	reserveHTTP := func(g Graph) {
		p := g.Packages["internal/kicad"]
		p.Imports = append(p.Imports, "net/http")
		g.Packages["internal/kicad"] = p
	}
	tests := []struct {
		name  string
		rows  []string
		graph func(Graph)
		want  string // a substring of the one violation; "": the table holds
	}{
		{"the table holds", goodRows, nil, ""},
		{"a package missing from the table", goodRows[:4], nil, "internal/llm/fake is missing from the package table"},
		{"a row naming no package", append(goodRows, "| `internal/ghost` | nothing | |"), nil, "names internal/ghost, which is no package of the module"},
		{"a package in two rows", append(goodRows, "| `internal/sexpr` | again | |"), nil, "internal/sexpr is already in the row at line 7"},
		{"a transitive forbidden import", replace(3, "| `internal/llm` | models | `net/url` |"), nil, "internal/llm: depends on net/url (rule: `net/url`)"},
		{"a module name covers the packages below it", replace(0, "| `cmd/tool` | main | `llm` |"), nil, "cmd/tool: depends on internal/llm (rule: `llm`)"},
		{"a standard name with /... covers those below it", replace(2, "| `internal/kicad`, `sexpr` | read model | `net/...` |"), nil, "internal/kicad: depends on net/url"},
		{"standard library only", replace(2, "| `internal/kicad`, `sexpr` | read model | anything outside the standard library |"), nil, "internal/kicad: depends on internal/sexpr"},
		{"module only", replace(1, "| `internal/cli` | commands | anything in the module but `kicad`, `sexpr` |"), nil, "internal/cli: depends on internal/llm"},
		{"imported only by", replace(3, "| `internal/llm` | models | imported only by `cli` |"), nil, "internal/llm: imported by internal/llm/fake"},
		{"linked into a shipped binary", replace(3, "| `internal/llm` | models | linked into no shipped binary |"), nil, "internal/llm: linked into cmd/tool"},
		{"a reserved import", goodRows, reserveHTTP, "internal/kicad imports net/http, which only llm may import"},
		{"a rule naming no package", replace(3, "| `internal/llm` | models | `agent` |"), nil, `"agent" names no package of the module or the standard library`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			table, err := Parse(syntheticTable(tc.rows, syntheticReserved))
			if err != nil {
				t.Fatal(err)
			}
			g := synthetic()
			if tc.graph != nil {
				tc.graph(g)
			}
			var want []string
			if tc.want != "" {
				want = []string{tc.want}
			}
			wantViolations(t, g.Check(table), want)
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ md, want string }{
		{md: "# nothing here\n", want: "no table | package | owns | never imports |"},
		{md: syntheticHead + "| `internal/x` | two cells |\n" + syntheticReserved, want: "line 5: 2 cells, want 3"},
		{md: syntheticHead + "| internal/x | owns | |\n" + syntheticReserved, want: "line 5: package: "},
		{md: syntheticHead + "| `internal/x` | owns | prose rule |\n" + syntheticReserved, want: "line 5: never imports"},
		{md: syntheticTable(goodRows, ""), want: "no table | import | imported directly only by |"},
	}
	for _, tc := range tests {
		if _, err := Parse(tc.md); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse error = %v, want %q", err, tc.want)
		}
	}
}

// wantViolations fails t unless got holds one violation per want, in order,
// each containing its want.
func wantViolations(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("violations %q, want %d like %q", got, len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("violation %d = %q, want it to contain %q", i, got[i], w)
		}
	}
}
