package kicad

import (
	"io/fs"
	"path/filepath"

	"copperhead/internal/repofs"
	"copperhead/internal/sexpr"
)

// SchematicSource is one schematic file as the loader read it: its bytes
// and their parse (the tree's spans index Src).
type SchematicSource struct {
	Path string // as the loader reached it: the root path as given, a sheet's file joined to the folder of the file using it
	Src  []byte
	Root *sexpr.Node
}

// LoadSchematicSources is LoadSchematicWithin (LoadSchematic when boundary
// is "") that also returns every file it read, each read and parsed once,
// root first: a caller that needs the bytes or the syntax tree too (the
// edit engine) takes them from here instead of reading and parsing the
// hierarchy a second time.
func LoadSchematicSources(rootPath, boundary string) (*Schematic, []SchematicSource, error) {
	l := newLoader(rootPath, boundary, repofs.ReadRegular)
	l.keep = true
	s, err := l.load(rootPath)
	if err != nil {
		return nil, nil, err
	}
	return s, l.kept, nil
}

// SchematicFromSources builds the read model of the hierarchy rooted at
// rootPath from files already in memory, keyed by absolute path, reading
// nothing from disk: the model of bytes about to be written (an edit's
// result) without laying them out and reading them back. A source whose
// Root is nil is parsed; a sheet missing from files is an error wrapping
// fs.ErrNotExist, as a missing file is for LoadSchematic.
func SchematicFromSources(rootPath string, files map[string]SchematicSource) (*Schematic, error) {
	read := func(path string) ([]byte, error) {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		s, ok := files[abs]
		if !ok {
			return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
		}
		return s.Src, nil
	}
	l := newLoader(rootPath, "", read)
	l.given = files
	if l.given == nil {
		l.given = map[string]SchematicSource{}
	}
	return l.load(rootPath)
}
