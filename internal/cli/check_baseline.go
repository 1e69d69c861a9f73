package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
//
// Its result is cached by commit (see baselineKey): a second check against
// the same commit, with the same kicad-cli, libraries, copperhead binary and
// options, neither checks the revision out nor hashes it.
type baselineSide struct {
	commit  string
	scratch *gitrepo.Scratch // nil when the result came from the cache
	root    string           // the checkout's folder matching w.repo (which may be below the top)
	w       *workspace

	cacheFile string         // where the result is cached; "" when it is not
	cached    *baselineEntry // the cached result, when there is one
}

// openBaseline resolves rev and checks it out. A folder outside git or a rev
// naming no commit is a usage error (exit 2) naming it; label says where
// rev came from ("--baseline", or config.json's key).
// tool is the working tree's kicad-cli, whose cache folder and identity the
// baseline's cache uses; opt.noCache always checks the revision out anew.
func (a *app) openBaseline(ctx context.Context, w *workspace, label, rev string, tool *kicadcli.Tool, opt checkOptions) (*baselineSide, error) {
	if !gitrepo.IsRepo(ctx, w.repo) {
		return nil, usagef("%s %s: %s is not in a git repository", label, rev, w.repo)
	}
	commit, err := gitrepo.ResolveCommit(ctx, w.repo, rev)
	if err != nil {
		return nil, usagef("%s %v", label, err)
	}
	top, err := gitrepo.Run(ctx, w.repo, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, failf("%v", err)
	}
	if r, err := filepath.EvalSymlinks(top); err == nil {
		top = r
	}
	real := w.repo
	if r, err := filepath.EvalSymlinks(w.repo); err == nil {
		real = r
	}
	sub, err := filepath.Rel(top, real)
	if err != nil || !filepath.IsLocal(sub) {
		sub = "."
	}
	b := &baselineSide{commit: commit, w: w}
	if key := baselineKey(tool, w, commit, sub, opt); key != "" && tool.CacheDir != "" {
		b.cacheFile = filepath.Join(tool.CacheDir, baselineCacheSubdir, key+".json")
		if !opt.noCache {
			b.cached = loadBaselineEntry(b.cacheFile)
		}
	}
	if b.cached != nil {
		return b, nil
	}
	s, err := gitrepo.NewScratchAt(ctx, w.repo, commit)
	if err != nil {
		return nil, failf("%v", err)
	}
	sub, err = filepath.Rel(s.Repo, real)
	if err != nil || !filepath.IsLocal(sub) {
		sub = "."
	}
	b.scratch, b.root = s, filepath.Join(s.Root, sub)
	return b, nil
}

// check runs the gates on the baseline checkout: the same schematic and
// board paths as the working tree's project, the revision's own docs and
// config. A file the revision does not have yet checks as nothing: every
// finding of it is new.
func (b *baselineSide) check(ctx context.Context, opt checkOptions) (*verify.Result, error) {
	if b.cached != nil {
		return b.cached.result(), nil
	}
	res, err := b.checkTree(ctx, opt)
	if err == nil && b.cacheFile != "" {
		storeBaselineEntry(b.cacheFile, newBaselineEntry(res, b.boardSums()))
	}
	return res, err
}

// checkTree runs the gates on the checkout.
func (b *baselineSide) checkTree(ctx context.Context, opt checkOptions) (*verify.Result, error) {
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
// The revision's files are known by their SHA-256 (boardSums), taken from
// the checkout or from the cache.
func (b *baselineSide) boardUnchanged() bool {
	if b.w.proj.Board == "" {
		return false
	}
	var sums map[string]string
	if b.cached != nil {
		sums = b.cached.Board
	} else {
		sums = b.boardSums()
	}
	if sums == nil {
		return false
	}
	for _, f := range b.boardFiles() {
		rel, err := filepath.Rel(b.w.repo, f)
		if err != nil {
			return false
		}
		want, ok := sums[filepath.ToSlash(rel)]
		if !ok || fileSum(f) != want {
			return false
		}
	}
	return true
}

// boardFiles are the working tree's board and the design rules and project
// file beside it.
func (b *baselineSide) boardFiles() []string {
	stem := strings.TrimSuffix(b.w.proj.Board, filepath.Ext(b.w.proj.Board))
	return []string{b.w.proj.Board, stem + ".kicad_dru", stem + ".kicad_pro"}
}

// boardSums is the SHA-256 of each of boardFiles at the revision, by path
// relative to the repository ("absent" when the revision has no such file,
// "unreadable" when it cannot be read); nil without a board.
func (b *baselineSide) boardSums() map[string]string {
	if b.w.proj.Board == "" {
		return nil
	}
	sums := map[string]string{}
	for _, f := range b.boardFiles() {
		rel, err := filepath.Rel(b.w.repo, f)
		if err != nil {
			return nil
		}
		base, err := b.path(f)
		switch {
		case err != nil:
			sums[filepath.ToSlash(rel)] = sumUnreadable
		case base == "":
			sums[filepath.ToSlash(rel)] = sumAbsent
		default:
			sums[filepath.ToSlash(rel)] = fileSum(base)
		}
	}
	return sums
}

// fileSum is the hex SHA-256 of the file at path, sumAbsent when there is
// none, sumUnreadable when it cannot be read. Absent on both sides is the
// same; unreadable never matches anything.
func fileSum(path string) string {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sumAbsent
	case err != nil:
		return sumUnreadable + " " + path
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

const (
	sumAbsent     = "absent"
	sumUnreadable = "unreadable"
)

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
