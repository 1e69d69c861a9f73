// Package layering holds the module's one import-layering check: the package
// table in docs/ARCHITECTURE.md (package | owns | never imports) and its table
// of reserved imports, read into rules and held against the import graph that
// `go list` reports. A package of the module missing from the table, a row
// naming a package that does not exist, and an import a row forbids are all
// violations, so the map and the house cannot drift apart.
//
// It imports only the standard library and is linked into no shipped binary:
// its one caller is its own test.
package layering

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// RuleKind says what a rule of a "never imports" cell forbids.
type RuleKind int

const (
	// Forbid: none of Paths is in the package's dependency closure.
	Forbid RuleKind = iota
	// StdOnly: everything in the dependency closure is standard library.
	StdOnly
	// ModuleOnly: the module packages in the closure are among Paths.
	ModuleOnly
	// ImportedOnlyBy: only Paths (and test files) import the package.
	ImportedOnlyBy
	// NoBinary: no shipped command (a main package under cmd/) links it.
	NoBinary
)

// The phrases a "never imports" cell may use besides a list of packages.
// Anything else in a cell is an error: prose there would be a rule no test
// checks.
const (
	phraseStdOnly    = "anything outside the standard library"
	phraseModuleOnly = "anything in the module but "
	phraseOnlyBy     = "imported only by "
	phraseNoBinary   = "linked into no shipped binary"
)

// Rule is one checkable clause of a row's "never imports" cell.
type Rule struct {
	Kind  RuleKind
	Paths []string // names as written: "llm", "net/http", "carter/command", "net/..."
	Text  string   // the clause as written, for messages
}

// Row is one row of the package table.
type Row struct {
	Line     int      // 1-based line in the document
	Packages []string // module-relative paths: "internal/carter/task", "internal/carter/ids"
	Rules    []Rule
}

// Reserved is one row of the reserved-imports table: Imports may be imported
// directly (by non-test code) only by the packages named in By.
type Reserved struct {
	Line    int
	Imports []string
	By      []string
}

// Table is what the document says.
type Table struct {
	Rows     []Row
	Reserved []Reserved
}

var backticked = regexp.MustCompile("^`([^`]+)`$")

// names reads a comma-separated list of backticked names; anything else
// is an error.
func names(s string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		m := backticked.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("%q is not a backticked package name", part)
		}
		out = append(out, m[1])
	}
	return out, nil
}

// ParseRules reads a "never imports" cell: clauses separated by ";", each a
// list of backticked packages (forbidden in the dependency closure) or one of
// the phrases above.
func ParseRules(cell string) ([]Rule, error) {
	cell = strings.TrimSpace(cell)
	if cell == "" {
		return nil, nil
	}
	var rules []Rule
	for _, clause := range strings.Split(cell, ";") {
		clause = strings.TrimSpace(clause)
		r := Rule{Text: clause}
		var list string
		switch {
		case clause == phraseStdOnly:
			r.Kind = StdOnly
		case clause == phraseNoBinary:
			r.Kind = NoBinary
		case strings.HasPrefix(clause, phraseModuleOnly):
			r.Kind, list = ModuleOnly, strings.TrimPrefix(clause, phraseModuleOnly)
		case strings.HasPrefix(clause, phraseOnlyBy):
			r.Kind, list = ImportedOnlyBy, strings.TrimPrefix(clause, phraseOnlyBy)
		default:
			r.Kind, list = Forbid, clause
		}
		if list != "" {
			ps, err := names(list)
			if err != nil {
				return nil, fmt.Errorf("clause %q: %w", clause, err)
			}
			r.Paths = ps
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// tableRow is one row of a Markdown table: its cells and its line.
type tableRow struct {
	line  int
	cells []string
}

// readTable returns the rows of the table whose header row is header, each
// with as many cells as the header.
func readTable(md, header string) ([]tableRow, error) {
	want := strings.Count(header, "|") - 1
	var rows []tableRow
	in := false
	for i, line := range strings.Split(md, "\n") {
		line = strings.TrimSpace(line)
		if !in {
			in = line == header
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		if strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		if len(cells) != want {
			return nil, fmt.Errorf("line %d: %d cells, want %d (%s)", i+1, len(cells), want, header)
		}
		rows = append(rows, tableRow{line: i + 1, cells: cells})
	}
	if !in {
		return nil, fmt.Errorf("no table %s", header)
	}
	return rows, nil
}

// names reads a cell of backticked names, its error naming the line and
// the column.
func (r tableRow) names(col int, column string) ([]string, error) {
	ns, err := names(r.cells[col])
	if err != nil {
		return nil, fmt.Errorf("line %d: %s: %w", r.line, column, err)
	}
	return ns, nil
}

// Parse reads the package table ("| package | owns | never imports |") and
// the reserved-imports table ("| import | imported directly only by |") out
// of the document.
func Parse(md string) (Table, error) {
	var t Table
	rows, err := readTable(md, "| package | owns | never imports |")
	if err != nil {
		return t, err
	}
	for _, row := range rows {
		pkgs, err := row.names(0, "package")
		if err != nil {
			return t, err
		}
		// "`internal/carter/task`, `ids`": later short names are siblings
		// of the first.
		parent := pkgs[0][:strings.LastIndex(pkgs[0], "/")+1]
		for j := 1; j < len(pkgs); j++ {
			if !strings.Contains(pkgs[j], "/") {
				pkgs[j] = parent + pkgs[j]
			}
		}
		rules, err := ParseRules(row.cells[2])
		if err != nil {
			return t, fmt.Errorf("line %d: never imports: %w", row.line, err)
		}
		t.Rows = append(t.Rows, Row{Line: row.line, Packages: pkgs, Rules: rules})
	}
	if rows, err = readTable(md, "| import | imported directly only by |"); err != nil {
		return t, err
	}
	for _, row := range rows {
		imps, err := row.names(0, "import")
		if err != nil {
			return t, err
		}
		by, err := row.names(1, "imported directly only by")
		if err != nil {
			return t, err
		}
		t.Reserved = append(t.Reserved, Reserved{Line: row.line, Imports: imps, By: by})
	}
	return t, nil
}

// Package is one package of the module as `go list` reports it, its paths
// module-relative for module packages ("internal/llm") and import paths for
// the rest ("net/http", "github.com/x/y").
type Package struct {
	Path    string
	Main    bool     // a command (package main)
	Imports []string // direct imports of its non-test files
	Deps    []string // its whole dependency closure, non-test files only
}

// Graph is the module's import graph.
type Graph struct {
	Packages map[string]Package // the module's packages by module-relative path
	Std      map[string]bool    // every standard library package
}

// matcher says whether a path is the named package (and, for a module
// package or a name ending in "/...", one below it).
type matcher func(path string) bool

// resolve turns a name of the table into a matcher. A module package named
// in the table stands for itself and the packages below it ("research" is
// also "research/egress"); a standard library package stands for itself
// alone, or with "/..." for those below it too ("net/..."). A name that is
// neither is an error.
func (g Graph) resolve(name string) (matcher, error) {
	under := func(p string) matcher {
		return func(path string) bool { return path == p || strings.HasPrefix(path, p+"/") }
	}
	for _, candidate := range []string{name, "internal/" + name} {
		m := under(candidate)
		for p := range g.Packages {
			if m(p) {
				return m, nil
			}
		}
	}
	if base, ok := strings.CutSuffix(name, "/..."); ok && g.Std[base] {
		return under(base), nil
	}
	if g.Std[name] {
		return func(path string) bool { return path == name }, nil
	}
	return nil, fmt.Errorf("%q names no package of the module or the standard library", name)
}

func (g Graph) resolveAll(ns []string) (matcher, error) {
	var ms []matcher
	for _, n := range ns {
		m, err := g.resolve(n)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return func(path string) bool {
		for _, m := range ms {
			if m(path) {
				return true
			}
		}
		return false
	}, nil
}

func (g Graph) inModule(path string) bool { _, ok := g.Packages[path]; return ok }

// Check holds the graph to the table and returns every violation, one line
// each, sorted; none means the map matches the house.
func (g Graph) Check(t Table) []string {
	var bad []string
	report := func(line int, format string, args ...any) {
		bad = append(bad, fmt.Sprintf("ARCHITECTURE.md:%d: ", line)+fmt.Sprintf(format, args...))
	}
	listed := map[string]int{}
	for _, row := range t.Rows {
		for _, p := range row.Packages {
			if first, dup := listed[p]; dup {
				report(row.Line, "%s is already in the row at line %d", p, first)
			}
			listed[p] = row.Line
			if !g.inModule(p) {
				report(row.Line, "the table names %s, which is no package of the module", p)
			}
		}
	}
	var missing []string
	for p := range g.Packages {
		if _, ok := listed[p]; !ok {
			missing = append(missing, p)
		}
	}
	slices.Sort(missing)
	for _, p := range missing {
		bad = append(bad, fmt.Sprintf("ARCHITECTURE.md: %s is missing from the package table: add a row saying what it owns and what it never imports", p))
	}
	for _, row := range t.Rows {
		for _, rule := range row.Rules {
			for _, p := range row.Packages {
				pkg, ok := g.Packages[p]
				if !ok {
					continue
				}
				for _, v := range g.violations(pkg, rule) {
					report(row.Line, "%s: %s (rule: %s)", p, v, rule.Text)
				}
			}
		}
	}
	for _, r := range t.Reserved {
		imp, err := g.resolveAll(r.Imports)
		if err != nil {
			report(r.Line, "%v", err)
			continue
		}
		by, err := g.resolveAll(r.By)
		if err != nil {
			report(r.Line, "%v", err)
			continue
		}
		for _, pkg := range g.sorted() {
			if by(pkg.Path) {
				continue
			}
			for _, i := range pkg.Imports {
				if imp(i) {
					report(r.Line, "%s imports %s, which only %s may import", pkg.Path, i, strings.Join(r.By, ", "))
				}
			}
		}
	}
	slices.Sort(bad)
	return bad
}

func (g Graph) sorted() []Package {
	var ps []Package
	for _, p := range g.Packages {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b Package) int { return strings.Compare(a.Path, b.Path) })
	return ps
}

// violations returns what breaks one rule for one package.
func (g Graph) violations(pkg Package, rule Rule) []string {
	var bad []string
	switch rule.Kind {
	case Forbid, ModuleOnly, ImportedOnlyBy:
		m, err := g.resolveAll(rule.Paths)
		if err != nil {
			return []string{err.Error()}
		}
		switch rule.Kind {
		case Forbid:
			for _, d := range pkg.Deps {
				if m(d) {
					bad = append(bad, "depends on "+d)
				}
			}
		case ModuleOnly:
			for _, d := range pkg.Deps {
				if g.inModule(d) && !m(d) {
					bad = append(bad, "depends on "+d)
				}
			}
		case ImportedOnlyBy:
			for _, other := range g.sorted() {
				if !m(other.Path) && slices.Contains(other.Imports, pkg.Path) {
					bad = append(bad, "imported by "+other.Path)
				}
			}
		}
	case StdOnly:
		for _, d := range pkg.Deps {
			if !g.Std[d] {
				bad = append(bad, "depends on "+d)
			}
		}
	case NoBinary:
		for _, other := range g.sorted() {
			if other.Main && strings.HasPrefix(other.Path, "cmd/") && slices.Contains(other.Deps, pkg.Path) {
				bad = append(bad, "linked into "+other.Path)
			}
		}
	}
	return bad
}

// ParseDiagram reads the rows of the layer diagram: the first fenced block
// after the "## Layers" heading, one row a line, packages separated by
// spaces, an indented line continuing the row above. Row 0 is the top.
func ParseDiagram(md string) ([][]string, error) {
	_, rest, ok := strings.Cut(md, "\n## Layers")
	if !ok {
		return nil, fmt.Errorf("no \"## Layers\" section")
	}
	_, rest, ok = strings.Cut(rest, "\n```\n")
	if !ok {
		return nil, fmt.Errorf("no diagram (a fenced block) under \"## Layers\"")
	}
	block, _, ok := strings.Cut(rest, "\n```")
	if !ok {
		return nil, fmt.Errorf("the diagram's fence is not closed")
	}
	var rows [][]string
	for _, line := range strings.Split(block, "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case line[0] == ' ' && len(rows) > 0:
			rows[len(rows)-1] = append(rows[len(rows)-1], fields...)
		default:
			rows = append(rows, fields)
		}
	}
	return rows, nil
}

// CheckDiagram holds the graph to the diagram's rows: every module package
// stands in exactly one row and imports only packages of lower rows.
func (g Graph) CheckDiagram(rows [][]string) []string {
	var bad []string
	rank := map[string]int{}
	for i, row := range rows {
		for _, name := range row {
			path := name
			if !g.inModule(path) {
				path = "internal/" + name
			}
			if !g.inModule(path) {
				bad = append(bad, fmt.Sprintf("diagram row %d: %s is no package of the module", i+1, name))
				continue
			}
			if r, dup := rank[path]; dup {
				bad = append(bad, fmt.Sprintf("diagram row %d: %s is already in row %d", i+1, name, r+1))
			}
			rank[path] = i
		}
	}
	for _, pkg := range g.sorted() {
		r, ok := rank[pkg.Path]
		if !ok {
			bad = append(bad, fmt.Sprintf("diagram: %s is missing from the layer diagram", pkg.Path))
			continue
		}
		for _, imp := range pkg.Imports {
			if ri, ok := rank[imp]; ok && ri <= r {
				bad = append(bad, fmt.Sprintf("diagram row %d: %s imports %s, which is not below it (row %d)", r+1, pkg.Path, imp, ri+1))
			}
		}
	}
	slices.Sort(bad)
	return bad
}

// goList runs `go list args...` and returns its standard output; a failure
// quotes the go command's own message.
func goList(args ...string) ([]byte, error) {
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return nil, fmt.Errorf("go list %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(ee.Stderr)))
	}
	return out, err
}

// Load reads the module of the current folder's import graph: one `go list
// -json` of every package (Imports and Deps are the non-test files') and
// the standard library's package list. It also reads every folder and
// stats every Go file of the module: go test caches a passing result by the
// files a test opened, and the graph depends on all of them, so a new
// package or a changed import reruns the test instead of leaving a cached
// "ok" standing. An error wrapping exec.ErrNotFound means no go command.
func Load() (Graph, error) {
	g := Graph{Packages: map[string]Package{}, Std: map[string]bool{}}
	mod, err := goList("-m", "-f", "{{.Path}} {{.Dir}}")
	if err != nil {
		return g, err
	}
	module, root, _ := strings.Cut(strings.TrimSpace(string(mod)), " ")
	std, err := goList("std")
	if err != nil {
		return g, err
	}
	for _, p := range strings.Fields(string(std)) {
		g.Std[p] = true
	}
	rels := func(ps []string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = strings.TrimPrefix(p, module+"/")
		}
		return out
	}
	list, err := goList("-json=ImportPath,Name,Imports,Deps", module+"/...")
	if err != nil {
		return g, err
	}
	dec := json.NewDecoder(strings.NewReader(string(list)))
	for dec.More() {
		var p struct {
			ImportPath, Name string
			Imports, Deps    []string
		}
		if err := dec.Decode(&p); err != nil {
			return g, fmt.Errorf("go list -json: %w", err)
		}
		path := strings.TrimPrefix(p.ImportPath, module+"/")
		g.Packages[path] = Package{Path: path, Main: p.Name == "main", Imports: rels(p.Imports), Deps: rels(p.Deps)}
	}
	return g, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			_, err = os.Stat(p)
		}
		return err
	})
}
