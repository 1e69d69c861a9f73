package layout

import (
	"fmt"

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
