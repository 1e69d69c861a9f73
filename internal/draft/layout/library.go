package layout

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"copperhead/internal/kicad"
	"copperhead/internal/kicad/kigen"
)

func footprintDir() string { return kigen.FootprintDir() }

// Libraries maps footprint library nicknames to their .pretty folders, as
// kigen.FootprintLibraries resolves them (the project's fp-lib-table, then
// the installed set).
type Libraries = kigen.FootprintLibraries

// FindLibraries builds the library map for the project whose root
// schematic lives in projectDir.
func FindLibraries(projectDir string) Libraries { return kigen.FindFootprintLibraries(projectDir) }

// loadFootprint reads the footprint libID ("Lib:Name") from its library.
func loadFootprint(l Libraries, libID string) (*Footprint, error) {
	path, src, err := l.Source(libID)
	if err != nil {
		return nil, err
	}
	fp, err := ParseFootprint(path, src)
	if err != nil {
		return nil, fmt.Errorf("footprint %s: %w", libID, err)
	}
	fp.LibID = libID
	return fp, nil
}

// BoardFootprint is a footprint no library holds, taken from the project's
// board for the parts that use it.
type BoardFootprint struct {
	Footprint string   `json:"footprint"` // the lib:fp the schematic names
	Refdes    []string `json:"refdes"`    // the parts drafted with it
	Board     string   `json:"board"`     // the board it came from, as displayed
	// BoardRefdes and BoardFootprint are the instance it was copied from:
	// its reference on that board and its UUID there.
	BoardRefdes    string `json:"board_refdes"`
	BoardFootprint string `json:"board_footprint"`
}

// boardSource is the project's existing board, read on first use: a board
// footprint embeds the whole footprint, so one placed there stands in for
// a footprint from a library that is not installed.
type boardSource struct {
	path, name string // the file, and as messages show it
	read       bool
	fps        []kicad.FootprintNode
	absent     bool
	err        error
}

func (b *boardSource) load() {
	if b.read {
		return
	}
	b.read = true
	if _, err := os.Stat(b.path); errors.Is(err, fs.ErrNotExist) {
		b.absent = true
		return
	}
	b.fps, b.err = kicad.LoadFootprintNodes(b.path)
}

// footprint takes the footprint fpid for the parts refs (sorted) from the
// board: the instance with the first of refs' references, else the first
// with that footprint, front side only (a flipped one is mirrored). The
// error says why the board has none, to follow a library's ", and ".
func (b *boardSource) footprint(fpid string, refs []string) (*Footprint, BoardFootprint, error) {
	if b == nil || b.path == "" {
		return nil, BoardFootprint{}, errors.New("no board to take it from")
	}
	b.load()
	switch {
	case b.absent:
		return nil, BoardFootprint{}, fmt.Errorf("no board to take it from (none at %s)", b.name)
	case b.err != nil:
		return nil, BoardFootprint{}, fmt.Errorf("the board %s to take it from cannot be read: %v", b.name, b.err)
	}
	rank := func(f *kicad.FootprintNode) int {
		if i := slices.Index(refs, f.Refdes); i >= 0 {
			return i
		}
		return len(refs)
	}
	var pick *kicad.FootprintNode
	var back []string
	for i := range b.fps {
		f := &b.fps[i]
		if f.LibID != fpid || f.Node.Head() != "footprint" {
			continue
		}
		if f.Layer == "B.Cu" {
			back = append(back, f.Refdes)
			continue
		}
		if pick == nil || rank(f) < rank(pick) {
			pick = f
		}
	}
	if pick == nil {
		if len(back) > 0 {
			return nil, BoardFootprint{}, fmt.Errorf("on the board %s only on the back side (%s there), which the draft does not flip back", b.name, strings.Join(back, ", "))
		}
		for _, ref := range refs {
			for _, f := range b.fps {
				if f.Refdes == ref {
					return nil, BoardFootprint{}, fmt.Errorf("not on the board %s (its %s there is %s, a different footprint)", b.name, ref, f.LibID)
				}
			}
		}
		return nil, BoardFootprint{}, fmt.Errorf("not on the board %s (no %s there)", b.name, strings.Join(refs, ", "))
	}
	lib, err := kigen.LibraryFootprint(pick.Node)
	if err != nil {
		return nil, BoardFootprint{}, fmt.Errorf("on the board %s (%s), but %v", b.name, pick.Refdes, err)
	}
	// The same parse as a library's .kicad_mod.
	fp, err := ParseFootprint(b.name+" "+pick.Refdes, []byte(kigen.Format(&lib)))
	if err != nil {
		return nil, BoardFootprint{}, fmt.Errorf("on the board %s (%s), but %v", b.name, pick.Refdes, err)
	}
	fp.LibID = fpid
	id := pick.Node.Value1("uuid")
	if id == "" {
		id = pick.Node.Value1("tstamp")
	}
	return fp, BoardFootprint{Footprint: fpid, Refdes: refs, Board: b.name, BoardRefdes: pick.Refdes, BoardFootprint: id}, nil
}
