package cli

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"copperhead/internal/config"
	"copperhead/internal/gitrepo"
	"copperhead/internal/kicadcli"
	"copperhead/internal/verify"
)

// baselineSide is check --baseline's revision, checked out into a scratch
// worktree outside the repository (gitrepo.NewScratchAt): the user's tree,
// index and stash are never touched.
type baselineSide struct {
	commit  string
	scratch *gitrepo.Scratch
	root    string // the checkout's folder matching w.repo (which may be below the top)
	w       *workspace
}

// openBaseline resolves rev and checks it out. A folder outside git or a rev
// naming no commit is a usage error (exit 2) naming it; label says where
// rev came from ("--baseline", or config.json's key).
func (a *app) openBaseline(ctx context.Context, w *workspace, label, rev string) (*baselineSide, error) {
	if !gitrepo.IsRepo(ctx, w.repo) {
		return nil, usagef("%s %s: %s is not in a git repository", label, rev, w.repo)
	}
	commit, err := gitrepo.ResolveCommit(ctx, w.repo, rev)
	if err != nil {
		return nil, usagef("%s %v", label, err)
	}
	s, err := gitrepo.NewScratchAt(ctx, w.repo, commit)
	if err != nil {
		return nil, failf("%v", err)
	}
	real := w.repo
	if r, err := filepath.EvalSymlinks(w.repo); err == nil {
		real = r
	}
	sub, err := filepath.Rel(s.Repo, real)
	if err != nil || !filepath.IsLocal(sub) {
		sub = "."
	}
	return &baselineSide{commit: commit, scratch: s, root: filepath.Join(s.Root, sub), w: w}, nil
}

// check runs the gates on the baseline checkout: the same schematic and
// board paths as the working tree's project, the revision's own docs and
// config. A file the revision does not have yet checks as nothing: every
// finding of it is new.
func (b *baselineSide) check(ctx context.Context, opt checkOptions) (*verify.Result, error) {
	cfg, _, err := config.LoadConfig(b.root)
	if err != nil {
		return nil, err
	}
	sch, err := b.path(b.w.proj.Schematic)
	if err != nil || sch == "" {
		return &verify.Result{}, err
	}
	brd, err := b.path(b.w.proj.Board)
	if err != nil {
		return nil, err
	}
	t, err := kicadcli.Find(ctx)
	if err != nil {
		return nil, err
	}
	t.Boundary = b.root
	t.NoCache = opt.noCache
	return verify.Run(ctx, verify.Input{Repo: b.root, Config: cfg, Schematic: sch, Board: brd, Tool: t,
		Strict: opt.strict, StrictSourcing: opt.strictSourcing, SkipOpenSpec: true})
}

// boardUnchanged reports whether the working tree's board, and the design
// rules and project file beside it, hold the same bytes as the revision's.
func (b *baselineSide) boardUnchanged() bool {
	if b.w.proj.Board == "" {
		return false
	}
	stem := strings.TrimSuffix(b.w.proj.Board, filepath.Ext(b.w.proj.Board))
	for _, f := range []string{b.w.proj.Board, stem + ".kicad_dru", stem + ".kicad_pro"} {
		base, err := b.path(f)
		if err != nil {
			return false
		}
		cur, curErr := os.ReadFile(f)
		if base == "" {
			// Absent on both sides is the same; on one side only is not.
			if !errors.Is(curErr, fs.ErrNotExist) {
				return false
			}
			continue
		}
		old, err := os.ReadFile(base)
		if err != nil || curErr != nil || !bytes.Equal(old, cur) {
			return false
		}
	}
	return true
}

// path maps a working-tree file to the checkout; "" when it is not there.
func (b *baselineSide) path(file string) (string, error) {
	if file == "" {
		return "", nil
	}
	rel, err := filepath.Rel(b.w.repo, file)
	if err != nil || !filepath.IsLocal(rel) {
		return "", nil
	}
	p := filepath.Join(b.root, rel)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	return p, nil
}
