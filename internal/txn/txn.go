// Package txn writes a set of repository files all or nothing, and keeps
// one writer at a time. Commit records every file's new bytes in a journal
// under .copperhead/txn/ before it touches any target, so a run killed in
// the middle of the writes is rolled forward by the next command (Recover):
// each file ends wholly old or wholly new, and the set ends all new or all
// old. Lock is the repository's one-writer lock (.copperhead/state/lock, stale
// locks detected by pid and process start time).
//
// It imports only the standard library, internal/atomicfile and
// internal/repofs; it must
// never import kicad, design or anything above them: it moves bytes, it
// does not know what they mean.
package txn

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"copperhead/internal/atomicfile"
	"copperhead/internal/config"
	"copperhead/internal/repofs"
)

// StateDir holds the lock and the journal, relative to the repository
// root. It ignores itself for git (a .gitignore of "*"), so neither shows
// as an uncommitted change nor is ever stashed or committed.
const StateDir = config.StateDir

// Dir is the journal folder, relative to the repository root.
const Dir = StateDir + "/txn"

// ensureStateDir creates StateDir with its self-ignoring .gitignore.
func ensureStateDir(repo string) error {
	dir := filepath.Join(repo, filepath.FromSlash(StateDir))
	var err error
	// A command letting go of the lock may be taking an empty state
	// folder (and .copperhead) away at this moment: try again then.
	for range 10 {
		if err = os.MkdirAll(dir, 0o755); err == nil {
			ign := filepath.Join(dir, ".gitignore")
			if _, serr := os.Stat(ign); serr == nil {
				return nil
			}
			if err = os.WriteFile(ign, []byte("# copperhead's lock and journal: never committed\n*\n"), 0o644); err == nil {
				return nil
			}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return fmt.Errorf("create %s: %w", StateDir, err)
}

// File is one file of a transaction: its path (absolute, inside the
// repository) and its complete new contents.
type File struct {
	Path string
	Data []byte
	// Remove deletes the file instead (Data unused): a file the new set no
	// longer holds, such as a stale output. A file already gone is no
	// change; a symbolic link is removed itself, never its target.
	Remove bool
}

// journal is what a committed transaction records before the writes.
type journal struct {
	Files []journalFile `json:"files"`
}

type journalFile struct {
	Path   string `json:"path"`   // repo-relative, slash-separated
	Blob   string `json:"blob"`   // file in the transaction folder holding the new bytes
	SHA256 string `json:"sha256"` // of the new bytes
	Remove bool   `json:"remove,omitempty"`
}

// Commit writes (and, for a File with Remove, deletes) files all or nothing. Every path must resolve (symbolic
// links followed) to a regular file or a new file inside repo; any that
// does not is refused before anything is written. The journal is made
// durable first; a crash after that point is completed by Recover.
func Commit(repo string, files []File) error {
	if len(files) == 0 {
		return nil
	}
	repo, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	resolved := make([]File, 0, len(files))
	seen := map[string]bool{}
	for _, f := range files {
		resolve := Resolve
		if f.Remove {
			resolve = resolveRemoval
		}
		p, err := resolve(repo, f.Path)
		if err != nil {
			return err
		}
		if p == "" {
			continue // a removal of a file already gone
		}
		if seen[p] {
			return fmt.Errorf("transaction writes %s twice", rel(repo, p))
		}
		seen[p] = true
		resolved = append(resolved, File{Path: p, Data: f.Data, Remove: f.Remove})
	}
	if len(resolved) == 0 {
		return nil
	}
	sort.Slice(resolved, func(i, j int) bool { return resolved[i].Path < resolved[j].Path })

	if err := ensureStateDir(repo); err != nil {
		return err
	}
	base := filepath.Join(repo, filepath.FromSlash(Dir))
	if err := os.MkdirAll(base, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", Dir, err)
	}
	id := newID()
	tmp := filepath.Join(base, id+".tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", Dir, err)
	}
	j := journal{}
	for i, f := range resolved {
		if f.Remove {
			j.Files = append(j.Files, journalFile{Path: rel(repo, f.Path), Remove: true})
			continue
		}
		blob := fmt.Sprintf("%d.new", i)
		if err := writeSynced(filepath.Join(tmp, blob), f.Data); err != nil {
			os.RemoveAll(tmp)
			return err
		}
		sum := sha256.Sum256(f.Data)
		j.Files = append(j.Files, journalFile{Path: rel(repo, f.Path), Blob: blob, SHA256: hex.EncodeToString(sum[:])})
	}
	data, _ := json.MarshalIndent(j, "", "  ")
	if err := writeSynced(filepath.Join(tmp, "journal.json"), data); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if hook != nil {
		hook("prepared")
	}
	// The rename is the commit point: from here on the set is new.
	final := filepath.Join(base, id)
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("commit %s: %w", Dir, err)
	}
	syncDir(base)
	if hook != nil {
		hook("committed")
	}
	for i, f := range resolved {
		if f.Remove {
			if err := os.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w (the next copperhead command completes the change from %s)", rel(repo, f.Path), err, Dir)
			}
			if hook != nil {
				hook(fmt.Sprintf("wrote %d", i))
			}
			continue
		}
		if err := atomicfile.Write(f.Path, f.Data, 0o644); err != nil {
			// The journal stays: the next command finishes the writes.
			return fmt.Errorf("%w (the next copperhead command completes the change from %s)", err, Dir)
		}
		if hook != nil {
			hook(fmt.Sprintf("wrote %d", i))
		}
	}
	return discardJournal(final)
}

// discardJournal removes a finished journal: renamed out of the way first
// (one atomic step), so a kill while its files are deleted leaves a ".tmp"
// folder the next Recover removes, never a committed one without its
// journal.json that Recover could not read.
func discardJournal(dir string) error {
	gone := dir + ".done.tmp"
	if err := os.Rename(dir, gone); err != nil {
		return fmt.Errorf("remove %s: %w", filepath.Base(dir), err)
	}
	return os.RemoveAll(gone)
}

// hook, when set by a test, is called at the points a crash is simulated.
var hook func(point string)

// SetHook sets the function Commit calls at its crash points ("prepared"
// before the commit point, "committed" after it, "wrote N" after the Nth
// file of the sorted set) and returns the previous one. It is for tests of
// packages that commit through txn: a hook that panics stands in for a
// kill at that point.
func SetHook(f func(point string)) (previous func(point string)) {
	previous, hook = hook, f
	return previous
}

// resolveRemoval is Resolve for a file to delete: its folder resolved
// (links followed), the entry itself not, so a link is removed and never
// what it points at. A file already gone resolves to "".
func resolveRemoval(repo, path string) (string, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(repo, path)
	}
	path = filepath.Clean(path)
	dir, err := repofs.ResolveDir(repo, filepath.Dir(path))
	if err != nil {
		var re *repofs.Error
		if errors.As(err, &re) {
			re.Path = rel(repo, filepath.Dir(path))
			return "", fmt.Errorf("%w: refusing to remove %s", re, rel(repo, path))
		}
		return "", err
	}
	p := filepath.Join(dir, filepath.Base(path))
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
		return "", fmt.Errorf("%s is not a file: refusing to remove it", rel(repo, path))
	}
	return p, nil
}

// Recover completes every transaction a killed command left committed and
// discards every one it left unfinished (whose targets it never touched).
// It returns the repo-relative files it rewrote. A repository without a
// journal costs one failed stat.
func Recover(repo string) ([]string, error) {
	base := filepath.Join(repo, filepath.FromSlash(Dir))
	entries, err := os.ReadDir(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", Dir, err)
	}
	var done []string
	for _, e := range entries {
		dir := filepath.Join(base, e.Name())
		if !e.IsDir() || strings.HasSuffix(e.Name(), ".tmp") {
			os.RemoveAll(dir)
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "journal.json"))
		if errors.Is(err, fs.ErrNotExist) {
			// journal.json is synced before the commit rename, so a
			// committed folder without it was being deleted after its
			// writes finished (by a version that deleted it in place):
			// nothing is left to do but finish the deletion.
			if err := os.RemoveAll(dir); err != nil {
				return done, fmt.Errorf("remove %s: %w", rel(repo, dir), err)
			}
			continue
		}
		if err != nil {
			return done, fmt.Errorf("interrupted change %s: read its journal: %w", e.Name(), err)
		}
		var j journal
		if err := json.Unmarshal(data, &j); err != nil {
			return done, fmt.Errorf("interrupted change %s: its journal is damaged: %w", e.Name(), err)
		}
		for _, f := range j.Files {
			if f.Remove {
				target, err := resolveRemoval(repo, filepath.Join(repo, filepath.FromSlash(f.Path)))
				if err != nil {
					return done, fmt.Errorf("interrupted change %s: %w", e.Name(), err)
				}
				if target != "" {
					if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
						return done, fmt.Errorf("interrupted change %s: remove %s: %w", e.Name(), f.Path, err)
					}
					done = append(done, f.Path)
				}
				continue
			}
			target, err := Resolve(repo, filepath.Join(repo, filepath.FromSlash(f.Path)))
			if err != nil {
				return done, fmt.Errorf("interrupted change %s: %w", e.Name(), err)
			}
			// A kill inside atomicfile.Write leaves its temporary file
			// beside the target: not the user's, so it goes.
			atomicfile.RemoveTemps(target)
			if cur, err := os.ReadFile(target); err == nil {
				if sum := sha256.Sum256(cur); hex.EncodeToString(sum[:]) == f.SHA256 {
					continue
				}
			}
			blob, err := os.ReadFile(filepath.Join(dir, f.Blob))
			if err != nil {
				return done, fmt.Errorf("interrupted change %s: read %s: %w", e.Name(), f.Blob, err)
			}
			if sum := sha256.Sum256(blob); hex.EncodeToString(sum[:]) != f.SHA256 {
				return done, fmt.Errorf("interrupted change %s: the journal's copy of %s is damaged", e.Name(), f.Path)
			}
			if err := atomicfile.Write(target, blob, 0o644); err != nil {
				return done, err
			}
			done = append(done, f.Path)
		}
		if err := discardJournal(dir); err != nil {
			return done, fmt.Errorf("remove %s: %w", rel(repo, dir), err)
		}
	}
	return done, nil
}

// Resolve returns the real path a write to path reaches (repofs.Resolve:
// symbolic links and ".." followed), refusing one outside repo or that is
// not a regular file, naming the path as given.
func Resolve(repo, path string) (string, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(repo, path)
	}
	real, err := repofs.Resolve(repo, path)
	if err != nil {
		var re *repofs.Error
		if errors.As(err, &re) {
			re.Path = rel(repo, filepath.Clean(path))
			return "", fmt.Errorf("%w: refusing to write it", re)
		}
		return "", err
	}
	return real, nil
}

func rel(repo, abs string) string {
	if r, err := filepath.Rel(repo, abs); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return abs
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// writeSynced writes a new file and syncs it to disk.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// syncDir makes a rename in dir durable (best effort: not every file
// system supports syncing a folder).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
