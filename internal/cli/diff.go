package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/gitrepo"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/netdiff"
	"copperhead/internal/project"
	"copperhead/internal/tempdir"
	"copperhead/internal/textfmt"
)

func newDiffCmd(a *app) *cobra.Command {
	var base, head, format, svgDir string
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "The electrical diff between two revisions: parts, nets, renames, moved pins, budgets and BOM rows",
		Long: `diff compares KiCad's own netlist of two versions of the design (kicad-cli's
export of each side, cached by content) and their docs: parts added, removed
and changed (each field), nets added and removed, nets renamed (one rename,
not a removal and an addition: the two nets share more than half of each
one's pins), pins that moved between nets, SPEC.md ## Budgets, the budgets of
.copperhead/config.json, .copperhead/constraints.json entries and BOM.md rows.

--base (default HEAD) and --head (default: the working tree as it is) are
checked out read-only into git worktrees outside the repository; the
working tree, the index, the stash and the refs are never written.

--format markdown prints a pull-request comment; --svg DIR writes the head's
picture of each changed sheet and of the board with the changes outlined
(added green, removed red at the base's position, changed amber).

Exit 0 whatever the diff, 2 for bad usage, an unknown revision or no
kicad-cli, 1 when a side does not load.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch format {
			case "", "text":
				format = "text"
			case "json":
				a.json = true
			case "markdown", "md":
				format = "markdown"
				if a.json {
					return usagef("--format markdown and --json are two outputs: pick one")
				}
			default:
				return withHint(usagef("--format %s: want text, markdown or json", format), "see 'copperhead diff --help'")
			}
			err := a.runDiff(cmd.Context(), base, head, format, svgDir)
			if err != nil && a.mode() == modeJSON {
				var ee *exitError
				code, msg := ExitFailed, err.Error()
				if errors.As(err, &ee) {
					code = ee.code
				}
				_ = writeJSON(a.io.Out, struct {
					OK    bool   `json:"ok"`
					Error string `json:"error"`
					Code  int    `json:"exit_code"`
				}{false, textfmt.OneLine(msg), code})
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&base, "base", "HEAD", "the `revision` to compare from")
	f.StringVar(&head, "head", "", "the `revision` to compare to (default: the working tree)")
	f.StringVar(&format, "format", "text", "output `format`: text, markdown (a PR comment) or json")
	f.StringVar(&svgDir, "svg", "", "write a picture per changed sheet and of the board into `folder`")
	return cmd
}

// diffSide is one version of the design, loaded.
type diffSide struct {
	label  string // "HEAD (1a2b3c4)", "working tree"
	rev    string
	commit string
	root   string // the folder holding it
	proj   *project.Project
	sch    *kicad.Schematic
	nl     *kicad.Netlist
	docs   netdiff.Docs
	// board and tracks are the side's board read for the layout diff (nil
	// without a board); boardErr says why a board could not be read.
	board    *kicad.Board
	tracks   []kicad.Track
	boardErr error
}

func (a *app) runDiff(ctx context.Context, baseRev, headRev, format, svgDir string) (err error) {
	repo, err := a.repoDir()
	if err != nil {
		return err
	}
	if !gitrepo.IsRepo(ctx, repo) {
		return usagef("diff compares git revisions: %s is not in a git repository", repo)
	}
	baseCommit, err := gitrepo.ResolveCommit(ctx, repo, baseRev)
	if err != nil {
		return usagef("--base %v", err)
	}
	headCommit := ""
	if headRev != "" {
		if headCommit, err = gitrepo.ResolveCommit(ctx, repo, headRev); err != nil {
			return usagef("--head %v", err)
		}
	}
	t, err := findKiCad(ctx)
	if err != nil {
		return err
	}

	// Each commit is checked out into a scratch worktree outside the
	// repository; the working tree is read where it is.
	var scratches []*gitrepo.Scratch
	defer func() {
		for _, s := range scratches {
			if rmErr := s.Remove(ctx); rmErr != nil && err == nil {
				err = failf("%v", rmErr)
			}
		}
	}()
	realRepo := repo
	if r, err := filepath.EvalSymlinks(repo); err == nil {
		realRepo = r
	}
	checkout := func(commit string) (string, error) {
		s, err := gitrepo.NewScratchAt(ctx, repo, commit)
		if err != nil {
			return "", failf("%v", err)
		}
		scratches = append(scratches, s)
		// --repo may name a folder below the repository's top.
		sub, rerr := filepath.Rel(s.Repo, realRepo)
		if rerr != nil || !filepath.IsLocal(sub) {
			sub = "."
		}
		return filepath.Join(s.Root, sub), nil
	}

	short := func(h string) string { return h[:min(7, len(h))] }
	b := &diffSide{label: baseRev + " (" + short(baseCommit) + ")", rev: baseRev, commit: baseCommit}
	if b.root, err = checkout(baseCommit); err != nil {
		return err
	}
	h := &diffSide{label: "working tree", root: repo}
	if headCommit != "" {
		h = &diffSide{label: headRev + " (" + short(headCommit) + ")", rev: headRev, commit: headCommit}
		if h.root, err = checkout(headCommit); err != nil {
			return err
		}
	}
	for _, s := range []*diffSide{b, h} {
		if err := s.load(ctx, t); err != nil {
			return err
		}
	}

	res := netdiff.Diff(b.nl, h.nl, b.docs, h.docs)
	var notes []string
	res.Layout, notes = diffLayout(b, h, res.Renamed)
	res.Docs.Notes = append(res.Docs.Notes, notes...)
	var pics []netdiff.Picture
	if svgDir != "" {
		var notes []string
		if pics, notes, err = writeDiffPictures(ctx, t, res, b, h, svgDir); err != nil {
			return err
		}
		for _, n := range notes {
			fmt.Fprintf(a.io.Err, "copperhead: diff --svg: %s\n", n)
		}
	}
	if a.mode() == modeJSON {
		return writeJSON(a.io.Out, diffJSON(res, b, h, pics))
	}
	if format == "markdown" {
		_, err := fmt.Fprint(a.io.Out, netdiff.Markdown(b.label, h.label, res, pics))
		return err
	}
	if err := netdiff.WriteText(a.io.Out, b.label, h.label, res); err != nil {
		return err
	}
	for _, p := range pics {
		fmt.Fprintf(a.io.Out, "wrote %s\n", p.Path)
	}
	return nil
}

// load locates one side's KiCad project, loads its schematic, asks
// kicad-cli for its netlist and reads its doc files. A side that does not
// load is exit 1, naming the side.
func (s *diffSide) load(ctx context.Context, t *kicadcli.Tool) error {
	fail := func(err error) error {
		return failf("%s: %s", s.label, s.relMsg(err))
	}
	cfg, found, err := config.LoadConfig(s.root)
	if err != nil {
		return fail(err)
	}
	sch, brd := "", ""
	if found {
		sch, brd = cfg.Schematic, cfg.Board
	} else {
		cfg = config.DefaultConfig()
	}
	if s.proj, err = project.Locate(s.root, "", sch, brd); err != nil {
		if errors.Is(err, project.ErrAmbiguous) {
			return withHint(fail(err), ambiguousHint)
		}
		return fail(err)
	}
	if s.sch, err = kicad.LoadSchematicWithin(s.proj.Schematic, s.root); err != nil {
		return fail(err)
	}
	t.Boundary = s.root
	if s.nl, err = t.Netlist(ctx, s.proj.Schematic); err != nil {
		return fail(err)
	}
	if err := kicad.CheckNetlistCovers(s.sch, s.nl); err != nil {
		return fail(err)
	}
	read := func(rel string) ([]byte, error) {
		data, err := config.ReadRepoFile(s.root, rel)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return data, err
	}
	docs := cfg.DocsDir()
	for _, f := range []struct {
		rel string
		dst *[]byte
	}{
		{path.Join(docs, "SPEC.md"), &s.docs.Spec},
		{config.ConfigPath, &s.docs.Config},
		{config.ConstraintsPath, &s.docs.Constraints},
		{path.Join(docs, "BOM.md"), &s.docs.BOM},
	} {
		if *f.dst, err = read(f.rel); err != nil {
			return fail(err)
		}
	}
	return nil
}

// diffLayout is the board half of the diff, and the note that says why the
// boards were not compared when a side's board cannot be read. The board is
// compared for what the netlist cannot show (a footprint moved, copper
// redrawn); a board that cannot be read leaves the layout out with a note,
// and the electrical diff stands.
//
// Two boards holding the same bytes are not read at all: a board compared
// with itself has no layout changes (DiffBoards pairs every footprint and
// piece of copper with itself, whatever nets were renamed), and reading
// vme-wren's 69 MB board twice added 4 s to every diff that did not touch it.
func diffLayout(b, h *diffSide, renamed []netdiff.Rename) (netdiff.Layout, []string) {
	if b.proj.Board != "" && h.proj.Board != "" && sameFileBytes(b.proj.Board, h.proj.Board) {
		return netdiff.Layout{}, nil
	}
	for _, s := range []*diffSide{b, h} {
		s.loadBoard()
	}
	for _, s := range []*diffSide{b, h} {
		if s.boardErr != nil {
			return netdiff.Layout{}, []string{fmt.Sprintf("the boards were not compared: %s: %s", s.label, s.relMsg(s.boardErr))}
		}
	}
	return netdiff.DiffBoards(b.board, h.board, b.tracks, h.tracks, renamed), nil
}

// loadBoard reads the side's board for the layout diff: board and tracks,
// or boardErr. A side without a board leaves both nil.
func (s *diffSide) loadBoard() {
	if s.proj.Board == "" {
		return
	}
	if s.board, s.boardErr = kicad.LoadBoard(s.proj.Board); s.boardErr == nil {
		s.tracks, s.boardErr = kicad.BoardTracks(s.proj.Board)
	}
	if s.boardErr != nil {
		s.board, s.tracks = nil, nil
	}
}

// sameFileBytes reports whether the files at a and b hold the same bytes:
// their sizes first, then their bytes a chunk at a time (a large board is
// never held in memory twice). A file that cannot be read is never the
// same: the caller reads it and reports why it cannot.
func sameFileBytes(a, b string) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	sa, err := fa.Stat()
	if err != nil || !sa.Mode().IsRegular() {
		return false
	}
	sb, err := fb.Stat()
	if err != nil || !sb.Mode().IsRegular() || sa.Size() != sb.Size() {
		return false
	}
	if os.SameFile(sa, sb) {
		return true
	}
	// sameFileChunk is sized to read a 69 MB board in about a thousand
	// reads per file, with two buffers small enough not to matter.
	const sameFileChunk = 64 << 10
	bufA, bufB := make([]byte, sameFileChunk), make([]byte, sameFileChunk)
	for {
		na, errA := io.ReadFull(fa, bufA)
		nb, errB := io.ReadFull(fb, bufB)
		if na != nb || !bytes.Equal(bufA[:na], bufB[:nb]) {
			return false
		}
		endA := errors.Is(errA, io.EOF) || errors.Is(errA, io.ErrUnexpectedEOF)
		endB := errors.Is(errB, io.EOF) || errors.Is(errB, io.ErrUnexpectedEOF)
		switch {
		case endA && endB:
			return true
		case errA != nil || errB != nil:
			return false // a read error, or one file ended first (it changed size while read)
		}
	}
}

// relMsg is err's text with the side's folder taken off its paths.
func (s *diffSide) relMsg(err error) string {
	return strings.ReplaceAll(err.Error(), s.root+string(filepath.Separator), "")
}

// writeDiffPictures plots the head's schematic and board with kicad-cli and
// writes, into dir, the sheets that hold a change and the board, with the
// changes outlined.
func writeDiffPictures(ctx context.Context, t *kicadcli.Tool, res *netdiff.Result, b, h *diffSide, dir string) (pics []netdiff.Picture, notes []string, err error) {
	tmp, err := tempdir.Make("diff-svg")
	if err != nil {
		return nil, nil, failf("--svg: %v", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, usagef("--svg %s: %v", dir, errors.Unwrap(err))
	}
	write := func(name, src string, marks []netdiff.Mark) error {
		data, err := os.ReadFile(src)
		if err != nil {
			return failf("--svg: %v", err)
		}
		out, err := netdiff.Overlay(data, marks)
		if err != nil {
			return failf("--svg %s: %v", filepath.Base(src), err)
		}
		dst := filepath.Join(dir, filepath.Base(src))
		if err := os.WriteFile(dst, out, 0o644); err != nil {
			return failf("--svg: %v", err)
		}
		pics = append(pics, netdiff.Picture{Name: name, Path: dst})
		return nil
	}

	sheets := netdiff.SheetMarks(&res.Electrical, b.sch, h.sch)
	if len(sheets) > 0 {
		files, err := t.ExportSVG(ctx, h.proj.Schematic, filepath.Join(tmp, "sch"))
		if err != nil {
			return nil, nil, failf("%s: %v", h.label, err)
		}
		byName := map[string]string{}
		for _, f := range files {
			byName[filepath.Base(f)] = f
		}
		stem := strings.TrimSuffix(filepath.Base(h.proj.Schematic), ".kicad_sch")
		for _, inst := range h.sch.Sheets {
			marks := sheets[inst.Path]
			if len(marks) == 0 {
				continue
			}
			src, ok := byName[sheetSVGName(stem, inst.Path)]
			if !ok {
				notes = append(notes, fmt.Sprintf("no picture of sheet %s: kicad-cli wrote no %s", inst.Path, sheetSVGName(stem, inst.Path)))
				continue
			}
			if err := write("sheet "+inst.Path, src, marks); err != nil {
				return nil, nil, err
			}
		}
	}
	if h.proj.Board != "" {
		var baseExt, headExt map[string]kicad.Extent
		var baseTracks, headTracks []kicad.Track
		if headExt, err = kicad.FootprintExtents(h.proj.Board); err != nil {
			return nil, nil, failf("%s: %v", h.label, err)
		}
		if headTracks, err = kicad.BoardTracks(h.proj.Board); err != nil {
			return nil, nil, failf("%s: %v", h.label, err)
		}
		if b.proj.Board != "" {
			if baseExt, err = kicad.FootprintExtents(b.proj.Board); err != nil {
				return nil, nil, failf("%s: %v", b.label, err)
			}
			if baseTracks, err = kicad.BoardTracks(b.proj.Board); err != nil {
				return nil, nil, failf("%s: %v", b.label, err)
			}
		}
		src := filepath.Join(tmp, strings.TrimSuffix(filepath.Base(h.proj.Board), ".kicad_pcb")+"-board.svg")
		if err := t.ExportBoardPageSVG(ctx, h.proj.Board, src); err != nil {
			return nil, nil, failf("%s: %v", h.label, err)
		}
		marks := append(netdiff.BoardMarks(&res.Electrical, baseExt, headExt), netdiff.MovedMarks(&res.Layout, &res.Electrical, baseExt, headExt)...)
		marks = append(marks, netdiff.TrackMarks(baseTracks, headTracks)...)
		if err := write("board", src, marks); err != nil {
			return nil, nil, err
		}
	}
	return pics, notes, nil
}

// sheetSVGName is the file kicad-cli's `sch export svg` writes for a sheet
// instance: "<project>.svg" for the root, "<project>-<sheet names joined by
// ->.svg" below it (checked on vme-wren: "vme-wren-fpga-fpga-mgts-fpga-mgts-power.svg").
func sheetSVGName(stem, sheetPath string) string {
	p := strings.Trim(sheetPath, "/")
	if p == "" {
		return stem + ".svg"
	}
	return stem + "-" + strings.ReplaceAll(p, "/", "-") + ".svg"
}

// diffJSON is the --json shape of a diff.
func diffJSON(r *netdiff.Result, b, h *diffSide, pics []netdiff.Picture) any {
	type sideJSON struct {
		Rev         string `json:"rev"`             // as given; "" for the working tree
		Commit      string `json:"commit"`          // "" for the working tree
		WorkingTree bool   `json:"working_tree"`    // the head is the working tree as it is
		Schematic   string `json:"schematic"`       // repo-relative
		Board       string `json:"board,omitempty"` // repo-relative
		Label       string `json:"label"`           // as the text output names it
	}
	side := func(s *diffSide) sideJSON {
		return sideJSON{Rev: s.rev, Commit: s.commit, WorkingTree: s.commit == "", Schematic: s.proj.Rel(s.proj.Schematic), Board: s.proj.Rel(s.proj.Board), Label: s.label}
	}
	e, d := &r.Electrical, &r.Docs
	type components struct {
		Added   []netdiff.Component       `json:"added"`
		Removed []netdiff.Component       `json:"removed"`
		Changed []netdiff.ComponentChange `json:"changed"`
	}
	type nets struct {
		Added   []netdiff.NetEntry `json:"added"`
		Removed []netdiff.NetEntry `json:"removed"`
		Renamed []netdiff.Rename   `json:"renamed"`
	}
	type docs struct {
		SpecBudgets   []netdiff.ValueChange `json:"spec_budgets"`
		ConfigBudgets []netdiff.ValueChange `json:"config_budgets"`
		Constraints   []netdiff.EntryChange `json:"constraints"`
		BOMAdded      []design.BOMRow       `json:"bom_added"`
		BOMRemoved    []design.BOMRow       `json:"bom_removed"`
		BOMChanged    []netdiff.RowChange   `json:"bom_changed"`
		Notes         []string              `json:"notes"`
	}
	type layout struct {
		BoardAdded   bool                     `json:"board_added"`
		BoardRemoved bool                     `json:"board_removed"`
		Moved        []netdiff.FootprintMove  `json:"footprints_moved"`
		Added        []netdiff.BoardFootprint `json:"footprints_added"`
		Removed      []netdiff.BoardFootprint `json:"footprints_removed"`
		Tracks       netdiff.CopperChange     `json:"tracks"`
		Vias         netdiff.CopperChange     `json:"vias"`
	}
	l := &r.Layout
	return struct {
		OK         bool              `json:"ok"`
		Base       sideJSON          `json:"base"`
		Head       sideJSON          `json:"head"`
		Summary    string            `json:"summary"`
		Empty      bool              `json:"empty"`
		Components components        `json:"components"`
		Nets       nets              `json:"nets"`
		PinMoves   []netdiff.PinMove `json:"pin_moves"`
		Layout     layout            `json:"layout"`
		Docs       docs              `json:"docs"`
		Pictures   []netdiff.Picture `json:"pictures"`
	}{
		OK: true, Base: side(b), Head: side(h), Summary: netdiff.Summary(r), Empty: r.Empty(),
		Components: components{nonNil(e.Added), nonNil(e.Removed), nonNil(e.Changed)},
		Nets:       nets{nonNil(e.NetsAdded), nonNil(e.NetsRemoved), nonNil(e.Renamed)},
		PinMoves:   nonNil(e.PinMoves),
		Layout: layout{l.BoardAdded, l.BoardRemoved, nonNil(l.Moved), nonNil(l.Added), nonNil(l.Removed),
			l.Tracks, l.Vias},
		Docs: docs{nonNil(d.SpecBudgets), nonNil(d.ConfigBudgets), nonNil(d.Constraints), nonNil(d.BOMAdded),
			nonNil(d.BOMRemoved), nonNil(d.BOMChanged), nonNil(d.Notes)},
		Pictures: nonNil(pics),
	}
}
