package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"copperhead/internal/openspec"
	"copperhead/internal/tool"
)

type validateChangeArgs struct{}

var validateChangeTool = newTool("validate_change", validateChange)

func validateChange(ctx context.Context, s *tool.Session, _ validateChangeArgs) (tool.Result, error) {
	if s.ChangeID == "" {
		return tool.Errorf("validate_change: no change proposed yet: write the proposal with propose_change first"), nil
	}
	if s.Validated {
		return tool.Result{Text: fmt.Sprintf("change %s already validated; the edit tools are unlocked: %s", s.ChangeID, strings.Join(mutatingToolNames(s), ", "))}, nil
	}
	res, err := openspec.ValidateChange(ctx, s.Repo, s.ChangeID)
	if errors.Is(err, openspec.ErrNotInstalled) {
		// No retry can pass the spec gate without the CLI: end the run.
		return tool.Result{}, fmt.Errorf("validate change %s: %w (%s)", s.ChangeID, err, openspec.InstallHint)
	}
	if err != nil {
		return tool.Errorf("validate_change: openspec could not validate %s: %s", s.ChangeID, s.Scrub(err.Error())), nil
	}
	if !res.OK() {
		var b strings.Builder
		fmt.Fprintf(&b, "change %s does NOT validate (openspec validate --strict). Fix these with propose_change (id %q) and call validate_change again:\n", s.ChangeID, s.ChangeID)
		for _, is := range res.Issues {
			where := is.Path
			if where == "" {
				where = is.Item
			}
			fmt.Fprintf(&b, "- %s %s: %s\n", is.Level, where, is.Message)
		}
		return tool.Result{Text: b.String(), IsError: true}, nil
	}
	status := "AUTO: validated and approved without human review (autonomous run)"
	if s.Approve != nil {
		if !s.Approve(s.ChangeID) {
			return tool.Result{Text: fmt.Sprintf("change %s validates, but the human declined it: the edit tools stay locked. Revise the proposal with propose_change (id %q) to address their concern, or finish with outcome refuse.", s.ChangeID, s.ChangeID)}, nil
		}
		status = "validated and approved by a human (interactive run)"
	}
	changed, err := markApproved(s, status)
	if err != nil {
		return tool.Errorf("validate_change: %s", s.Scrub(err.Error())), nil
	}
	s.Validated = true
	return tool.Result{
		Text: fmt.Sprintf("change %s validates (openspec validate --strict) and is approved (%s). Unlocked: %s. Now implement the tasks; run run_erc after schematic edits, run_drc after board edits, and check_drift after doc edits.",
			s.ChangeID, status, strings.Join(mutatingToolNames(s), ", ")),
		Changed: changed,
	}, nil
}

// markApproved rewrites the status line propose_change put in proposal.md,
// so the approval is recorded where a reviewer reads the proposal. A
// proposal without the line (hand-written) is left alone.
func markApproved(s *tool.Session, status string) ([]string, error) {
	p, err := s.ResolvePath(changesDir + "/" + s.ChangeID + "/proposal.md")
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p.Abs)
	if err != nil {
		return nil, nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, statusPrefix) {
			lines[i] = statusPrefix + status + ".\n"
			if err := s.WriteFile(p.Abs, []byte(strings.Join(lines, ""))); err != nil {
				return nil, err
			}
			return []string{p.Rel}, nil
		}
	}
	return nil, nil
}

// mutatingToolNames lists the tools the spec gate withholds, in tool-list
// order, less those a sync run never has.
func mutatingToolNames(s *tool.Session) []string {
	var names []string
	for _, t := range All() {
		if t.Mutating() && !(s.Sync && tool.SyncWithheld(t.Spec().Name)) {
			names = append(names, t.Spec().Name)
		}
	}
	return names
}
