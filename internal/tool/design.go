package tool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"copperhead/internal/kicad"
	"copperhead/internal/project"
)

// DesignFile locates the run's root schematic or board: the located project
// first, then the config's path, then a search of the repository (a create
// run may gain a schematic mid-run). It returns "" for both when the
// repository has none yet, which the KiCad tools report as "not applicable
// yet" rather than as an error (AC-15.12).
func (s *Session) DesignFile(board bool) (abs, rel string) {
	usable := func(c string) bool {
		if c == "" {
			return false
		}
		fi, err := os.Stat(c)
		if err != nil || !fi.Mode().IsRegular() {
			return false
		}
		rel, _ = Inside(filepath.Clean(s.Repo), filepath.Clean(c))
		return rel != ""
	}
	if s.Project != nil {
		if c := pick(board, s.Project.Board, s.Project.Schematic); usable(c) {
			return c, rel
		}
	}
	if c := pick(board, s.Config.Board, s.Config.Schematic); c != "" {
		if c = filepath.Join(s.Repo, filepath.FromSlash(c)); usable(c) {
			return c, rel
		}
	}
	if pr, err := project.Locate(s.Repo, "", "", ""); err == nil {
		if c := pick(board, pr.Board, pr.Schematic); usable(c) {
			return c, rel
		}
	}
	return "", ""
}

func pick(board bool, ifBoard, ifSchematic string) string {
	if board {
		return ifBoard
	}
	return ifSchematic
}

// Netlist exports the root schematic's netlist with kicad-cli. When there
// is none, it returns nil and the result to give the model: "not applicable
// yet" for a repository without a schematic, an IsError one for a failure.
func (s *Session) Netlist(ctx context.Context, tool string) (*kicad.Netlist, string, Result) {
	abs, rel := s.DesignFile(false)
	if abs == "" {
		return nil, "", Result{Text: tool + ": not applicable yet: the repository has no schematic (.kicad_sch)"}
	}
	if s.KiCad == nil {
		return nil, rel, Errorf("%s: kicad-cli is not available on this machine, so the netlist cannot be exported", tool)
	}
	nl, err := s.KiCad.Netlist(ctx, abs)
	if err != nil {
		return nil, rel, Errorf("%s: %s", tool, s.Scrub(err.Error()))
	}
	return nl, rel, Result{}
}

// CountRepair counts a failed check as a repair cycle when it follows a
// KiCad edit not already counted, and says where the run stands.
func (s *Session) CountRepair() string {
	if s.KiCadEditSeq == 0 {
		return " (this design failed before any edit of this run: no repair cycle counted)"
	}
	if s.tools.repairCounted != s.KiCadEditSeq {
		s.tools.repairCounted = s.KiCadEditSeq
		s.RepairCycles++
	}
	if m := s.Config.MaxRepairCycles; m > 0 {
		return fmt.Sprintf(" Repair cycle %d of %d.", s.RepairCycles, m)
	}
	return fmt.Sprintf(" Repair cycle %d.", s.RepairCycles)
}
