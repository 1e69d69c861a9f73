// Package draft holds copperhead's deterministic drafting engines for the
// create pipeline: the schematic intent file (parts with library ids and
// groups, nets as lists of REF.PIN, no-connects, and no coordinates), its
// validation against the installed KiCad libraries, and the engine that
// emits a KiCad 9 sheet from a valid intent: parts placed by group, short
// nets drawn as wires, power ports turned away from their pins, on the
// smallest paper that fits, and held to a legibility check (geometry.go,
// legible.go) before anything is written. The model decides what is
// connected; this package decides where it is drawn, so the same intent
// always gives the same bytes. It builds on sexpr, kicad and kicad/kigen and
// must never import llm, agent, research or cli.
package draft

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"copperhead/internal/kicad/kigen"
	"copperhead/internal/textdist"
)

// Intent is a schematic described by what is connected, never by where it
// is drawn.
type Intent struct {
	Project   string       `json:"project,omitempty"` // file stem of the sheet; default: the output folder's name
	Title     string       `json:"title,omitempty"`
	Parts     []IntentPart `json:"parts"`
	Nets      []IntentNet  `json:"nets"`
	NoConnect []string     `json:"no_connect,omitempty"` // REF.PIN, or REF.* for every pin of REF in no net
}

// IntentPart is one part: a library symbol and how it is known in the BOM.
type IntentPart struct {
	Ref       string            `json:"ref"`
	LibID     string            `json:"lib_id"`
	Value     string            `json:"value,omitempty"`     // default: the library's Value
	Footprint string            `json:"footprint,omitempty"` // default: the library's Footprint
	Group     string            `json:"group,omitempty"`     // subsystem; parts of a group are drawn together
	Fields    map[string]string `json:"fields,omitempty"`    // extra properties, e.g. MPN, Manufacturer
}

// IntentNet is one net: a name and the pins on it.
type IntentNet struct {
	Name string   `json:"name"`
	Pins []string `json:"pins"`
}

// ParseIntent decodes an intent file strictly: unknown keys are errors, so
// a misspelt "no_conect" is reported instead of silently ignored. name is
// the file name errors quote.
func ParseIntent(data []byte, name string) (*Intent, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var in Intent
	if err := dec.Decode(&in); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line, col := position(data, se.Offset)
			return nil, fmt.Errorf("%s:%d:%d: %v", name, line, col, se)
		case errors.As(err, &te):
			line, col := position(data, te.Offset)
			return nil, fmt.Errorf("%s:%d:%d: %s must be %s, not %s", name, line, col, te.Field, te.Type, te.Value)
		case errors.Is(err, io.EOF):
			return nil, fmt.Errorf("%s: empty intent file", name)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: trailing data after the intent object", name)
	}
	return &in, nil
}

// ReadIntent reads and parses an intent file.
func ReadIntent(path string) (*Intent, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read intent: %w", err)
	}
	return ParseIntent(data, filepath.Base(path))
}

func position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	// Offset counts the offending byte itself, so it is that byte's column.
	col = max(int(off)-(bytes.LastIndexByte(data[:off], '\n')+1), 1)
	return line, col
}

// Finding is one problem with an intent; validation reports all of them at
// once so the author can fix the file in one pass.
type Finding struct {
	Where   string // "parts[2] U3", "nets[VBUS]", "no_connect[4]", "U1"
	Problem string
}

func (f Finding) String() string { return f.Where + ": " + f.Problem }

// FindingsError is a failed validation.
type FindingsError struct {
	Name     string // the intent file
	Findings []Finding
}

func (e *FindingsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d problem", e.Name, len(e.Findings))
	if len(e.Findings) != 1 {
		b.WriteString("s")
	}
	for _, f := range e.Findings {
		b.WriteString("\n  - " + f.String())
	}
	return b.String()
}

// part is an intent part resolved against the library.
type part struct {
	IntentPart
	sym   *kigen.SymDef
	units []int
	nets  map[string]string // pin number -> net
	nc    map[string]bool   // pin number -> flagged no-connect
}

// resolved is a validated intent, ready to draw.
type resolved struct {
	intent *Intent
	parts  []*part
	byRef  map[string]*part
	nets   []IntentNet // with pins normalized to REF.NUMBER
}

var refRE = regexp.MustCompile(`^[A-Za-z][A-Za-z_]*[0-9]+$`)

// Options tune validation and drawing.
type Options struct {
	// Library is where symbols (and footprints, checked to exist) come
	// from; nil uses KiCad's installed libraries (KICAD9_SYMBOL_DIR and
	// KICAD9_FOOTPRINT_DIR override /usr/share/kicad).
	Library *kigen.Library
	// BOM, when set, maps the refdes of BOM.md rows to their values: parts
	// missing on either side and differing values are findings.
	BOM map[string]string
}

func (o Options) library() *kigen.Library {
	if o.Library != nil {
		return o.Library
	}
	return InstalledLibrary()
}

// InstalledLibrary is KiCad's installed symbol and footprint set.
func InstalledLibrary() *kigen.Library {
	sym, fp := "/usr/share/kicad/symbols", "/usr/share/kicad/footprints"
	if v := os.Getenv("KICAD9_SYMBOL_DIR"); v != "" {
		sym = v
	}
	if v := os.Getenv("KICAD9_FOOTPRINT_DIR"); v != "" {
		fp = v
	}
	return &kigen.Library{SymDir: sym, FPDir: fp}
}

// Validate checks an intent against the library and returns it resolved,
// or a *FindingsError listing every problem: unknown symbols and
// footprints (with the closest names), power symbols used as parts,
// duplicate references, unknown pins (with the part's pins), pins in two
// nets, nets with one end, pins left in no net and not flagged no-connect,
// stacked pins split across nets (unit-0 pins stack with every unit),
// net names KiCad reads as a bus or escapes (D[0..3], {A B}, A/B), and BOM
// mismatches.
func Validate(in *Intent, name string, opts Options) (*resolved, error) {
	lib := opts.library()
	var fs []Finding
	add := func(where, format string, args ...any) {
		fs = append(fs, Finding{where, fmt.Sprintf(format, args...)})
	}
	r := &resolved{intent: in, byRef: map[string]*part{}}
	if len(in.Parts) == 0 {
		add("parts", "the intent has no parts")
	}
	for i, ip := range in.Parts {
		where := fmt.Sprintf("parts[%d] %s", i, ip.Ref)
		switch {
		case !refRE.MatchString(ip.Ref):
			add(where, "reference %q must be letters then a number, e.g. R12", ip.Ref)
			continue
		case r.byRef[ip.Ref] != nil:
			add(where, "reference %s is used twice", ip.Ref)
			continue
		}
		sym, err := lookupSymbol(lib, ip.LibID)
		if err != nil {
			add(where, "%v", err)
			continue
		}
		if sym.Power {
			add(where, "%s is a power symbol: name a net after it instead (power ports are drawn by the engine)", ip.LibID)
			continue
		}
		p := &part{IntentPart: ip, sym: sym, nets: map[string]string{}, nc: map[string]bool{}}
		if p.Value == "" {
			p.Value = propValue(sym, "Value")
		}
		if p.Footprint == "" {
			p.Footprint = propValue(sym, "Footprint")
		}
		if p.Footprint == "" {
			add(where, "no footprint: give one (the library symbol %s has none)", ip.LibID)
		} else if err := footprintExists(lib, p.Footprint); err != nil {
			add(where, "%v", err)
		}
		p.units = symbolUnits(sym)
		r.parts = append(r.parts, p)
		r.byRef[ip.Ref] = p
	}

	// Nets: every pin resolves, sits in one net only, and every net has two ends.
	owner := map[string]string{} // REF.NUMBER -> net
	seenNet := map[string]bool{}
	for i, n := range in.Nets {
		where := fmt.Sprintf("nets[%s]", n.Name)
		if strings.TrimSpace(n.Name) == "" {
			where = fmt.Sprintf("nets[%d]", i)
			add(where, "a net needs a name")
			continue
		}
		if strings.ContainsAny(n.Name, "\n\r\t") || strings.HasPrefix(n.Name, "Net-(") || strings.HasPrefix(n.Name, "unconnected-(") {
			add(where, "bad net name %q", n.Name)
			continue
		}
		if why, fix := netNameProblem(n.Name); why != "" {
			// Its pins are still read, so they are not reported as in no net.
			add(where, "net name %q %s: name it %s", n.Name, why, fix)
		}
		if seenNet[n.Name] {
			add(where, "net %s is listed twice: merge the two lists", n.Name)
			continue
		}
		seenNet[n.Name] = true
		norm := IntentNet{Name: n.Name}
		for _, pr := range n.Pins {
			p, num, err := r.pin(pr)
			if err != nil {
				add(where, "%v", err)
				continue
			}
			key := p.Ref + "." + num
			if prev, ok := owner[key]; ok {
				if prev == n.Name {
					add(where, "%s is listed twice", key)
				} else {
					add(where, "%s is already on net %s: a pin can be on one net only", pinLabel(p, num), prev)
				}
				continue
			}
			owner[key] = n.Name
			p.nets[num] = n.Name
			norm.Pins = append(norm.Pins, key)
		}
		if len(n.Pins) < 2 {
			add(where, "net %s has %d pin: a net needs two ends (flag a deliberately unused pin under no_connect)", n.Name, len(n.Pins))
		}
		r.nets = append(r.nets, norm)
	}

	for i, nc := range in.NoConnect {
		where := fmt.Sprintf("no_connect[%d]", i)
		if ref, ok := strings.CutSuffix(nc, ".*"); ok {
			p := r.byRef[ref]
			if p == nil {
				add(where, "%v", r.unknownRef(ref))
				continue
			}
			for _, num := range p.pinNumbers() {
				if _, on := p.nets[num]; !on {
					p.nc[num] = true
				}
			}
			continue
		}
		p, num, err := r.pin(nc)
		if err != nil {
			add(where, "%v", err)
			continue
		}
		if net, on := p.nets[num]; on {
			add(where, "%s is on net %s and cannot also be no-connect", pinLabel(p, num), net)
			continue
		}
		p.nc[num] = true
	}

	// Every visible pin is decided; stacked pins agree.
	for _, p := range r.parts {
		var open []string
		for _, num := range p.pinNumbers() {
			pin := p.pinByNumber(num)
			if _, on := p.nets[num]; on || p.nc[num] || pin.Hidden || pin.Type == "no_connect" {
				continue
			}
			open = append(open, pinLabel(p, num))
		}
		if len(open) > 0 {
			add(p.Ref, "%s in no net and not no-connect: put each on a net, or list it under no_connect (\"%s.*\" flags every pin of %s left in no net)",
				listOrCount(open), p.Ref, p.Ref)
		}
		for _, st := range p.stacks() {
			nets := map[string]bool{}
			for _, num := range st {
				if n, ok := p.nets[num]; ok {
					nets[n] = true
				}
			}
			if len(nets) > 1 {
				var pins []string
				for _, num := range st {
					pins = append(pins, pinLabel(p, num))
				}
				add(p.Ref, "pins %s are stacked at one point of the symbol, so KiCad joins them, but the intent puts them on nets %s: drawing them would join those nets; put the stacked pins on one net",
					strings.Join(pins, ", "), strings.Join(slices.Sorted(mapKeys(nets)), ", "))
			}
		}
	}

	if opts.BOM != nil {
		for _, p := range r.parts {
			v, ok := opts.BOM[p.Ref]
			switch {
			case !ok:
				add(p.Ref, "not in BOM.md: add its row (or drop the part)")
			case v != "" && v != p.Value:
				add(p.Ref, "value %s differs from BOM.md's %s", p.Value, v)
			}
		}
		for _, ref := range slices.Sorted(mapKeys(opts.BOM)) {
			if r.byRef[ref] == nil {
				add(ref, "in BOM.md but not in the intent")
			}
		}
	}
	if len(fs) > 0 {
		return nil, &FindingsError{Name: name, Findings: fs}
	}
	return r, nil
}

// busVectorRE is KiCad's vector bus syntax, PREFIX[M..N].
var busVectorRE = regexp.MustCompile(`\[[^\]]*\.\.[^\]]*\]`)

// netNameProblem says why KiCad would not read name as one plain net, and
// the name to use instead; why is "" for a fine name (USB_D+, +3V3, ~RESET).
// KiCad reads D[0..3] as a bus of four nets and {A B} (or ~{X}, X_{1}) as a
// bus group or text markup, and writes a '/' as {slash} in the board while
// its netlist shows '/', which is also its sheet-path separator: each fails
// ERC or the board's schematic parity after drawing.
func netNameProblem(name string) (why, fix string) {
	switch {
	case busVectorRE.MatchString(name):
		m := busVectorRE.FindString(name)
		prefix := strings.TrimSpace(strings.Replace(name, m, "", 1))
		if prefix == "" {
			prefix = "D"
		}
		return "is KiCad's bus syntax (a vector bus " + m + " is several nets, not one)",
			fmt.Sprintf("once per signal instead, e.g. %s0, %s1 as separate nets", prefix, prefix)
	case strings.ContainsAny(name, "{}"):
		return "has braces, which KiCad reads as a bus group or text markup (~{X} overbar, _{X} subscript)",
			strconv.Quote(plainNetName(name))
	case strings.Contains(name, "/"):
		return "has a '/', KiCad's sheet-path separator, which it escapes as {slash} in the board",
			strconv.Quote(plainNetName(name))
	}
	return "", ""
}

// plainNetName is name with bus and escape syntax replaced: '/' and spaces
// become '_', braces and brackets go, a leading "~{X}" overbar becomes X_N.
func plainNetName(name string) string {
	inv := false
	if rest, ok := strings.CutPrefix(name, "~{"); ok {
		if inner, ok := strings.CutSuffix(rest, "}"); ok && !strings.ContainsAny(inner, "{}") {
			name, inv = inner, true
		}
	}
	out := strings.Map(func(r rune) rune {
		switch r {
		case '/', ' ':
			return '_'
		case '{', '}', '[', ']':
			return -1
		}
		return r
	}, name)
	if inv {
		out += "_N"
	}
	if strings.Trim(out, "_") == "" {
		return "NET1"
	}
	return out
}

var errUnknownRef = errors.New("unknown reference")

func (r *resolved) unknownRef(ref string) error {
	refs := slices.Collect(mapKeys(r.byRef))
	sort.Strings(refs)
	if m := textdist.Closest(ref, refs, 3); len(m) > 0 {
		return fmt.Errorf("%w %s (did you mean %s?)", errUnknownRef, ref, strings.Join(m, ", "))
	}
	return fmt.Errorf("%w %s", errUnknownRef, ref)
}

// pin resolves "REF.PIN" (PIN a number, or a name unique on the part) to
// the part and pin number.
func (r *resolved) pin(s string) (*part, string, error) {
	ref, pin, ok := strings.Cut(s, ".")
	if !ok || ref == "" || pin == "" {
		return nil, "", fmt.Errorf("%q is not REF.PIN", s)
	}
	p := r.byRef[ref]
	if p == nil {
		return nil, "", r.unknownRef(ref)
	}
	nums := p.pinNumbers()
	if slices.Contains(nums, pin) {
		return p, pin, nil
	}
	var byName []string
	for _, num := range nums {
		if p.pinByNumber(num).Name == pin {
			byName = append(byName, num)
		}
	}
	switch len(byName) {
	case 1:
		return p, byName[0], nil
	case 0:
		var all []string
		for _, num := range nums {
			all = append(all, pinLabel(p, num))
		}
		return nil, "", fmt.Errorf("%s (%s) has no pin %s; its pins: %s", p.Ref, p.LibID, pin, listOrCount(all))
	}
	return nil, "", fmt.Errorf("%s has %d pins named %s (%s): give the number", p.Ref, len(byName), pin, strings.Join(byName, ", "))
}

// pinNumbers lists the part's pin numbers once each, in library order
// (body style 1, every unit).
func (p *part) pinNumbers() []string {
	var out []string
	for _, pin := range p.sym.Pins {
		if !slices.Contains(out, pin.Number) {
			out = append(out, pin.Number)
		}
	}
	return out
}

func (p *part) pinByNumber(num string) kigen.Pin {
	for _, pin := range p.sym.Pins {
		if pin.Number == num {
			return pin
		}
	}
	return kigen.Pin{}
}

// stacks lists groups of two or more pin numbers drawn at one point of one
// unit: KiCad joins them, so they must share a net. A unit-0 pin is common
// to every unit and drawn with each, so it stacks with any unit's pin at its
// point (MAX4820's hidden GND pins in unit 0 sit on unit 1's GND pin).
func (p *part) stacks() [][]string {
	type key struct {
		unit int
		x, y float64
	}
	at := map[key][]string{}
	var order []key
	put := func(k key, num string) {
		if _, ok := at[k]; !ok {
			order = append(order, k)
		}
		if !slices.Contains(at[k], num) {
			at[k] = append(at[k], num)
		}
	}
	units := symbolUnits(p.sym)
	for _, pin := range p.sym.Pins {
		if pin.Unit != 0 {
			put(key{pin.Unit, pin.X, pin.Y}, pin.Number)
			continue
		}
		for _, u := range units {
			put(key{u, pin.X, pin.Y}, pin.Number)
		}
	}
	var out [][]string
	var seen []string
	for _, k := range order {
		st := at[k]
		if len(st) < 2 {
			continue
		}
		id := strings.Join(slices.Sorted(slices.Values(st)), ",")
		if slices.Contains(seen, id) {
			continue // the same unit-0 stack in another unit
		}
		seen = append(seen, id)
		out = append(out, st)
	}
	return out
}

func pinLabel(p *part, num string) string {
	if name := p.pinByNumber(num).Name; name != "" && name != "~" && name != num {
		return fmt.Sprintf("%s.%s (%s)", p.Ref, num, name)
	}
	return p.Ref + "." + num
}

// listOrCount joins up to 12 items and counts the rest.
func listOrCount(items []string) string {
	if len(items) <= 12 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:12], ", "), len(items)-12)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func propValue(s *kigen.SymDef, name string) string {
	if p := s.Prop(name); p != nil {
		return p.Arg(1)
	}
	return ""
}

// symbolUnits lists a symbol's units in order (1 when it has no numbered
// unit).
func symbolUnits(s *kigen.SymDef) []int {
	var out []int
	for _, p := range s.Pins {
		if p.Unit > 0 && !slices.Contains(out, p.Unit) {
			out = append(out, p.Unit)
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		out = []int{1}
	}
	return out
}

// lookupSymbol loads LIB:NAME, turning a miss into an error that names the
// closest libraries or symbols.
func lookupSymbol(lib *kigen.Library, libID string) (*kigen.SymDef, error) {
	nick, name, ok := strings.Cut(libID, ":")
	if !ok || nick == "" || name == "" {
		return nil, fmt.Errorf("bad library id %q: want LIBRARY:SYMBOL, e.g. Device:R", libID)
	}
	file := filepath.Join(lib.SymDir, nick+".kicad_sym")
	if _, err := os.Stat(file); err != nil {
		return nil, fmt.Errorf("symbol library %s not found%s", nick, closest(nick, dirNames(lib.SymDir, ".kicad_sym")))
	}
	s, err := lib.Symbol(libID)
	if err != nil {
		return nil, fmt.Errorf("symbol %s not found%s", libID, closest(name, symbolNames(file)))
	}
	return s, nil
}

// FootprintExists reports, as an error naming the closest names, whether a
// LIBRARY:FOOTPRINT id is installed.
func FootprintExists(lib *kigen.Library, fp string) error { return footprintExists(lib, fp) }

func footprintExists(lib *kigen.Library, fp string) error {
	nick, name, ok := strings.Cut(fp, ":")
	if !ok || nick == "" || name == "" {
		return fmt.Errorf("bad footprint id %q: want LIBRARY:FOOTPRINT, e.g. Resistor_SMD:R_0603_1608Metric", fp)
	}
	dir := filepath.Join(lib.FPDir, nick+".pretty")
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("footprint library %s not found%s", nick, closest(nick, dirNames(lib.FPDir, ".pretty")))
	}
	if _, err := os.Stat(filepath.Join(dir, name+".kicad_mod")); err != nil {
		return fmt.Errorf("footprint %s not found%s", fp, closest(name, dirNames(dir, ".kicad_mod")))
	}
	return nil
}

func closest(want string, names []string) string {
	if m := textdist.Closest(want, names, 5); len(m) > 0 {
		return " (closest: " + strings.Join(m, ", ") + ")"
	}
	return ""
}

func dirNames(dir, suffix string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), suffix); ok {
			out = append(out, n)
		}
	}
	return out
}

// symbolNames lists the top-level symbol names of a .kicad_sym cheaply.
func symbolNames(file string) []string {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range topSymbols(data) {
		out = append(out, t.name)
	}
	return out
}
