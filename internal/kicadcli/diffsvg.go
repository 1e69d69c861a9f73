package kicadcli

import "context"

// ExportBoardPageSVG plots the board at board (copper, silkscreen and the
// outline, no drawing sheet) into outFile on its whole page, so the SVG's
// viewBox is KiCad's page in millimetres and a footprint's (at x y) is the
// same point in the picture: what an overlay of the board's parts needs.
// ExportSVG crops to the board instead, at an offset the SVG does not state.
// Never cached, like ExportSVG.
func (t *Tool) ExportBoardPageSVG(ctx context.Context, board, outFile string) error {
	_, err := t.exportToFile(ctx, board, outFile, []string{"pcb", "export", "svg", "--layers", boardSVGLayers,
		"--mode-single", "--exclude-drawing-sheet", "--page-size-mode", "0"})
	return err
}
