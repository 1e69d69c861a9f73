package kicadcli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"copperhead/internal/atomicfile"
	"copperhead/internal/repofs"
)

// The cache lets `check` on an unchanged project reuse kicad-cli's results.
// An entry is keyed by a SHA-256 over everything the result depends on:
//
//   - the cache format (cacheFormat) and kicad-cli's version;
//   - the command line, with the input named relative to its folder;
//   - the private KiCad environment: library tables and library folders;
//   - the content of every project input: walking the input file's folder
//     (hidden folders and KiCad's *-backups skipped), every .kicad_sch,
//     .kicad_pro, .kicad_sym, .kicad_mod, .kicad_dbl, sym-lib-table and
//     fp-lib-table, plus .kicad_pcb and .kicad_dru for board commands; and
//     every sheet file the schematics reference outside that folder, or a
//     marker for a referenced sheet that is missing.
//
// Paths in the key are relative to the input's folder, so a project moved or
// cloned elsewhere still hits. Entries hold kicad-cli's raw output (the
// report or netlist) and what it printed; normalization runs on every load,
// so changing it needs no cache invalidation.
//
// Hashing reads every input once, several files at a time: the vme-wren
// demo (19 MB of schematics, a 69 MB board) hashes in well under a second.

// cacheFormat names the entry layout and key recipe; bump it when either
// changes.
const cacheFormat = "copperhead kicad-cli cache v2"

// cacheSubdir is the cache's folder inside CacheDir.
const cacheSubdir = "kicad-cli"

// cacheMaxAge is how long an unused entry is kept. Entries are rewritten on
// every hit, so only results for designs nobody checks any more age out.
const cacheMaxAge = 30 * 24 * time.Hour

// defaultCacheDir is COPPERHEAD_CACHE_DIR, else <user cache dir>/copperhead,
// else "" (no cache).
func defaultCacheDir() string {
	return userDir("COPPERHEAD_CACHE_DIR", os.UserCacheDir, "copperhead")
}

// userDir is the folder the environment variable env names, else elem
// joined under the user folder base returns, else "" when there is none.
func userDir(env string, base func() (string, error), elem ...string) string {
	if dir := os.Getenv(env); dir != "" {
		return dir
	}
	b, err := base()
	if err != nil {
		return ""
	}
	return filepath.Join(append([]string{b}, elem...)...)
}

// cacheEntry is what the cache stores for one kicad-cli run.
type cacheEntry struct {
	Format string `json:"format"`
	Stderr string `json:"stderr"` // kicad-cli's stderr, for Report.Notes
	Data   string `json:"data"`   // the file kicad-cli wrote
	// Sum is entrySum of the above: entries are written without a sync
	// (storeCached), so one a crash damaged is told from a good one.
	Sum string `json:"sum"`
}

// entrySum is the checksum a cache entry carries.
func entrySum(e cacheEntry) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00", e.Format, len(e.Stderr), e.Stderr)
	h.Write([]byte(e.Data))
	return hex.EncodeToString(h.Sum(nil))
}

// inputSet is the files a result depends on, as found when the key was made.
type inputSet struct {
	files []fileStamp
}

// fileStamp is one input and its state when it was hashed.
type fileStamp struct {
	rel     string // slash-separated, relative to root
	path    string
	missing bool
	size    int64
	mtime   time.Time
	sum     [sha256.Size]byte

	sheetRefs []string // sheet files a schematic names (absolute)
}

// unchanged reports whether every input still looks as it did when hashed,
// so a result computed meanwhile may be stored under the key.
func (s *inputSet) unchanged() bool {
	for _, f := range s.files {
		fi, err := os.Stat(f.path)
		if f.missing != (err != nil) {
			return false
		}
		if err == nil && (fi.Size() != f.size || !fi.ModTime().Equal(f.mtime)) {
			return false
		}
	}
	return true
}

// cacheKey hashes the inputs (set, from collectInputs) of a kicad-cli run
// on input with args.
func (t *Tool) cacheKey(args []string, input string, set *inputSet) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\nkicad-cli %s\n", cacheFormat, t.version)
	for _, a := range args {
		if a == outPlaceholder {
			a = "<out>"
		}
		fmt.Fprintf(h, "arg %q\n", a)
	}
	fmt.Fprintf(h, "input %q\n%s", filepath.Base(input), t.env.fingerprint)
	for _, f := range set.files {
		if f.missing {
			fmt.Fprintf(h, "missing %q\n", f.rel)
		} else {
			fmt.Fprintf(h, "file %q %x\n", f.rel, f.sum)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// missingSheets lists the referenced sheet files that do not exist, relative
// to the input's folder.
func (s *inputSet) missingSheets() []string {
	var out []string
	for _, f := range s.files {
		if f.missing {
			out = append(out, f.rel)
		}
	}
	return out
}

// isProjectInput says whether a file in the project folder can change a
// result: board files only for board commands.
func isProjectInput(name string, board bool) bool {
	switch name {
	case symLibTable, fpLibTable:
		return true
	}
	switch filepath.Ext(name) {
	case ".kicad_sch", ".kicad_pro", ".kicad_sym", ".kicad_mod", ".kicad_dbl":
		return true
	case ".kicad_pcb", ".kicad_dru":
		return board
	}
	return false
}

// collectInputs finds and hashes every input of a run on input. When
// boundary is not "", every input must resolve inside it: a sheet the
// schematics name outside it, or a file linked out of it, is refused with a
// *repofs.Error naming the file, as is any input that is not a regular file
// (a named pipe would block kicad-cli, and any reader, forever).
func collectInputs(input string, board bool, boundary string, sums *sumMemo) (*inputSet, error) {
	abs, err := filepath.Abs(input)
	if err != nil {
		return nil, err
	}
	root := filepath.Dir(abs)
	paths, err := projectFiles(root, board)
	if err != nil {
		return nil, err
	}

	set := &inputSet{}
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		seen[p] = true
	}
	// Hash in rounds: a round's schematics may name sheets outside the
	// folder, which the next round hashes.
	for len(paths) > 0 {
		stamps, err := hashFiles(root, paths, boundary, sums)
		if err != nil {
			return nil, err
		}
		set.files = append(set.files, stamps...)
		paths = nil
		for _, s := range stamps {
			for _, ref := range s.sheetRefs {
				if !seen[ref] {
					seen[ref] = true
					paths = append(paths, ref)
				}
			}
		}
	}
	slices.SortFunc(set.files, func(a, b fileStamp) int { return strings.Compare(a.rel, b.rel) })
	return set, nil
}

// projectFiles lists the project inputs in the folder root and below it
// (hidden folders and KiCad's *-backups skipped): every file isProjectInput
// names. One that is not a regular file is refused with a *repofs.Error.
func projectFiles(root string, board bool) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasSuffix(name, "-backups")) {
				return filepath.SkipDir
			}
			return nil
		}
		if isProjectInput(name, board) {
			// A named pipe named like a KiCad file would block kicad-cli
			// (which opens the project file and library tables by name) and
			// the hash: refused, not opened.
			if err := repofs.CheckRegular(p); err != nil {
				rel, _ := filepath.Rel(root, p)
				return repofs.Renamed(err, filepath.ToSlash(rel))
			}
			paths = append(paths, p)
		}
		return nil
	})
	if re := (*repofs.Error)(nil); errors.As(err, &re) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("list project files: %w", err)
	}
	return paths, nil
}

// ProjectInputs lists, absolute, the project files in the folder of the
// schematic at schPath (and below it) that a schematic command's result
// depends on, as the cache keys them: sheets, the project file, libraries
// and library tables. A caller that lays a design out elsewhere for
// kicad-cli (an edit's scratch copy) copies them too, so kicad-cli sees the
// same project and its result is cached under the key the design will have
// once written.
func ProjectInputs(schPath string) ([]string, error) {
	abs, err := filepath.Abs(schPath)
	if err != nil {
		return nil, err
	}
	return projectFiles(filepath.Dir(abs), false)
}

// isDesignFile says whether a project input is part of the design (sheets,
// board, project and rules) rather than a library: design files must lie
// inside the repository when a Boundary is set; libraries (a shared symbol
// library linked in, say) may live anywhere, as sym-lib-table allows.
func isDesignFile(path string) bool {
	switch filepath.Ext(path) {
	case ".kicad_sch", ".kicad_pcb", ".kicad_pro", ".kicad_dru":
		return true
	}
	return false
}

// hashFiles hashes paths concurrently (reading is the cost, and page-cache
// reads scale with cores). A missing file is recorded, not an error: a
// schematic may name a sheet that does not exist yet, and creating it must
// change the key.
func hashFiles(root string, paths []string, boundary string, sums *sumMemo) ([]fileStamp, error) {
	stamps := make([]fileStamp, len(paths))
	errs := make([]error, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 4, len(paths)) {
		wg.Go(func() {
			for i := range next {
				stamps[i], errs[i] = hashFile(root, paths[i], boundary, sums)
			}
		})
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return stamps, nil
}

// hashFile hashes one input; a schematic is also scanned for the sheet
// files it references. With sums, a file hashed before with the same size
// and modification time is not read again.
func hashFile(root, path, boundary string, sums *sumMemo) (fileStamp, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		rel = path
	}
	s := fileStamp{rel: filepath.ToSlash(rel), path: path}
	open := path
	if boundary != "" && isDesignFile(path) {
		if open, err = repofs.Resolve(boundary, path); err != nil {
			return s, repofs.Renamed(err, s.rel)
		}
	}
	f, err := repofs.OpenRegular(open)
	if errors.Is(err, fs.ErrNotExist) {
		s.missing = true
		return s, nil
	}
	if re := (*repofs.Error)(nil); errors.As(err, &re) {
		return s, repofs.Renamed(err, s.rel)
	}
	if err != nil {
		return s, fmt.Errorf("hash %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return s, fmt.Errorf("hash %s: %w", path, err)
	}
	s.size, s.mtime = fi.Size(), fi.ModTime()
	if sums.reuse(&s) {
		return s, nil
	}
	h := sha256.New()
	if filepath.Ext(path) == ".kicad_sch" {
		data, err := io.ReadAll(f)
		if err != nil {
			return s, fmt.Errorf("hash %s: %w", path, err)
		}
		h.Write(data)
		s.sheetRefs = sheetRefs(filepath.Dir(path), data)
	} else if _, err := io.Copy(h, f); err != nil {
		return s, fmt.Errorf("hash %s: %w", path, err)
	}
	h.Sum(s.sum[:0])
	sums.store(s)
	return s, nil
}

// sheetFileProp opens the property naming a hierarchical sheet's file.
var sheetFileProp = []byte(`(property "Sheetfile" "`)

// sheetRefs lists the sheet files a schematic references, resolved the way
// KiCad does: relative to the referencing schematic's folder. A byte scan
// rather than a parse keeps hashing fast; a false hit costs only a missing
// marker in the key.
func sheetRefs(dir string, data []byte) []string {
	var refs []string
	for {
		i := bytes.Index(data, sheetFileProp)
		if i < 0 {
			return refs
		}
		data = data[i+len(sheetFileProp):]
		end := 0
		for end < len(data) && data[end] != '"' && data[end] != '\n' {
			if data[end] == '\\' {
				end++
			}
			end++
		}
		if end > len(data) {
			return refs
		}
		name, err := strconv.Unquote(`"` + string(data[:end]) + `"`)
		if err != nil {
			name = string(data[:end])
		}
		if name != "" {
			if !filepath.IsAbs(name) {
				name = filepath.Join(dir, name)
			}
			refs = append(refs, filepath.Clean(name))
		}
		data = data[end:]
	}
}

// cachePath is where the entry for key lives.
func (t *Tool) cachePath(key string) string {
	return filepath.Join(t.CacheDir, cacheSubdir, key+".json")
}

// loadCached returns the entry for key, or false. A hit refreshes the
// entry's mtime, which is what pruning goes by.
func (t *Tool) loadCached(key string) (cacheEntry, bool) {
	var e cacheEntry
	if t.CacheDir == "" || t.NoCache {
		return e, false
	}
	p := t.cachePath(key)
	data, err := os.ReadFile(p)
	if err != nil || json.Unmarshal(data, &e) != nil || e.Format != cacheFormat || e.Sum != entrySum(e) {
		return cacheEntry{}, false
	}
	now := time.Now()
	os.Chtimes(p, now, now)
	return e, true
}

// storeCached writes the entry for key atomically, then prunes entries
// unused for cacheMaxAge, at most once every pruneEvery. The write is not
// synced: it ends DRC's critical path, and the entry's checksum catches
// what a crash could damage. Failing to cache never fails a check, so
// errors are dropped.
func (t *Tool) storeCached(key string, e cacheEntry) {
	if t.CacheDir == "" {
		return
	}
	e.Format = cacheFormat
	e.Sum = entrySum(e)
	data, err := json.Marshal(e)
	if err != nil {
		return
	}
	if atomicfile.WriteUnsynced(t.cachePath(key), data, 0o644) != nil {
		return
	}
	dir := filepath.Join(t.CacheDir, cacheSubdir)
	if now := time.Now(); pruneDue(dir, now) {
		pruneCache(dir, now.Add(-cacheMaxAge))
	}
}

// pruneEvery is how often the cache folder is pruned: listing a folder of
// thousands of entries after every store would cost each check
// milliseconds to remove entries a month old.
const pruneEvery = time.Hour

// pruneMark is the file whose modification time says when dir was pruned.
const pruneMark = ".pruned"

// pruneDue reports whether dir was last pruned pruneEvery ago or more (or
// never), and marks it pruned now when so.
func pruneDue(dir string, now time.Time) bool {
	mark := filepath.Join(dir, pruneMark)
	if fi, err := os.Stat(mark); err == nil && now.Sub(fi.ModTime()) < pruneEvery {
		return false
	}
	if err := os.WriteFile(mark, nil, 0o644); err == nil {
		os.Chtimes(mark, now, now)
	}
	return true
}

// pruneCache removes entries (and stray temp files) last used before cutoff.
func pruneCache(dir string, cutoff time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, d := range entries {
		if d.Name() == pruneMark {
			continue
		}
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(cutoff) {
			os.Remove(filepath.Join(dir, d.Name()))
		}
	}
}

// inputMemo keeps the input sets collected during one check, so ERC and
// the netlist export of the same schematic read and hash its files once.
type inputMemo struct {
	mu   sync.Mutex
	sets map[inputMemoKey]*memoSet
	sums sumMemo
	// stores is the cache writes still under way (finish, Flush).
	stores sync.WaitGroup
}

type inputMemoKey struct {
	input, boundary string
	board           bool
}

// memoSet is one input's set; its lock is held while it is collected, so a
// second run of the same input waits for the first's set instead of
// hashing the same files beside it.
type memoSet struct {
	mu  sync.Mutex
	set *inputSet
}

// sumMemo keeps the hash of each file collected during one check, so DRC's
// inputs and ERC's, which share the schematics and libraries, read each
// file once. A file is taken from it only with the size and modification
// time it had when hashed; the boundary and regular-file checks still run
// on every collection (hashFile opens the file before asking).
type sumMemo struct {
	mu sync.Mutex
	m  map[string]fileStamp // by path
}

// reuse fills s's hash and sheet references from the memo when the file
// at s.path was hashed with s's size and modification time.
func (m *sumMemo) reuse(s *fileStamp) bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.m[s.path]
	if !ok || old.size != s.size || !old.mtime.Equal(s.mtime) {
		return false
	}
	s.sum, s.sheetRefs = old.sum, old.sheetRefs
	return true
}

func (m *sumMemo) store(s fileStamp) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]fileStamp{}
	}
	m.m[s.path] = s
}

// SharingInputs returns a copy of t whose runs share their collected input
// sets (see inputsFor). It is meant for one check of one design: ERC and
// the netlist export then hash the schematics once, not twice.
func (t *Tool) SharingInputs() *Tool {
	c := *t
	c.inputs = &inputMemo{sets: map[inputMemoKey]*memoSet{}}
	return &c
}

// inputsFor is collectInputs, reusing a set this Tool collected before for
// the same input when every file of it still has the size and modification
// time it had then (inputSet.unchanged, the test a result must pass to be
// stored under the set's key anyway).
func (t *Tool) inputsFor(input string, board bool, boundary string) (*inputSet, error) {
	if t.inputs == nil {
		return collectInputs(input, board, boundary, nil)
	}
	k := inputMemoKey{input: input, boundary: boundary, board: board}
	t.inputs.mu.Lock()
	m := t.inputs.sets[k]
	if m == nil {
		m = &memoSet{}
		t.inputs.sets[k] = m
	}
	t.inputs.mu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.set != nil && m.set.unchanged() {
		return m.set, nil
	}
	set, err := collectInputs(input, board, boundary, &t.inputs.sums)
	if err == nil {
		m.set = set
	}
	return set, err
}
