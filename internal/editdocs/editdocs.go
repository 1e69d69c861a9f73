// Package editdocs turns a schematic edit plan (schedit.Plan) into one
// transaction over every file the edit changes: the plan's sheets, the
// board's nets and footprints the edit changed (internal/kicad/pcbedit),
// and the BOM.md and PINOUT.md cells the edit changed (design.UpdateRows).
// Prepare computes all of those bytes without writing anything and checks
// the new sheets against KiCad: kicad-cli exports the netlist of a scratch
// copy holding exactly the bytes that would be written, and the plan's
// Expect must match it (schedit.Verify). Apply then commits the set through
// internal/txn, all or nothing. The dry run and the write share Prepare, so a
// preview shows every file the write would change. Both the CLI (copperhead
// edit) and the agent's structured edit tools call it, so an edit lands the
// same way from either.
//
// No step is done twice: Open reads and parses each sheet once (the read
// model and the planner share the parse) and the docs once, and exports
// KiCad's netlist of the tree once (the edit's "before", from kicadcli's
// cache when the tree is unchanged); Prepare builds the read model of the
// new bytes from memory, and its one kicad-cli run is the check. The
// scratch copy is the whole project (library tables and libraries too), so
// that check's netlist is cached under the key of the written design and
// the next netlist of the repository needs no kicad-cli run. It must never
// import llm, agent or cli.
package editdocs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/kicad/kigen"
	"copperhead/internal/kicad/pcbedit"
	"copperhead/internal/kicad/schedit"
	"copperhead/internal/kicadcli"
	"copperhead/internal/repofs"
	"copperhead/internal/sexpr"
	"copperhead/internal/tempdir"
	"copperhead/internal/txn"
)

// Input is one plan to apply.
type Input struct {
	Repo   string        // repository root, absolute
	Config config.Config // the repository's config (where the docs live)
	Design *schedit.Design
	Plan   *schedit.Plan
	// KiCad exports the netlists the edit is checked against; required.
	KiCad *kicadcli.Tool
	// Board is the .kicad_pcb (absolute) whose nets follow renames; ""
	// when the project has none yet.
	Board string
	// Redact, when set, is applied to every byte the edit writes.
	Redact func([]byte) []byte
	// Docs are the repository files the edit keeps in step, as Open read
	// them (Loaded.Docs); nil: Prepare reads them.
	Docs design.Files
}

// Change is one file of an edit: repo-relative path, bytes before and after.
type Change struct {
	Path string
	Abs  string
	Old  []byte // nil for a new file
	New  []byte
}

// Result is a prepared (or applied) edit.
type Result struct {
	Changes []Change // sheets (sorted), then the board, then the docs (sorted)
	Summary []string // the plan's lines plus the board's
}

// Paths lists the changed files, repo-relative, in Changes order.
func (r *Result) Paths() []string {
	out := make([]string, 0, len(r.Changes))
	for _, c := range r.Changes {
		out = append(out, c.Path)
	}
	return out
}

// ErrDisagrees matches the error of an edit whose new files KiCad reads
// differently from what the plan intended: nothing was written.
var ErrDisagrees = errors.New("KiCad disagrees with the edit")

// disagreement carries schedit.Verify's account of what KiCad saw.
type disagreement struct{ err error }

func (e disagreement) Error() string        { return e.err.Error() + "; nothing was written" }
func (e disagreement) Is(target error) bool { return target == ErrDisagrees }

// Loaded is a schematic opened for an edit together with the repository
// docs the edit keeps in step, each read once: Prepare takes both from here
// (Input.Design, Input.Docs) rather than reading them again.
type Loaded struct {
	Design *schedit.Design
	Docs   design.Files
}

// Open opens the schematic rooted at schematic for an edit, the way every
// writer must before planning: every sheet inside repo (each read and
// parsed once), the docs the edit keeps in step readable (and inside repo),
// and KiCad's netlist attached, refused when kicad-cli silently left a sheet
// out of it (an edit must not be planned or checked against half the
// design). That netlist is the edit's "before": Prepare does not export it
// again.
func Open(ctx context.Context, repo string, cfg config.Config, schematic string, tool *kicadcli.Tool) (*Loaded, error) {
	if tool == nil {
		return nil, errors.New("kicad-cli is needed to check an edit against KiCad")
	}
	d, err := schedit.LoadWithin(schematic, repo)
	if err != nil {
		return nil, err
	}
	docs, err := design.ReadFiles(repo, cfg)
	if err != nil {
		return nil, err
	}
	if d.Netlist, err = tool.Netlist(ctx, d.RootPath); err != nil {
		return nil, err
	}
	if err := kicad.CheckNetlistCovers(d.Model, d.Netlist); err != nil {
		return nil, err
	}
	return &Loaded{Design: d, Docs: docs}, nil
}

// Prepare computes every file the plan changes and checks the new sheets
// against kicad-cli's netlist. It writes nothing in the repository.
func Prepare(ctx context.Context, in Input) (*Result, error) {
	d, p := in.Design, in.Plan
	if in.KiCad == nil {
		return nil, errors.New("kicad-cli is needed to check an edit against KiCad")
	}
	redact := in.Redact
	if redact == nil {
		redact = func(b []byte) []byte { return b }
	}
	before := d.Netlist
	if before == nil {
		nl, err := in.KiCad.Netlist(ctx, d.RootPath)
		if err != nil {
			return nil, err
		}
		before = nl
	}
	next, err := p.Preview(d)
	if err != nil {
		return nil, err
	}
	res := &Result{Summary: append([]string(nil), p.Summary...)}
	// The sheets as they would be written, each parsed once: the unchanged
	// ones as loaded, the changed ones here (proving they still read). The
	// read model of the result is built from them, not read back.
	sheets := make(map[string]kicad.SchematicSource, len(d.Sheets))
	for path, sh := range d.Sheets {
		sheets[path] = kicad.SchematicSource{Path: path, Src: sh.Src, Root: sh.Root}
	}
	for path, b := range next {
		b = redact(b)
		n, err := sexpr.Parse(path, b)
		if err != nil {
			return nil, fmt.Errorf("%s would no longer parse: %w", d.Sheets[path].Rel, err)
		}
		next[path] = b
		sheets[path] = kicad.SchematicSource{Path: path, Src: b, Root: n}
		res.Changes = append(res.Changes, Change{Path: RepoPath(in.Repo, path), Abs: path, Old: d.Sheets[path].Src, New: b})
	}
	sort.Slice(res.Changes, func(i, j int) bool { return res.Changes[i].Path < res.Changes[j].Path })
	if len(res.Changes) == 0 {
		return res, nil
	}

	scratch, err := tempdir.Make("edit")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	scratchRoot, err := writeScratch(in.Repo, scratch, d, next)
	if err != nil {
		return nil, err
	}
	after, err := in.KiCad.Netlist(ctx, scratchRoot)
	if err != nil {
		return nil, fmt.Errorf("KiCad could not read the edited schematic, nothing was written: %s", strings.ReplaceAll(err.Error(), scratch+string(filepath.Separator), ""))
	}
	if err := schedit.Verify(p.Expect, before, after); err != nil {
		return nil, disagreement{err}
	}
	schAfter, err := kicad.SchematicFromSources(d.RootPath, sheets)
	if err != nil {
		return nil, fmt.Errorf("read the edited schematic: %w", err)
	}

	if in.Board != "" {
		c, lines, err := boardChange(in, before, after)
		if err != nil {
			return nil, err
		}
		if c != nil {
			c.New = redact(c.New)
			res.Changes = append(res.Changes, *c)
			res.Summary = append(res.Summary, lines...)
		}
	}

	files := in.Docs
	if files == nil {
		if files, err = design.ReadFiles(in.Repo, in.Config); err != nil {
			return nil, err
		}
	}
	docs := design.UpdateRows(files, in.Config, d.Model, schAfter, before, after)
	names := make([]string, 0, len(docs))
	for path := range docs {
		names = append(names, path)
	}
	sort.Strings(names)
	for _, path := range names {
		abs := filepath.Join(in.Repo, filepath.FromSlash(path))
		// UpdateRows only rewrites docs it was given: their bytes as read.
		old, ok := files[path]
		if !ok {
			if old, err = config.ReadRepoFile(in.Repo, path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("read %s: %w", path, err)
			}
		}
		nw := redact(docs[path])
		if bytes.Equal(old, nw) {
			continue
		}
		res.Changes = append(res.Changes, Change{Path: path, Abs: abs, Old: old, New: nw})
	}
	return res, nil
}

// Apply prepares the plan and writes every changed file in one
// transaction. On any error nothing in the repository has changed (an
// interrupted write is completed by the next command, see txn.Recover).
func Apply(ctx context.Context, in Input) (*Result, error) {
	res, err := Prepare(ctx, in)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	files := make([]txn.File, 0, len(res.Changes))
	for _, c := range res.Changes {
		files = append(files, txn.File{Path: c.Abs, Data: c.New})
	}
	if err := txn.Commit(in.Repo, files); err != nil {
		return nil, err
	}
	return res, nil
}

// writeScratch lays the design's sheets (new bytes where the plan changes
// them) and the project file into dir at their repo-relative places, so
// kicad-cli reads exactly what would be written, and returns the root
// schematic's path there.
func writeScratch(repo, dir string, d *schedit.Design, next map[string][]byte) (string, error) {
	place := func(abs string) (string, error) {
		rel, err := filepath.Rel(repo, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("%s is outside the repository", abs)
		}
		return filepath.Join(dir, rel), nil
	}
	for path, sh := range d.Sheets {
		dst, err := place(path)
		if err != nil {
			return "", err
		}
		data := sh.Src
		if b, ok := next[path]; ok {
			data = b
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return "", err
		}
	}
	// The project file carries text variables and settings the netlist
	// can depend on; the other project inputs beside the root (library
	// tables, libraries) make the copy the project kicad-cli will see once
	// the edit is written, so the netlist exported here is cached under the
	// key of the written design: the next netlist of the repository (the
	// run's verification, the next edit) is served from the cache. A file
	// that cannot be copied only costs that cache hit.
	pro := strings.TrimSuffix(d.RootPath, filepath.Ext(d.RootPath)) + ".kicad_pro"
	others, _ := kicadcli.ProjectInputs(d.RootPath)
	for _, path := range append([]string{pro}, others...) {
		if _, ok := d.Sheets[path]; ok {
			continue
		}
		dst, err := place(path)
		if err != nil {
			continue
		}
		if _, err := os.Lstat(dst); err == nil {
			continue // the project file, copied already
		}
		b, err := repofs.ReadFile(repo, path)
		if err != nil {
			continue
		}
		if os.MkdirAll(filepath.Dir(dst), 0o755) == nil {
			_ = os.WriteFile(dst, b, 0o644)
		}
	}
	return place(d.RootPath)
}

// boardChange brings the board along with the schematic, so the two keep
// agreeing (DRC's schematic parity stays clean) without a round trip
// through KiCad's "Update PCB from Schematic": nets whose pins are
// unchanged but whose name is not are renamed, and the fields the plan
// sets follow into the footprints (pcbedit.FollowFields: value text, flags,
// a footprint swapped for the library's in place). A change the board
// cannot follow without a layout decision is refused. A repo without a
// board file yet is left alone.
func boardChange(in Input, before, after *kicad.Netlist) (*Change, []string, error) {
	renames := pcbedit.NetRenames(before, after)
	var fields []pcbedit.FieldChange
	for _, f := range in.Plan.Expect.Fields {
		fields = append(fields, pcbedit.FieldChange{Ref: f.Ref, Field: f.Field, Value: f.Value})
	}
	if len(renames) == 0 && len(fields) == 0 {
		return nil, nil, nil
	}
	rel := RepoPath(in.Repo, in.Board)
	src, err := repofs.ReadFile(in.Repo, in.Board)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", rel, err)
	}
	next, lines, err := pcbedit.RenameNets(rel, src, renames)
	if err != nil {
		return nil, nil, err
	}
	if len(fields) > 0 {
		lib := kigen.FindFootprintLibraries(filepath.Dir(in.Design.RootPath))
		var more []string
		next, more, err = pcbedit.FollowFields(rel, next, fields, lib)
		if errors.Is(err, pcbedit.ErrUpdateInKiCad) {
			return nil, nil, schedit.Refusef("%v", err)
		}
		if err != nil {
			return nil, nil, err
		}
		lines = append(lines, more...)
	}
	if bytes.Equal(next, src) {
		return nil, nil, nil
	}
	return &Change{Path: rel, Abs: in.Board, Old: src, New: next}, lines, nil
}

// RepoPath renders an absolute path relative to the repository,
// slash-separated (abs itself when it cannot be made relative).
func RepoPath(repo, abs string) string {
	rel, err := filepath.Rel(repo, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}
