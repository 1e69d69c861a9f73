package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

type resolutionArg struct {
	Constraint string `json:"constraint" desc:"constraint key, e.g. power.sleep_current_uA"`
	Item       string `json:"item" desc:"the affects item, exactly as recorded, e.g. R7"`
	Status     string `json:"status" enum:"changed,no-change" desc:"changed: you changed the item to satisfy the constraint; no-change: you checked it and it already does"`
	Reason     string `json:"reason" desc:"one line a reviewer can check"`
}

type resolveAffectedArgs struct {
	Resolutions []resolutionArg `json:"resolutions" desc:"one entry per affects item; each resolves independently"`
}

var resolveAffectedTool = newTool("resolve_affected", resolveAffected, tool.Mutating)

func resolveAffected(ctx context.Context, s *tool.Session, a resolveAffectedArgs) (tool.Result, error) {
	if len(a.Resolutions) == 0 {
		return tool.Errorf("resolve_affected: resolutions is empty; open revisits:\n%s", openRevisits(s)), nil
	}
	// The registry is read only when an entry resolves an item an earlier
	// run deferred: that item leaves its "deferred" list.
	var reg design.Constraints
	regDirty := false
	var b strings.Builder
	ok := 0
	for i, r := range a.Resolutions {
		key, item := strings.TrimSpace(r.Constraint), strings.TrimSpace(r.Item)
		label := fmt.Sprintf("[%d] %s", i, revisitSubject(key, item))
		fail := func(format string, args ...any) {
			fmt.Fprintf(&b, "error %s: %s\n", label, fmt.Sprintf(format, args...))
		}
		if r.Status != "changed" && r.Status != "no-change" {
			fail("status must be changed or no-change, got %q", r.Status)
			continue
		}
		reason := textfmt.OneLine(r.Reason)
		if reason == "" {
			fail("reason is empty: say what you changed, or why no change is needed")
			continue
		}
		subj := revisitSubject(key, item)
		o, found := s.EnsureLedger().Find(tool.OblRevisit, subj)
		switch {
		case !found:
			fail("no open revisit obligation for this constraint and item (already resolved, or never recorded; the item must match the affects entry exactly)")
			continue
		case o.Deferred:
			fail("deferred: %s; it cannot be resolved until its artifact exists", strings.TrimPrefix(o.Reason, "deferred: "))
			continue
		}
		if reg == nil {
			var err error
			if reg, err = design.LoadConstraints(s.Repo); err != nil {
				fail("%s", s.Scrub(err.Error()))
				continue
			}
		}
		if c, in := reg[key]; in && slices.Contains(c.Deferred, item) {
			c.Deferred = slices.DeleteFunc(slices.Clone(c.Deferred), func(d string) bool { return d == item })
			reg[key] = c
			regDirty = true
		}
		s.EnsureLedger().Resolve(tool.OblRevisit, subj, r.Status+": "+reason)
		ok++
		fmt.Fprintf(&b, "ok %s: %s (%s)\n", label, r.Status, reason)
	}
	var changed []string
	if regDirty {
		p, err := s.ResolvePath(config.ConstraintsPath)
		if err != nil {
			return tool.Errorf("resolve_affected: %v", err), nil
		}
		if err := s.WriteFile(p.Abs, reg.Marshal()); err != nil {
			return tool.Errorf("resolve_affected: %s", s.Scrub(err.Error())), nil
		}
		changed = append(changed, p.Rel)
	}
	head := fmt.Sprintf("resolved %d of %d.", ok, len(a.Resolutions))
	if open := openRevisits(s); open != "" {
		head += " Still open:\n" + open
	} else {
		head += " No revisit obligations are open."
	}
	return tool.Result{Text: b.String() + head, IsError: ok == 0, Changed: changed}, nil
}

// openRevisits lists the due revisit obligations, one per line.
func openRevisits(s *tool.Session) string {
	var b strings.Builder
	for _, o := range s.EnsureLedger().Pending() {
		if o.Kind == tool.OblRevisit {
			b.WriteString("- " + o.Subject + "\n")
		}
	}
	return b.String()
}
