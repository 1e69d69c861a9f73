package tools

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"copperhead/internal/openspec"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

// changesDir is where OpenSpec keeps proposed changes, repo-relative.
const changesDir = "openspec/changes"

// capabilityRE is a capability folder name: OpenSpec's kebab grammar.
var capabilityRE = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// Delta kinds, in the order their sections are written.
var deltaKinds = []string{"ADDED", "MODIFIED", "REMOVED"}

type scenarioArg struct {
	Name string `json:"name" desc:"short scenario title, e.g. Paddle plugged in"`
	When string `json:"when" desc:"the condition, e.g. a paddle is plugged into J3"`
	Then string `json:"then" desc:"the observable outcome, e.g. dit and dah closures reach the MCU"`
}

type requirementArg struct {
	Name      string        `json:"name" desc:"requirement title, e.g. External key jack (MODIFIED/REMOVED: the existing requirement's exact name)"`
	Text      string        `json:"text" desc:"ADDED/MODIFIED: the requirement in one or two sentences using SHALL or MUST; REMOVED: why it is removed"`
	Scenarios []scenarioArg `json:"scenarios,omitempty" desc:"at least one for ADDED and MODIFIED"`
}

type deltaArg struct {
	Capability   string           `json:"capability" desc:"kebab-case capability the requirements belong to, e.g. power, connectivity, ui, enclosure, firmware"`
	Kind         string           `json:"kind" enum:"ADDED,MODIFIED,REMOVED" desc:"what the change does to these requirements"`
	Requirements []requirementArg `json:"requirements" desc:"the requirements added, modified or removed"`
}

type proposeChangeArgs struct {
	ID          string     `json:"id" desc:"kebab-case change id, verb-led, e.g. add-key-jack"`
	Why         string     `json:"why" desc:"why the change is needed: the problem or request, and the constraints it must respect (a few sentences)"`
	WhatChanges string     `json:"what_changes" desc:"what will change: parts, nets, pins, docs; one Markdown bullet per change"`
	Tasks       []string   `json:"tasks" desc:"implementation steps in order, one short line each"`
	Deltas      []deltaArg `json:"deltas" desc:"requirement deltas, at least one"`
}

// Not tool.Mutating: the proposal is the one thing a run may write before
// validation, and propose_change writes only under openspec/changes/<id>/.
var proposeChangeTool = newTool("propose_change", proposeChange)

func proposeChange(ctx context.Context, s *tool.Session, a proposeChangeArgs) (tool.Result, error) {
	if err := openspec.CheckChangeID(a.ID); err != nil {
		return tool.Errorf("propose_change: %v", err), nil
	}
	if s.ChangeID != "" && a.ID != s.ChangeID {
		return tool.Errorf("propose_change: this run already proposed change %s; a run proposes one change: revise it by calling propose_change with id %q", s.ChangeID, s.ChangeID), nil
	}
	dir, err := s.ResolvePath(changesDir + "/" + a.ID)
	if err != nil {
		return tool.Errorf("propose_change: %v", err), nil
	}
	if s.ChangeID == "" {
		if _, err := os.Lstat(dir.Abs); err == nil {
			return tool.Errorf("propose_change: a change named %s already exists in %s/; choose another id", a.ID, changesDir), nil
		}
	}
	files, problems := renderChange(s, a)
	if len(problems) > 0 {
		return tool.Errorf("propose_change: nothing written; fix these and call it again:\n- %s", strings.Join(problems, "\n- ")), nil
	}

	// A revision replaces the folder this run wrote: a capability dropped
	// from the deltas must not leave its old spec behind.
	var previous []string
	if s.ChangeID == a.ID {
		previous = listFiles(dir.Abs, dir.Rel)
		if err := os.RemoveAll(dir.Abs); err != nil {
			return tool.Errorf("propose_change: remove the previous proposal: %s", s.Scrub(err.Error())), nil
		}
	}
	var written []string
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		p, err := s.ResolvePath(rel)
		if err != nil {
			return tool.Errorf("propose_change: %v", err), nil
		}
		if err := s.WriteFile(p.Abs, []byte(files[rel])); err != nil {
			return tool.Result{Changed: written}, fmt.Errorf("write proposal: %s", s.Scrub(err.Error()))
		}
		written = append(written, p.Rel)
	}
	// Files of the previous revision that are gone were never committed (the
	// folder is this run's own), so they leave the touched list too.
	s.Touched = slices.DeleteFunc(s.Touched, func(rel string) bool {
		return slices.Contains(previous, rel) && !slices.Contains(written, rel)
	})
	wasValidated := s.Validated
	s.ChangeID, s.Validated = a.ID, false

	var b strings.Builder
	fmt.Fprintf(&b, "wrote change %s:\n", a.ID)
	for _, rel := range written {
		b.WriteString("- " + rel + "\n")
	}
	if wasValidated {
		b.WriteString("The proposal changed, so the edit tools are locked again until it validates.\n")
	}
	b.WriteString("Next: call validate_change.")
	return tool.Result{Text: b.String(), Changed: written}, nil
}

// renderChange builds the change's files (repo-relative path -> content)
// from the arguments, or lists what is wrong with them.
func renderChange(s *tool.Session, a proposeChangeArgs) (map[string]string, []string) {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	why, what := strings.TrimSpace(a.Why), strings.TrimSpace(a.WhatChanges)
	if why == "" {
		bad("why is empty: say why the change is needed")
	}
	if what == "" {
		bad("what_changes is empty: list what will change")
	}
	var tasks []string
	for _, t := range a.Tasks {
		if t = textfmt.OneLine(t); t != "" {
			tasks = append(tasks, t)
		}
	}
	if len(tasks) == 0 {
		bad("tasks is empty: list the implementation steps")
	}
	if len(a.Deltas) == 0 {
		bad("deltas is empty: a change needs at least one requirement delta (ADDED, MODIFIED or REMOVED)")
	}

	// sections[capability][kind] is the Markdown of that delta section.
	sections := map[string]map[string]*strings.Builder{}
	for i, d := range a.Deltas {
		where := fmt.Sprintf("deltas[%d]", i)
		if !capabilityRE.MatchString(d.Capability) || len(d.Capability) > 64 {
			bad("%s: capability %q must be kebab-case (lowercase letters, digits, single hyphens), e.g. power", where, d.Capability)
			continue
		}
		if !slices.Contains(deltaKinds, d.Kind) {
			bad("%s: kind %q must be ADDED, MODIFIED or REMOVED", where, d.Kind)
			continue
		}
		if len(d.Requirements) == 0 {
			bad("%s: no requirements", where)
			continue
		}
		if sections[d.Capability] == nil {
			sections[d.Capability] = map[string]*strings.Builder{}
		}
		sec := sections[d.Capability][d.Kind]
		if sec == nil {
			sec = &strings.Builder{}
			sections[d.Capability][d.Kind] = sec
		}
		for j, r := range d.Requirements {
			rw := fmt.Sprintf("%s.requirements[%d]", where, j)
			name, text := textfmt.OneLine(r.Name), textfmt.OneLine(r.Text)
			if name == "" {
				bad("%s: name is empty", rw)
				continue
			}
			fmt.Fprintf(sec, "\n### Requirement: %s\n", name)
			if d.Kind == "REMOVED" {
				if text != "" {
					fmt.Fprintf(sec, "**Reason**: %s\n", text)
				}
				continue
			}
			if text == "" {
				bad("%s (%s): text is empty: state the requirement with SHALL or MUST", rw, name)
			}
			if len(r.Scenarios) == 0 {
				bad("%s (%s): needs at least one scenario (name, when, then)", rw, name)
			}
			fmt.Fprintf(sec, "%s\n", text)
			for k, sc := range r.Scenarios {
				sn, when, then := textfmt.OneLine(sc.Name), textfmt.OneLine(sc.When), textfmt.OneLine(sc.Then)
				if sn == "" || when == "" || then == "" {
					bad("%s.scenarios[%d]: name, when and then are all required", rw, k)
					continue
				}
				fmt.Fprintf(sec, "\n#### Scenario: %s\n- **WHEN** %s\n- **THEN** %s\n", sn, when, then)
			}
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}

	base := changesDir + "/" + a.ID + "/"
	caps := slices.Sorted(maps.Keys(sections))
	files := map[string]string{}
	var p strings.Builder
	fmt.Fprintf(&p, "# %s\n\n%s\n\n## Why\n\n%s\n\n## What Changes\n\n%s\n\n## Impact\n\n- Affected specs: %s\n",
		a.ID, proposedMarker(s), why, what, strings.Join(caps, ", "))
	files[base+"proposal.md"] = p.String()
	var t strings.Builder
	t.WriteString("## 1. Implementation\n\n")
	for i, task := range tasks {
		fmt.Fprintf(&t, "- [ ] 1.%d %s\n", i+1, task)
	}
	files[base+"tasks.md"] = t.String()
	for _, c := range caps {
		var spec strings.Builder
		for _, kind := range deltaKinds {
			if sec := sections[c][kind]; sec != nil {
				if spec.Len() > 0 {
					spec.WriteString("\n")
				}
				fmt.Fprintf(&spec, "## %s Requirements\n%s", kind, sec.String())
			}
		}
		files[base+"specs/"+c+"/spec.md"] = spec.String()
	}
	return files, nil
}

// Status markers of proposal.md. validate_change rewrites the proposed one
// when the change validates, so the proposal itself records how it was
// approved: by a human (--interactive) or automatically (AUTO, spec §2.6).
const statusPrefix = "> Status: "

func proposedMarker(s *tool.Session) string {
	m := statusPrefix + "proposed by copperhead"
	if s.RunID != "" {
		m += " (run " + textfmt.OneLine(s.RunID) + ")"
	}
	return m + ", not yet validated."
}

// oneLine folds s onto one line, so model text cannot open a Markdown
// heading that would restructure the proposal.

// listFiles lists the regular files under dir as repo-relative paths (relDir
// is dir's own).
func listFiles(dir, relDir string) []string {
	var out []string
	_ = fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, path.Join(relDir, p))
		}
		return nil
	})
	return out
}
