package outputs

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"copperhead/internal/kicadcli"
	"copperhead/internal/textfmt"
	"copperhead/internal/txn"
)

// Artifact names, in the order Generate produces them; the values are part
// of manifest.json.
const (
	ArtifactGerbers      = "gerbers"
	ArtifactOutline      = "outline_dxf"
	ArtifactSTEP         = "step"
	ArtifactSchematicSVG = "schematic_svg"
	ArtifactBoardSVG     = "board_svg"
	ArtifactRender       = "render_png"
	ArtifactBOM          = "bom_csv"
	ArtifactCPL          = "cpl_csv"
)

// Artifact statuses.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
	// StatusSkipped is an artifact left out: by request (--no-step,
	// --no-render), never a failure; or a board artifact of a project with
	// no board (Reason NoBoard), which Gate fails once for all of them.
	StatusSkipped = "skipped"
)

// NoBoard is the reason of every board artifact (and of the DRC) of a
// project without a .kicad_pcb.
const NoBoard = "the project has no .kicad_pcb"

// errNoBoard is needBoard's refusal; run records it as a skip with reason
// NoBoard, not as a failure with the same words once per artifact.
var errNoBoard = errors.New(NoBoard)

// ManifestName is the manifest's file name inside the outputs folder.
const ManifestName = "manifest.json"

// DefaultDir is the outputs folder, repo-relative (docs/ARCHITECTURE.md,
// "Where state lives").
const DefaultDir = "outputs"

// Options choose what Generate produces.
type Options struct {
	Fab      string // fab profile name; "" is jlcpcb
	Supplier string // BOM supplier; "" is the fab profile's
	// SkipSTEP and SkipRender leave those artifacts out, recorded as skipped.
	// STEP is kept by default even when 3D models are missing (the board body
	// is still an enclosure reference; the missing parts are listed).
	SkipSTEP   bool
	SkipRender bool
	// Release refuses, before anything is written, a board that is not
	// DRC-clean or is still a copperhead draft (ErrNotReleasable).
	Release bool
}

// ErrNotReleasable is Generate's refusal under Options.Release.
var ErrNotReleasable = errors.New("not releasable")

// DRC is the design-rules result of the board as packaged, in manifest.json.
type DRC struct {
	Ran   bool `json:"ran"`
	Clean bool `json:"clean"` // no error-severity violation, no unconnected item, no parity error
	// Errors and Warnings count every finding of that severity: design
	// violations, unconnected items and parity issues alike (Report.Counts).
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	// Unconnected and Parity are how many of those findings are
	// unconnected items and schematic parity issues.
	Unconnected int `json:"unconnected"`
	Parity      int `json:"parity"`
	// Reason says why DRC did not run (no board, kicad-cli failed).
	Reason string `json:"reason,omitempty"`
}

// counts words the DRC numbers so that none reads as adding to another:
// the errors and warnings count every finding, and the unconnected items
// and parity issues are named as being among them ("2 errors, 18
// warnings; 5 parity issues among them").
func (d DRC) counts() string {
	var total, among []string
	if d.Errors > 0 {
		total = append(total, textfmt.Count(d.Errors, "error"))
	}
	if d.Warnings > 0 || d.Errors == 0 {
		total = append(total, textfmt.Count(d.Warnings, "warning"))
	}
	if d.Unconnected > 0 {
		among = append(among, textfmt.CountForms(d.Unconnected, "unconnected item", "unconnected items"))
	}
	if d.Parity > 0 {
		among = append(among, textfmt.CountForms(d.Parity, "parity issue", "parity issues"))
	}
	s := strings.Join(total, ", ")
	if len(among) > 0 {
		s += "; " + strings.Join(among, " and ") + " among them"
	}
	return s
}

// draftMarker is the title-block comment internal/draft/layout writes into
// every board it drafts (layout.DraftMarker; a test keeps them equal).
const draftMarker = "Layout draft by copperhead draft layout"

// ReleaseProblems says why a package is not order-ready: a board that is
// not DRC-clean, or one copperhead drafted. Empty when it is.
func (m Manifest) ReleaseProblems() []string {
	var p []string
	switch {
	case m.DRC == nil || !m.DRC.Ran:
		reason := "DRC did not run"
		if m.DRC != nil && m.DRC.Reason != "" {
			reason += ": " + m.DRC.Reason
		}
		p = append(p, reason)
	case !m.DRC.Clean:
		p = append(p, "the board is not DRC-clean ("+m.DRC.counts()+")")
	}
	if m.Draft {
		p = append(p, "the board is a copperhead layout draft (see LAYOUT.md Draft quality)")
	}
	return p
}

// Input is the project Generate works on. Paths are absolute.
type Input struct {
	Name      string // project name, e.g. "open-telegraph"
	Schematic string // root .kicad_sch
	Board     string // .kicad_pcb; "" skips every board artifact (reason NoBoard), which fails Gate
	BOMDoc    string // docs/BOM.md; a missing file means "schematic fields only"
	Repo      string // the repository the design files must stay inside; "" for anywhere
}

// Manifest is outputs/manifest.json. It holds no timestamps or durations, so
// regenerating an unchanged project changes only the hashes of files whose
// bytes kicad-cli itself stamps (Gerber and STEP headers carry a date).
type Manifest struct {
	Project         string     `json:"project"`
	KiCadCLIVersion string     `json:"kicad_cli_version"`
	Fab             string     `json:"fab"`
	Supplier        string     `json:"supplier"`
	DRC             *DRC       `json:"drc"`
	Draft           bool       `json:"draft"` // the board carries copperhead's layout-draft marker
	Artifacts       []Artifact `json:"artifacts"`
	Files           []File     `json:"files"` // every file but the manifest, sorted by path
}

// Artifact is one deliverable of the package and what became of it.
type Artifact struct {
	Name     string   `json:"name"`
	Status   string   `json:"status"`
	Files    []string `json:"files"`              // outputs-relative, slash-separated
	Contents []string `json:"contents,omitempty"` // for the Gerber zip: its entries
	Reason   string   `json:"reason,omitempty"`   // why it failed or was skipped
	Warnings []string `json:"warnings,omitempty"` // e.g. 3D models missing from the STEP
}

// File is one file of the package.
type File struct {
	Path   string `json:"path"` // outputs-relative, slash-separated
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Result is a Generate run: the manifest it wrote, and how long each
// artifact took (for the CLI; durations stay out of the manifest).
type Result struct {
	Dir      string
	Manifest Manifest
	Took     map[string]time.Duration
}

// SkippedForNoBoard names the artifacts skipped because the project has no
// board, in manifest order; nil when it has one.
func (m Manifest) SkippedForNoBoard() []string {
	var names []string
	for _, a := range m.Artifacts {
		if a.Status == StatusSkipped && a.Reason == NoBoard {
			names = append(names, a.Name)
		}
	}
	return names
}

// Gate is the stage's completion check on a manifest: every artifact is ok
// (or skipped by request) and has files. Verify applies it to the folder on
// disk, with hashes.
func (m Manifest) Gate() error {
	var problems []string
	if skipped := m.SkippedForNoBoard(); len(skipped) > 0 {
		problems = append(problems, "the project has no board (.kicad_pcb): skipped "+strings.Join(skipped, ", "))
	}
	for _, a := range m.Artifacts {
		switch {
		case a.Status == StatusSkipped:
		case a.Status != StatusOK:
			problems = append(problems, fmt.Sprintf("%s %s: %s", a.Name, a.Status, a.Reason))
		case len(a.Files) == 0:
			problems = append(problems, a.Name+": no files")
		}
	}
	for _, want := range []string{ArtifactGerbers, ArtifactOutline, ArtifactSTEP, ArtifactSchematicSVG, ArtifactBoardSVG, ArtifactRender, ArtifactBOM, ArtifactCPL} {
		if !slices.ContainsFunc(m.Artifacts, func(a Artifact) bool { return a.Name == want }) {
			problems = append(problems, want+": missing from the manifest")
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// Generate produces the outputs package for in into dir (created when
// missing) with kicad-cli t, writes manifest.json last, and returns the
// result. A failing artifact does not stop the others: each is recorded with
// kicad-cli's own words, and the returned error is Gate's. Errors that leave
// no manifest (dir cannot be created, unknown fab or supplier, a schematic
// that does not parse) are returned with a nil Result.
func Generate(ctx context.Context, t *kicadcli.Tool, in Input, dir string, o Options) (*Result, error) {
	prof, err := Profile(o.Fab)
	if err != nil {
		return nil, err
	}
	supName := o.Supplier
	if supName == "" {
		supName = prof.Supplier
	}
	sup, err := LookupSupplier(supName)
	if err != nil {
		return nil, err
	}
	sch, err := loadSchematic(in.Repo, in.Schematic)
	if err != nil {
		return nil, err
	}
	var bomDoc []byte
	if in.BOMDoc != "" {
		if bomDoc, err = readDesignFile(in.Repo, in.BOMDoc); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("read %s: %w", in.BOMDoc, err)
		}
	}
	drc, draft := checkBoard(ctx, t, in)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted (%v); the manifest in %s was not rewritten", context.Cause(ctx), dir)
	}
	if o.Release {
		if p := (Manifest{DRC: &drc, Draft: draft}).ReleaseProblems(); len(p) > 0 {
			return nil, fmt.Errorf("--release: %w: %s; nothing was written", ErrNotReleasable, strings.Join(p, "; "))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	if err := recoverSwap(dir); err != nil {
		return nil, err
	}
	cleanStaging(dir)
	// The new package is built whole in a staging folder beside the old one
	// (inside dir, so the final renames never cross a filesystem) and moved
	// in only once complete: an interrupted or refused run leaves the old
	// package as it was. Leftovers of a killed run are removed above.
	stage, err := os.MkdirTemp(dir, stagingPrefix)
	if err != nil {
		return nil, fmt.Errorf("create staging folder in %s: %w", dir, err)
	}
	defer os.RemoveAll(stage)
	pkg := filepath.Join(stage, "package")

	g := &generator{ctx: ctx, t: t, in: in, pkg: pkg, stage: stage, took: map[string]time.Duration{}}
	g.run(ArtifactGerbers, g.gerbers(prof))
	g.run(ArtifactOutline, g.boardFile("board-outline.dxf", func(out string) error {
		return t.ExportDXF(ctx, in.Board, out, []string{"Edge.Cuts"})
	}))
	if o.SkipSTEP {
		g.skip(ArtifactSTEP, "skipped by request (--no-step)")
	} else {
		g.run(ArtifactSTEP, g.step())
	}
	g.run(ArtifactSchematicSVG, g.schematicSVG())
	g.run(ArtifactBoardSVG, g.boardSVG())
	if o.SkipRender {
		g.skip(ArtifactRender, "skipped by request (--no-render)")
	} else {
		g.run(ArtifactRender, g.boardFile("board-3d.png", func(out string) error {
			return t.RenderPNG(ctx, in.Board, out, kicadcli.RenderOptions{Side: "top"})
		}))
	}
	g.run(ArtifactBOM, func() (Artifact, error) {
		lines, err := OrderLines(sch, bomDoc, sup)
		if err != nil {
			return Artifact{}, err
		}
		return g.place("bom-"+sup.Name+".csv", BOMCSV(lines, sup))
	})
	g.run(ArtifactCPL, g.cpl(prof))

	// An interrupted run (Ctrl-C, SIGTERM) stops here: the old package and
	// its manifest are not replaced by a package of cancelled steps.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted (%v); the manifest in %s was not rewritten", context.Cause(ctx), dir)
	}
	m := Manifest{Project: in.Name, KiCadCLIVersion: t.Version(), Fab: prof.Name, Supplier: sup.Name, DRC: &drc, Draft: draft, Artifacts: g.artifacts, Files: []File{}}
	for _, a := range m.Artifacts {
		for _, f := range a.Files {
			fi, sum, err := hashFile(filepath.Join(pkg, filepath.FromSlash(f)))
			if err != nil {
				return nil, err
			}
			m.Files = append(m.Files, File{Path: f, Bytes: fi, SHA256: sum})
		}
	}
	slices.SortFunc(m.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	// The swap: one journaled transaction (internal/txn) of every file of
	// the new package, the removal of the old package's files it no longer
	// holds, and the manifest; not interruptible (it ignores ctx). A kill
	// before its commit point leaves the old package, one after it is
	// rolled forward by the next command: never a mix of the two.
	if err := swapIn(in.Repo, dir, pkg, m); err != nil {
		return nil, err
	}
	return &Result{Dir: dir, Manifest: m, Took: g.took}, m.Gate()
}

// txnRoot is the folder the swap's transaction is journaled under: the
// repository when dir lies inside it (so any next copperhead command rolls
// a killed swap forward), else dir itself (the next outputs into dir does).
func txnRoot(repo, dir string) string {
	if repo != "" {
		if r, err := filepath.Rel(repo, dir); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r) {
			return repo
		}
	}
	return dir
}

// recoverSwap completes or discards a swap a killed run left in an outputs
// folder outside the repository (inside it, the command's start already
// did: txn.Recover).
func recoverSwap(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(txn.Dir))); err != nil {
		return nil
	}
	if _, err := txn.Recover(dir); err != nil {
		return fmt.Errorf("complete the interrupted swap of %s: %w", dir, err)
	}
	return nil
}

// swapIn commits the staged package pkg into dir (journaled in repo when
// dir lies inside it) with its manifest, all or
// nothing, removing the files of the previous package the new one no
// longer holds.
func swapIn(repo, dir, pkg string, m Manifest) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if repo != "" {
		if repo, err = filepath.Abs(repo); err != nil {
			return err
		}
	}
	files := make([]txn.File, 0, len(m.Files)+1)
	keep := map[string]bool{}
	for _, f := range m.Files {
		keep[f.Path] = true
		data, err := os.ReadFile(filepath.Join(pkg, filepath.FromSlash(f.Path)))
		if err != nil {
			return fmt.Errorf("read the staged %s: %w", f.Path, err)
		}
		dst := filepath.Join(abs, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(dst), err)
		}
		files = append(files, txn.File{Path: dst, Data: data})
	}
	// Stale files: the previous manifest's that the new one lacks. Without
	// a (readable) previous manifest nothing is known to be ours.
	if prev, err := ReadManifest(dir); err == nil {
		for _, f := range prev.Files {
			if keep[f.Path] || !localPath(f.Path) {
				continue
			}
			keep[f.Path] = true
			files = append(files, txn.File{Path: filepath.Join(abs, filepath.FromSlash(f.Path)), Remove: true})
		}
	}
	files = append(files, txn.File{Path: filepath.Join(abs, ManifestName), Data: marshalManifest(m)})
	root := txnRoot(repo, abs)
	if err := txn.Commit(root, files); err != nil {
		return fmt.Errorf("swap the new package into %s: %w", dir, err)
	}
	if root == abs {
		tidyJournal(abs)
	}
	return nil
}

// tidyJournal removes the empty journal folders a committed swap leaves in
// an outputs folder outside the repository, so the package holds nothing
// but itself. Folders holding anything else are left.
func tidyJournal(dir string) {
	st := filepath.Join(dir, filepath.FromSlash(txn.StateDir))
	_ = os.Remove(filepath.Join(dir, filepath.FromSlash(txn.Dir)))
	if entries, err := os.ReadDir(st); err == nil && len(entries) == 1 && entries[0].Name() == ".gitignore" {
		_ = os.Remove(filepath.Join(st, ".gitignore"))
		_ = os.Remove(st)
		_ = os.Remove(filepath.Dir(st))
	}
}

// stagingPrefix names Generate's staging folders inside the outputs folder.
const stagingPrefix = ".staging-"

// cleanStaging removes staging folders a killed run left in dir. Only
// folders named .staging-* are touched.
func cleanStaging(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), stagingPrefix) {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// checkBoard runs DRC on the board as packaged and says whether it is a
// copperhead layout draft.
func checkBoard(ctx context.Context, t *kicadcli.Tool, in Input) (DRC, bool) {
	if in.Board == "" {
		return DRC{Reason: NoBoard}, false
	}
	data, err := readDesignFile(in.Repo, in.Board)
	if err != nil {
		return DRC{Reason: textfmt.OneLine(err.Error())}, false
	}
	draft := IsDraftBoard(data)
	rep, err := t.DRC(ctx, in.Board)
	if err != nil {
		return DRC{Reason: textfmt.OneLine(err.Error())}, draft
	}
	return summarizeDRC(rep), draft
}

// summarizeDRC is a DRC report as the manifest records it.
func summarizeDRC(rep *kicadcli.Report) DRC {
	c := rep.Counts()
	d := DRC{Ran: true, Errors: c.Errors, Warnings: c.Warnings, Unconnected: len(rep.Unconnected), Parity: len(rep.Parity)}
	d.Clean = !rep.Failed() && d.Unconnected == 0
	return d
}

// IsDraftBoard reports whether board bytes carry the title-block comment
// `copperhead draft layout` writes into every board it drafts.
func IsDraftBoard(board []byte) bool {
	return bytes.Contains(board, []byte(draftMarker))
}

// generator carries one Generate run's state.
type generator struct {
	ctx       context.Context
	t         *kicadcli.Tool
	in        Input
	pkg       string // the new package, inside stage
	stage     string
	artifacts []Artifact
	took      map[string]time.Duration
}

// run produces one artifact, recording a failure instead of stopping.
func (g *generator) run(name string, produce func() (Artifact, error)) {
	if g.ctx.Err() != nil {
		return // interrupted: Generate reports it and writes no manifest
	}
	start := time.Now()
	a, err := produce()
	g.took[name] = time.Since(start)
	a.Name = name
	switch {
	case errors.Is(err, errNoBoard):
		a = Artifact{Name: name, Status: StatusSkipped, Files: []string{}, Reason: NoBoard}
	case err != nil:
		a = Artifact{Name: name, Status: StatusFailed, Files: []string{}, Reason: textfmt.OneLine(err.Error()), Warnings: a.Warnings}
	case a.Status == "":
		a.Status = StatusOK
	}
	if a.Files == nil {
		a.Files = []string{}
	}
	g.artifacts = append(g.artifacts, a)
}

func (g *generator) skip(name, reason string) {
	g.artifacts = append(g.artifacts, Artifact{Name: name, Status: StatusSkipped, Files: []string{}, Reason: reason})
}

// needBoard refuses board artifacts of a project without a board
// (errNoBoard: run records the artifact as skipped).
func (g *generator) needBoard() error {
	if g.in.Board == "" {
		return errNoBoard
	}
	return nil
}

// place writes data to rel inside the new package, and
// returns the artifact holding it. An empty file is an error: the gate
// requires every file to hold something.
func (g *generator) place(rel string, data []byte) (Artifact, error) {
	if len(data) == 0 {
		return Artifact{}, fmt.Errorf("%s would be empty", rel)
	}
	p := filepath.Join(g.pkg, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return Artifact{}, err
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return Artifact{}, err
	}
	return Artifact{Files: []string{rel}}, nil
}

// boardFile runs a single-file board export into staging and places it as rel.
func (g *generator) boardFile(rel string, export func(out string) error) func() (Artifact, error) {
	return func() (Artifact, error) {
		if err := g.needBoard(); err != nil {
			return Artifact{}, err
		}
		out := filepath.Join(g.stage, filepath.Base(rel))
		if err := export(out); err != nil {
			return Artifact{}, err
		}
		data, err := os.ReadFile(out)
		if err != nil {
			return Artifact{}, err
		}
		return g.place(rel, data)
	}
}

// gerbers plots the Gerbers and drill files for the fab profile and zips
// them, flat, in name order, with a fixed timestamp (so the zip's own bytes
// depend only on its contents). kicad-cli's Gerber job file (.gbrjob) is left
// out: it is X2 metadata both houses' guides turn off.
func (g *generator) gerbers(prof FabProfile) func() (Artifact, error) {
	return func() (Artifact, error) {
		if err := g.needBoard(); err != nil {
			return Artifact{}, err
		}
		gerbers, err := g.t.ExportGerbers(g.ctx, g.in.Board, filepath.Join(g.stage, "gerbers"), prof.Gerber)
		if err != nil {
			return Artifact{}, err
		}
		drills, err := g.t.ExportDrill(g.ctx, g.in.Board, filepath.Join(g.stage, "drill"), prof.Drill)
		if err != nil {
			return Artifact{}, err
		}
		var files []string
		for _, f := range append(gerbers, drills...) {
			if filepath.Ext(f) != ".gbrjob" {
				files = append(files, f)
			}
		}
		slices.SortFunc(files, func(a, b string) int { return strings.Compare(filepath.Base(a), filepath.Base(b)) })
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		var contents []string
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return Artifact{}, err
			}
			if len(data) == 0 {
				return Artifact{}, fmt.Errorf("kicad-cli wrote an empty %s", filepath.Base(f))
			}
			w, err := zw.CreateHeader(&zip.FileHeader{Name: filepath.Base(f), Method: zip.Deflate, Modified: zipTime})
			if err != nil {
				return Artifact{}, err
			}
			if _, err := w.Write(data); err != nil {
				return Artifact{}, err
			}
			contents = append(contents, filepath.Base(f))
		}
		if err := zw.Close(); err != nil {
			return Artifact{}, err
		}
		a, err := g.place("gerbers-"+prof.Name+".zip", buf.Bytes())
		a.Contents = contents
		return a, err
	}
}

// zipTime stamps every zip entry: a fixed time keeps the zip's bytes a
// function of its contents.
var zipTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// step exports board.step and lists parts whose 3D model is missing.
func (g *generator) step() func() (Artifact, error) {
	return func() (Artifact, error) {
		if err := g.needBoard(); err != nil {
			return Artifact{}, err
		}
		out := filepath.Join(g.stage, "board.step")
		res, err := g.t.ExportSTEP(g.ctx, g.in.Board, out)
		if err != nil {
			return Artifact{}, err
		}
		data, err := os.ReadFile(out)
		if err != nil {
			return Artifact{}, err
		}
		a, err := g.place("board.step", data)
		if res.BoardOnly {
			a.Warnings = append(a.Warnings, "a 3D model kicad-cli cannot convert to STEP (\"Cannot load any VRML model\") stopped the export with parts, so board.step holds the board body only")
		}
		if len(res.MissingModels) > 0 {
			a.Warnings = append(a.Warnings, fmt.Sprintf("3D models not found on this machine, so absent from the STEP (the board body and any other parts are there; Debian packages KiCad's models as kicad-packages3d): %s",
				strings.Join(res.MissingModels, ", ")))
		}
		return a, err
	}
}

// cpl writes the pick-and-place file in the fab's columns: every placed
// part, both sides, DNP parts and footprints excluded from position files
// left out (kicad-cli pcb export pos).
func (g *generator) cpl(prof FabProfile) func() (Artifact, error) {
	return func() (Artifact, error) {
		if err := g.needBoard(); err != nil {
			return Artifact{}, err
		}
		out := filepath.Join(g.stage, "pos.csv")
		if err := g.t.ExportPos(g.ctx, g.in.Board, out, kicadcli.PosOptions{ExcludeDNP: true}); err != nil {
			return Artifact{}, err
		}
		data, err := os.ReadFile(out)
		if err != nil {
			return Artifact{}, err
		}
		csv, notes, err := CPLCSV(prof.Name, data)
		if err != nil {
			return Artifact{}, err
		}
		a, err := g.place("cpl-"+prof.Name+".csv", csv)
		if len(notes) > 0 {
			a.Warnings = append(a.Warnings, fmt.Sprintf("rotation offsets ASSUMED (%s; %s documents none): %s; check the fab's placement preview",
				assumedSource(prof.Name), prof.Label, strings.Join(notes, ", ")))
		}
		if strings.HasPrefix(cplColumns[prof.Name].Source, "ASSUMED") {
			a.Warnings = append(a.Warnings, "column names "+cplColumns[prof.Name].Source)
		}
		return a, err
	}
}

func assumedSource(fab string) string {
	for _, r := range rotationRules[fab] {
		return strings.TrimPrefix(r.Source, "ASSUMED: ")
	}
	return ""
}

// schematicSVG plots every sheet into schematic/.
func (g *generator) schematicSVG() func() (Artifact, error) {
	return func() (Artifact, error) {
		files, err := g.t.ExportSVG(g.ctx, g.in.Schematic, filepath.Join(g.stage, "schematic"))
		if err != nil {
			return Artifact{}, err
		}
		var a Artifact
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return Artifact{}, err
			}
			one, err := g.place("schematic/"+filepath.Base(f), data)
			if err != nil {
				return Artifact{}, err
			}
			a.Files = append(a.Files, one.Files...)
		}
		return a, nil
	}
}

// boardSVG plots the board's copper, silkscreen and outline as board.svg.
func (g *generator) boardSVG() func() (Artifact, error) {
	return func() (Artifact, error) {
		if err := g.needBoard(); err != nil {
			return Artifact{}, err
		}
		files, err := g.t.ExportSVG(g.ctx, g.in.Board, filepath.Join(g.stage, "board-svg"))
		if err != nil {
			return Artifact{}, err
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			return Artifact{}, err
		}
		return g.place("board.svg", data)
	}
}

// localPath reports whether a manifest path stays inside the outputs folder:
// a hand-edited manifest must not be able to make us touch files elsewhere.
func localPath(p string) bool {
	return p != "" && filepath.IsLocal(filepath.FromSlash(p)) && p != ManifestName
}

// ReadManifest reads dir/manifest.json.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	p := filepath.Join(dir, ManifestName)
	data, err := os.ReadFile(p)
	if err != nil {
		return m, fmt.Errorf("read %s: %w", p, err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("read %s: %w", p, err)
	}
	return m, nil
}

// Verify is the outputs stage's completion gate, checked from what is on
// disk: dir/manifest.json exists, its Gate passes, and every file it lists
// exists, is non-empty and has the sha256 the manifest records.
func Verify(dir string) (Manifest, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return m, err
	}
	var problems []string
	if err := m.Gate(); err != nil {
		problems = append(problems, err.Error())
	}
	for _, f := range m.Files {
		if !localPath(f.Path) {
			problems = append(problems, f.Path+": not a path inside the outputs folder")
			continue
		}
		size, sum, err := hashFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		switch {
		case err != nil:
			problems = append(problems, err.Error())
		case size == 0:
			problems = append(problems, f.Path+": empty")
		case sum != f.SHA256:
			problems = append(problems, fmt.Sprintf("%s: sha256 %s, manifest says %s", f.Path, sum, f.SHA256))
		}
	}
	if len(problems) > 0 {
		return m, fmt.Errorf("outputs in %s: %s", dir, strings.Join(problems, "; "))
	}
	return m, nil
}

func hashFile(path string) (int64, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, "", fmt.Errorf("hash %s: %w", path, err)
	}
	sum := sha256.Sum256(data)
	return int64(len(data)), hex.EncodeToString(sum[:]), nil
}

// marshalManifest renders the manifest deterministically: struct field
// order, two-space indent, trailing newline.
func marshalManifest(m Manifest) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(m) // plain structs of strings and numbers always encode
	return b.Bytes()
}
