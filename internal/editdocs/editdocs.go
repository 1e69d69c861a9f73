// Package editdocs applies a schematic edit plan (schedit.Plan) and keeps the
// design docs in step with it: it owns writing the plan's sheets and
// rewriting the BOM.md and PINOUT.md cells the edit changed, through
// design.UpdateRows, from the schematic and the kicad-cli netlist before and
// after the edit, and renaming the board's nets a rename left with the same
// pins (internal/kicad/pcbedit). Both the CLI (copperhead edit) and the agent's structured
// edit tools call it, so an edit lands the same way from either. It must
// never import llm, agent or cli.
package editdocs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"copperhead/internal/atomicfile"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/kicad/pcbedit"
	"copperhead/internal/kicad/schedit"
	"copperhead/internal/kicadcli"
	"copperhead/internal/sexpr"
)

// Input is one plan to apply.
type Input struct {
	Repo   string        // repository root, absolute
	Config design.Config // the repository's config (where the docs live)
	Design *schedit.Design
	Plan   *schedit.Plan
	// KiCad exports the netlists PINOUT.md is updated from; nil leaves
	// PINOUT.md as it is (BOM.md still follows the schematic).
	KiCad *kicadcli.Tool
	// Board is the .kicad_pcb (absolute) whose nets follow renames; ""
	// when the project has none yet.
	Board string
	// Write writes one file (absolute path); nil writes atomically with
	// atomicfile.Write, mode 0644.
	Write func(abs string, data []byte) error
}

// Apply writes in.Plan and updates the docs it affects. Every changed sheet
// is spliced and re-parsed before any file is written. It returns every
// written file, repo-relative and slash-separated: the sheets (sorted)
// first, then the docs. On an error after some files were written, the
// files written so far are returned with it.
func Apply(ctx context.Context, in Input) ([]string, error) {
	write := in.Write
	if write == nil {
		write = func(abs string, data []byte) error { return atomicfile.Write(abs, data, 0o644) }
	}
	d, p := in.Design, in.Plan
	root := d.RootPath

	var nlBefore *kicad.Netlist
	if in.KiCad != nil {
		nl, err := in.KiCad.Netlist(ctx, root)
		if err != nil {
			return nil, err
		}
		nlBefore = nl
	}

	next, err := p.Preview(d)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(next))
	for path, b := range next {
		if _, err := sexpr.Parse(path, b); err != nil {
			return nil, fmt.Errorf("%s would no longer parse: %w", d.Sheets[path].Rel, err)
		}
		paths = append(paths, path)
	}
	sort.Slice(paths, func(i, j int) bool { return d.Sheets[paths[i]].Rel < d.Sheets[paths[j]].Rel })
	var out []string
	for _, path := range paths {
		if err := write(path, next[path]); err != nil {
			return out, err
		}
		out = append(out, RepoPath(in.Repo, path))
	}

	schAfter, err := kicad.LoadSchematic(root)
	if err != nil {
		return out, err
	}
	var nlAfter *kicad.Netlist
	if nlBefore != nil {
		if nlAfter, err = in.KiCad.Netlist(ctx, root); err != nil {
			return out, err
		}
	}
	if nlAfter != nil && in.Board != "" {
		board, err := renameBoardNets(in, write, nlBefore, nlAfter)
		if err != nil {
			return out, err
		}
		out = append(out, board...)
	}
	files, err := design.ReadFiles(in.Repo, in.Config)
	if err != nil {
		return out, err
	}
	docs := design.UpdateRows(files, in.Config, d.Model, schAfter, nlBefore, nlAfter)
	names := make([]string, 0, len(docs))
	for path := range docs {
		names = append(names, path)
	}
	sort.Strings(names)
	for _, path := range names {
		if err := write(filepath.Join(in.Repo, filepath.FromSlash(path)), docs[path]); err != nil {
			return out, err
		}
		out = append(out, path)
	}
	return out, nil
}

// renameBoardNets follows net renames (nets whose pins are unchanged but
// whose name is not) into the board, so schematic and board keep agreeing
// without a round trip through KiCad's "Update PCB from Schematic". A repo
// without a board file yet is left alone.
func renameBoardNets(in Input, write func(string, []byte) error, before, after *kicad.Netlist) ([]string, error) {
	renames := pcbedit.NetRenames(before, after)
	if len(renames) == 0 {
		return nil, nil
	}
	rel := RepoPath(in.Repo, in.Board)
	src, err := os.ReadFile(in.Board)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	next, lines, err := pcbedit.RenameNets(rel, src, renames)
	if err != nil || len(lines) == 0 {
		return nil, err
	}
	in.Plan.Summary = append(in.Plan.Summary, lines...)
	if err := write(in.Board, next); err != nil {
		return nil, err
	}
	return []string{rel}, nil
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
