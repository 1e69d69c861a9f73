// Package checkfmt renders a check result (verify.Result) for CI: SARIF
// 2.1.0 for code scanning and JUnit XML for test dashboards. It owns the
// formats only: which file and line a finding points at, its rule and level,
// its fingerprint. It reads the project's files to place findings and must
// never run kicad-cli, import cli, llm or agent, or open a socket.
package checkfmt

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/textfmt"
	"copperhead/internal/verify"
)

// Project is where a check's findings live.
type Project struct {
	Repo      string                // repository folder, absolute: every URI is relative to it
	Schematic string                // root .kicad_sch, absolute
	Board     string                // .kicad_pcb, absolute; "" when there is none
	Sheets    []kicad.SheetInstance // the schematic's sheet instances (kicad.Schematic.Sheets); may be nil
	Config    config.Config         // for the docs folder
	Version   string                // copperhead's version, for tool.driver
}

// SARIF schema and KiCad documentation addresses.
const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	ercHelp      = "https://docs.kicad.org/9.0/en/eeschema/eeschema.html#electrical-rules-check"
	drcHelp      = "https://docs.kicad.org/9.0/en/pcbnew/pcbnew.html#design-rule-checking"
	fingerprint  = "copperhead/v1"
)

// InformationURI is tool.driver.informationUri: where the developer reading
// a result learns what copperhead is (the validator warns SARIF2005
// without it). copperhead has no address of its own to write here, so it
// is set where the build knows where the code came from: the GitHub
// Action builds with -ldflags "-X copperhead/internal/checkfmt.InformationURI=
// https://github.com/<the action's repository>". Empty, it is left out
// rather than made up.
var InformationURI string

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool      `json:"tool"`
	Results    []sarifResult  `json:"results"`
	Properties map[string]any `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name"`
	ShortDescription     sarifMessage      `json:"shortDescription"`
	FullDescription      sarifMessage      `json:"fullDescription"`
	Help                 sarifMessage      `json:"help"`
	HelpURI              string            `json:"helpUri,omitempty"`
	DefaultConfiguration map[string]string `json:"defaultConfiguration"`
	Properties           map[string]any    `json:"properties,omitempty"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	BaselineState       string            `json:"baselineState,omitempty"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
	Region           *sarifRegion     `json:"region,omitempty"`
}

type sarifArtifactLoc struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// SARIF writes r as one SARIF 2.1.0 run: a rule per finding kind (ERC/DRC
// rule, drift kind, constraint kind, sourcing kind, OpenSpec item type), a
// result per finding with its level, message, file (the sheet's .kicad_sch
// for ERC, the .kicad_pcb for DRC, the doc for drift, with the line of the
// item's UUID or the BOM row when found), KiCad's position and items in the
// property bag, baselineState under a baseline ("new" or "unchanged") and a
// partial fingerprint stable across runs and moves.
func SARIF(w io.Writer, r *verify.Result, p Project) error {
	b := newBuilder(p)
	b.tool("erc", r.ERC, ercHelp)
	b.tool("drc", r.DRC, drcHelp)
	bom := p.Config.DocPath("BOM.md")
	for _, m := range r.Drift.Mismatches {
		file := m.Doc
		if file == "" {
			file = bom
		}
		loc := b.location(file, b.docLine(file, m))
		b.add("drift/"+string(m.Kind), "drift", string(m.Kind), "error", m.Message, loc, m.BaselineState,
			verify.MismatchKey(m), map[string]any{"refdes": m.Refdes, "pin": m.Pin, "field": m.Field, "claim": m.Claim, "actual": m.Actual})
	}
	for _, v := range r.Constraints.Violations {
		b.add("constraints/"+v.Kind, "constraints", v.Kind, "error", v.Message, b.constraintLocation(v), v.BaselineState,
			verify.ConstraintKey(v), map[string]any{"key": v.Key, "source": v.Source})
	}
	for _, f := range r.Sourcing.Findings {
		level := "warning"
		if f.Severity == design.SeverityFail {
			level = "error"
		}
		loc := b.location(config.ConstraintsPath, 0)
		b.add("sourcing/"+f.Kind, "sourcing", f.Kind, level, f.Message, loc, "",
			strings.Join([]string{f.Kind, f.Refdes, f.MPN}, "\x00"), map[string]any{"refdes": f.Refdes, "mpn": f.MPN})
	}
	for _, is := range r.OpenSpec.Issues {
		level := map[string]string{"ERROR": "error", "WARNING": "warning"}[is.Level]
		if level == "" {
			level = "note"
		}
		var loc []sarifLocation
		if is.Path != "" {
			loc = b.location(is.Path, 0)
		}
		b.add("openspec/"+cmp.Or(is.Type, "validate"), "openspec", cmp.Or(is.Type, "validate"), level, plainLine(is.Item+": "+is.Message), loc, "",
			strings.Join([]string{is.Type, is.Item, is.Path, is.Message}, "\x00"), nil)
	}

	run := sarifRun{
		Tool:       sarifTool{Driver: sarifDriver{Name: "copperhead", Version: numericVersion(p.Version), InformationURI: InformationURI, Rules: b.rules}},
		Results:    b.results,
		Properties: map[string]any{"ok": r.OK},
	}
	if r.Baseline != nil {
		run.Properties["baseline"] = map[string]string{"rev": r.Baseline.Rev, "commit": r.Baseline.Commit}
	}
	data, err := json.MarshalIndent(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// builder collects rules (one per kind, in first-seen order) and results.
type builder struct {
	p       Project
	rules   []sarifRule
	ruleIdx map[string]int
	results []sarifResult
	seen    map[string]int // fingerprint base -> occurrences so far
	lines   map[string]map[string]int
}

func newBuilder(p Project) *builder {
	return &builder{p: p, rules: []sarifRule{}, results: []sarifResult{}, ruleIdx: map[string]int{}, seen: map[string]int{}, lines: map[string]map[string]int{}}
}

// tool adds an ERC or DRC gate's counted violations.
func (b *builder) tool(gate string, g verify.ToolGate, help string) {
	for _, group := range []struct {
		name string
		vs   []kicadcli.Violation
	}{{"violations", g.Violations}, {"unconnected", g.Unconnected}, {"parity", g.Parity}} {
		for _, v := range group.vs {
			level := "note"
			switch v.Severity {
			case kicadcli.SeverityError:
				level = "error"
			case kicadcli.SeverityWarning:
				level = "warning"
			}
			props := map[string]any{
				"kicadSeverity": string(v.Severity),
				"kicadPosition": map[string]float64{"x_mm": v.Pos.X, "y_mm": v.Pos.Y},
				"group":         group.name,
			}
			if v.Sheet != "" {
				props["sheet"] = v.Sheet
			}
			var items []map[string]any
			for _, it := range v.Items {
				items = append(items, map[string]any{"description": it.Description, "uuid": it.UUID,
					"kicadPosition": map[string]float64{"x_mm": it.Pos.X, "y_mm": it.Pos.Y}})
			}
			if items != nil {
				props["items"] = items
			}
			msg := violationMessage(v)
			b.addRule(gate+"/"+v.Type, gate, v.Type, level, help, ruleText(v.Description))
			b.add(gate+"/"+v.Type, gate, v.Type, level, msg, b.kicadLocation(gate, v), v.BaselineState, verify.ViolationKey(v), props)
		}
	}
}

// add records one result under rule id (created on first use).
func (b *builder) add(id, gate, kind, level, msg string, loc []sarifLocation, state, key string, props map[string]any) {
	b.addRule(id, gate, kind, level, "", "")
	// Identical findings (same key) are told apart by their order, which
	// the report's deterministic sort fixes.
	n := b.seen[id+"\x00"+key]
	b.seen[id+"\x00"+key] = n + 1
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%d", id, key, n)))
	res := sarifResult{
		RuleID: id, RuleIndex: b.ruleIdx[id], Level: level, Message: sarifMessage{Text: msg}, Locations: loc,
		PartialFingerprints: map[string]string{fingerprint: hex.EncodeToString(sum[:16])},
		Properties:          props,
	}
	switch state {
	case verify.StateNew:
		res.BaselineState = "new"
	case verify.StateExisting:
		res.BaselineState = "unchanged"
	}
	b.results = append(b.results, res)
}

// addRule creates rule id once; help is the documentation address, short
// KiCad's own text for the rule when there is one.
func (b *builder) addRule(id, gate, kind, level, help, short string) {
	if _, ok := b.ruleIdx[id]; ok {
		return
	}
	if help == "" {
		switch gate {
		case "erc":
			help = ercHelp
		case "drc":
			help = drcHelp
		}
	}
	full := gateText[gate]
	if short == "" {
		short = gate + ": " + strings.ReplaceAll(kind, "_", " ")
	}
	full = fmt.Sprintf("%s Rule %q.", full, kind)
	helpText := full
	if help != "" {
		helpText += " See " + help
	}
	r := sarifRule{
		ID: id, Name: ruleName(id),
		ShortDescription:     sarifMessage{Text: short},
		FullDescription:      sarifMessage{Text: full},
		Help:                 sarifMessage{Text: helpText},
		HelpURI:              help,
		DefaultConfiguration: map[string]string{"level": level},
		Properties:           map[string]any{"gate": gate},
	}
	b.ruleIdx[id] = len(b.rules)
	b.rules = append(b.rules, r)
}

// gateText says what each gate checks, for rule descriptions.
var gateText = map[string]string{
	"erc":         "KiCad electrical rules check (kicad-cli sch erc) on the schematic.",
	"drc":         "KiCad design rules check (kicad-cli pcb drc --schematic-parity) on the board.",
	"drift":       "The design docs (docs/BOM.md, docs/PINOUT.md, datasheet citations) disagree with the schematic and its netlist.",
	"constraints": "A design constraint (.copperhead/constraints.json) or budget (config.json, SPEC.md ## Budgets) is broken.",
	"sourcing":    "A part's sourcing snapshot in .copperhead/constraints.json is obsolete, stale, out of stock or missing.",
	"openspec":    "openspec validate --all reported a problem in the specs or changes.",
}

// ruleName is a rule id as PascalCase ("drc/clearance" -> "DrcClearance").
func ruleName(id string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(id, func(r rune) bool { return r == '/' || r == '_' || r == '-' || r == ' ' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// ruleText is KiCad's description without its numbers in parentheses:
// "Clearance violation (rule 'big' clearance 0.5 mm; actual 0.4 mm)" ->
// "Clearance violation".
func ruleText(desc string) string {
	if i := strings.Index(desc, " ("); i > 0 {
		desc = desc[:i]
	}
	return plainLine(desc)
}

func violationMessage(v kicadcli.Violation) string {
	var items []string
	for _, it := range v.Items {
		items = append(items, plainLine(it.Description))
	}
	msg := plainLine(v.Description)
	if len(items) > 0 {
		msg += ": " + strings.Join(items, "; ")
	}
	if v.Sheet != "" {
		msg += fmt.Sprintf(" (sheet %s", plainLine(v.Sheet))
	} else {
		msg += " ("
	}
	if v.Sheet != "" {
		msg += ", "
	}
	return msg + fmt.Sprintf("at %.2f, %.2f mm)", v.Pos.X, v.Pos.Y)
}

// numericVersion is v as SARIF wants it, starting with a digit: a leading
// "v" dropped, and a development build ("devel", "devel+1a2b3c4") as
// "0.0.0-devel...".
func numericVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if v == "" || v[0] < '0' || v[0] > '9' {
		return "0.0.0-" + cmp.Or(v, "devel")
	}
	return v
}

// plainLine is KiCad text on one line: control characters escaped as
// kicadcli.OneLine prints them, then white space folded.
func plainLine(s string) string { return textfmt.OneLine(kicadcli.OneLine(s)) }

// kicadLocation is the file an ERC or DRC violation is in: the board for
// DRC; for ERC the sheet file of its sheet instance (the root when unknown),
// or whichever sheet file holds its first item's UUID. The region is the
// line of that UUID when found.
func (b *builder) kicadLocation(gate string, v kicadcli.Violation) []sarifLocation {
	uuid := ""
	if len(v.Items) > 0 {
		uuid = v.Items[0].UUID
	}
	if gate == "drc" {
		if b.p.Board == "" {
			return nil
		}
		return b.location(b.rel(b.p.Board), b.uuidLine(b.p.Board, uuid))
	}
	file := b.p.Schematic
	for _, sh := range b.p.Sheets {
		if sh.Path == v.Sheet && sh.File != "" {
			file = filepath.Join(filepath.Dir(b.p.Schematic), filepath.FromSlash(sh.File))
			break
		}
	}
	line := b.uuidLine(file, uuid)
	if line == 0 && uuid != "" {
		for _, sh := range b.p.Sheets {
			f := filepath.Join(filepath.Dir(b.p.Schematic), filepath.FromSlash(sh.File))
			if l := b.uuidLine(f, uuid); l > 0 {
				file, line = f, l
				break
			}
		}
	}
	return b.location(b.rel(file), line)
}

// location is one physical location: a repo-relative slash path and, when
// line > 0, its line.
func (b *builder) location(rel string, line int) []sarifLocation {
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifactLoc{URI: uriPath(rel)}}}
	if line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: line}
	}
	return []sarifLocation{loc}
}

// uriPath escapes a relative path for a URI reference.
func uriPath(rel string) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

func (b *builder) rel(abs string) string {
	if r, err := filepath.Rel(b.p.Repo, abs); err == nil && filepath.IsLocal(r) {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(abs)
}

var uuidRE = regexp.MustCompile(`\((?:uuid|tstamp)\s+"?([0-9A-Fa-f-]{8,})"?\)`)

// uuidLine is the 1-based line of file declaring uuid, 0 when not found.
// Each file is indexed once.
func (b *builder) uuidLine(file, uuid string) int {
	if uuid == "" {
		return 0
	}
	idx, ok := b.lines[file]
	if !ok {
		idx = map[string]int{}
		if data, err := os.ReadFile(file); err == nil {
			line := 1
			for len(data) > 0 {
				end := bytes.IndexByte(data, '\n')
				l := data
				if end >= 0 {
					l = data[:end]
				}
				if bytes.Contains(l, []byte("uuid")) || bytes.Contains(l, []byte("tstamp")) {
					for _, m := range uuidRE.FindAllSubmatch(l, -1) {
						if _, dup := idx[string(m[1])]; !dup {
							idx[string(m[1])] = line
						}
					}
				}
				if end < 0 {
					break
				}
				data = data[end+1:]
				line++
			}
		}
		b.lines[file] = idx
	}
	return idx[uuid]
}

// docLine is the line of a drift mismatch's table row in doc: the first
// table row with a cell naming its refdes (and its pin, for PINOUT).
func (b *builder) docLine(doc string, m design.Mismatch) int {
	if m.Refdes == "" {
		return 0
	}
	data, err := os.ReadFile(filepath.Join(b.p.Repo, filepath.FromSlash(doc)))
	if err != nil {
		return 0
	}
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		hasRef, hasPin := false, m.Pin == ""
		for _, c := range cells {
			c = strings.TrimSpace(c)
			if slices.Contains(strings.FieldsFunc(c, func(r rune) bool { return r == ',' || r == ' ' }), m.Refdes) {
				hasRef = true
			} else if c == m.Pin {
				hasPin = true
			}
		}
		if hasRef && hasPin {
			return i + 1
		}
	}
	return 0
}

// constraintLocation is the file a constraint violation is declared in: its
// source when that is a file of the repository, else constraints.json (or
// config.json for a budget when there is no constraints.json).
func (b *builder) constraintLocation(v design.ConstraintViolation) []sarifLocation {
	if src := strings.TrimSpace(v.Source); src != "" && !strings.ContainsAny(src, " \t") {
		if fi, err := os.Stat(filepath.Join(b.p.Repo, filepath.FromSlash(src))); err == nil && fi.Mode().IsRegular() {
			return b.location(src, 0)
		}
	}
	if _, err := os.Stat(filepath.Join(b.p.Repo, filepath.FromSlash(config.ConstraintsPath))); err == nil || !strings.HasPrefix(v.Kind, "budget") {
		return b.location(config.ConstraintsPath, 0)
	}
	return b.location(config.ConfigPath, 0)
}
