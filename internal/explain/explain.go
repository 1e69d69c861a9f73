// Package explain answers "why is this here?" about a part, a net or a pin
// with facts only: what the schematic, kicad-cli's netlist, the design docs
// and the constraint registry say about it, each fact with where it comes
// from. It never guesses and never calls a model; `copperhead explain
// --phrase` may hand its facts to one (PhrasePrompt), clearly separated.
package explain

import (
	_ "embed"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"copperhead/internal/circuit"
	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/textdist"
)

// Kind is what a subject turned out to be.
type Kind string

const (
	KindPart Kind = "part"
	KindNet  Kind = "net"
	KindPin  Kind = "pin"
)

// Input is the loaded design explain reads.
type Input struct {
	Config      config.Config
	Files       design.Files // design.ReadFiles
	Constraints design.Constraints
	Schematic   *kicad.Schematic
	Netlist     *kicad.Netlist
}

// Explanation is every fact known about one subject.
type Explanation struct {
	Subject     string           `json:"subject"` // as resolved: "U1", "KEY_DAH", "U1.5"
	Kind        Kind             `json:"kind"`
	Part        *PartFacts       `json:"part,omitempty"`
	Net         *NetFacts        `json:"net,omitempty"`
	Pin         *PinFacts        `json:"pin,omitempty"`
	Constraints []ConstraintFact `json:"constraints"`
	Decisions   []Decision       `json:"decisions"` // DECISIONS.md entries that name the subject
}

// PartFacts are a part's facts.
type PartFacts struct {
	kicad.Part
	BOMRow  *design.BOMRow   `json:"bom_row"` // its docs/BOM.md row; nil when the doc has none
	Pins    []PinOnNet       `json:"pins"`
	PullUps []circuit.PullUp `json:"pull_ups"` // the leakage model, when the part is a pull-up
}

// PinOnNet is one pin of a part and the net on it.
type PinOnNet struct {
	Pin   string `json:"pin"`
	Name  string `json:"name"`
	Type  string `json:"type"`
	Net   string `json:"net"` // design.NCMarker when unconnected
	Notes string `json:"notes,omitempty"`
}

// NetFacts are a net's facts.
type NetFacts struct {
	Name    string             `json:"name"`
	Pins    []kicad.NetNode    `json:"pins"`
	Labels  []kicad.Label      `json:"labels"`
	Sheets  []string           `json:"sheets"`
	Pinout  []design.PinoutRow `json:"pinout_rows"` // docs/PINOUT.md rows on the net
	PullUps []circuit.PullUp   `json:"pull_ups"`    // pull-ups on the net, with the leakage model's currents
}

// PinFacts are one pin's facts.
type PinFacts struct {
	Refdes    string            `json:"refdes"`
	Pin       string            `json:"pin"`
	Name      string            `json:"name"`
	Type      string            `json:"type"`
	Net       string            `json:"net"`
	Part      string            `json:"part"`       // the part's value
	PinoutRow *design.PinoutRow `json:"pinout_row"` // its docs/PINOUT.md row; nil when the doc has none
	Notes     string            `json:"notes"`      // strapping/RTC, from the netlist's MCU knowledge
	SameNet   []string          `json:"same_net"`   // the other pins on its net: "R7.2"
}

// ConstraintFact is a registry entry that concerns the subject, and why.
type ConstraintFact struct {
	Key    string `json:"key"`
	Why    string `json:"why"`   // "affects U1", "forbids GPIO0 (this pin)"
	Limit  string `json:"limit"` // "max 25", "forbidden GPIO0, GPIO3"
	Source string `json:"source"`
}

// Decision is one DECISIONS.md entry.
type Decision struct {
	Heading string   `json:"heading"`
	Lines   []string `json:"lines"`
}

// UnknownError is an explain subject that names nothing in the design.
type UnknownError struct {
	Subject string
	Close   []string // the closest refdes, nets and pins, best first
}

func (e *UnknownError) Error() string {
	msg := fmt.Sprintf("no part, net or pin named %q", e.Subject)
	if len(e.Close) > 0 {
		msg += "; close: " + strings.Join(e.Close, ", ")
	}
	return msg
}

// AmbiguousError is a short net name that several nets end in: a local
// label in a sheet used three times names three nets, one per instance
// ("/inst1/RBIAS", "/inst2/RBIAS", ...). explain never picks one for the
// user; the full names are listed to choose from.
type AmbiguousError struct {
	Subject    string
	Candidates []string // the nets' full names, sorted
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q names %d nets, one per sheet instance or sheet: %s; give the full name", e.Subject, len(e.Candidates), strings.Join(e.Candidates, ", "))
}

// PhrasePrompt is the system prompt for phrasing an Explanation in words.
//
//go:embed phrase.md
var PhrasePrompt string

var (
	refPin = regexp.MustCompile(`^([A-Za-z_]+[0-9]+)\.(.+)$`)
)

// Explain resolves subject (a refdes, a net, REF.PIN, or a GPIO name such as
// GPIO5 or IO5) and gathers its facts. Nets are KiCad's, per sheet
// instance: "/inst1/RBIAS" is one net, and the short name "RBIAS" resolves
// only when one net has it (else *AmbiguousError lists the full names). An
// unknown subject is an *UnknownError listing close matches.
func Explain(in Input, subject string) (*Explanation, error) {
	s := strings.TrimSpace(subject)
	parts := design.Parts(in.Schematic)
	for _, p := range parts {
		if strings.EqualFold(p.Refdes, s) {
			return in.part(p), nil
		}
	}
	if m := refPin.FindStringSubmatch(s); m != nil {
		if node, ok := in.findPin(m[1], m[2]); ok {
			return in.pin(node), nil
		}
	}
	n, ok, err := in.findNet(s)
	if err != nil {
		return nil, err
	}
	if ok {
		return in.net(n), nil
	}
	if n, ok := circuit.GPIONumber(s); ok {
		if node, ok := in.findGPIO(strconv.Itoa(n)); ok {
			return in.pin(node), nil
		}
	}
	return nil, &UnknownError{Subject: s, Close: in.closeMatches(s)}
}

// node is a pin as the netlist has it, with its net.
type node struct {
	kicad.NetNode
	net kicad.Net
}

func (in Input) nodes() []node {
	var out []node
	if in.Netlist == nil {
		return nil
	}
	for _, n := range in.Netlist.Nets {
		for _, nd := range n.Nodes {
			out = append(out, node{nd, n})
		}
	}
	return out
}

func (in Input) findPin(ref, pin string) (node, bool) {
	var byName []node
	for _, nd := range in.nodes() {
		if !strings.EqualFold(nd.Refdes, ref) {
			continue
		}
		if nd.Pin == pin {
			return nd, true
		}
		if strings.EqualFold(nd.PinFunction, pin) || canonical(nd.PinFunction) == canonical(pin) {
			byName = append(byName, nd)
		}
	}
	if len(byName) > 0 {
		return byName[0], true
	}
	return node{}, false
}

// findGPIO finds the MCU pin a GPIO name stands for: the first part, in
// refdes order, with a pin named GPIO<n> or IO<n>.
func (in Input) findGPIO(n string) (node, bool) {
	var hits []node
	for _, nd := range in.nodes() {
		if canonical(nd.PinFunction) == "GPIO"+n {
			hits = append(hits, nd)
		}
	}
	if len(hits) == 0 {
		return node{}, false
	}
	slices.SortFunc(hits, func(a, b node) int { return kicad.CompareRefdes(a.Refdes, b.Refdes) })
	return hits[0], true
}

// findNet resolves a net name: exactly as KiCad spells it, else ignoring
// case, else by its last segment ("RBIAS" for "/inst1/RBIAS") when that
// names one net only. Several nets with that last segment are an
// *AmbiguousError.
func (in Input) findNet(name string) (kicad.Net, bool, error) {
	if in.Netlist == nil {
		return kicad.Net{}, false, nil
	}
	for _, n := range in.Netlist.Nets {
		if n.Name == name {
			return n, true, nil
		}
	}
	var fold, base []kicad.Net
	for _, n := range in.Netlist.Nets {
		switch {
		case strings.EqualFold(n.Name, name):
			fold = append(fold, n)
		case !strings.Contains(name, "/") && strings.EqualFold(baseName(n.Name), name):
			base = append(base, n)
		}
	}
	for _, hits := range [][]kicad.Net{fold, base} {
		switch len(hits) {
		case 0:
			continue
		case 1:
			return hits[0], true, nil
		}
		var names []string
		for _, n := range hits {
			names = append(names, n.Name)
		}
		slices.SortFunc(names, kicad.CompareRefdes)
		return kicad.Net{}, false, &AmbiguousError{Subject: name, Candidates: names}
	}
	return kicad.Net{}, false, nil
}

func (in Input) part(p kicad.Part) *Explanation {
	pf := &PartFacts{Part: p, Pins: []PinOnNet{}, PullUps: []circuit.PullUp{}}
	if rows, err := design.ParseBOM(in.Files[in.Config.DocPath(design.BOMDoc)]); err == nil {
		for _, r := range rows {
			if r.Refdes == p.Refdes {
				pf.BOMRow = &r
				break
			}
		}
	}
	notes := in.pinNotes()
	for _, nd := range in.nodes() {
		if nd.Refdes == p.Refdes {
			pf.Pins = append(pf.Pins, PinOnNet{Pin: nd.Pin, Name: nd.PinFunction, Type: nd.PinType,
				Net: design.PinoutNet(nd.net), Notes: notes[[2]string{nd.Refdes, nd.Pin}]})
		}
	}
	slices.SortFunc(pf.Pins, func(a, b PinOnNet) int { return kicad.CompareRefdes(a.Pin, b.Pin) })
	pf.Pins = slices.CompactFunc(pf.Pins, func(a, b PinOnNet) bool { return a.Pin == b.Pin })
	for _, pu := range in.leakage().PullUps {
		if pu.Refdes == p.Refdes {
			pf.PullUps = append(pf.PullUps, pu)
		}
	}
	names := []string{p.Refdes}
	var gpios []string
	for _, pin := range pf.Pins {
		if g := canonical(pin.Name); strings.HasPrefix(g, "GPIO") && pin.Net != design.NCMarker {
			gpios = append(gpios, g)
		}
	}
	e := &Explanation{Subject: p.Refdes, Kind: KindPart, Part: pf}
	e.Constraints = in.constraints(names, gpios, p.Refdes, "used here")
	e.Decisions = in.decisions(names)
	return e
}

func (in Input) net(n kicad.Net) *Explanation {
	nf := &NetFacts{Name: n.Name, Pins: slices.Clone(n.Nodes), Labels: []kicad.Label{}, Sheets: []string{},
		Pinout: []design.PinoutRow{}, PullUps: []circuit.PullUp{}}
	slices.SortFunc(nf.Pins, func(a, b kicad.NetNode) int {
		if c := kicad.CompareRefdes(a.Refdes, b.Refdes); c != 0 {
			return c
		}
		return kicad.CompareRefdes(a.Pin, b.Pin)
	})
	base := baseName(n.Name)
	addSheet := func(s string) {
		if s != "" && !slices.Contains(nf.Sheets, s) {
			nf.Sheets = append(nf.Sheets, s)
		}
	}
	if in.Schematic != nil {
		// The sheet instances the net has pins on: a local or
		// hierarchical label of the net's name elsewhere (another instance
		// of a reused sheet) belongs to another net.
		refs := map[string]bool{}
		for _, nd := range n.Nodes {
			refs[nd.Refdes] = true
		}
		onSheet := map[string]bool{}
		for _, p := range design.Parts(in.Schematic) {
			if refs[p.Refdes] {
				onSheet[p.SheetPath] = true
				addSheet(p.SheetPath)
			}
		}
		// One label per name, kind and sheet: the same label placed four
		// times on a sheet is one fact.
		for _, l := range in.Schematic.Labels {
			dup := slices.ContainsFunc(nf.Labels, func(o kicad.Label) bool {
				return o.Name == l.Name && o.Kind == l.Kind && o.SheetPath == l.SheetPath
			})
			// A "/" in a label's text reads like the sheet path's own
			// ("/P/T" may be label "P/T" on the root), so the label's
			// whole text must end the net's name.
			if l.Name != n.Name && !strings.HasSuffix(n.Name, "/"+l.Name) || dup || !labelOnNet(l, n.Name, onSheet) {
				continue
			}
			nf.Labels = append(nf.Labels, l)
			addSheet(l.SheetPath)
		}
		slices.SortStableFunc(nf.Labels, func(a, b kicad.Label) int { return strings.Compare(a.SheetPath, b.SheetPath) })
	}
	slices.Sort(nf.Sheets)
	if rows, err := design.ParsePinout(in.Files[in.Config.DocPath(design.PinoutDoc)]); err == nil {
		for _, r := range rows {
			if r.Net == n.Name || r.Net == base {
				nf.Pinout = append(nf.Pinout, r)
			}
		}
	}
	for _, pu := range in.leakage().PullUps {
		if pu.Net == n.Name {
			nf.PullUps = append(nf.PullUps, pu)
		}
	}
	var gpios []string
	for _, nd := range n.Nodes {
		if g := canonical(nd.PinFunction); strings.HasPrefix(g, "GPIO") {
			gpios = append(gpios, g)
		}
	}
	e := &Explanation{Subject: n.Name, Kind: KindNet, Net: nf}
	e.Constraints = in.constraints([]string{n.Name, base}, gpios, "", "used here")
	e.Decisions = in.decisions([]string{n.Name, base})
	return e
}

func (in Input) pin(nd node) *Explanation {
	pf := &PinFacts{Refdes: nd.Refdes, Pin: nd.Pin, Name: nd.PinFunction, Type: nd.PinType,
		Net: design.PinoutNet(nd.net), SameNet: []string{}}
	for _, c := range in.Netlist.Components {
		if c.Refdes == nd.Refdes {
			pf.Part = c.Value
		}
	}
	pf.Notes = in.pinNotes()[[2]string{nd.Refdes, nd.Pin}]
	if rows, err := design.ParsePinout(in.Files[in.Config.DocPath(design.PinoutDoc)]); err == nil {
		for _, r := range rows {
			if r.Refdes == nd.Refdes && r.Pin == nd.Pin {
				pf.PinoutRow = &r
				break
			}
		}
	}
	if !circuit.IsNoConnect(nd.net) {
		for _, o := range nd.net.Nodes {
			if o.Refdes != nd.Refdes || o.Pin != nd.Pin {
				pf.SameNet = append(pf.SameNet, o.Refdes+"."+o.Pin)
			}
		}
	}
	subject := nd.Refdes + "." + nd.Pin
	names := []string{subject}
	if !circuit.IsNoConnect(nd.net) {
		names = append(names, nd.net.Name)
	}
	var gpios []string
	if g := canonical(nd.PinFunction); strings.HasPrefix(g, "GPIO") {
		gpios = append(gpios, g)
		names = append(names, g, "IO"+strings.TrimPrefix(g, "GPIO"))
	}
	used := "this pin, in use on net " + nd.net.Name
	if circuit.IsNoConnect(nd.net) {
		used = "this pin, which is not connected"
	}
	e := &Explanation{Subject: subject, Kind: KindPin, Pin: pf}
	e.Constraints = in.constraints(names, gpios, nd.Refdes, used)
	e.Decisions = in.decisions(names)
	return e
}

// pinNotes are the strapping/RTC notes copperhead knows for every IC pin.
func (in Input) pinNotes() map[[2]string]string {
	out := map[[2]string]string{}
	for _, r := range design.PinoutRows(in.Netlist) {
		if r.Notes != "" {
			out[[2]string{r.Refdes, r.Pin}] = r.Notes
		}
	}
	return out
}

func (in Input) leakage() circuit.Leakage { return circuit.SleepLeakage(in.Netlist) }

// constraints are the registry entries whose affects name one of names (or
// part, the subject's refdes), or whose forbidden list holds one of gpios;
// used says what a forbidden hit means ("used here", "this pin, not
// connected").
func (in Input) constraints(names, gpios []string, part, used string) []ConstraintFact {
	out := []ConstraintFact{}
	for _, key := range slices.Sorted(maps.Keys(in.Constraints)) {
		c := in.Constraints[key]
		var why []string
		for _, f := range c.Forbidden {
			if slices.Contains(gpios, canonical(f)) {
				why = append(why, "forbids "+f+" ("+used+")")
			}
		}
		for _, a := range c.Affects {
			toks := affectsTokens(a)
			for _, n := range append(slices.Clone(names), part) {
				if n != "" && slices.Contains(toks, n) && !slices.Contains(why, "affects "+a) {
					why = append(why, "affects "+a)
				}
			}
		}
		if len(why) == 0 {
			continue
		}
		out = append(out, ConstraintFact{Key: key, Why: strings.Join(why, "; "), Limit: limit(c), Source: c.Source})
	}
	return out
}

func limit(c design.Constraint) string {
	var parts []string
	if c.Max != nil {
		parts = append(parts, "max "+strconv.FormatFloat(*c.Max, 'f', -1, 64))
	}
	if c.Min != nil {
		parts = append(parts, "min "+strconv.FormatFloat(*c.Min, 'f', -1, 64))
	}
	if len(c.Forbidden) > 0 {
		parts = append(parts, "forbidden "+strings.Join(c.Forbidden, ", "))
	}
	return strings.Join(parts, "; ")
}

// affectsTokens splits an affects item into the names it holds: "R7-absent"
// holds R7, "zone:top" holds zone and top; net names keep their + and -.
func affectsTokens(item string) []string {
	whole := strings.TrimSpace(item)
	parts := strings.FieldsFunc(whole, func(r rune) bool {
		return !(r == '_' || r == '+' || r == '.' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'))
	})
	return append([]string{whole}, parts...)
}

// decisions are the DECISIONS.md entries (## headings) that name one of
// names as a word.
func (in Input) decisions(names []string) []Decision {
	out := []Decision{}
	src := string(in.Files[in.Config.DocPath(design.DecisionsDoc)])
	var cur *Decision
	flush := func() {
		if cur != nil && mentions(cur.Heading+"\n"+strings.Join(cur.Lines, "\n"), names) {
			out = append(out, *cur)
		}
		cur = nil
	}
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.HasPrefix(line, "## ") {
			flush()
			cur = &Decision{Heading: strings.TrimSpace(line[3:]), Lines: []string{}}
			continue
		}
		if strings.HasPrefix(line, "# ") {
			flush()
			continue
		}
		if cur != nil && strings.TrimSpace(line) != "" {
			cur.Lines = append(cur.Lines, strings.TrimSpace(line))
		}
	}
	flush()
	return out
}

// mentions reports whether text names one of names as a whole word (U1 is
// not mentioned by U10, KEY_DAH not by KEY_DAHS).
func mentions(text string, names []string) bool {
	for _, n := range names {
		if n == "" {
			continue
		}
		re := regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(n) + `($|[^A-Za-z0-9_])`)
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// canonical writes IOn and GPIOn as GPIOn and every other name upper case,
// for each "/" alternative the first GPIO found.
func canonical(name string) string {
	if n, ok := circuit.GPIOOf(name); ok {
		return "GPIO" + strconv.Itoa(n)
	}
	return strings.ToUpper(strings.TrimSpace(name))
}

// labelOnNet reports whether label l (named like the net's last segment)
// is one of the net's: a global label when the net has its name (KiCad
// names a net with a global label after it); a local or hierarchical one
// when its sheet instance path and name are the net's KiCad name ("/inst1/"
// + "RBIAS"), or when the net has pins on that sheet instance.
func labelOnNet(l kicad.Label, net string, onSheet map[string]bool) bool {
	if l.Kind == kicad.LabelGlobal {
		return net == l.Name
	}
	return l.SheetPath+l.Name == net || onSheet[l.SheetPath]
}

func baseName(net string) string { return net[strings.LastIndex(net, "/")+1:] }

// maxClose caps the close matches an UnknownError lists.
const maxClose = 5

// closeMatches are the refdes and net names nearest to s: same prefix or
// substring first, then by edit distance, at most maxClose.
func (in Input) closeMatches(s string) []string {
	var cands []string
	for _, p := range design.Parts(in.Schematic) {
		cands = append(cands, p.Refdes)
	}
	if in.Netlist != nil {
		for _, n := range in.Netlist.Nets {
			if n.Name != "" && !kicad.IsUnconnectedNet(n.Name) && !strings.HasPrefix(n.Name, "Net-(") {
				cands = append(cands, n.Name)
			}
		}
	}
	u := strings.ToUpper(s)
	type scored struct {
		name string
		d    int
	}
	var hits []scored
	for _, c := range cands {
		cu := strings.ToUpper(c)
		d := textdist.Levenshtein(u, cu)
		switch {
		case strings.Contains(cu, u) || strings.Contains(u, cu):
			d = min(d, 1)
		case d > max(1, len(u)/3):
			continue
		}
		hits = append(hits, scored{c, d})
	}
	slices.SortStableFunc(hits, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		// U9 is nearer U1 than C9: a shared prefix is the same kind of thing.
		if pa, pb := commonPrefix(u, strings.ToUpper(a.name)), commonPrefix(u, strings.ToUpper(b.name)); pa != pb {
			return pb - pa
		}
		return kicad.CompareRefdes(a.name, b.name)
	})
	var out []string
	for _, h := range hits {
		if !slices.Contains(out, h.name) {
			out = append(out, h.name)
		}
		if len(out) == maxClose {
			break
		}
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
