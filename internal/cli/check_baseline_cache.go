package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"copperhead/internal/atomicfile"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/verify"
)

// check --baseline REV checks REV out and hashes its design for the
// kicad-cli cache on every run, even when nothing about REV changed: a
// checkout of vme-wren and 88 MB of hashing, twice a cached plain check.
// A commit never changes, so its result is cached by commit instead,
// together with everything else it depends on (baselineKey). The entry holds
// only what the comparison reads: the ERC and DRC gates, the drift
// mismatches, the constraint violations, the netlist's nets (for the nets
// renamed since: verify.RenameNets) and the SHA-256 of the revision's board files (for boardUnchanged).

// baselineCacheFormat names the entry layout and key recipe; bump it when
// either changes.
const baselineCacheFormat = "copperhead baseline cache v2"

// baselineCacheSubdir is the baseline cache's folder inside the kicad-cli
// cache folder.
const baselineCacheSubdir = "baseline"

// baselineEntry is one cached baseline result.
type baselineEntry struct {
	Format      string                       `json:"format"`
	ERC         verify.ToolGate              `json:"erc"`
	DRC         verify.ToolGate              `json:"drc"`
	Drift       []design.Mismatch            `json:"drift"`
	Constraints []design.ConstraintViolation `json:"constraints"`
	Netlist     *kicad.Netlist               `json:"netlist"` // verify.RenameNets: what finds the nets renamed since
	Board       map[string]string            `json:"board"`   // SHA-256 of the board files at the commit
}

// baselineKey is the cache key of a baseline result: the commit, where the
// project is in it (sub, the schematic and board paths), the options that
// change a verdict, kicad-cli's identity (version, libraries) and the
// copperhead binary's, since its parsers and gates made the result. "" when
// the binary cannot be identified: then nothing is cached.
func baselineKey(tool *kicadcli.Tool, w *workspace, commit, sub string, opt checkOptions) string {
	self := executableIdentity()
	if self == "" {
		return ""
	}
	rel := func(p string) string {
		if p == "" {
			return ""
		}
		r, err := filepath.Rel(w.repo, p)
		if err != nil {
			return p
		}
		return filepath.ToSlash(r)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\ncommit %s\nsub %q\nschematic %q\nboard %q\nstrict %v\nstrict-sourcing %v\ncopperhead %s\n%s",
		baselineCacheFormat, commit, filepath.ToSlash(sub), rel(w.proj.Schematic), rel(w.proj.Board),
		opt.strict, opt.strictSourcing, self, tool.Identity())
	return hex.EncodeToString(h.Sum(nil))
}

// executableIdentity names the running copperhead binary by path, size,
// modification and change times and inode; "" when it cannot be read.
func executableIdentity() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	id := fmt.Sprintf("%s size=%d mtime=%d", exe, fi.Size(), fi.ModTime().UnixNano())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id += fmt.Sprintf(" dev=%d ino=%d ctime=%d.%09d", st.Dev, st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
	}
	return id
}

// newBaselineEntry keeps what ApplyBaseline and boardUnchanged read.
func newBaselineEntry(r *verify.Result, board map[string]string) baselineEntry {
	return baselineEntry{ERC: r.ERC, DRC: r.DRC, Drift: r.Drift.Mismatches, Constraints: r.Constraints.Violations, Netlist: verify.RenameNets(r.Netlist), Board: board}
}

// result is the entry as the Result the baseline's check returned, its
// kicad-cli gates marked cached.
func (e *baselineEntry) result() *verify.Result {
	r := &verify.Result{ERC: e.ERC, DRC: e.DRC,
		Drift:       verify.DriftGate{Mismatches: e.Drift},
		Constraints: verify.ConstraintsGate{Violations: e.Constraints},
		Netlist:     e.Netlist}
	r.ERC.Cached, r.DRC.Cached = true, true
	return r
}

// loadBaselineEntry reads the entry at path; nil when there is none or it
// cannot be read (then the revision is checked out and checked again).
func loadBaselineEntry(path string) *baselineEntry {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var e baselineEntry
	if json.Unmarshal(data, &e) != nil || e.Format != baselineCacheFormat {
		return nil
	}
	return &e
}

// storeBaselineEntry writes e at path atomically. Failing to cache never
// fails a check, so errors are dropped.
func storeBaselineEntry(path string, e baselineEntry) {
	e.Format = baselineCacheFormat
	data, err := json.Marshal(e)
	if err != nil {
		return
	}
	_ = atomicfile.Write(path, data, 0o644)
}
