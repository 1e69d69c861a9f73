// Package atomicfile writes files so that a reader (or a crash) never sees a
// half-written one: bytes go to a temporary file in the same folder, which is
// synced and then renamed over the target. It imports only the standard library.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Write replaces path with data atomically, creating parent folders as needed.
// An existing file keeps its permission bits; a new one gets perm.
func Write(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

// WriteUnsynced is Write without the sync: a running reader still never
// sees half a file, but after a crash the file may hold anything (on
// ext4, zeros). Only for files whose reader verifies what it reads (a
// cache entry carrying its own checksum), where the sync's milliseconds
// would be spent on a critical path for nothing.
func WriteUnsynced(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

func write(path string, data []byte, perm os.FileMode, sync bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, tempPattern(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// tempPattern names Write's temporary file for path: hidden, beside it.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// RemoveTemps removes the temporary files a Write of path that was killed
// before its rename left behind.
func RemoveTemps(path string) {
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := strings.TrimSuffix(tempPattern(path), "*")
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) && e.Type().IsRegular() {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
