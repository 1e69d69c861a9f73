package gitrepo

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"copperhead/internal/textfmt"
)

// Safety rails (spec §7, AC-3.6, AC-3.8, AC-15.16/15.17): a run starts from a
// clean tree unless the user passes --allow-dirty; either way TakeSnapshot
// records exactly what the tree held, and Rollback puts every byte back after
// keeping the run's work as a stash entry. Nothing here ever touches ignored
// files (.copperhead/runs/ holds the transcript of the very run being rolled
// back) or the contents of nested repositories.

// ErrNotRepo means the folder is not inside a git work tree.
var ErrNotRepo = errors.New("is not a git repository")

// ErrNoCommits means the repository has no HEAD to snapshot or reset to.
var ErrNoCommits = errors.New("has no commits yet")

// maxNamedPaths bounds how many paths an error names; the rest are counted.
const maxNamedPaths = 5

// Status is the state of a work tree before a run. Paths are repo-relative with
// forward slashes, sorted. An untracked nested repository is listed once, as
// its folder with a trailing slash ("vendor/lib/"), the way git reports it.
type Status struct {
	Repo      string   // absolute top of the work tree
	Head      string   // commit hash of HEAD
	Tracked   []string // tracked files with staged or unstaged changes (a rename is a delete and an add)
	Untracked []string // untracked files that no .gitignore rule covers
}

// Dirty reports whether anything uncommitted would be at risk in a run.
func (s *Status) Dirty() bool { return len(s.Tracked)+len(s.Untracked) > 0 }

// Paths is every uncommitted path, sorted.
func (s *Status) Paths() []string {
	return slices.Sorted(slices.Values(slices.Concat(s.Tracked, s.Untracked)))
}

// DirtyError refuses a run on a tree with uncommitted changes: a failed run
// restores its snapshot, and without --allow-dirty the snapshot is HEAD, so
// those changes would be lost.
type DirtyError struct {
	Paths []string // every uncommitted path, sorted
}

func (e *DirtyError) Error() string {
	return "working tree has uncommitted changes (" + namePaths(e.Paths) +
		"); commit or stash them first, or pass --allow-dirty to snapshot them with the run"
}

// UnreadableError refuses a snapshot that would be incomplete: an untracked
// file that exists but cannot be read cannot be captured, and a rollback
// removes untracked files the snapshot does not hold, so proceeding would
// break exactly the promise --allow-dirty makes (spec §7).
type UnreadableError struct {
	Path string // repo-relative
	Err  error
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("cannot snapshot untracked file %s: %v; make it readable, move it out of the repository or add it to .gitignore, then rerun",
		e.Path, e.Err)
}

func (e *UnreadableError) Unwrap() error { return e.Err }

func namePaths(paths []string) string {
	if len(paths) <= maxNamedPaths {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:maxNamedPaths], ", "), len(paths)-maxNamedPaths)
}

// Preflight checks that repo is a git work tree with at least one commit and
// lists what is uncommitted. On a dirty tree without allowDirty it returns the
// Status together with a *DirtyError, so callers can still report the counts.
func Preflight(ctx context.Context, repo string, allowDirty bool) (*Status, error) {
	top, err := topLevel(ctx, repo)
	if err != nil {
		return nil, err
	}
	head, err := Run(ctx, top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil || head == "" {
		return nil, fmt.Errorf("%s %w; commit the design first", repo, ErrNoCommits)
	}
	out, err := runGit(ctx, top, nil, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return nil, err
	}
	st := &Status{Repo: top, Head: head, Tracked: []string{}, Untracked: []string{}}
	// With --no-renames every entry is "XY path": no second path follows.
	for _, f := range splitZ(out) {
		if len(f) < 4 {
			continue
		}
		switch xy, path := f[:2], f[3:]; xy {
		case "??":
			st.Untracked = append(st.Untracked, path)
		case "!!":
		default:
			st.Tracked = append(st.Tracked, path)
		}
	}
	slices.Sort(st.Tracked)
	st.Tracked = slices.Compact(st.Tracked)
	slices.Sort(st.Untracked)
	if st.Dirty() && !allowDirty {
		return st, &DirtyError{Paths: st.Paths()}
	}
	return st, nil
}

func topLevel(ctx context.Context, repo string) (string, error) {
	if !IsRepo(ctx, repo) {
		return "", fmt.Errorf("%s %w; run git init and commit the design first", repo, ErrNotRepo)
	}
	return Run(ctx, repo, "rev-parse", "--show-toplevel")
}

// Snapshot is the pre-run state of a work tree: HEAD, the tracked changes
// (index and work tree) as a `git stash create` commit, and the untracked files
// as a tree object. Taking it writes objects into .git and nothing else: the
// index, the work tree and the stash list are untouched.
type Snapshot struct {
	Repo string // absolute top of the work tree
	Head string // commit hash of HEAD

	// Stash is the `git stash create` commit holding tracked changes: its tree
	// is the work tree, its second parent's tree the index. Empty when there
	// were none.
	Stash string

	// UntrackedTree is a tree object holding every untracked, non-ignored file
	// byte for byte (no clean filters, symlinks as links); Untracked lists its
	// paths. Empty when there were none. Paths that vanished between listing
	// and capture are in neither.
	UntrackedTree string
	Untracked     []string

	// Nested lists untracked nested repositories ("lib/"). Their contents are
	// not captured and never touched: git cannot hold a .git folder in a tree,
	// and deleting someone's repository is not a rollback.
	Nested []string

	// Files fingerprints every file in the work tree that is tracked or
	// untracked-but-not-ignored, by repo-relative path: "<git mode>
	// sha256:<hex of the bytes>" (symlinks hash their target). Rollback
	// restores exactly this map; tests compare TreeHashes against it.
	Files map[string]string

	perm map[string]fs.FileMode // permission bits of the untracked files
}

// TakeSnapshot records the state Rollback returns to. It runs Preflight first,
// so without allowDirty a dirty tree is refused with a *DirtyError; with it,
// tracked changes go into a `git stash create` commit and untracked files into
// a tree object built through a temporary index (the real index is never
// written). An untracked file that exists but cannot be read refuses the run
// with an *UnreadableError naming it; one that vanishes meanwhile is skipped.
func TakeSnapshot(ctx context.Context, repo string, allowDirty bool) (*Snapshot, error) {
	st, err := Preflight(ctx, repo, allowDirty)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Repo: st.Repo, Head: st.Head, Untracked: []string{}, Nested: []string{}, perm: map[string]fs.FileMode{}}
	tree, err := scanTree(ctx, s.Repo)
	if err != nil {
		return nil, err
	}
	s.Nested = tree.nested
	if len(st.Tracked) > 0 {
		if s.Stash, err = Run(ctx, s.Repo, slices.Concat(identity(ctx, s.Repo), []string{"stash", "create", "copperhead snapshot"})...); err != nil {
			return nil, fmt.Errorf("snapshot tracked changes: %w", err)
		}
	}
	captured, err := captureFiles(ctx, s.Repo, tree.untracked)
	if err != nil {
		return nil, err
	}
	if s.UntrackedTree, err = writeTree(ctx, s.Repo, "", captured); err != nil {
		return nil, fmt.Errorf("snapshot untracked files: %w", err)
	}
	for _, f := range captured {
		s.Untracked = append(s.Untracked, f.path)
		s.perm[f.path] = f.perm
		tree.files[f.path] = f.fingerprint // the bytes actually stored
	}
	// Files: tracked files as read now, untracked ones as captured; an
	// untracked path that vanished before capture is not part of the snapshot.
	s.Files = map[string]string{}
	listed, kept := setOf(tree.untracked), setOf(s.Untracked)
	for p, fp := range tree.files {
		if listed[p] && !kept[p] {
			continue
		}
		s.Files[p] = fp
	}
	return s, nil
}

// TreeHashes fingerprints the work tree at repo the way Snapshot.Files does:
// every tracked or untracked-but-not-ignored file (not .git, not ignored
// paths, not nested repositories) mapped to "<git mode> sha256:<hex>".
func TreeHashes(ctx context.Context, repo string) (map[string]string, error) {
	top, err := topLevel(ctx, repo)
	if err != nil {
		return nil, err
	}
	t, err := scanTree(ctx, top)
	if err != nil {
		return nil, err
	}
	return t.files, nil
}

// Changed lists the paths whose bytes, mode or existence differ from the
// snapshot, sorted: files the run edited, created or deleted.
func (s *Snapshot) Changed(ctx context.Context) ([]string, error) {
	t, err := scanTree(ctx, s.Repo)
	if err != nil {
		return nil, err
	}
	return diffFiles(s.Files, t.files), nil
}

// Diff is a unified diff (git's format, no color) from the snapshot to the work
// tree as it is now, new and deleted files included: what `do --dry-run`
// prints. It writes objects into .git and nothing else.
func (s *Snapshot) Diff(ctx context.Context) (string, error) {
	changed, err := s.Changed(ctx)
	if err != nil {
		return "", err
	}
	if len(changed) == 0 {
		return "", nil
	}
	before, err := s.tree(ctx)
	if err != nil {
		return "", err
	}
	captured, err := captureFiles(ctx, s.Repo, changed)
	if err != nil {
		return "", err
	}
	have := map[string]bool{}
	for _, f := range captured {
		have[f.path] = true
	}
	var removed []string
	for _, p := range changed {
		if !have[p] {
			removed = append(removed, p)
		}
	}
	after, err := editTree(ctx, s.Repo, before, captured, removed)
	if err != nil {
		return "", err
	}
	out, err := runGit(ctx, s.Repo, nil, nil, "diff", "--no-color", "--no-ext-diff", "--binary", before, after)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// tree is the snapshot as one tree object: tracked work tree plus untracked files.
func (s *Snapshot) tree(ctx context.Context) (string, error) {
	base := s.Head + "^{tree}"
	if s.Stash != "" {
		base = s.Stash + "^{tree}"
	}
	base, err := Run(ctx, s.Repo, "rev-parse", base)
	if err != nil || s.UntrackedTree == "" {
		return base, err
	}
	entries, err := lsTree(ctx, s.Repo, s.UntrackedTree)
	if err != nil {
		return "", err
	}
	return editTree(ctx, s.Repo, base, entries, nil)
}

// FailedRunMessage names the stash entry a failed run leaves (spec §4.5).
func FailedRunMessage(runID string) string { return "copperhead failed run " + runID }

// RefusedRunMessage names the stash entry a refused run leaves: a refusal is
// the agent doing its job, not a failure, and the entry says so.
func RefusedRunMessage(runID string) string { return "copperhead refused run " + runID }

// InterruptedRunMessage names the stash entry of a run the user stopped
// (Ctrl-C, SIGTERM), and the one `copperhead recover` leaves for a run that
// was killed (SIGKILL, power loss) before it could end.
func InterruptedRunMessage(runID string) string { return "copperhead interrupted run " + runID }

// Rollback returns the work tree to the snapshot after a failed run. If the
// run changed anything (files edited, created or deleted, or HEAD moved), it
// first stores the work tree as it is as a stash entry named exactly
// "copperhead failed run <runID>", untracked files included, and returns its
// reference, e.g. "stash@{0} (3f2a9c1d07be)"; a run that changed nothing
// leaves no stash and returns "". Then it resets HEAD, index and tracked files
// to the snapshot (what was staged stays staged), removes untracked files the
// run created, rewrites the untracked files the snapshot holds, and checks
// that every fingerprint in Files matches again. Ignored files and nested
// repositories present at the snapshot are never touched; a nested repository
// the run created is moved under the git directory (see NestedDir). If storing the work fails, nothing is
// restored; if restoring fails, the returned reference still names the work.
func (s *Snapshot) Rollback(ctx context.Context, runID string) (stashRef string, err error) {
	return s.rollback(ctx, runID, FailedRunMessage(runID), true)
}

// RollbackAs is Rollback with the stash entry named msg instead
// (RefusedRunMessage, InterruptedRunMessage).
func (s *Snapshot) RollbackAs(ctx context.Context, runID, msg string) (stashRef string, err error) {
	return s.rollback(ctx, runID, msg, true)
}

// Restore is Rollback without keeping the work: for `do --dry-run`, whose
// record of the work is the Diff it printed. It leaves no stash entry; a
// nested repository the run created is still moved, never deleted.
func (s *Snapshot) Restore(ctx context.Context) error {
	_, err := s.rollback(ctx, "dry-run", "", false)
	return err
}

func (s *Snapshot) rollback(ctx context.Context, runID, msg string, keep bool) (stashRef string, err error) {
	// A rollback must finish even when the run ends because ctx was
	// cancelled (Ctrl-C); each git command keeps its own Timeout.
	ctx = context.WithoutCancel(ctx)
	now, err := scanTree(ctx, s.Repo)
	if err != nil {
		return "", fmt.Errorf("rollback: %w", err)
	}
	head, err := Run(ctx, s.Repo, "rev-parse", "HEAD")
	if err != nil {
		return "", fmt.Errorf("rollback: %w", err)
	}
	if head == s.Head && maps.Equal(now.files, s.Files) {
		// Every byte is as it was; only the index may hold a failed
		// commit's staging. Leave the files alone: rewriting them would put
		// the user's uncommitted changes at risk for nothing.
		if err := s.restoreIndex(ctx); err != nil {
			return "", fmt.Errorf("rollback: %w", err)
		}
		return "", s.moveNested(ctx, runID, now.nested)
	}
	if keep {
		if stashRef, err = s.keepWork(ctx, msg, now.untracked); err != nil {
			return "", fmt.Errorf("rollback: keep the run's work (nothing was restored): %w", err)
		}
	}
	if err := s.moveNested(ctx, runID, now.nested); err != nil {
		return stashRef, fmt.Errorf("rollback: %w", err)
	}
	if err := s.restore(ctx); err != nil {
		return stashRef, fmt.Errorf("rollback: %w", err)
	}
	after, err := scanTree(ctx, s.Repo)
	if err != nil {
		return stashRef, fmt.Errorf("rollback: %w", err)
	}
	if diff := diffFiles(s.Files, after.files); len(diff) > 0 {
		return stashRef, fmt.Errorf("rollback: %s still differ from the snapshot", namePaths(diff))
	}
	return stashRef, nil
}

// NestedDir is where Rollback moves a nested repository the run created,
// relative to the git directory: <git dir>/copperhead/failed-runs/<run id>/<path>.
// A tree object cannot hold a .git folder, so the stash cannot keep it, and
// deleting a repository is not a rollback.
const NestedDir = "copperhead/failed-runs"

func (s *Snapshot) moveNested(ctx context.Context, runID string, nested []string) error {
	had := setOf(s.Nested)
	for _, p := range nested {
		if had[p] {
			continue
		}
		gitDir, err := Run(ctx, s.Repo, "rev-parse", "--absolute-git-dir")
		if err != nil {
			return err
		}
		run := strings.NewReplacer("/", "_", "\\", "_", "..", "_").Replace(runID)
		dest := filepath.Join(gitDir, filepath.FromSlash(NestedDir), run, filepath.FromSlash(strings.TrimSuffix(p, "/")))
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return fmt.Errorf("move nested repository %s: %w", p, err)
		}
		if err := os.Rename(filepath.Join(s.Repo, filepath.FromSlash(p)), dest); err != nil {
			return fmt.Errorf("move nested repository %s: %w", p, err)
		}
		removeFile(s.Repo, p) // prune the folders it leaves empty
	}
	return nil
}

// keepWork stores the work tree as a stash entry whose base is the snapshot's
// HEAD, so `git stash show -p --include-untracked` shows everything the run
// did, even work it committed. The commit shape is git's own: the work tree
// with parents HEAD, the index, and the untracked files.
func (s *Snapshot) keepWork(ctx context.Context, msg string, untracked []string) (string, error) {
	// `git stash create` trees are absolute (the index and the work tree), so
	// they stay right even when the run moved HEAD.
	id := identity(ctx, s.Repo) // stash and commit-tree write commits and a reflog entry
	git := func(args ...string) (string, error) { return Run(ctx, s.Repo, slices.Concat(id, args)...) }
	// A tracked file rewritten with its own bytes (an edit and its undo)
	// looks changed to the index's stat data, and `git stash create` then
	// finds nothing to save and exits 1. Refreshing the stat data first
	// (the index's entries stay as they are) avoids that; it exits 1 when
	// files differ, which is no error here.
	_, _ = git("update-index", "-q", "--refresh")
	created, err := git("stash", "create", msg)
	if err != nil {
		return "", err
	}
	workTree, indexTree := "HEAD^{tree}", "HEAD^{tree}"
	if created != "" {
		workTree, indexTree = created+"^{tree}", created+"^2^{tree}"
	}
	if workTree, err = Run(ctx, s.Repo, "rev-parse", workTree); err != nil {
		return "", err
	}
	if indexTree, err = Run(ctx, s.Repo, "rev-parse", indexTree); err != nil {
		return "", err
	}
	index, err := git("commit-tree", indexTree, "-p", s.Head, "-m", "index on "+msg)
	if err != nil {
		return "", err
	}
	parents := []string{"-p", s.Head, "-p", index}
	captured, err := captureFiles(ctx, s.Repo, untracked)
	if err != nil {
		return "", err
	}
	if len(captured) > 0 {
		tree, err := writeTree(ctx, s.Repo, "", captured)
		if err != nil {
			return "", err
		}
		u, err := git("commit-tree", tree, "-m", "untracked files on "+msg)
		if err != nil {
			return "", err
		}
		parents = append(parents, "-p", u)
	}
	work, err := git(slices.Concat([]string{"commit-tree", workTree}, parents, []string{"-m", msg})...)
	if err != nil {
		return "", err
	}
	if _, err := git("stash", "store", "-m", msg, work); err != nil {
		return "", err
	}
	return fmt.Sprintf("stash@{0} (%s)", work[:min(12, len(work))]), nil
}

// restoreIndex puts the index back to the snapshot's (HEAD, or what was
// staged under --allow-dirty) without touching the work tree.
func (s *Snapshot) restoreIndex(ctx context.Context) error {
	tree := s.Head + "^{tree}"
	if s.Stash != "" {
		tree = s.Stash + "^2^{tree}"
	}
	if _, err := Run(ctx, s.Repo, "read-tree", "--reset", tree); err != nil {
		return err
	}
	// Refresh stat data so status stays fast; exit 1 only says some files
	// differ from the index, which unstaged changes do.
	_, _ = Run(ctx, s.Repo, "update-index", "-q", "--refresh")
	return nil
}

func (s *Snapshot) restore(ctx context.Context) error {
	if _, err := Run(ctx, s.Repo, "reset", "--quiet", "--hard", s.Head); err != nil {
		return err
	}
	if s.Stash != "" {
		// Work tree first (read-tree -u also deletes what the snapshot had
		// deleted), then the index alone, so staged and unstaged changes come
		// back as they were.
		if _, err := Run(ctx, s.Repo, "read-tree", "--reset", "-u", s.Stash+"^{tree}"); err != nil {
			return err
		}
		if err := s.restoreIndex(ctx); err != nil {
			return err
		}
	}
	out, err := runGit(ctx, s.Repo, nil, nil, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return err
	}
	keep := setOf(s.Untracked)
	for _, p := range splitZ(out) {
		if keep[p] || strings.HasSuffix(p, "/") {
			continue
		}
		if err := removeFile(s.Repo, p); err != nil {
			return err
		}
	}
	if s.UntrackedTree == "" {
		return nil
	}
	entries, err := lsTree(ctx, s.Repo, s.UntrackedTree)
	if err != nil {
		return err
	}
	for _, e := range entries {
		abs := filepath.Join(s.Repo, filepath.FromSlash(e.path))
		if fp, _, err := fingerprint(abs); err == nil && fp == s.Files[e.path] {
			continue
		}
		if err := s.writeUntracked(ctx, abs, e); err != nil {
			return err
		}
	}
	return nil
}

func (s *Snapshot) writeUntracked(ctx context.Context, abs string, e capturedFile) error {
	data, err := runGit(ctx, s.Repo, nil, nil, "cat-file", "blob", e.blob)
	if err != nil {
		return err
	}
	if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore %s: %w", e.path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("restore %s: %w", e.path, err)
	}
	if e.mode == "120000" {
		if err := os.Symlink(string(data), abs); err != nil {
			return fmt.Errorf("restore %s: %w", e.path, err)
		}
		return nil
	}
	perm, ok := s.perm[e.path]
	if !ok {
		perm = 0o644
		if e.mode == "100755" {
			perm = 0o755
		}
	}
	if err := os.WriteFile(abs, data, perm); err != nil {
		return fmt.Errorf("restore %s: %w", e.path, err)
	}
	if err := os.Chmod(abs, perm); err != nil { // WriteFile is subject to umask
		return fmt.Errorf("restore %s: %w", e.path, err)
	}
	return nil
}

// removeFile deletes a file the run created, then the folders it leaves empty.
func removeFile(top, rel string) error {
	abs := filepath.Join(top, filepath.FromSlash(rel))
	if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", rel, err)
	}
	for dir := filepath.Dir(abs); dir != top && strings.HasPrefix(dir, top+string(filepath.Separator)); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil { // not empty, or gone: stop
			break
		}
	}
	return nil
}

// treeState is what scanTree finds.
type treeState struct {
	files     map[string]string // path -> fingerprint
	untracked []string          // untracked, non-ignored files (sorted)
	nested    []string          // untracked nested repositories, "dir/"
}

// scanTree fingerprints every tracked and untracked-but-not-ignored file.
// Paths git lists that no longer exist, or are folders (submodules), are left
// out. An untracked file that cannot be read is an *UnreadableError.
func scanTree(ctx context.Context, top string) (*treeState, error) {
	cached, err := runGit(ctx, top, nil, nil, "ls-files", "-z", "--cached")
	if err != nil {
		return nil, err
	}
	others, err := runGit(ctx, top, nil, nil, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	t := &treeState{files: map[string]string{}, untracked: []string{}, nested: []string{}}
	for _, p := range splitZ(cached) {
		fp, ok, err := fingerprint(filepath.Join(top, filepath.FromSlash(p)))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		if ok {
			t.files[p] = fp
		}
	}
	for _, p := range splitZ(others) {
		if strings.HasSuffix(p, "/") {
			t.nested = append(t.nested, p)
			continue
		}
		if _, dup := t.files[p]; dup {
			continue
		}
		fp, ok, err := fingerprint(filepath.Join(top, filepath.FromSlash(p)))
		if err != nil {
			return nil, &UnreadableError{Path: p, Err: err}
		}
		if ok {
			t.files[p] = fp
			t.untracked = append(t.untracked, p)
		}
	}
	slices.Sort(t.untracked)
	slices.Sort(t.nested)
	return t, nil
}

// openFile opens a file for fingerprinting and capture. Tests replace it to
// simulate an unreadable file, which a root test process cannot create.
var openFile = func(name string) (io.ReadCloser, error) { return os.Open(name) }

// fingerprint is "<git mode> sha256:<hex>" for a regular file or symlink.
// ok is false when the path no longer exists or is not a file.
func fingerprint(abs string) (fp string, ok bool, err error) {
	f, err := readEntry(abs, "sha1")
	if err != nil || f == nil {
		return "", false, err
	}
	return f.fingerprint, true, nil
}

// capturedFile is one file as stored in a tree object.
type capturedFile struct {
	path        string // repo-relative, forward slashes
	mode        string // git mode: 100644, 100755 or 120000
	blob        string // object id
	fingerprint string
	perm        fs.FileMode
	data        []byte // symlink target only
}

// readEntry reads a regular file or symlink and computes its fingerprint and
// its git blob id in objectFormat ("sha1" or "sha256"). It returns nil, nil
// for a path that vanished or is not a file (folders, FIFOs, sockets).
func readEntry(abs, objectFormat string) (*capturedFile, error) {
	fi, err := os.Lstat(abs)
	if err != nil {
		if vanished(err) {
			return nil, nil
		}
		return nil, err
	}
	var content hash.Hash = sha256.New()
	var blob hash.Hash = sha1.New()
	if objectFormat == "sha256" {
		blob = sha256.New()
	}
	c := &capturedFile{perm: fi.Mode().Perm()}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		if err != nil {
			if vanished(err) {
				return nil, nil
			}
			return nil, err
		}
		c.mode, c.data = "120000", []byte(target)
		content.Write(c.data)
		fmt.Fprintf(blob, "blob %d\x00", len(c.data))
		blob.Write(c.data)
	case fi.Mode().IsRegular():
		c.mode = "100644"
		if fi.Mode()&0o111 != 0 {
			c.mode = "100755"
		}
		r, err := openFile(abs)
		if err != nil {
			if vanished(err) {
				return nil, nil
			}
			return nil, err
		}
		defer r.Close()
		fmt.Fprintf(blob, "blob %d\x00", fi.Size())
		n, err := io.Copy(io.MultiWriter(content, blob), r)
		if err != nil {
			return nil, err
		}
		if n != fi.Size() {
			return nil, fmt.Errorf("changed while being read")
		}
	default:
		return nil, nil
	}
	c.fingerprint = c.mode + " sha256:" + hex.EncodeToString(content.Sum(nil))
	c.blob = hex.EncodeToString(blob.Sum(nil))
	return c, nil
}

func vanished(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// captureFiles writes the given files into the object store byte for byte (no
// clean filters: the snapshot must give back exactly what it took) and
// returns them with their blob ids, skipping paths that vanished or are not
// files. A file that cannot be read is an *UnreadableError; one whose stored
// blob differs from the bytes read (changed mid-capture) is an error too.
func captureFiles(ctx context.Context, top string, paths []string) ([]capturedFile, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	format, err := Run(ctx, top, "rev-parse", "--show-object-format")
	if err != nil {
		format = "sha1" // git before 2.25 knows no other
	}
	var files []capturedFile
	var regular []string
	for _, p := range paths {
		c, err := readEntry(filepath.Join(top, filepath.FromSlash(p)), format)
		if err != nil {
			return nil, &UnreadableError{Path: p, Err: err}
		}
		if c == nil {
			continue
		}
		c.path = p
		files = append(files, *c)
		if c.mode != "120000" && !strings.Contains(p, "\n") {
			regular = append(regular, p) // --stdin-paths reads one path a line
		}
	}
	ids := map[string]string{}
	if len(regular) > 0 {
		out, err := runGit(ctx, top, nil, strings.NewReader(strings.Join(regular, "\n")+"\n"),
			"hash-object", "-w", "--no-filters", "--stdin-paths")
		if err != nil {
			return nil, err
		}
		got := strings.Fields(string(out))
		if len(got) != len(regular) {
			return nil, fmt.Errorf("git hash-object: %d ids for %d files", len(got), len(regular))
		}
		for i, p := range regular {
			ids[p] = got[i]
		}
	}
	for i, f := range files {
		if _, ok := ids[f.path]; !ok {
			args := []string{"hash-object", "-w", "--no-filters", "--", f.path}
			var stdin io.Reader
			if f.mode == "120000" {
				args, stdin = []string{"hash-object", "-w", "-t", "blob", "--stdin"}, bytes.NewReader(f.data)
			}
			out, err := runGit(ctx, top, nil, stdin, args...)
			if err != nil {
				return nil, err
			}
			ids[f.path] = strings.TrimSpace(string(out))
		}
		if ids[f.path] != f.blob {
			return nil, fmt.Errorf("%s changed while it was being captured; rerun", f.path)
		}
		files[i].data = nil
	}
	return files, nil
}

// writeTree builds a tree object from base (a tree-ish, or "" for empty)
// plus files, through a temporary index: the repository's own index is never
// read or written.
func writeTree(ctx context.Context, top, base string, files []capturedFile) (string, error) {
	if base == "" && len(files) == 0 {
		return "", nil
	}
	return editTree(ctx, top, base, files, nil)
}

// editTree is base with files added or replaced and the removed paths gone.
func editTree(ctx context.Context, top, base string, files []capturedFile, removed []string) (string, error) {
	dir, err := os.MkdirTemp("", "copperhead-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(dir, "index")}
	if base != "" {
		if _, err := runGit(ctx, top, env, nil, "read-tree", base); err != nil {
			return "", err
		}
	}
	if len(removed) > 0 {
		paths := strings.Join(removed, "\x00") + "\x00"
		if _, err := runGit(ctx, top, env, strings.NewReader(paths), "update-index", "--force-remove", "-z", "--stdin"); err != nil {
			return "", err
		}
	}
	var info strings.Builder
	for _, f := range files {
		fmt.Fprintf(&info, "%s %s\t%s\x00", f.mode, f.blob, f.path)
	}
	if info.Len() > 0 {
		if _, err := runGit(ctx, top, env, strings.NewReader(info.String()), "update-index", "--add", "-z", "--index-info"); err != nil {
			return "", err
		}
	}
	out, err := runGit(ctx, top, env, nil, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// lsTree lists the files of a tree object, recursively.
func lsTree(ctx context.Context, top, tree string) ([]capturedFile, error) {
	out, err := runGit(ctx, top, nil, nil, "ls-tree", "-r", "-z", tree)
	if err != nil {
		return nil, err
	}
	var files []capturedFile
	for _, line := range splitZ(out) {
		meta, path, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta) // mode type id
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue
		}
		files = append(files, capturedFile{path: path, mode: f[0], blob: f[2]})
	}
	return files, nil
}

func diffFiles(a, b map[string]string) []string {
	var out []string
	for p, fp := range a {
		if b[p] != fp {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func setOf(paths []string) map[string]bool {
	m := make(map[string]bool, len(paths))
	for _, p := range paths {
		m[p] = true
	}
	return m
}

func splitZ(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}

// gitError quotes git's own words; errors.As finds the *exec.ExitError.
type gitError struct {
	args []string
	msg  string
	err  error
}

func (e *gitError) Error() string { return "git " + strings.Join(e.args, " ") + ": " + e.msg }
func (e *gitError) Unwrap() error { return e.err }

// runGit is Run for plumbing: raw stdout (NUL-separated output must not be
// trimmed), optional extra environment and stdin. Its errors put git's stderr
// on one line.
func runGit(ctx context.Context, dir string, env []string, stdin io.Reader, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := textfmt.JoinLines(stderr.String(), "; ")
		if msg == "" {
			msg = err.Error()
		}
		return stdout.Bytes(), &gitError{args: args, msg: msg, err: err}
	}
	return stdout.Bytes(), nil
}
