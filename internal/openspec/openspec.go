// Package openspec wraps the OpenSpec CLI (@fission-ai/openspec), the only
// place copperhead runs it: a timeout, its own process group, telemetry off,
// and errors that quote the tool's own words. It imports only the standard
// library.
package openspec

import (
	"bytes"
	"context"
	"copperhead/internal/procgroup"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Timeout bounds one openspec run. Validation of a repository's specs takes
// about a second; the bound only ends a hung Node process.
const Timeout = 2 * time.Minute

// ErrNotInstalled means no openspec binary was found.
var ErrNotInstalled = errors.New("openspec CLI not found")

// Pinned is the OpenSpec CLI version scripts/setup.sh installs and
// copperhead is tested with.
const Pinned = "1.13.2"

// InstallHint is the fix for ErrNotInstalled, for a hint line.
const InstallHint = "install it with scripts/setup.sh or npm install -g @fission-ai/openspec@" + Pinned + ", or point COPPERHEAD_OPENSPEC at it"

// Binary is the openspec executable: COPPERHEAD_OPENSPEC, else openspec on
// PATH. Either must name an executable file that exists, else the error
// wraps ErrNotInstalled and names what was looked for.
func Binary() (string, error) {
	if p := os.Getenv("COPPERHEAD_OPENSPEC"); p != "" {
		found, err := exec.LookPath(p)
		if err != nil {
			why := "is not an executable file"
			if errors.Is(err, fs.ErrNotExist) {
				why = "does not exist"
			}
			return "", fmt.Errorf("%w: COPPERHEAD_OPENSPEC names %s, which %s", ErrNotInstalled, p, why)
		}
		return found, nil
	}
	p, err := exec.LookPath("openspec")
	if err != nil {
		return "", fmt.Errorf("%w on PATH", ErrNotInstalled)
	}
	return p, nil
}

// Issue is one problem openspec found in a spec or change.
type Issue struct {
	Item    string `json:"item"`  // spec or change id
	Type    string `json:"type"`  // "spec" or "change"
	Level   string `json:"level"` // ERROR, WARNING, INFO
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Result is the outcome of `openspec validate --all`.
type Result struct {
	Items  int     `json:"items"`  // specs and changes validated
	Failed int     `json:"failed"` // of those, how many are invalid
	Issues []Issue `json:"issues"`
}

// OK reports whether every item validated.
func (r *Result) OK() bool { return r.Failed == 0 }

// Version returns the installed CLI's version, e.g. "1.13.2".
func Version(ctx context.Context) (string, error) {
	out, err := run(ctx, "", false, "--version")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ValidateAll runs `openspec validate --all` in repo and reads its JSON report.
func ValidateAll(ctx context.Context, repo string) (*Result, error) {
	return validateAll(ctx, repo, false)
}

// ValidateAllYielding is ValidateAll yielding the CPU (procgroup.Yield): for
// check, where it runs beside kicad-cli, the slow part it must not delay.
func ValidateAllYielding(ctx context.Context, repo string) (*Result, error) {
	return validateAll(ctx, repo, true)
}

func validateAll(ctx context.Context, repo string, yield bool) (*Result, error) {
	out, err := run(ctx, repo, yield, "validate", "--all", "--json", "--no-interactive")
	// openspec exits non-zero when an item is invalid; the report still tells why.
	var rep validateReport
	if jerr := json.Unmarshal(bytes.TrimSpace(out), &rep); jerr != nil {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("openspec validate --all in %s: unreadable report: %v", repo, jerr)
	}
	return rep.result(), nil
}

// validateReport is what `openspec validate --json` prints: a report per
// item, or, when it could not resolve the item at all, a status list.
type validateReport struct {
	Items []struct {
		ID     string `json:"id"`
		Type   string `json:"type"`
		Valid  bool   `json:"valid"`
		Issues []struct {
			Level   string `json:"level"`
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"issues"`
	} `json:"items"`
	Status []struct {
		Severity string `json:"severity"`
		Code     string `json:"code"`
		Message  string `json:"message"`
	} `json:"status"`
}

// result counts the invalid items and lists their issues in a stable order.
func (rep *validateReport) result() *Result {
	res := &Result{Items: len(rep.Items), Issues: []Issue{}}
	for _, it := range rep.Items {
		if !it.Valid {
			res.Failed++
		}
		for _, is := range it.Issues {
			res.Issues = append(res.Issues, Issue{Item: it.ID, Type: it.Type, Level: is.Level, Path: is.Path, Message: is.Message})
		}
	}
	sort.SliceStable(res.Issues, func(i, j int) bool {
		a, b := res.Issues[i], res.Issues[j]
		if a.Item != b.Item {
			return a.Item < b.Item
		}
		return a.Message < b.Message
	})
	return res
}

// Present reports whether repo has an openspec/ folder to validate.
func Present(repo string) bool {
	fi, err := os.Stat(filepath.Join(repo, "openspec"))
	return err == nil && fi.IsDir()
}

// run executes openspec with args in dir (yielding the CPU with yield) and
// returns its stdout. A non-zero exit is returned as an error quoting
// stderr, alongside whatever stdout held.
func run(ctx context.Context, dir string, yield bool, args ...string) ([]byte, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENSPEC_TELEMETRY=0", "NO_COLOR=1", "CI=1")
	procgroup.Own(cmd)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err = procgroup.Start(cmd, yield); err == nil {
		err = cmd.Wait()
	}
	if ctx.Err() == context.DeadlineExceeded {
		return stdout.Bytes(), fmt.Errorf("openspec %s: timed out after %v", strings.Join(args, " "), Timeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 500 {
			msg = msg[:500] + "..."
		}
		return stdout.Bytes(), fmt.Errorf("openspec %s: %v: %q", strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

// NodeVersion returns the version of the Node.js that runs the openspec CLI,
// e.g. "v20.20.2".
func NodeVersion(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "node", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("node --version: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Init sets OpenSpec up in repo without asking anything (no AI tool
// integrations): openspec/specs and openspec/changes. A repository that has
// openspec/ already is left alone.
func Init(ctx context.Context, repo string) error {
	if Present(repo) {
		return nil
	}
	_, err := run(ctx, repo, false, "init", "--tools", "none", "--no-animation", ".")
	return err
}
