package kicad

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"copperhead/internal/repofs"
	"copperhead/internal/sexpr"
)

// maxSheetInstances bounds the number of sheet instances one schematic may
// expand to. The largest demo (vme-wren) has 73; the bound exists only to stop
// a pathological hierarchy (each sheet using the next one twice, 40 levels
// deep) from expanding into billions of instances.
const maxSheetInstances = 20000

// LoadSchematic reads the root schematic at rootPath and every sheet below it,
// resolving each placed symbol's reference per sheet instance path: a sheet
// file used twice contributes two sets of references, as KiCad's netlist does.
//
// References resolve in this order, per symbol and instance:
//  1. the symbol's own (instances (project ..) (path "/<root-uuid>/<sheet-uuid>..")) entry
//     (KiCad 7 and later);
//  2. the root file's (symbol_instances (path "/<sheet-uuid>../<symbol-uuid>")) entry (KiCad 6);
//  3. the symbol's Reference property.
//
// Placements of one annotated reference are one Part, its units listed
// (see partKey for unannotated "R?" symbols). Power symbols and references
// starting with '#' are not parts; the nets power symbols name are PowerNets.
// A sheet's (in_bom no), (on_board no) and (dnp yes) apply to everything
// below it, as in KiCad 9.
//
// Sheet files are relative to the folder of the file that uses them. Each
// file is parsed once however often it is instanced. Every error names the
// file at fault and starts with "load schematic: "; syntax errors wrap the
// *sexpr.SyntaxError (file:line:col: message), and a missing sheet file
// wraps fs.ErrNotExist. A file that is not a regular file (a named pipe, a
// folder) is refused before it is opened, wrapping repofs.ErrNotRegular.
//
// LoadSchematic reads sheet files wherever they are; commands that work on
// a repository use LoadSchematicWithin.
func LoadSchematic(rootPath string) (*Schematic, error) {
	return loadSchematic(rootPath, "", repofs.ReadRegular)
}

// LoadSchematicWithin is LoadSchematic confined to the folder boundary (the
// repository): the root and every sheet file must resolve, symbolic links
// followed, to a regular file inside it. A sheet that names
// ../../victim/power.kicad_sch, /etc/passwd or a link leading out is
// refused ("load schematic: top.kicad_sch: sheet "Power" uses
// ../../victim/power.kicad_sch, which is outside the repository"), wrapping
// repofs.ErrOutside.
func LoadSchematicWithin(rootPath, boundary string) (*Schematic, error) {
	return loadSchematic(rootPath, boundary, repofs.ReadRegular)
}

// loadSchematic is LoadSchematic reading files through read, so the fuzz
// test can run without touching the disk. A non-empty boundary confines
// every file to that folder.
func loadSchematic(rootPath, boundary string, read func(string) ([]byte, error)) (*Schematic, error) {
	return newLoader(rootPath, boundary, read).load(rootPath)
}

func newLoader(rootPath, boundary string, read func(string) ([]byte, error)) *schLoader {
	return &schLoader{
		rootDir:  filepath.Dir(rootPath),
		project:  strings.TrimSuffix(filepath.Base(rootPath), filepath.Ext(rootPath)),
		files:    map[string]*sheetFile{},
		read:     read,
		boundary: boundary,
		s:        &Schematic{Root: rootPath},
	}
}

// load reads the hierarchy rooted at rootPath.
func (l *schLoader) load(rootPath string) (*Schematic, error) {
	src, err := l.readFile(rootPath)
	if err != nil {
		return nil, fmt.Errorf("load schematic: %w", err)
	}
	rootKey := l.fileKey(rootPath)
	root, err := l.parse(rootPath, rootKey, src)
	if err != nil {
		return nil, err
	}
	l.root = root
	inst := SheetInstance{Path: "/", UUIDPath: "/", File: l.rel(rootPath)}
	all := sheetAttrs{inBOM: true, onBoard: true}
	if err := l.walk(root, inst, all, []string{rootKey}); err != nil {
		return nil, err
	}
	l.finish()
	return l.s, nil
}

// fileKey identifies a file however a sheet spells its path: symbolic links
// resolved, so a link back up the tree is caught as recursion rather than
// expanded until the instance bound.
func fileKey(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	if p, err := filepath.Abs(path); err == nil {
		path = p
	}
	return path
}

// schLoader carries the state of one LoadSchematic call.
type schLoader struct {
	rootDir string
	project string // the project name KiCad writes in (instances (project ..)): the root file's base name
	root    *sheetFile
	files   map[string]*sheetFile // by fileKey: each file is parsed once
	read    func(string) ([]byte, error)
	s       *Schematic

	boundary string // the folder every file must resolve into, or "" for anywhere

	// given, when set, holds every file already read and parsed, by
	// absolute path (SchematicFromSources): the loader reads nothing.
	given map[string]SchematicSource
	// kept collects every file read and parsed, when keep is set
	// (LoadSchematicSources).
	keep bool
	kept []SchematicSource
}

// fileKey identifies a file for the once-per-file parse: on disk, with
// symbolic links resolved; from given sources, by absolute path (what the
// caller keyed them by, links not followed: nothing is read).
func (l *schLoader) fileKey(path string) string {
	if l.given != nil {
		if p, err := filepath.Abs(path); err == nil {
			return p
		}
		return path
	}
	return fileKey(path)
}

// readFile reads one schematic file, held to the boundary when there is one.
// The bytes come from the resolved path: the file that was checked.
func (l *schLoader) readFile(path string) ([]byte, error) {
	if l.boundary == "" {
		return l.read(path)
	}
	r, err := repofs.Resolve(l.boundary, path)
	if err != nil {
		return nil, err
	}
	return l.read(r)
}

// wrapped is an error with its own message that still unwraps to err.
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

// sheetFile is what one .kicad_sch file holds, independent of where it is used.
type sheetFile struct {
	path            string // as reached from the root path (for messages)
	uuid            string
	libs            map[string]*libSymbol
	symbols         []*placedSymbol
	sheets          []sheetRef
	labels          []Label // SheetPath left empty: filled per instance
	noConnects      []Point
	wires           []Wire                 // SheetPath left empty: filled per instance
	symbolInstances map[string]instanceRef // KiCad 6 root files: "/<sheet uuids>/<symbol uuid>" -> instance
	uuids           []string               // every object UUID the file declares, outside lib_symbols
}

// sheetRef is a hierarchical sheet symbol: a use of another file.
type sheetRef struct {
	uuid, name, file string
	pins             []SheetPin
	attrs            sheetAttrs
}

// sheetAttrs are the BOM/board/DNP flags a sheet passes down to everything
// inside it (KiCad 9 lets a whole sheet be excluded or marked DNP).
type sheetAttrs struct{ inBOM, onBoard, dnp bool }

func (a sheetAttrs) and(b sheetAttrs) sheetAttrs {
	return sheetAttrs{inBOM: a.inBOM && b.inBOM, onBoard: a.onBoard && b.onBoard, dnp: a.dnp || b.dnp}
}

// placedSymbol is one (symbol (lib_id ..) ..) on a sheet, before instance resolution.
type placedSymbol struct {
	uuid       string
	libID      string
	libName    string     // (lib_name ..): the embedded copy's name when it differs from lib_id
	lib        *libSymbol // nil when the file does not embed it
	at         Point
	angle      float64
	mirror     string // "", "x" or "y"
	unit       int
	bodyStyle  int
	attrs      sheetAttrs
	props      []property
	instances  []instanceRef
	alternates map[string]string // pin number -> selected alternate pin function
}

type property struct{ name, value string }

// instanceRef is one per-instance annotation of a symbol.
type instanceRef struct {
	project, path    string
	ref              string
	unit             int
	value, footprint string // KiCad 6 symbol_instances only; "" when absent
}

// placement is one placed symbol unit as seen through one sheet instance.
type placement struct {
	sym              *placedSymbol
	refdes           string
	value, footprint string
	unit             int
	sheetPath        string
	sheetFile        string
	attrs            sheetAttrs
}

func (p *placement) isPower() bool {
	return strings.HasPrefix(p.refdes, "#") || p.sym.lib != nil && p.sym.lib.power
}

// parse reads one schematic file's contents.
func (l *schLoader) parse(path, key string, src []byte) (*sheetFile, error) {
	var root *sexpr.Node
	if g, ok := l.given[key]; ok && g.Root != nil {
		root = g.Root
	} else {
		var err error
		if root, err = sexpr.Parse(path, src); err != nil {
			return nil, fmt.Errorf("load schematic: %w", err)
		}
	}
	if l.keep {
		l.kept = append(l.kept, SchematicSource{Path: path, Src: src, Root: root})
	}
	if h := root.Head(); h != "kicad_sch" {
		line, col := sexpr.LineCol(src, root.Start)
		return nil, fmt.Errorf("load schematic: %s:%d:%d: not a schematic: it holds (%s ...), want (kicad_sch ...)", path, line, col, h)
	}
	f := readSheetFile(path, root)
	l.files[key] = f
	if l.s.uuidFiles == nil {
		l.s.uuidFiles = map[string]string{}
	}
	rel := l.rel(path)
	for _, u := range f.uuids {
		if was, seen := l.s.uuidFiles[u]; seen && was != rel {
			l.s.uuidFiles[u] = ""
			continue
		}
		l.s.uuidFiles[u] = rel
	}
	return f, nil
}

// rel names a file relative to the root schematic's folder, with forward slashes.
func (l *schLoader) rel(path string) string {
	r, err := filepath.Rel(l.rootDir, path)
	if err != nil {
		r = path
	}
	return filepath.ToSlash(r)
}

// walk records one sheet instance and recurses into the sheets it uses.
// chain holds the fileKeys of the files from the root down to f.
func (l *schLoader) walk(f *sheetFile, inst SheetInstance, attrs sheetAttrs, chain []string) error {
	if len(l.s.Sheets) >= maxSheetInstances {
		return fmt.Errorf("load schematic: %s: the hierarchy expands to more than %d sheet instances", l.s.Root, maxSheetInstances)
	}
	l.s.Sheets = append(l.s.Sheets, inst)
	for _, lb := range f.labels {
		lb.SheetPath = inst.Path
		l.s.Labels = append(l.s.Labels, lb)
	}
	for _, p := range f.noConnects {
		l.s.NoConnects = append(l.s.NoConnects, NoConnect{SheetPath: inst.Path, Pos: p})
	}
	for _, w := range f.wires {
		w.SheetPath = inst.Path
		l.s.Wires = append(l.s.Wires, w)
	}
	for _, sym := range f.symbols {
		l.s.placements = append(l.s.placements, l.place(sym, inst, attrs))
	}
	for _, sh := range f.sheets {
		if sh.file == "" {
			return fmt.Errorf("load schematic: %s: sheet %q names no file", f.path, sh.name)
		}
		childPath := sh.file
		if !filepath.IsAbs(childPath) {
			childPath = filepath.Join(filepath.Dir(f.path), childPath)
		}
		key := l.fileKey(childPath)
		if slices.Contains(chain, key) {
			return fmt.Errorf("load schematic: %s: sheet %q uses %s, which contains this sheet: the hierarchy is recursive", f.path, sh.name, sh.file)
		}
		child, ok := l.files[key]
		if !ok {
			src, err := l.readFile(childPath)
			if re := (*repofs.Error)(nil); errors.As(err, &re) {
				// "sheet "Power" uses ../x.kicad_sch, which is outside the repository"
				return &wrapped{fmt.Sprintf("load schematic: %s: sheet %q uses %s, which %s", f.path, sh.name, sh.file, re.Why()), err}
			}
			if errors.Is(err, fs.ErrNotExist) {
				// One clear line: the OS error would repeat the path.
				return fmt.Errorf("load schematic: %s: sheet %q uses %s: %w", f.path, sh.name, sh.file, fs.ErrNotExist)
			}
			if err != nil {
				return fmt.Errorf("load schematic: %s: sheet %q uses %s: %w", f.path, sh.name, sh.file, err)
			}
			if child, err = l.parse(childPath, key, src); err != nil {
				return err
			}
		}
		ci := SheetInstance{
			Path:     inst.Path + sh.name + "/",
			UUIDPath: strings.TrimSuffix(inst.UUIDPath, "/") + "/" + sh.uuid,
			Name:     sh.name,
			File:     l.rel(childPath),
			Pins:     sh.pins,
		}
		if err := l.walk(child, ci, attrs.and(sh.attrs), append(chain, key)); err != nil {
			return err
		}
	}
	return nil
}

// place resolves one symbol's reference, unit, value and footprint in one sheet instance.
func (l *schLoader) place(sym *placedSymbol, inst SheetInstance, attrs sheetAttrs) placement {
	p := placement{
		sym:       sym,
		refdes:    sym.prop("Reference"),
		value:     sym.prop("Value"),
		footprint: sym.prop("Footprint"),
		unit:      sym.unit,
		sheetPath: inst.Path,
		sheetFile: inst.File,
		attrs:     attrs.and(sym.attrs),
	}
	// The one instance model (instances.go): only this design's entries count.
	found := PickInstance(sym.instances, func(in *instanceRef) (string, string) { return in.project, in.path },
		l.project, l.root.uuid, inst.UUIDPath)
	if found == nil {
		// KiCad 6: "/<sheet uuid>/.../<symbol uuid>" in the root file.
		if in, ok := l.root.symbolInstances[LegacyInstancePath(inst.UUIDPath, sym.uuid)]; ok {
			found = &in
		}
	}
	if found != nil {
		if found.ref != "" {
			p.refdes = found.ref
		}
		if found.unit > 0 {
			p.unit = found.unit
		}
		if found.value != "" {
			p.value = found.value
		}
		if found.footprint != "" {
			p.footprint = found.footprint
		}
	}
	return p
}

// finish turns placements into parts and power nets.
func (l *schLoader) finish() {
	s := l.s
	type group struct {
		primary *placement // the lowest unit: it supplies the part's fields
		units   []int
	}
	var order []string
	groups := map[string]*group{}
	power := map[string]bool{}
	for i := range s.placements {
		p := &s.placements[i]
		if p.isPower() {
			if net := powerNet(p); net != "" {
				power[net] = true
			}
			continue
		}
		key := partKey(p, i)
		g, ok := groups[key]
		if !ok {
			g = &group{primary: p}
			groups[key] = g
			order = append(order, key)
		} else if p.unit < g.primary.unit {
			g.primary = p
		}
		if !slices.Contains(g.units, p.unit) {
			g.units = append(g.units, p.unit)
		}
	}
	s.Parts = make([]Part, 0, len(order))
	for _, key := range order {
		g := groups[key]
		slices.Sort(g.units)
		s.Parts = append(s.Parts, g.primary.part(g.units))
	}
	slices.SortStableFunc(s.Parts, func(a, b Part) int {
		if c := CompareRefdes(a.Refdes, b.Refdes); c != 0 {
			return c
		}
		return strings.Compare(a.SheetPath, b.SheetPath)
	})
	s.PowerNets = make([]string, 0, len(power))
	for net := range power {
		s.PowerNets = append(s.PowerNets, net)
	}
	slices.Sort(s.PowerNets)
	if s.Labels == nil {
		s.Labels = []Label{}
	}
	if s.NoConnects == nil {
		s.NoConnects = []NoConnect{}
	}
	if s.Wires == nil {
		s.Wires = []Wire{}
	}
}

// partKey decides which placements are units of one part.
//
// An annotated reference names one physical component across the whole
// design, so placements merge by reference even when they sit on different
// sheets (an FPGA's banks usually do). That is what KiCad 9's netlist does:
// it lists a reference once, with every symbol UUID behind it. Duplicate
// annotation is therefore not visible in Parts; ERC reports it.
//
// Unannotated symbols ("R?", "U?") never merge: each placement is its own
// part, so ten unannotated resistors count as ten parts, all with Refdes
// "R?", and the units of an unannotated multi-unit symbol are separate parts
// until it is annotated. (KiCad's netlist would collapse them all into one
// "R?", which miscounts a BOM.)
func partKey(p *placement, index int) string {
	if p.refdes != "" && !strings.HasSuffix(p.refdes, "?") {
		return "ref\x00" + p.refdes
	}
	return fmt.Sprintf("placement\x00%d", index)
}

// powerNet is the net a power symbol names, or "" for a flag such as
// PWR_FLAG: KiCad makes a global net only from a power symbol's power input pin.
func powerNet(p *placement) string {
	lib := p.sym.lib
	if lib == nil {
		if strings.HasPrefix(p.refdes, "#PWR") {
			return p.value
		}
		return ""
	}
	if !lib.power {
		return ""
	}
	for _, pin := range lib.pins {
		if pin.etype == "power_in" {
			return p.value
		}
	}
	return ""
}

// part builds the Part for the placement that supplies a part's fields.
func (p *placement) part(units []int) Part {
	sym := p.sym
	fields := make(map[string]string, len(sym.props))
	for _, pr := range sym.props {
		if _, dup := fields[pr.name]; !dup {
			fields[pr.name] = pr.value
		}
	}
	// The instance's own annotation is what the Reference, Value and
	// Footprint fields mean for this part; the file's copies may belong to
	// another instance of a shared sheet.
	fields["Reference"] = p.refdes
	fields["Value"] = p.value
	fields["Footprint"] = p.footprint
	part := Part{
		Refdes:       p.refdes,
		Value:        p.value,
		Footprint:    p.footprint,
		MPN:          sym.propAny(mpnFields),
		Manufacturer: sym.propAny(manufacturerFields),
		Datasheet:    sym.prop("Datasheet"),
		Description:  sym.prop("Description"),
		LibID:        sym.libID,
		Units:        units,
		DNP:          p.attrs.dnp,
		InBOM:        p.attrs.inBOM,
		OnBoard:      p.attrs.onBoard,
		SheetPath:    p.sheetPath,
		SheetFile:    p.sheetFile,
		Fields:       fields,
	}
	if part.Description == "" && sym.lib != nil {
		part.Description = sym.lib.description
	}
	if part.Datasheet == "" && sym.lib != nil {
		part.Datasheet = sym.lib.datasheet
	}
	if part.Datasheet == "~" { // KiCad's placeholder for "no datasheet"
		part.Datasheet = ""
	}
	return part
}

// mpnFields are the names designers give the manufacturer part number field,
// in order of preference, compared by fieldKey. "Part Number" alone is not
// among them: it is as often a company's internal number.
var mpnFields = []string{
	"MPN", "Manufacturer Part Number", "Manufacturer_Part_Number", "MFR_PN", "Mfr PN",
	"Mfr. Part #", "Mfr Part Number", "Mfr. No", "MFG_PN", "Mfg Part Number", "Mfg Part #",
	"Manufacturer PN", "Manufacturer Part No",
}

// manufacturerFields are the names of the manufacturer field, in order of preference.
var manufacturerFields = []string{"Manufacturer", "Manufacturer_Name", "Manufacturer Name", "MFR", "Mfr", "MFG", "Mfg"}

// fieldKey folds a field name for matching: case and punctuation do not
// matter, so "Mfr. Part #", "MFR_PART" and "mfr part" are the same name.
func fieldKey(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// prop returns the value of the property named name exactly, or "".
func (sym *placedSymbol) prop(name string) string {
	for _, pr := range sym.props {
		if pr.name == name {
			return pr.value
		}
	}
	return ""
}

// propAny returns the first non-empty property among names (compared by fieldKey).
func (sym *placedSymbol) propAny(names []string) string {
	for _, n := range names {
		k := fieldKey(n)
		for _, pr := range sym.props {
			if pr.value != "" && fieldKey(pr.name) == k {
				return pr.value
			}
		}
	}
	return ""
}

// readSheetFile extracts what the loader needs from one parsed file. Strings
// are cloned: a substring would keep the whole file's text alive.
func readSheetFile(path string, root *sexpr.Node) *sheetFile {
	f := &sheetFile{path: path, libs: map[string]*libSymbol{}}
	for i := range root.Children {
		c := &root.Children[i]
		switch c.Head() {
		case "uuid":
			f.uuid = strings.Clone(c.Arg(0))
		case "lib_symbols":
			f.libs = readLibSymbols(c)
		case "symbol":
			f.symbols = append(f.symbols, readPlacedSymbol(c))
		case "sheet":
			f.sheets = append(f.sheets, readSheetRef(c))
		case "label":
			f.labels = append(f.labels, readLabel(c, LabelLocal))
		case "global_label":
			f.labels = append(f.labels, readLabel(c, LabelGlobal))
		case "hierarchical_label":
			f.labels = append(f.labels, readLabel(c, LabelHierarchical))
		case "no_connect":
			p, _ := readAt(c)
			f.noConnects = append(f.noConnects, p)
		case "wire", "bus":
			f.wires = append(f.wires, readWire(c)...)
		case "symbol_instances":
			f.symbolInstances = map[string]instanceRef{}
			for pa := range c.All("path") {
				in := readInstancePath(pa, "")
				if _, dup := f.symbolInstances[in.path]; !dup {
					f.symbolInstances[in.path] = in
				}
			}
		}
	}
	for _, sym := range f.symbols {
		sym.lib = f.libs[sym.libKey()]
	}
	f.uuids = declaredUUIDs(root)
	return f
}

// declaredUUIDs lists the (uuid ..) of every object below root, the file's
// own and the embedded library symbols' left out: what an ERC item names.
func declaredUUIDs(root *sexpr.Node) []string {
	var out []string
	var walk func(n *sexpr.Node)
	walk = func(n *sexpr.Node) {
		for i := range n.Children {
			c := &n.Children[i]
			switch c.Head() {
			case "lib_symbols":
				continue
			case "uuid":
				if n != root {
					if u := c.Arg(0); u != "" {
						out = append(out, strings.Clone(u))
					}
				}
				continue
			}
			if len(c.Children) > 0 {
				walk(c)
			}
		}
	}
	walk(root)
	return out
}

// SheetsDeclaring lists, in hierarchy order, the paths of the sheet
// instances whose file declares the object with this UUID (a symbol or one
// of its pins, a label, a wire, a sheet or one of its pins): one per use of
// that file. It is nil when no file of the hierarchy declares it, or when
// more than one does (a sheet copied with its UUIDs).
func (s *Schematic) SheetsDeclaring(uuid string) []string {
	file := s.uuidFiles[uuid]
	if file == "" {
		return nil
	}
	var paths []string
	for _, in := range s.Sheets {
		if in.File == file {
			paths = append(paths, in.Path)
		}
	}
	return paths
}

// libKey names the embedded library symbol a placed symbol draws: (lib_name ..)
// when KiCad had to rename a modified copy, else its lib_id.
func (sym *placedSymbol) libKey() string {
	if sym.libName != "" {
		return sym.libName
	}
	return sym.libID
}

func readPlacedSymbol(n *sexpr.Node) *placedSymbol {
	sym := &placedSymbol{
		uuid:      strings.Clone(n.Value1("uuid")),
		libID:     strings.Clone(n.Value1("lib_id")),
		unit:      atoiOr(n.Value1("unit"), 1),
		bodyStyle: atoiOr(n.Value1("body_style"), atoiOr(n.Value1("convert"), 1)),
		attrs:     readAttrs(n),
		mirror:    n.Value1("mirror"),
	}
	if name := n.Value1("lib_name"); name != "" {
		sym.libName = strings.Clone(name)
	}
	sym.at, sym.angle = readAt(n)
	switch sym.mirror {
	case "x", "y":
	default:
		sym.mirror = ""
	}
	for c := range n.All("property") {
		sym.props = append(sym.props, property{name: strings.Clone(c.Arg(0)), value: strings.Clone(c.Arg(1))})
	}
	for c := range n.All("pin") {
		if alt := c.Value1("alternate"); alt != "" {
			if sym.alternates == nil {
				sym.alternates = map[string]string{}
			}
			sym.alternates[strings.Clone(c.Arg(0))] = strings.Clone(alt)
		}
	}
	for inst := range n.All("instances") {
		for proj := range inst.All("project") {
			for pa := range proj.All("path") {
				sym.instances = append(sym.instances, readInstancePath(pa, strings.Clone(proj.Arg(0))))
			}
		}
	}
	return sym
}

func readInstancePath(pa *sexpr.Node, project string) instanceRef {
	return instanceRef{
		project:   project,
		path:      strings.Clone(pa.Arg(0)),
		ref:       strings.Clone(pa.Value1("reference")),
		unit:      atoiOr(pa.Value1("unit"), 0),
		value:     strings.Clone(pa.Value1("value")),
		footprint: strings.Clone(pa.Value1("footprint")),
	}
}

// readAttrs reads (in_bom ..) (on_board ..) (dnp ..). Absent flags take
// KiCad's defaults (in the BOM, on the board, populated); a bare (dnp) means yes.
func readAttrs(n *sexpr.Node) sheetAttrs {
	flag := func(name string, dflt bool) bool {
		c := n.Child(name)
		if c == nil {
			return dflt
		}
		return c.Arg(0) != "no"
	}
	return sheetAttrs{inBOM: flag("in_bom", true), onBoard: flag("on_board", true), dnp: flag("dnp", false)}
}

func readSheetRef(n *sexpr.Node) sheetRef {
	sh := sheetRef{uuid: strings.Clone(n.Value1("uuid")), attrs: readAttrs(n)}
	for c := range n.All("property") {
		// KiCad 6 wrote "Sheet name" and "Sheet file"; KiCad 7 dropped the space.
		switch fieldKey(c.Arg(0)) {
		case "sheetname":
			sh.name = strings.Clone(c.Arg(1))
		case "sheetfile":
			sh.file = strings.Clone(c.Arg(1))
		}
	}
	for c := range n.All("pin") {
		p, _ := readAt(c)
		sh.pins = append(sh.pins, SheetPin{Name: labelText(c.Arg(0)), Type: strings.Clone(c.Arg(1)), Pos: p})
	}
	return sh
}

func readLabel(n *sexpr.Node, kind LabelKind) Label {
	p, _ := readAt(n)
	return Label{Name: labelText(n.Arg(0)), Kind: kind, Pos: p}
}

// labelText is a label's or sheet pin's name as kicad-cli's netlist spells
// it: KiCad's editor saves a typed "/" as "{slash}", and kicad-cli 9 reads
// it (and a bare "/") as "/".
func labelText(s string) string { return strings.ReplaceAll(s, "{slash}", "/") }

// readWire reads a wire's or bus's (pts (xy x y) ...) as its straight
// segments: KiCad writes two points, an older file may chain more. Points
// that are not coordinates (CheckPoint) are skipped.
func readWire(n *sexpr.Node) []Wire {
	var pts []Point
	for xy := range n.Child("pts").All("xy") {
		x, okx := xy.Float(0)
		y, oky := xy.Float(1)
		if p := (Point{X: x, Y: y}); okx && oky && CheckPoint(p) == nil {
			pts = append(pts, p)
		}
	}
	var out []Wire
	for i := 1; i < len(pts); i++ {
		out = append(out, Wire{From: pts[i-1], To: pts[i], Bus: n.Head() == "bus"})
	}
	return out
}

// readAt reads a node's (at x y [angle]); missing or malformed numbers read as 0.
func readAt(n *sexpr.Node) (Point, float64) {
	at := n.Child("at")
	x, _ := at.Float(0)
	y, _ := at.Float(1)
	a, _ := at.Float(2)
	return Point{X: x, Y: y}, a
}

// atoiOr parses a small non-negative decimal integer, or returns dflt.
func atoiOr(s string, dflt int) int {
	if s == "" || len(s) > 9 {
		return dflt
	}
	v := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return dflt
		}
		v = v*10 + int(s[i]-'0')
	}
	return v
}
