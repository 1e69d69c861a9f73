package config

import (
	"errors"
	"fmt"
	"path/filepath"

	"copperhead/internal/repofs"
)

// Dir is copperhead's own folder in a user's repo. It is the one place the
// name is spelled: every path below, and every package that needs one of
// them, derives from it.
const Dir = ".copperhead"

// Paths of copperhead's own files in a user's repo, slash-separated and
// relative to the repo root.
const (
	ConfigPath      = Dir + "/config.json"      // the config schema below (committed)
	ConstraintsPath = Dir + "/constraints.json" // the constraint registry, internal/design (committed)
	ReadmePath      = Dir + "/README.md"        // what the folder holds, for a human (committed)
	DatasheetsDir   = Dir + "/datasheets"       // the datasheet cache, internal/datasheets (committed)
	RunsDir         = Dir + "/runs/"            // one folder per run: transcript.jsonl, summary.md (git-ignored)
	StateDir        = Dir + "/state"            // the one-writer lock and the journal, internal/txn (self-ignoring)
	FirmwareStatus  = Dir + "/firmware.json"    // create's firmware stage result
)

// ReadRepoFile reads the repository file at the slash-separated path rel,
// through repofs: a file that leads outside repoRoot (a symbolic link, "..")
// or is not a regular file is refused, naming rel ("docs/BOM.md is outside
// the repository (it resolves to /elsewhere/BOM.md)"); a missing one wraps
// fs.ErrNotExist.
func ReadRepoFile(repoRoot, rel string) ([]byte, error) {
	data, err := repofs.ReadFile(repoRoot, filepath.Join(repoRoot, filepath.FromSlash(rel)))
	return data, repofs.Renamed(err, rel)
}

// ReadError words a failed read of rel: a containment refusal already names
// the file ("docs/BOM.md is outside the repository"), anything else gets
// "read docs/BOM.md: ".
func ReadError(rel string, err error) error {
	var re *repofs.Error
	if errors.As(err, &re) {
		return err
	}
	return fmt.Errorf("read %s: %w", rel, err)
}
