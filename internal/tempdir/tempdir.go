// Package tempdir owns copperhead's folders in the system's temporary
// folder (scratch copies, kicad-cli's private config, exports). Each folder's
// name carries the process that made it, by pid and start time
// (copperhead-<kind>-p<pid>.<start>-<random>), so the mark exists from the
// instant the folder does: Prune removes the folders a killed process
// (SIGKILL, a crash, power loss) left and never one whose process still runs,
// even when the pid has been reused. A name without the mark is never
// removed: it is not known to be ours.
//
// It imports only owner from the module.
package tempdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"copperhead/internal/owner"
)

// Prefix starts the name of every folder Make creates.
const Prefix = "copperhead-"

// marked matches a Make folder's name: the owner's pid and start time
// ("-" where /proc cannot say) before the random suffix.
var marked = regexp.MustCompile(`^copperhead-[a-z0-9-]+-p([0-9]+)\.([0-9]+|-)-[0-9]+$`)

// Make creates an empty folder $TMPDIR/copperhead-<kind>-p<pid>.<start>-<random>
// owned by this process. kind is lower-case letters, digits and dashes. The
// caller removes the folder (os.RemoveAll) when done; after a kill the next
// Prune does.
func Make(kind string) (string, error) {
	mark := strings.Replace(owner.Self(), " ", ".", 1)
	return os.MkdirTemp("", Prefix+kind+"-p"+mark+"-")
}

// Prune removes the folders Make created whose process is gone, and returns
// them. It reads the temporary folder's names and nothing else when there are
// none to remove.
func Prune() ([]string, error) {
	top := os.TempDir()
	entries, err := os.ReadDir(top)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", top, err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		m := marked.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() || owner.Alive(m[1]+" "+m[2]) {
			continue
		}
		dir := filepath.Join(top, e.Name())
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", dir, err))
			continue
		}
		removed = append(removed, dir)
	}
	return removed, errors.Join(errs...)
}
