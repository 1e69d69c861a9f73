package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

// constraintsHeading is the doc section that states constraints, one list
// item each, the key first in backticks (what `copperhead sync` pairs with
// the registry).
const constraintsHeading = "Constraints"

// constraintKeyRE is a registry key: dotted words, e.g. power.sleep_current_uA.
var constraintKeyRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,99}$`)

type recordConstraintArgs struct {
	Key       string   `json:"key" desc:"registry key, area.name with the unit in the name: power.sleep_current_uA, pins.strapping, rf.antenna_keepout_mm"`
	Max       *float64 `json:"max,omitempty" desc:"upper limit, in the unit the key names"`
	Min       *float64 `json:"min,omitempty" desc:"lower limit, in the unit the key names"`
	Forbidden []string `json:"forbidden,omitempty" desc:"pin names that must not be used, e.g. GPIO0"`
	Source    string   `json:"source" desc:"where the constraint comes from: openspec/specs/power/spec.md#..., docs/SPEC.md#budgets, a datasheet section"`
	Affects   []string `json:"affects" desc:"what to revisit when it changes: refdes (U2), absences (R7-absent), nets or pin groups, zones (zone:top), docs"`
	Doc       string   `json:"doc" desc:"the design doc that states it, e.g. docs/SPEC.md"`
	DocText   string   `json:"doc_text" desc:"the statement for humans, e.g. sleep current at most 25 uA (one line)"`
}

var recordConstraintTool = newTool("record_constraint", recordConstraint, tool.Mutating)

func recordConstraint(ctx context.Context, s *tool.Session, a recordConstraintArgs) (tool.Result, error) {
	var problems []string
	if !constraintKeyRE.MatchString(a.Key) {
		problems = append(problems, fmt.Sprintf("key %q must be a dotted name of letters, digits, _ . : - (e.g. power.sleep_current_uA)", a.Key))
	}
	source, docText := textfmt.OneLine(a.Source), textfmt.OneLine(a.DocText)
	if source == "" {
		problems = append(problems, "source is empty: say where the constraint comes from")
	}
	if docText == "" {
		problems = append(problems, "doc_text is empty: give the line a human reads in the doc")
	}
	if a.Max != nil && a.Min != nil && *a.Min > *a.Max {
		problems = append(problems, fmt.Sprintf("min %g is above max %g", *a.Min, *a.Max))
	}
	doc, err := s.ResolvePath(a.Doc)
	switch {
	case err != nil:
		problems = append(problems, "doc: "+err.Error())
	case !strings.EqualFold(path.Ext(doc.Rel), ".md"):
		problems = append(problems, fmt.Sprintf("doc %s must be a Markdown design doc, e.g. docs/SPEC.md", doc.Rel))
	case writeRefusal(doc.Rel) != "":
		problems = append(problems, "doc: "+writeRefusal(doc.Rel))
	}
	if len(problems) > 0 {
		return tool.Errorf("record_constraint: nothing written; fix these and call it again:\n- %s", strings.Join(problems, "\n- ")), nil
	}
	regPath, err := s.ResolvePath(config.ConstraintsPath)
	if err != nil {
		return tool.Errorf("record_constraint: %v", err), nil
	}
	reg, err := design.LoadConstraints(s.Repo)
	if err != nil {
		return tool.Errorf("record_constraint: %s; fix the file first (it is JSON)", s.Scrub(err.Error())), nil
	}

	var affects []string
	for _, it := range a.Affects {
		if it = textfmt.OneLine(it); it != "" && !slices.Contains(affects, it) {
			affects = append(affects, it)
		}
	}
	var forbidden []string
	for _, f := range a.Forbidden {
		if f = textfmt.OneLine(f); f != "" && !slices.Contains(forbidden, f) {
			forbidden = append(forbidden, f)
		}
	}
	art := newArtifacts(s)
	missing := map[string]string{}
	var deferred []string
	for _, it := range affects {
		if m := art.missing(it); m != "" {
			missing[it] = m
			deferred = append(deferred, it)
		}
	}
	entry := reg[a.Key] // unknown fields of an existing entry survive
	entry.Max, entry.Min, entry.Forbidden = a.Max, a.Min, forbidden
	entry.Source, entry.Affects, entry.Deferred = source, affects, deferred
	reg[a.Key] = entry

	docData, err := os.ReadFile(doc.Abs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return tool.Errorf("record_constraint: %s", s.Scrub(err.Error())), nil
	}
	line := fmt.Sprintf("- `%s`: %s (source: %s)", a.Key, docText, source)
	newDoc := upsertConstraintLine(docData, doc.Rel, a.Key, line)

	// Registry first: a doc line without its registry entry is what `sync`
	// repairs by adding the entry, the safer half to be left with.
	if err := s.WriteFile(regPath.Abs, reg.Marshal()); err != nil {
		return tool.Errorf("record_constraint: %s", s.Scrub(err.Error())), nil
	}
	changed := []string{regPath.Rel}
	if err := s.WriteFile(doc.Abs, newDoc); err != nil {
		return tool.Result{Changed: changed}, fmt.Errorf("dual write of %s: registry written, doc %s failed: %s", a.Key, doc.Rel, s.Scrub(err.Error()))
	}
	changed = append(changed, doc.Rel)
	s.EnsureLedger().Resolve(tool.OblDualWrite, a.Key, "recorded in registry and "+doc.Rel)

	var due []string
	for _, it := range affects {
		subj := revisitSubject(a.Key, it)
		if m, ok := missing[it]; ok {
			s.EnsureLedger().OpenDeferred(tool.OblRevisit, subj, "deferred: "+m)
			continue
		}
		s.EnsureLedger().Open(tool.OblRevisit, subj, "constraint "+a.Key+" recorded: check that "+it+" still satisfies it")
		due = append(due, it)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "recorded %s in %s and %s (## %s).", a.Key, regPath.Rel, doc.Rel, constraintsHeading)
	if len(due) > 0 {
		fmt.Fprintf(&b, "\nRevisit now (resolve each with resolve_affected, status changed or no-change with a reason): %s.", strings.Join(due, ", "))
	}
	if len(deferred) > 0 {
		var parts []string
		for _, it := range deferred {
			parts = append(parts, it+" ("+missing[it]+")")
		}
		fmt.Fprintf(&b, "\nDeferred until their artifact exists (no obligation now; due in the first run where it exists): %s.", strings.Join(parts, "; "))
	}
	return tool.Result{Text: b.String(), Changed: changed}, nil
}

// upsertConstraintLine puts line into the doc's ## Constraints section:
// replacing the item for key when there is one, else after the section's
// last line of content. A doc without the section gets it appended; a doc
// that does not exist yet is created with a title and the section.
func upsertConstraintLine(doc []byte, rel, key, line string) []byte {
	if len(doc) == 0 {
		title := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
		return []byte(fmt.Sprintf("# %s\n\n## %s\n\n%s\n", title, constraintsHeading, line))
	}
	text := string(doc)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	lines := strings.SplitAfter(text, "\n")
	lines = lines[:len(lines)-1] // the empty string after the final newline
	start := -1
	for i, l := range lines {
		if isHeading(l, 2) && strings.EqualFold(strings.TrimSpace(strings.TrimLeft(l, "#")), constraintsHeading) {
			start = i
			break
		}
	}
	if start < 0 {
		return []byte(strings.TrimRight(text, "\n") + fmt.Sprintf("\n\n## %s\n\n%s\n", constraintsHeading, line))
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if isHeading(lines[i], 1) || isHeading(lines[i], 2) {
			end = i
			break
		}
	}
	for i := start + 1; i < end; i++ {
		t := strings.TrimSpace(lines[i])
		if strings.HasPrefix(t, "- `"+key+"`:") || strings.HasPrefix(t, "- "+key+":") {
			lines[i] = line + "\n"
			return []byte(strings.Join(lines, ""))
		}
	}
	insert := start + 1
	for i := start + 1; i < end; i++ {
		if strings.TrimSpace(lines[i]) != "" {
			insert = i + 1
		}
	}
	add := []string{line + "\n"}
	if insert == start+1 {
		add = []string{"\n", line + "\n"} // a blank line under the heading
	}
	if insert < len(lines) && strings.TrimSpace(lines[insert]) != "" {
		add = append(add, "\n")
	}
	lines = slices.Insert(lines, insert, add...)
	return []byte(strings.Join(lines, ""))
}

// isHeading reports whether l is a Markdown ATX heading of exactly level n.
func isHeading(l string, n int) bool {
	prefix := strings.Repeat("#", n)
	return strings.HasPrefix(l, prefix+" ") && !strings.HasPrefix(l, prefix+"#")
}

// artifacts answers whether the artifact an affects item targets exists
// yet, so record_constraint can defer revisits of what is not built
// (spec §2.6). It loads the schematic at most once.
type artifacts struct {
	s      *tool.Session
	loaded bool
	sch    string          // root schematic, "" when there is none
	refs   map[string]bool // refdes in the schematic; nil when it did not load
	board  string
}

func newArtifacts(s *tool.Session) *artifacts { return &artifacts{s: s} }

func (a *artifacts) load() {
	if a.loaded {
		return
	}
	a.loaded = true
	a.sch, _ = a.s.DesignFile(false)
	a.board, _ = a.s.DesignFile(true)
	if a.sch == "" {
		return
	}
	if sch, err := kicad.LoadSchematicWithin(a.sch, a.s.Repo); err == nil {
		a.refs = map[string]bool{}
		for _, p := range design.Parts(sch) {
			a.refs[p.Refdes] = true
		}
	}
}

// refdesRE is a reference designator, optionally marked as an intentional
// absence ("R7-absent"). pinNameRE excludes pin names that look like one.
var (
	refdesRE  = regexp.MustCompile(`^([A-Z]{1,4}[0-9]+[A-Z]?)(-absent)?$`)
	pinNameRE = regexp.MustCompile(`^(GPIO|IO|PA|PB|PC|PD)[0-9]+$`)
)

// boardPrefixes mark items that live on the board.
var boardPrefixes = []string{"zone:", "keepout:", "layer:", "footprint:", "placement:", "track:", "edge:"}

// missing says what an item's artifact lacks, or "" when it exists (or
// cannot be known: a schematic that does not load still opens revisits).
func (a *artifacts) missing(item string) string {
	a.load()
	lower := strings.ToLower(item)
	switch {
	case slices.ContainsFunc(boardPrefixes, func(p string) bool { return strings.HasPrefix(lower, p) }) || lower == "board":
		if a.board == "" {
			return "no board (.kicad_pcb) yet"
		}
		return ""
	case strings.HasSuffix(lower, ".md"):
		p, err := a.s.ResolvePath(item)
		if err != nil {
			return ""
		}
		if _, err := os.Stat(p.Abs); err != nil {
			return p.Rel + " does not exist yet"
		}
		return ""
	case lower == "bom":
		if _, err := os.Stat(filepath.Join(a.s.Repo, filepath.FromSlash(a.s.Config.DocPath(design.BOMDoc)))); err != nil {
			return "no " + a.s.Config.DocPath(design.BOMDoc) + " yet"
		}
		return ""
	}
	if a.sch == "" {
		return "no schematic (.kicad_sch) yet"
	}
	if m := refdesRE.FindStringSubmatch(item); m != nil && !pinNameRE.MatchString(m[1]) && m[2] == "" {
		if a.refs != nil && !a.refs[m[1]] {
			return m[1] + " is not in the schematic yet"
		}
		return ""
	}
	if a.refs != nil && len(a.refs) == 0 {
		return "the schematic has no parts yet"
	}
	return ""
}
