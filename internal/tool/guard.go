package tool

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"copperhead/internal/kicad"
	"copperhead/internal/sexpr"
)

// The edit guard (AC-15.20 - AC-15.22) keeps edit_file from turning a
// schematic or board that KiCad can load into one it cannot: a model that
// breaks the s-expression structure would otherwise spend its repair cycles
// on "Failed to load schematic" with no location, or leave a file the user's
// KiCad refuses to open. An edit that makes a loadable file unloadable is
// reverted to the exact old bytes and answered with the loader's error. A
// file that was already unloadable keeps every edit, so the model can repair
// it step by step. Only .kicad_sch and .kicad_pcb are guarded: project,
// symbol-library and footprint files (.kicad_pro, .kicad_sym, .kicad_mod)
// are never probed or reverted.

// probeTimeout bounds one kicad-cli load probe. Loading the fixture takes
// about half a second; the bound only keeps a hung kicad-cli from holding an
// edit for the kicad-cli default of twenty minutes.
const probeTimeout = 5 * time.Minute

// Guarded reports whether edits to rel go through the guard.
func Guarded(rel string) bool {
	switch path.Ext(rel) {
	case ".kicad_sch", ".kicad_pcb":
		return true
	}
	return false
}

// loadState is the outcome of probing one version of a file.
type loadState struct {
	sum [sha256.Size]byte
	ok  bool
	why string // the loader's error when !ok
}

// ErrProbeUnfinished means the probe could not decide (kicad-cli timed out,
// or the run was cancelled): the guard then keeps the edit.
var ErrProbeUnfinished = errors.New("load probe did not finish")

// parseProblem is our own loader's objection to a KiCad file, or "". A
// board goes through kicad.LoadBoard, which skims past zone fills and tracks
// (a full parse of a large board allocates hundreds of megabytes) and falls
// back to a full parse only to locate an error.
func parseProblem(rel, abs string, src []byte) string {
	if path.Ext(rel) == ".kicad_pcb" {
		if _, err := kicad.LoadBoard(abs); err != nil {
			return "our parser: " + strings.ReplaceAll(err.Error(), abs, rel)
		}
		return ""
	}
	n, err := sexpr.Parse(rel, src)
	if err != nil {
		return "our parser: " + err.Error()
	}
	if n.Head() != "kicad_sch" {
		return fmt.Sprintf("our parser: %s holds (%s ...), want (kicad_sch ...)", rel, n.Head())
	}
	return ""
}

// Loads reports whether the KiCad file at abs, whose content is src (it must
// be what is on disk: kicad-cli reads the file), loads, with the loader's
// error when it does not. Our own parser runs first: it is cheap and names
// the line and column of a syntax error. A file it accepts still goes to
// kicad-cli, the authority, which also rejects well-formed files with
// tokens KiCad does not know. A file our parser rejects goes to kicad-cli as
// well, so the answer quotes kicad-cli's own words, and so a file only our
// parser dislikes is never reverted. Results are remembered by content hash.
func (s *Session) Loads(ctx context.Context, rel, abs string, src []byte) (bool, string, error) {
	sum := sha256.Sum256(src)
	if st, ok := s.tools.loadable[rel]; ok && st.sum == sum {
		return st.ok, st.why, nil
	}
	parseWhy := parseProblem(rel, abs, src)
	ok, why := parseWhy == "", parseWhy
	if s.KiCad != nil {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		err := s.KiCad.Load(pctx, abs)
		timedOut := pctx.Err() != nil
		cancel()
		switch {
		case ctx.Err() != nil:
			return false, "", ctx.Err()
		case timedOut:
			return false, "", fmt.Errorf("%w: kicad-cli did not load %s within %v", ErrProbeUnfinished, rel, probeTimeout)
		case err != nil:
			ok, why = false, s.Scrub(err.Error())
			if parseWhy != "" {
				why += " (" + parseWhy + ")"
			}
		default:
			ok, why = true, ""
		}
	}
	if s.tools.loadable == nil {
		s.tools.loadable = map[string]loadState{}
	}
	s.tools.loadable[rel] = loadState{sum: sum, ok: ok, why: why}
	return ok, why, nil
}
