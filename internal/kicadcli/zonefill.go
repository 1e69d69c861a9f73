package kicadcli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"copperhead/internal/tempdir"
)

// kicad-cli 9 neither fills zones nor refills them for DRC or plotting: a
// zone saved without filled polygons is DRC-clean and absent from the
// Gerbers. KiCad's own zone filler is reachable through the pcbnew Python
// module the KiCad package installs for the system Python, so FillZones
// runs that, the one other KiCad program copperhead starts.

// zoneFillScript loads a board, fills every zone with KiCad's filler and
// saves the result under a new name.
const zoneFillScript = `import sys
import pcbnew
board = pcbnew.LoadBoard(sys.argv[1])
pcbnew.ZONE_FILLER(board).Fill(board.Zones())
board.Save(sys.argv[2])
`

// zoneFillTimeout bounds one fill: a few seconds on a dense board.
const zoneFillTimeout = 2 * time.Minute

// pythonCandidates are the interpreters tried for pcbnew, in order: the
// system Python the KiCad package installs pcbnew for, then whatever
// python3 PATH names (a virtualenv or pyenv shim rarely has it).
var pythonCandidates = []string{"/usr/bin/python3", "python3"}

// ErrNoZoneFiller means no Python with KiCad's pcbnew module was found.
var ErrNoZoneFiller = errors.New("no python3 with KiCad's pcbnew module (the zone filler)")

// FillZones returns the board at board with every zone filled by KiCad's
// zone filler, as KiCad saves it (the caller takes what it needs: the
// filled polygons). The board itself is not changed. ErrNoZoneFiller when
// pcbnew cannot be imported.
func (t *Tool) FillZones(ctx context.Context, board string) ([]byte, error) {
	py, err := findPcbnewPython(ctx)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(board)
	if err != nil {
		return nil, err
	}
	dir, err := tempdir.Make("zonefill")
	if err != nil {
		return nil, fmt.Errorf("fill zones: %w", err)
	}
	defer os.RemoveAll(dir)
	env, err := t.env.prepare(dir)
	if err != nil {
		return nil, fmt.Errorf("fill zones: prepare private KiCad config: %w", err)
	}
	script := filepath.Join(dir, "fill.py")
	out := filepath.Join(dir, "filled.kicad_pcb")
	if err := os.WriteFile(script, []byte(zoneFillScript), 0o644); err != nil {
		return nil, fmt.Errorf("fill zones: %w", err)
	}
	label := "pcbnew zone fill " + board
	if _, err := runGroup(ctx, zoneFillTimeout, t.yield, label, dir, env, nil, py, script, abs, out); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("%s: wrote no board: %w", label, err)
	}
	return data, nil
}

// findPcbnewPython returns the first candidate interpreter that imports
// pcbnew.
func findPcbnewPython(ctx context.Context) (string, error) {
	for _, c := range pythonCandidates {
		p, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		if _, err := runGroup(ctx, 30*time.Second, false, p+" -c 'import pcbnew'", "", nil, nil, p, "-c", "import pcbnew"); err == nil {
			return p, nil
		}
	}
	return "", ErrNoZoneFiller
}
