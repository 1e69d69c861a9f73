// Package schedit is copperhead's deterministic schematic edit engine: each
// operation (rename a net, set a field, add, remove or connect a part, swap
// pins) first computes a Plan of byte splices against the lossless reader's
// spans, then applies it, so a diff touches only the expressions the change
// needs and the UUIDs of untouched objects never change. It builds on sexpr
// and kicad and must never import design, llm, agent or research: keeping the
// docs in step is the caller's job (see DocRows).
package schedit

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"copperhead/internal/atomicfile"
	"copperhead/internal/kicad"
	"copperhead/internal/repofs"
	"copperhead/internal/sexpr"
)

// Sheet is one schematic file of the design: its bytes and their parse.
type Sheet struct {
	Path string      // absolute
	Rel  string      // relative to the root schematic's folder, slash-separated
	Src  []byte      // the file's bytes as read
	Root *sexpr.Node // the parse of Src; spans index Src

	// insts are the sheet instances this file is used by, in hierarchy
	// order: a file used twice is one Sheet with two instances.
	insts  []kicad.SheetInstance
	design *design
}

// placed reads a placed symbol with its references resolved per instance
// of the sheet through the one instance model.
func (sh *Sheet) placed(n *sexpr.Node) *placedSym {
	ps := readPlaced(n)
	if sh.design != nil && len(sh.insts) > 0 {
		ps.insts = sh.instancesOf(n)
		ps.refs = refsOf(ps.insts)
	}
	return ps
}

// Design is a hierarchical schematic opened for editing: every file of the
// hierarchy once (a sheet used twice is one file with two instances) plus
// the read model.
type Design struct {
	RootPath string
	Sheets   map[string]*Sheet // by absolute path
	Model    *kicad.Schematic

	// Netlist is kicad-cli's netlist of the design as loaded: the authority
	// for which nets exist and what they are called (the read model only
	// knows the names written down). Callers that write set it before
	// planning; nil only in tests of the planner alone.
	Netlist *kicad.Netlist

	// Boundary is the folder every file of the design must stay inside (the
	// repository), as given to LoadWithin; "" after Load.
	Boundary string
}

// Load opens the schematic rooted at rootPath for editing, reading sheet
// files wherever they are; commands on a repository use LoadWithin.
func Load(rootPath string) (*Design, error) {
	return load(rootPath, "")
}

// LoadWithin is Load confined to the folder boundary (the repository), as
// kicad.LoadSchematicWithin: a sheet file that resolves outside it, or is
// not a regular file, is refused before anything is read or planned, so no
// edit can ever be planned against (or written to) a file outside.
// Design.Boundary records it for the writer.
func LoadWithin(rootPath, boundary string) (*Design, error) {
	if boundary == "" {
		return nil, errors.New("schedit.LoadWithin: empty boundary")
	}
	return load(rootPath, boundary)
}

// load reads and parses each file of the hierarchy once: the read model's
// loader hands over the bytes and trees it read (kicad.LoadSchematicSources),
// and only a file it did not read itself (a second spelling of a file it
// reached through a symbolic link) is read here.
func load(rootPath, boundary string) (*Design, error) {
	model, sources, err := kicad.LoadSchematicSources(rootPath, boundary)
	if err != nil {
		return nil, err
	}
	root, err := filepath.Abs(rootPath)
	if err != nil {
		return nil, err
	}
	read := make(map[string]kicad.SchematicSource, len(sources))
	for _, s := range sources {
		if abs, err := filepath.Abs(s.Path); err == nil {
			read[abs] = s
		}
	}
	d := &Design{RootPath: root, Sheets: map[string]*Sheet{}, Model: model, Boundary: boundary}
	dir := filepath.Dir(root)
	files := []string{"."}
	for _, inst := range model.Sheets {
		files = append(files, inst.File)
	}
	for _, f := range files {
		p := root
		if f != "." && f != "" {
			p = filepath.Join(dir, filepath.FromSlash(f))
		}
		if _, ok := d.Sheets[p]; ok {
			continue
		}
		src, n := read[p].Src, read[p].Root
		if n == nil {
			if src, n, err = readSheet(p, f, boundary); err != nil {
				return nil, err
			}
		}
		rel, _ := filepath.Rel(dir, p)
		d.Sheets[p] = &Sheet{Path: p, Rel: filepath.ToSlash(rel), Src: src, Root: n}
	}
	rootSheet := d.Sheets[root]
	shared := &design{
		project:  kicad.ProjectName(root),
		rootUUID: rootSheet.Root.Value1("uuid"),
		legacy:   readLegacy(rootSheet.Root),
	}
	for _, sh := range d.Sheets {
		sh.design = shared
		for _, inst := range model.Sheets {
			if inst.File == sh.Rel {
				sh.insts = append(sh.insts, inst)
			}
		}
	}
	return d, nil
}

// readSheet reads and parses one sheet file the read model's loader did
// not read itself; f names it in errors.
func readSheet(p, f, boundary string) ([]byte, *sexpr.Node, error) {
	var src []byte
	var err error
	if boundary == "" {
		src, err = repofs.ReadRegular(p)
	} else {
		src, err = repofs.ReadFile(boundary, p)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", f, err)
	}
	n, err := sexpr.Parse(p, src)
	if err != nil {
		return nil, nil, err
	}
	return src, n, nil
}

// SheetByRel returns the sheet whose Rel is rel (as kicad.Part.SheetFile and
// kicad.SheetInstance.File name files), or nil.
func (d *Design) SheetByRel(rel string) *Sheet {
	for _, s := range d.Sheets {
		if s.Rel == rel {
			return s
		}
	}
	return nil
}

// Plan is one operation's edits, computed without writing anything.
type Plan struct {
	Op      string                  // the operation as a person would type it, e.g. "rename-net KEY_DAH KEY_DASH"
	Edits   map[string][]sexpr.Edit // absolute file path -> splices into that file's Src
	Summary []string                // one human-readable line per change
	Touched []string                // refdes whose BOM/PINOUT rows the change can affect
	// Expect is what KiCad's netlist of the written files must show; the
	// writer compares it (Verify) and writes nothing on a mismatch.
	Expect Expect
}

// ErrRefused wraps every refusal (unknown ref, net merge, symbol not found):
// the design is fine, the operation is not applied.
var ErrRefused = errors.New("refused")

// Refusef returns an error wrapping ErrRefused.
func Refusef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// NoOp reports whether the plan changes nothing (the change is already applied).
func (p *Plan) NoOp() bool {
	for _, es := range p.Edits {
		if len(es) > 0 {
			return false
		}
	}
	return true
}

// Add records a splice into file at path.
func (p *Plan) Add(path string, e sexpr.Edit) {
	if p.Edits == nil {
		p.Edits = map[string][]sexpr.Edit{}
	}
	p.Edits[path] = append(p.Edits[path], e)
}

// Preview returns each changed file's new bytes (absolute path -> bytes)
// without writing: the dry run.
func (p *Plan) Preview(d *Design) (map[string][]byte, error) {
	out := map[string][]byte{}
	for path, es := range p.Edits {
		if len(es) == 0 {
			continue
		}
		sh, ok := d.Sheets[path]
		if !ok {
			return nil, fmt.Errorf("plan edits %s, which is not a sheet of the design", path)
		}
		next, err := sexpr.Splice(sh.Src, es)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sh.Rel, err)
		}
		if !bytes.Equal(next, sh.Src) {
			out[path] = next
		}
	}
	return out, nil
}

// Apply writes the plan: every file is spliced, re-parsed to prove it still
// reads, and only then are the files written (each atomically). It returns
// the changed files relative to the root schematic's folder, sorted.
func (p *Plan) Apply(d *Design) ([]string, error) {
	next, err := p.Preview(d)
	if err != nil {
		return nil, err
	}
	for path, b := range next {
		if _, err := sexpr.Parse(path, b); err != nil {
			return nil, fmt.Errorf("%s would no longer parse: %w", d.Sheets[path].Rel, err)
		}
	}
	if d.Boundary != "" {
		for path := range next {
			if _, err := repofs.Resolve(d.Boundary, path); err != nil {
				return nil, fmt.Errorf("write %s: %w", d.Sheets[path].Rel, err)
			}
		}
	}
	var changed []string
	for path, b := range next {
		if err := atomicfile.Write(path, b, 0o644); err != nil {
			return nil, err
		}
		changed = append(changed, d.Sheets[path].Rel)
	}
	sort.Strings(changed)
	return changed, nil
}
