package schedit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"copperhead/internal/kicad/kigen"
	"copperhead/internal/sexpr"
	"copperhead/internal/textdist"
)

// defaultSymbolDir is where Debian's kicad-symbols package installs KiCad's
// standard symbol libraries; KICAD9_SYMBOL_DIR overrides it, as for KiCad.
const defaultSymbolDir = "/usr/share/kicad/symbols"

// maxSuggestions bounds the closest names a "symbol not found" refusal lists.
const maxSuggestions = 5

func symbolDir() string {
	if v := os.Getenv("KICAD9_SYMBOL_DIR"); v != "" {
		return v
	}
	return defaultSymbolDir
}

// symbolLibraries maps each library nickname to its .kicad_sym file: the
// project's sym-lib-table beside the root schematic first (${KIPRJMOD} and
// ${KICAD9_SYMBOL_DIR} expanded), then every library installed in
// symbolDir under its file name. The user's global sym-lib-table is not
// read: a design must resolve from the project and the installed set alone,
// so the same command gives the same result on every machine.
func symbolLibraries(projectDir string) map[string]string {
	dir := symbolDir()
	return kigen.LibraryTable(projectDir, "sym-lib-table", dir, ".kicad_sym", func(uri string) string {
		return os.Expand(uri, func(v string) string {
			switch v {
			case "KIPRJMOD":
				return projectDir
			case "KICAD9_SYMBOL_DIR":
				return dir
			}
			return os.Getenv(v)
		})
	})
}

// resolveSymbol loads LIB:NAME flattened (extends resolved) and renamed
// "LIB:NAME" the way KiCad embeds it in a schematic's lib_symbols. A missing
// library or symbol is a refusal naming the closest existing names.
func resolveSymbol(projectDir, libID string) (*sexpr.Node, error) {
	nick, name, ok := strings.Cut(libID, ":")
	if !ok || nick == "" || name == "" {
		return nil, Refusef("bad library id %q: want LIBRARY:SYMBOL, e.g. Device:R", libID)
	}
	libs := symbolLibraries(projectDir)
	path, ok := libs[nick]
	if !ok {
		return nil, Refusef("symbol library %s not found%s", nick, suggest(nick, slices.Collect(mapKeys(libs))))
	}
	file, _, err := sexpr.ParseFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Refusef("symbol library %s: %s does not exist", nick, path)
	}
	if err != nil {
		return nil, fmt.Errorf("read symbol library %s: %w", nick, err)
	}
	sym, err := flattenSymbol(file, name, 0)
	if err != nil {
		var names []string
		for s := range file.All("symbol") {
			names = append(names, s.Arg(0))
		}
		return nil, Refusef("symbol %s not found in library %s%s", name, nick, suggest(name, names))
	}
	sym.Children[1] = sexpr.Node{Kind: sexpr.String, Value: libID}
	return sym, nil
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// flattenSymbol resolves (extends ..) as KiCad's LIB_SYMBOL::Flatten does:
// a copy of the parent renamed to the child, units included, with each field
// the child defines replacing the parent's and the child's other fields
// appended after the parent's.
func flattenSymbol(file *sexpr.Node, name string, depth int) (*sexpr.Node, error) {
	var raw *sexpr.Node
	for s := range file.All("symbol") {
		if s.Arg(0) == name {
			raw = s
			break
		}
	}
	if raw == nil || depth > 8 {
		return nil, fmt.Errorf("symbol %s not found", name)
	}
	parent := raw.Value1("extends")
	if parent == "" {
		out := cloneNode(raw)
		return &out, nil
	}
	out, err := flattenSymbol(file, parent, depth+1)
	if err != nil {
		return nil, err
	}
	out.Children[1] = sexpr.Node{Kind: sexpr.String, Value: name}
	for i := range out.Children {
		c := &out.Children[i]
		if c.Head() == "symbol" && strings.HasPrefix(c.Arg(0), parent+"_") {
			c.Children[1] = sexpr.Node{Kind: sexpr.String, Value: name + c.Arg(0)[len(parent):]}
		}
	}
	for cp := range raw.All("property") {
		idx, last := -1, 0
		for i := range out.Children {
			if out.Children[i].Head() == "property" {
				last = i
				if out.Children[i].Arg(0) == cp.Arg(0) {
					idx = i
				}
			}
		}
		if idx >= 0 {
			out.Children[idx] = cloneNode(cp)
			continue
		}
		out.Children = slices.Insert(out.Children, last+1, cloneNode(cp))
	}
	return out, nil
}

func cloneNode(n *sexpr.Node) sexpr.Node {
	c := sexpr.Node{Kind: n.Kind, Value: n.Value}
	for i := range n.Children {
		c.Children = append(c.Children, cloneNode(&n.Children[i]))
	}
	return c
}

// suggest formats the closest names to want as ": closest: a, b, c".
func suggest(want string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	return "; closest: " + strings.Join(textdist.Closest(want, names, maxSuggestions), ", ")
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// formatNode prints n as KiCad does, at depth levels of indentation: one
// list per line, lists of atoms only on one line, (xy ..) points packed on
// the (pts line.
func formatNode(st indentStyle, n *sexpr.Node, depth int) string {
	var b strings.Builder
	b.WriteString(strings.Repeat(string(st), depth))
	writeNode(&b, st, n, depth)
	b.WriteByte('\n')
	return b.String()
}

func leafText(n *sexpr.Node) string {
	if n.Kind == sexpr.String {
		return sexpr.Quote(n.Value)
	}
	return n.Value
}

func writeNode(b *strings.Builder, st indentStyle, n *sexpr.Node, depth int) {
	if n.Kind != sexpr.List {
		b.WriteString(leafText(n))
		return
	}
	b.WriteByte('(')
	i := 0
	for ; i < len(n.Children) && n.Children[i].Kind != sexpr.List; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(leafText(&n.Children[i]))
	}
	if i == len(n.Children) {
		b.WriteByte(')')
		return
	}
	indent := strings.Repeat(string(st), depth+1)
	if n.Head() == "pts" {
		b.WriteByte('\n')
		b.WriteString(indent)
		for j := i; j < len(n.Children); j++ {
			if j > i {
				b.WriteByte(' ')
			}
			writeNode(b, st, &n.Children[j], depth+1)
		}
	} else {
		for ; i < len(n.Children); i++ {
			b.WriteByte('\n')
			b.WriteString(indent)
			writeNode(b, st, &n.Children[i], depth+1)
		}
	}
	b.WriteByte('\n')
	b.WriteString(strings.Repeat(string(st), depth))
	b.WriteByte(')')
}
