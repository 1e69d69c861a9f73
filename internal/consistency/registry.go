package consistency

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"copperhead/internal/circuit"
	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
)

// ConstraintsHeading is the doc section whose list items state constraints.
const ConstraintsHeading = "Constraints"

// registryInconsistencies audits the dual write of spec §2.6 both ways, and
// the files constraint sources name.
func registryInconsistencies(st State) []Inconsistency {
	docs := statementDocs(st)
	specPath := st.Config.DocPath(design.SpecDoc)
	budgets := design.ParseBudgets(st.Files[specPath])
	reg := st.Constraints
	keys := slices.Sorted(maps.Keys(reg))
	var out []Inconsistency

	// Doc -> registry: budget lines.
	for _, b := range slices.Sorted(maps.Keys(budgets.Values)) {
		if len(budgetEntries(reg, b)) > 0 {
			continue
		}
		key := proposedBudgetKey(b)
		out = append(out, Inconsistency{
			Kind: KindUnregistered, Doc: config.ConstraintsPath, Subject: b,
			Claim:  "(no entry)",
			Actual: fmt.Sprintf("%s ## %s states %s", specPath, design.BudgetsHeading, design.BudgetLine(b, budgets.Values[b])[2:]),
			ProposedResolution: fmt.Sprintf("add the entry %q to %s: max %s, source %q, affects the parts the budget constrains",
				key, config.ConstraintsPath, formatNumber(budgets.Values[b]), specPath+"#"+slug(design.BudgetsHeading)),
			Resolvable: true,
			Governing:  specPath + "#" + slug(design.BudgetsHeading),
		})
	}

	// Doc -> registry: ## Constraints items.
	names := designNames(st)
	for _, doc := range docs {
		for _, ln := range markdownLines(st.Files[doc]) {
			item, ok := constraintItem(ln)
			if !ok {
				continue
			}
			named := namedKeys(item)
			if slices.ContainsFunc(named, func(k string) bool { _, in := reg[k]; return in }) || registryKeyIn(item, keys) {
				continue
			}
			key := "<area>.<name>"
			if len(named) > 0 {
				key = named[0]
			}
			source := doc + "#" + slug(ln.section)
			res := fmt.Sprintf("add the entry %q to %s with the limit the line states, source %q, affects %s",
				key, config.ConstraintsPath, source, affectsList(names.affects(item)))
			if len(named) == 0 {
				res += "; choose a dotted key for it and start the doc line with that key in backticks, so doc and registry stay paired"
			}
			out = append(out, Inconsistency{
				Kind: KindUnregistered, Doc: config.ConstraintsPath, Subject: key,
				Claim:              "(no entry)",
				Actual:             fmt.Sprintf("%s ## %s states %q", doc, ln.section, item),
				ProposedResolution: res,
				Resolvable:         true,
				Governing:          source,
			})
		}
	}

	// Registry -> docs, and the values and sources of what is there.
	for _, key := range keys {
		c := reg[key]
		if p, ok := sourcePath(c.Source); ok {
			if _, exists := st.Files[p]; !exists {
				out = append(out, Inconsistency{
					Kind: KindConstraintSource, Doc: config.ConstraintsPath, Subject: key,
					Claim:              "source " + c.Source,
					Actual:             p + " does not exist",
					ProposedResolution: fmt.Sprintf("point the source of %q at the doc and section that state it (or at the external document it comes from)", key),
					Resolvable:         true,
					Governing:          "spec §2.6: every constraint has a reviewable source",
				})
			}
		}
		if b, ok := budgetOf(key, budgets); ok {
			want := budgets.Values[b]
			got, have := c.Max, "max"
			if got == nil && c.Min != nil {
				got, have = c.Min, "min"
			}
			if got == nil || *got != want {
				claim := "(no limit)"
				if got != nil {
					claim = have + " " + formatNumber(*got)
				}
				out = append(out, Inconsistency{
					Kind: KindConstraintValue, Doc: config.ConstraintsPath, Subject: key,
					Claim:              claim,
					Actual:             fmt.Sprintf("%s ## %s says %s", specPath, design.BudgetsHeading, formatNumber(want)),
					ProposedResolution: fmt.Sprintf("set %s of %q to %s: SPEC.md budgets are ground truth for requirements", have, key, formatNumber(want)),
					Resolvable:         true,
					Governing:          specPath + "#" + slug(design.BudgetsHeading),
				})
			}
			continue
		}
		if statedIn(key, c, docs, st.Files) {
			continue
		}
		doc, section := targetSection(st, c.Source)
		line := ConstraintLine(key, c)
		out = append(out, Inconsistency{
			Kind: KindUndocumented, Doc: doc, Subject: key,
			Claim:              "(not stated)",
			Actual:             fmt.Sprintf("%s has %q: %s", config.ConstraintsPath, key, strings.TrimPrefix(line, "- `"+key+"`: ")),
			ProposedResolution: fmt.Sprintf("add the line %q under ## %s in %s", line, section, doc),
			Resolvable:         true,
			Governing:          config.ConstraintsPath + " (" + cmp.Or(c.Source, "no source given") + ")",
		})
	}
	return out
}

// ConstraintLine is the doc line that states a registry entry:
// "- `pins.strapping`: must not use GPIO0, GPIO3 (source: ESP32-S3 datasheet)".
func ConstraintLine(key string, c design.Constraint) string {
	var parts []string
	if len(c.Forbidden) > 0 {
		parts = append(parts, "must not use "+strings.Join(c.Forbidden, ", "))
	}
	if c.Max != nil {
		parts = append(parts, "at most "+formatNumber(*c.Max))
	}
	if c.Min != nil {
		parts = append(parts, "at least "+formatNumber(*c.Min))
	}
	if len(parts) == 0 {
		parts = append(parts, "see the source")
	}
	s := "- `" + key + "`: " + strings.Join(parts, "; ")
	if c.Source != "" {
		s += " (source: " + c.Source + ")"
	}
	return s
}

// statementDocs are the files a constraint may be stated in, sorted: the docs
// folder's Markdown except the append-only logs, plus files constraint
// sources name.
func statementDocs(st State) []string {
	skip := map[string]bool{
		st.Config.DocPath(design.DecisionsDoc): true,
		st.Config.DocPath(design.ChangelogDoc): true,
	}
	var docs []string
	for p := range st.Files {
		if skip[p] || !strings.EqualFold(path.Ext(p), ".md") {
			continue
		}
		if path.Dir(p) == st.Config.DocsDir() || slices.Contains(sourceFiles(st.Constraints), p) {
			docs = append(docs, p)
		}
	}
	slices.Sort(docs)
	return docs
}

// sourceFiles are the repository files constraint sources name.
func sourceFiles(reg design.Constraints) []string {
	var out []string
	for _, c := range reg {
		if p, ok := sourcePath(c.Source); ok && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

var repoFileSource = regexp.MustCompile(`^[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*\.md$`)

// sourcePath is the repository file a constraint source names
// ("docs/SPEC.md#budgets" names docs/SPEC.md); "ESP32-S3 datasheet §2.4"
// names none.
func sourcePath(source string) (string, bool) {
	p, _, _ := strings.Cut(strings.TrimSpace(source), "#")
	if !repoFileSource.MatchString(p) || strings.HasPrefix(p, "..") {
		return "", false
	}
	return path.Clean(p), true
}

// targetSection is where an undocumented entry's line goes: the doc and
// section its source names when that is a doc, else SPEC.md ## Constraints.
func targetSection(st State, source string) (doc, section string) {
	if p, ok := sourcePath(source); ok && path.Dir(p) == st.Config.DocsDir() {
		if _, exists := st.Files[p]; exists {
			_, anchor, _ := strings.Cut(source, "#")
			for _, ln := range markdownLines(st.Files[p]) {
				if anchor != "" && slug(ln.section) == strings.ToLower(anchor) {
					return p, ln.section
				}
			}
			return p, ConstraintsHeading
		}
	}
	return st.Config.DocPath(design.SpecDoc), ConstraintsHeading
}

// budgetEntries are the registry keys that mirror a SPEC.md budget.
func budgetEntries(reg design.Constraints, budget string) []string {
	var out []string
	for key := range reg {
		if key == budget || strings.HasSuffix(key, "."+budget) {
			out = append(out, key)
		}
	}
	return out
}

// budgetOf is the SPEC.md budget a registry key mirrors, if any.
func budgetOf(key string, b design.SpecBudgets) (string, bool) {
	if _, ok := b.Values[key]; ok {
		return key, true
	}
	last := key[strings.LastIndex(key, ".")+1:]
	if _, ok := b.Values[last]; ok && last != key {
		return last, true
	}
	return "", false
}

// proposedBudgetKey names the registry entry for a SPEC.md budget that has
// none, in the registry's dotted area.name style.
func proposedBudgetKey(budget string) string {
	l := strings.ToLower(budget)
	for _, w := range []string{"current", "power", "batt", "volt", "energy", "charge"} {
		if strings.Contains(l, w) {
			return "power." + budget
		}
	}
	return "budgets." + budget
}

// statedIn reports whether some doc states a registry entry: its key
// verbatim, or, for a forbidden-pin entry, every forbidden pin on one line.
func statedIn(key string, c design.Constraint, docs []string, files design.Files) bool {
	forbidden := map[string]bool{}
	for _, f := range c.Forbidden {
		forbidden[canonicalGPIO(f)] = true
	}
	for _, doc := range docs {
		for _, line := range strings.Split(string(files[doc]), "\n") {
			toks := tokens(line)
			if slices.Contains(toks, key) {
				return true
			}
			if len(forbidden) == 0 {
				continue
			}
			seen := map[string]bool{}
			for _, t := range toks {
				if c := canonicalGPIO(t); forbidden[c] {
					seen[c] = true
				}
			}
			if len(seen) == len(forbidden) {
				return true
			}
		}
	}
	return false
}

// registryKeyIn reports whether an item names one of keys as a token.
func registryKeyIn(item string, keys []string) bool {
	for _, t := range tokens(item) {
		if slices.Contains(keys, t) {
			return true
		}
	}
	return false
}

var (
	dottedKey  = regexp.MustCompile(`^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_-]+)+$`)
	codeSpan   = regexp.MustCompile("`([^`]+)`")
	leadingKey = regexp.MustCompile(`^([A-Za-z0-9_]+(?:\.[A-Za-z0-9_-]+)+)\s*:`)
)

// namedKeys are the dotted constraint keys an item names: in backticks, or
// as its leading "key:".
func namedKeys(item string) []string {
	var out []string
	add := func(k string) {
		if dottedKey.MatchString(k) && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	if m := leadingKey.FindStringSubmatch(item); m != nil {
		add(m[1])
	}
	for _, m := range codeSpan.FindAllStringSubmatch(item, -1) {
		add(strings.TrimSpace(m[1]))
	}
	return out
}

// constraintItem returns the text of a top-level list item in a
// ## Constraints section, unless it is a TODO placeholder.
func constraintItem(ln mdLine) (string, bool) {
	if !strings.EqualFold(ln.section, ConstraintsHeading) {
		return "", false
	}
	t := ln.text
	if len(t) < 2 || !strings.ContainsRune("-*+", rune(t[0])) || t[1] != ' ' {
		return "", false
	}
	item := strings.TrimSpace(t[2:])
	if item == "" || strings.HasPrefix(strings.ToUpper(item), "TODO") {
		return "", false
	}
	return item, true
}

// mdLine is one line of a Markdown doc outside fenced code, with the level-2
// section it is in ("" before the first).
type mdLine struct {
	section string
	text    string
}

// markdownLines splits a doc into lines tagged with their ## section. It is
// deliberately simple: ATX headings only, fenced code skipped.
func markdownLines(src []byte) []mdLine {
	var out []mdLine
	section, fence := "", ""
	for _, raw := range strings.Split(string(src), "\n") {
		line := strings.TrimRight(raw, "\r")
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		if level, title, ok := heading(line); ok {
			if level <= 2 {
				section = ""
				if level == 2 {
					section = title
				}
			}
			continue
		}
		out = append(out, mdLine{section: section, text: line})
	}
	return out
}

func heading(line string) (level int, title string, ok bool) {
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(line) && line[level] != ' ') {
		return 0, "", false
	}
	return level, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#")), true
}

// slug is the anchor GitHub gives a heading: lower case, spaces to hyphens,
// other punctuation dropped.
func slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case r == ' ' || r == '-':
			b.WriteRune('-')
		case r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// tokens splits a line into words that can be keys, refdes, nets and pins:
// runs of letters, digits and _ . + -, with a trailing . or - dropped.
func tokens(line string) []string {
	f := strings.FieldsFunc(line, func(r rune) bool {
		return !(r == '_' || r == '.' || r == '+' || r == '-' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'))
	})
	out := f[:0]
	for _, t := range f {
		if t = strings.TrimRight(t, ".-"); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// canonicalGPIO writes IOn and GPIOn (any case) as GPIOn; other names upper case.
func canonicalGPIO(name string) string {
	if n, ok := circuit.GPIONumber(name); ok {
		return "GPIO" + strconv.Itoa(n)
	}
	return strings.ToUpper(strings.TrimSpace(name))
}

// nameSet is what a doc line can name in the design.
type nameSet struct {
	refdes, nets map[string]bool
}

func designNames(st State) nameSet {
	ns := nameSet{refdes: map[string]bool{}, nets: map[string]bool{}}
	for _, p := range design.Parts(st.Schematic) {
		ns.refdes[p.Refdes] = true
	}
	if st.Netlist != nil {
		for _, n := range st.Netlist.Nets {
			if n.Name != "" && !kicad.IsUnconnectedNet(n.Name) && !strings.HasPrefix(n.Name, "Net-(") {
				ns.nets[n.Name] = true
			}
		}
	}
	return ns
}

// affects lists the refdes, nets and GPIO pins a line names, in order.
func (ns nameSet) affects(line string) []string {
	var out []string
	for _, t := range tokens(line) {
		name := t
		if !ns.refdes[t] && !ns.nets[t] {
			if _, ok := circuit.GPIONumber(t); !ok {
				continue
			}
			name = canonicalGPIO(t)
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

func affectsList(items []string) string {
	if len(items) == 0 {
		return "[] (the line names no part, net or pin: fill it in)"
	}
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// formatNumber writes the shortest decimal that reads back as v.
func formatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
