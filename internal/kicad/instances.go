package kicad

import (
	"path/filepath"
	"strings"
)

// This file is the one instance model: which per-instance annotations of a
// placed symbol belong to this design. The read model (LoadSchematic) and
// every edit operation (schedit) decide it here, so `parts` and `edit`
// cannot disagree about which reference a symbol has.
//
// A placed symbol is annotated per sheet instance in one of two places:
//   - KiCad 7 and later: the symbol's own
//     (instances (project "NAME" (path "/<root uuid>/<sheet uuid>..." (reference ..) (unit ..))));
//   - KiCad 6: the root file's
//     (symbol_instances (path "/<sheet uuid>.../<symbol uuid>" (reference ..) (unit ..) (value ..) (footprint ..))).
//
// A symbol copied from another project keeps that project's entries, with
// that project's root UUID in the path. KiCad ignores them, and so must
// copperhead: an entry counts only when its path is exactly this design's
// path for the sheet instance. When two entries share that path (a project
// copied under a new name keeps the old name's entries beside the new
// ones), the entry of the current project wins.

// ProjectName is the name KiCad writes in (instances (project NAME ..)) for
// the design rooted at rootPath: the root schematic's base name without
// its extension.
func ProjectName(rootPath string) string {
	base := filepath.Base(rootPath)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// InstancePath is the (path ..) a KiCad 7+ (instances ..) entry carries for
// a symbol in the sheet instance whose UUIDPath is sheetUUIDPath ("/" for
// the root sheet, "/<sheet uuid>/..." below it): "/<root uuid>" followed by
// the sheet UUIDs.
func InstancePath(rootUUID, sheetUUIDPath string) string {
	return "/" + rootUUID + strings.TrimSuffix(sheetUUIDPath, "/")
}

// LegacyInstancePath is the (path ..) of a KiCad 6 root's
// (symbol_instances ..) entry for the symbol symbolUUID in the sheet
// instance sheetUUIDPath: the sheet UUIDs followed by the symbol's.
func LegacyInstancePath(sheetUUIDPath, symbolUUID string) string {
	return strings.TrimSuffix(sheetUUIDPath, "/") + "/" + symbolUUID
}

// PickInstance returns the KiCad 7+ entry among entries that annotates a
// symbol in the sheet instance sheetUUIDPath of the design whose root
// schematic has UUID rootUUID and project name project, or nil when none
// does. key reads an entry's project name and path. Entries of other
// designs (another root UUID in the path) never count; of several entries
// with the right path, the current project's wins, else the first.
func PickInstance[E any](entries []E, key func(*E) (project, path string), project, rootUUID, sheetUUIDPath string) *E {
	want := InstancePath(rootUUID, sheetUUIDPath)
	var found *E
	foundOwn := false
	for i := range entries {
		proj, path := key(&entries[i])
		if path != want {
			continue
		}
		own := proj == project
		if found == nil || own && !foundOwn {
			found, foundOwn = &entries[i], own
		}
	}
	return found
}
