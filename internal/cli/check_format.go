package cli

import (
	"io"

	"copperhead/internal/checkfmt"
	"copperhead/internal/kicad"
	"copperhead/internal/verify"
)

// writeSARIF writes check's result as SARIF 2.1.0 (checkfmt.SARIF), with
// ERC findings placed in the file of their sheet.
func writeSARIF(out io.Writer, w *workspace, res *verify.Result) error {
	var sheets []kicad.SheetInstance
	if sch, err := kicad.LoadSchematicWithin(w.proj.Schematic, w.repo); err == nil {
		sheets = sch.Sheets
	}
	return checkfmt.SARIF(out, res, checkfmt.Project{Repo: w.repo, Schematic: w.proj.Schematic, Board: w.proj.Board,
		Sheets: sheets, Config: w.cfg, Version: version()})
}

// writeJUnit writes check's result as JUnit XML (checkfmt.JUnit).
func writeJUnit(out io.Writer, res *verify.Result, strict bool) error {
	return checkfmt.JUnit(out, res, strict)
}
