package openspec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Change ids are OpenSpec's kebab grammar (its KEBAB_ID_REGEX: lowercase
// letters and digits in hyphen-separated runs), bounded so a folder name stays
// readable in a commit message and a path.
const (
	MinChangeIDLen = 3
	MaxChangeIDLen = 64
)

var kebabRE = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// CheckChangeID reports why id cannot name a change folder, or nil. It is the
// one rule both the agent's propose_change and ValidateChange apply, so an id
// that would be read as a flag ("--all") or climb out of openspec/changes
// ("../x") never reaches the openspec command line or the file system.
func CheckChangeID(id string) error {
	switch {
	case len(id) < MinChangeIDLen || len(id) > MaxChangeIDLen:
		return fmt.Errorf("change id %q must be %d to %d characters long", id, MinChangeIDLen, MaxChangeIDLen)
	case !kebabRE.MatchString(id):
		return fmt.Errorf("change id %q must be kebab-case: lowercase letters and digits separated by single hyphens, e.g. add-key-jack", id)
	case id == "archive":
		return fmt.Errorf("change id %q is reserved: openspec/changes/archive holds archived changes", id)
	}
	return nil
}

// ValidateChange runs `openspec validate <id> --strict --json --no-interactive`
// in repo and reads its report: Items is 1, Failed is 1 when the change is
// invalid, and Issues are openspec's own words. Strict mode fails on
// warnings too (a requirement without SHALL or MUST). A change openspec does
// not know is a failed Result naming the problem, not an error; errors are
// for a missing CLI, a timeout or an unreadable report.
func ValidateChange(ctx context.Context, repo, id string) (*Result, error) {
	if err := CheckChangeID(id); err != nil {
		return nil, err
	}
	out, err := run(ctx, repo, false, "validate", id, "--strict", "--json", "--no-interactive")
	// openspec exits non-zero when the change is invalid or unknown; the
	// report still says why. Two shapes: an item report, or a status list
	// when it could not resolve the item at all.
	var rep validateReport
	if jerr := json.Unmarshal(bytes.TrimSpace(out), &rep); jerr != nil || (rep.Items == nil && rep.Status == nil) {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("openspec validate %s in %s: unreadable report: %q", id, repo, truncate(string(out), 500))
	}
	res := rep.result()
	if len(rep.Items) == 0 {
		res.Failed = 1
		for _, st := range rep.Status {
			res.Issues = append(res.Issues, Issue{Item: id, Type: "change", Level: strings.ToUpper(st.Severity), Message: st.Message})
		}
	}
	return res, nil
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
