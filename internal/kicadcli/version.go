package kicadcli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"copperhead/internal/atomicfile"
)

// `kicad-cli version` starts the whole program (about 0.3 s) before check
// can start ERC, DRC or the netlist export: on a small project that is a
// tenth of check's time, spent before the first real run. Its answer is
// remembered in the cache folder, keyed by the binary's identity: the path
// it resolves to, and that file's size, modification and change times and
// inode, which a package upgrade or a rebuilt kicad-cli changes (ccache
// identifies compilers the same way). A memo is never trusted for a binary
// it cannot stat, and without a cache folder kicad-cli is always asked.

// versionMemoFormat names the memo's layout; bump it when it changes.
const versionMemoFormat = "copperhead kicad-cli version v1"

// versionMemo is what the cache holds for one binary.
type versionMemo struct {
	Format string `json:"format"`
	Binary string `json:"binary"` // the identity it was asked for
	Stdout string `json:"stdout"` // what `kicad-cli version` printed
}

// binaryIdentity describes the file path resolves to; "" when it cannot be
// read.
func binaryIdentity(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	id := fmt.Sprintf("%s size=%d mtime=%d", real, fi.Size(), fi.ModTime().UnixNano())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id += fmt.Sprintf(" dev=%d ino=%d ctime=%d.%09d", st.Dev, st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fmt.Sprintf("%s (invoked as %s)", id, path)
}

// versionMemoPath is the memo's file for a binary identity.
func (t *Tool) versionMemoPath(id string) string {
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(t.CacheDir, cacheSubdir, "version-"+hex.EncodeToString(sum[:12])+".json")
}

// askVersion returns what `kicad-cli version` prints for t.Path: from the
// memo when this very binary was asked before, else by running it (and
// remembering the answer).
func (t *Tool) askVersion(ctx context.Context) ([]byte, output, error) {
	id := ""
	if t.CacheDir != "" {
		id = binaryIdentity(t.Path)
	}
	if id != "" {
		var m versionMemo
		data, err := os.ReadFile(t.versionMemoPath(id))
		if err == nil && json.Unmarshal(data, &m) == nil && m.Format == versionMemoFormat && m.Binary == id {
			return []byte(m.Stdout), output{}, nil
		}
	}
	out, err := t.execute(ctx, versionTimeout, t.Path+" version", "version")
	if err != nil {
		return nil, out, err
	}
	// Only an answer we can read is remembered: a kicad-cli that printed
	// nothing useful is asked again next time.
	if _, _, _, ok := parseVersion(out.stdout); ok && id != "" && binaryIdentity(t.Path) == id {
		if data, err := json.Marshal(versionMemo{Format: versionMemoFormat, Binary: id, Stdout: string(out.stdout)}); err == nil {
			// Failing to remember never fails a command.
			_ = atomicfile.Write(t.versionMemoPath(id), data, 0o644)
		}
	}
	return out.stdout, out, nil
}

// Identity is everything a kicad-cli result depends on besides its input
// files: kicad-cli's version and the private environment (library tables
// and library folders). A cache of results derived from this Tool's runs
// (check --baseline's, by commit) keys on it.
func (t *Tool) Identity() string {
	return fmt.Sprintf("%s\nkicad-cli %s\n%s", cacheFormat, t.version, t.env.fingerprint)
}
