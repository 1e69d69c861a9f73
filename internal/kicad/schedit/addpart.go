package schedit

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"copperhead/internal/kicad"
	"copperhead/internal/sexpr"
)

// placementGrid is the grid AddPart places on: 2.54 mm steps, which lie on
// KiCad's 1.27 mm connection grid and keep every pin end on it too.
const placementGrid = 2.54

// placementClearance is kept around a new part's pin extents, room for the
// 2.54 mm stub and a label Connect will draw.
const placementClearance = 5.08

// maxPlacementRings bounds the search for a free spot around --near: 40
// rings of 2.54 mm reach about 100 mm, more than an A4 sheet's half.
const maxPlacementRings = 40

// AddPart places one new symbol: libID resolved from the project's
// sym-lib-table or KiCad's installed libraries (see symbolLibraries),
// flattened and embedded in the sheet's lib_symbols once. When the sheet
// already embeds a different copy (drawn with an older library), that copy
// is reused if its units and pins match the library's, else the library's
// is embedded beside it as NAME_N with (lib_name ..), as KiCad does; the
// Summary says which (see chooseDefinition). The part goes on
// the sheet of near (else the root sheet), at at when given (snapped to the
// 1.27 mm grid), else on the free grid spot closest to near (else to the
// sheet's first symbol) whose pin extents plus clearance touch no other
// symbol's. Every unit is placed, side by side, so ERC finds none missing.
//
// ref must be unused; "" or "R?" picks the lowest free number for the
// prefix (the library's Reference prefix when ref is ""). The symbol gets
// Reference, Value, Footprint, Datasheet and Description properties and an
// instance for every instance of its sheet: the first instance takes ref,
// each further instance of a reused sheet the next free number, because
// KiCad needs a distinct reference per instance to annotate the board.
//
// Adding a part that already exists with the same library id and value is a
// no-op; a taken reference is otherwise refused.
func AddPart(d *Design, libID, ref, value, footprint string, at *kicad.Point, near string) (*Plan, error) {
	plan := &Plan{Op: "add-part " + libID + " --ref " + ref}
	for _, p := range d.Model.Parts {
		if p.Refdes == ref {
			if p.LibID == libID && (value == "" || p.Value == value) {
				plan.Summary = append(plan.Summary, ref+" already exists as "+libID)
				return plan, nil
			}
			return nil, Refusef("reference %s is taken by a %s (%s)", ref, p.LibID, p.Value)
		}
	}
	sh := d.SheetByRel(".")
	if sh == nil {
		sh = d.Sheets[d.RootPath]
	}
	var anchor kicad.Point
	haveAnchor := false
	if near != "" {
		s, units, err := partSheet(d, near)
		if err != nil {
			return nil, err
		}
		sh, anchor, haveAnchor = s, units[0].at, true
	}
	lib, err := resolveSymbol(filepath.Dir(d.RootPath), libID)
	if err != nil {
		return nil, err
	}
	if lib.Child("power") != nil {
		return nil, Refusef("%s is a power symbol: connect the net instead", libID)
	}
	st := fileStyle(sh.Src)

	// The definition the new symbol draws: the schematic's own copy when
	// it has one that fits, else the library's (see chooseDefinition).
	ch, err := chooseDefinition(sh, st, libID, lib)
	if err != nil {
		return nil, err
	}
	lib = ch.def

	// Reference and sheet instances.
	prefix := strings.TrimRight(ref, "?0123456789")
	if ref == "" {
		prefix = strings.TrimRight(libProperty(lib, "Reference"), "?")
	}
	insts := sh.insts
	if len(insts) == 0 {
		insts = []kicad.SheetInstance{{Path: "/", UUIDPath: "/"}}
	}
	taken := map[string]bool{}
	for _, p := range d.Model.Parts {
		taken[p.Refdes] = true
	}
	var refs []string
	for i := range insts {
		r := ref
		if i > 0 || ref == "" || strings.HasSuffix(ref, "?") {
			r = nextFree(prefix, taken)
		}
		taken[r] = true
		refs = append(refs, r)
	}
	plan.Touched = refs
	plan.Expect.Added = slices.Clone(refs)
	if value == "" {
		value = libProperty(lib, "Value")
	}

	// lib_symbols entry.
	if ch.embed != nil {
		ls := sh.Root.Child("lib_symbols")
		if ls == nil {
			return nil, fmt.Errorf("%s has no lib_symbols block", sh.Rel)
		}
		entry := formatNode(st, ch.embed, 2)
		pos := ls.End - 1
		for pos > ls.Start && (sh.Src[pos-1] == ' ' || sh.Src[pos-1] == '\t') {
			pos--
		}
		if len(ls.Children) > 1 && sh.Src[pos-1] == '\n' {
			plan.Add(sh.Path, sexpr.Edit{Start: pos, End: pos, Text: entry})
		} else {
			plan.Add(sh.Path, sexpr.Edit{Start: ls.Start, End: ls.End,
				Text: "(lib_symbols\n" + entry + strings.Repeat(string(st), 1) + ")"})
		}
	}
	if ch.note != "" {
		plan.Summary = append(plan.Summary, ch.note)
	}

	// Position: every unit, side by side left to right, placed as one
	// block so a multi-unit part (gates plus a power unit) stays together
	// and ERC finds no unplaced unit.
	units := libUnits(lib)
	offsets := make([]float64, len(units)) // X offset of each unit from the first
	var all []kicad.Point
	for i, u := range units {
		pins := unitPinOffsets(lib, u)
		if i > 0 {
			prev := boxOf(append(unitPinOffsets(lib, units[i-1]), kicad.Point{}), 0)
			cur := boxOf(append(pins, kicad.Point{}), 0)
			offsets[i] = snap(offsets[i-1]+prev.x1-cur.x0+2*placementClearance, placementGrid)
		}
		all = append(all, kicad.Point{X: offsets[i]})
		for _, p := range pins {
			all = append(all, kicad.Point{X: offsets[i] + p.X, Y: p.Y})
		}
	}
	var pos kicad.Point
	switch {
	case at != nil:
		pos = kicad.Point{X: snap(at.X, 1.27), Y: snap(at.Y, 1.27)}
	default:
		if !haveAnchor {
			if c := sh.Root.Child("symbol"); c != nil {
				anchor = readPlaced(c).at
			} else {
				anchor = kicad.Point{X: 101.6, Y: 101.6}
			}
		}
		var ok bool
		pos, ok = freeSpot(sh, all, anchor)
		if !ok {
			return nil, Refusef("no free spot within %g mm of (%s, %s); give --at X,Y", maxPlacementRings*placementGrid, mm(anchor.X), mm(anchor.Y))
		}
	}

	// KiCad 6 files keep references in the root's (symbol_instances ..),
	// not in the symbol: write them there, in that file's shape.
	root := d.Sheets[d.RootPath]
	legacy := root.Root.Child("symbol_instances")
	var legacyText strings.Builder
	for i, u := range units {
		upos := kicad.Point{X: roundMM(pos.X + offsets[i]), Y: pos.Y}
		id := newUUID()
		plan.Add(sh.Path, sexpr.Edit{Start: insertAt(sh), End: insertAt(sh),
			Text: symbolText(st, lib, libID, ch.libName, upos, u, id, refs[0], value, footprint, insts, refs, projectName(d), root.Root.Value1("uuid"), legacy != nil)})
		if legacy != nil {
			for j, si := range insts {
				legacyText.WriteString(fileStyle(root.Src).lines(2,
					"(path "+sexpr.Quote(strings.TrimSuffix(si.UUIDPath, "/")+"/"+id),
					">(reference "+sexpr.Quote(refs[j])+") (unit "+strconv.Itoa(u)+") (value "+sexpr.Quote(value)+") (footprint "+sexpr.Quote(footprintOr(footprint, lib))+")",
					")"))
			}
		}
	}
	if legacy != nil {
		end := legacy.End - 1
		for end > legacy.Start && (root.Src[end-1] == ' ' || root.Src[end-1] == '\t') {
			end--
		}
		plan.Add(root.Path, sexpr.Edit{Start: end, End: end, Text: legacyText.String()})
	}
	unitNote := ""
	if len(units) > 1 {
		unitNote = fmt.Sprintf(", %d units", len(units))
	}
	plan.Summary = append(plan.Summary, fmt.Sprintf("add %s %s (%s) at (%s, %s) on %s%s", strings.Join(refs, "/"), libID, value, mm(pos.X), mm(pos.Y), sh.Rel, unitNote))
	return plan, nil
}

func projectName(d *Design) string {
	return strings.TrimSuffix(filepath.Base(d.RootPath), filepath.Ext(d.RootPath))
}

func libProperty(lib *sexpr.Node, name string) string {
	for p := range lib.All("property") {
		if p.Arg(0) == name {
			return p.Arg(1)
		}
	}
	return ""
}

// nextFree is the lowest unused reference number for prefix.
func nextFree(prefix string, taken map[string]bool) string {
	for i := 1; ; i++ {
		if r := prefix + strconv.Itoa(i); !taken[r] {
			return r
		}
	}
}

func snap(v, grid float64) float64 { return roundMM(math.Round(v/grid) * grid) }

// libUnits lists a library symbol's units in order: the unit numbers of
// its "<name>_<unit>_<style>" sub-symbols, unit 0 (common to all) aside.
func libUnits(lib *sexpr.Node) []int {
	seen := map[int]bool{}
	var out []int
	for sub := range lib.All("symbol") {
		if u, _ := libUnitStyle(sub.Arg(0)); u > 0 && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		out = []int{1}
	}
	return out
}

func footprintOr(footprint string, lib *sexpr.Node) string {
	if footprint != "" {
		return footprint
	}
	return libProperty(lib, "Footprint")
}

// unitPinOffsets are one unit's pin ends (with the common unit 0 pins)
// relative to the symbol origin on the sheet (Y flipped), unrotated.
func unitPinOffsets(lib *sexpr.Node, unit int) []kicad.Point {
	var out []kicad.Point
	ps := &placedSym{unit: unit, style: 1}
	for _, p := range libPins(nil, lib, unit, 1) {
		at := p.Child("at")
		x, _ := at.Float(0)
		y, _ := at.Float(1)
		out = append(out, ps.toSheet(x, y))
	}
	return out
}

type box struct{ x0, y0, x1, y1 float64 }

func boxOf(pts []kicad.Point, pad float64) box {
	b := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		b = box{min(b.x0, p.X), min(b.y0, p.Y), max(b.x1, p.X), max(b.y1, p.Y)}
	}
	if len(pts) == 0 {
		b = box{0, 0, 0, 0}
	}
	return box{b.x0 - pad, b.y0 - pad, b.x1 + pad, b.y1 + pad}
}

func (a box) overlaps(b box) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }

func (a box) holds(p kicad.Point) bool { return p.X > a.x0 && p.X < a.x1 && p.Y > a.y0 && p.Y < a.y1 }

// freeSpot searches rings of grid points around anchor, nearest first, for
// a spot where the new part's pin extents plus clearance overlap no placed
// symbol's pin extents and hold no wire end, label or no-connect.
func freeSpot(sh *Sheet, pins []kicad.Point, anchor kicad.Point) (kicad.Point, bool) {
	o := scanSheet(sh)
	bySym := map[*sexpr.Node][]kicad.Point{}
	for _, sp := range o.pins {
		bySym[sp.sym.node] = append(bySym[sp.sym.node], sp.pin.pos)
	}
	var boxes []box
	for c := range sh.Root.All("symbol") {
		pts := append(bySym[c], readPlaced(c).at)
		boxes = append(boxes, boxOf(pts, 1.27))
	}
	var points []kicad.Point
	for _, w := range o.wires {
		points = append(points, w.a, w.b)
	}
	for _, l := range o.labels {
		points = append(points, l.pos)
	}
	for _, n := range o.noConnects {
		points = append(points, n.pos)
	}
	base := kicad.Point{X: snap(anchor.X, placementGrid), Y: snap(anchor.Y, placementGrid)}
	for ring := 1; ring <= maxPlacementRings; ring++ {
		var best kicad.Point
		bestD := math.Inf(1)
		for dx := -ring; dx <= ring; dx++ {
			for dy := -ring; dy <= ring; dy++ {
				if max(abs(dx), abs(dy)) != ring {
					continue
				}
				c := kicad.Point{X: roundMM(base.X + float64(dx)*placementGrid), Y: roundMM(base.Y + float64(dy)*placementGrid)}
				shifted := make([]kicad.Point, 0, len(pins)+1)
				shifted = append(shifted, c)
				for _, p := range pins {
					shifted = append(shifted, kicad.Point{X: c.X + p.X, Y: c.Y + p.Y})
				}
				nb := boxOf(shifted, placementClearance)
				free := c.X > 0 && c.Y > 0
				for _, b := range boxes {
					free = free && !nb.overlaps(b)
				}
				for _, p := range points {
					free = free && !nb.holds(p)
				}
				if d := math.Hypot(c.X-base.X, c.Y-base.Y); free && d < bestD {
					best, bestD = c, d
				}
			}
		}
		if bestD < math.Inf(1) {
			return best, true
		}
	}
	return kicad.Point{}, false
}

// symbolText is one placed unit of a symbol, written as KiCad 9 writes
// one. A legacy (KiCad 6) file keeps its references in the root's
// symbol_instances, so the symbol gets no (instances ..) block there.
func symbolText(st indentStyle, lib *sexpr.Node, libID, libName string, pos kicad.Point, unit int, id, ref, value, footprint string,
	insts []kicad.SheetInstance, refs []string, project, rootUUID string, legacy bool) string {
	flag := func(name string) string {
		if v := lib.Value1(name); v != "" {
			return v
		}
		return "yes"
	}
	var b strings.Builder
	head := []string{"(symbol"}
	if libName != "" {
		head = append(head, ">(lib_name "+sexpr.Quote(libName)+")")
	}
	b.WriteString(st.lines(1, append(head,
		">(lib_id "+sexpr.Quote(libID)+")",
		">(at "+mm(pos.X)+" "+mm(pos.Y)+" 0)",
		">(unit "+strconv.Itoa(unit)+")",
		">(exclude_from_sim "+flagOr(lib.Value1("exclude_from_sim"), "no")+")",
		">(in_bom "+flag("in_bom")+")",
		">(on_board "+flag("on_board")+")",
		">(dnp no)",
		">(uuid "+sexpr.Quote(id)+")")...))
	for _, name := range []string{"Reference", "Value", "Footprint", "Datasheet", "Description"} {
		var prop *sexpr.Node
		for p := range lib.All("property") {
			if p.Arg(0) == name {
				c := cloneNode(p)
				prop = &c
			}
		}
		if prop == nil {
			continue
		}
		switch name {
		case "Reference":
			prop.Children[2].Value = ref
		case "Value":
			prop.Children[2].Value = value
		case "Footprint":
			if footprint != "" {
				prop.Children[2].Value = footprint
			}
		}
		if a := prop.Child("at"); a != nil {
			x, _ := a.Float(0)
			y, _ := a.Float(1)
			ang := a.Arg(2)
			if ang == "" {
				ang = "0"
			}
			*a = atNode(mm(pos.X+x), mm(pos.Y-y), ang)
		}
		b.WriteString(formatNode(st, prop, 2))
	}
	seen := map[string]bool{}
	for _, p := range libPins(nil, lib, unit, 1) {
		n := p.Value1("number")
		if seen[n] {
			continue
		}
		seen[n] = true
		b.WriteString(st.lines(2, "(pin "+sexpr.Quote(n), ">(uuid "+sexpr.Quote(newUUID())+")", ")"))
	}
	if !legacy {
		lines := []string{"(instances", ">(project " + sexpr.Quote(project)}
		for i, si := range insts {
			lines = append(lines, ">>(path "+sexpr.Quote(instancePath(si, rootUUID)), ">>>(reference "+sexpr.Quote(refs[i])+")", ">>>(unit "+strconv.Itoa(unit)+")", ">>)")
		}
		lines = append(lines, ">)", ")")
		b.WriteString(st.lines(2, lines...))
	}
	b.WriteString(st.lines(1, ")"))
	return b.String()
}

// instancePath is a symbol instance's (path ..): the root sheet's UUID
// followed by the sheet symbol UUIDs leading to the instance.
func instancePath(si kicad.SheetInstance, rootUUID string) string {
	return "/" + rootUUID + strings.TrimSuffix(si.UUIDPath, "/")
}

func flagOr(v, dflt string) string {
	if v == "" {
		return dflt
	}
	return v
}

func atNode(x, y, ang string) sexpr.Node {
	atom := func(v string) sexpr.Node { return sexpr.Node{Kind: sexpr.Atom, Value: v} }
	return sexpr.Node{Kind: sexpr.List, Children: []sexpr.Node{atom("at"), atom(x), atom(y), atom(ang)}}
}

// definition is the library symbol a new part draws and how it gets into
// the sheet's lib_symbols.
type definition struct {
	def     *sexpr.Node // what the placed symbol draws (units, pins, fields)
	embed   *sexpr.Node // the entry to add to lib_symbols; nil when one is there
	libName string      // (lib_name ..) of the placed symbol; "" to draw lib_id's entry
	note    string      // the plan Summary line saying which was used; "" when nothing is worth saying
}

// chooseDefinition decides which definition of libID a new part draws on
// sh, as KiCad does:
//   - the sheet embeds no libID: the library's, embedded under libID;
//   - it embeds one identical to the library's: that one;
//   - it embeds a different one (nearly every design was drawn with an
//     older library) whose units and pins (numbers and electrical types)
//     are the library's: that one, as placing from the schematic's own
//     cache does in KiCad, so the new part matches its siblings;
//   - it embeds one whose pins differ: the library's, embedded under the
//     first free "NAME_N" with (lib_name "NAME_N") on the placed symbol,
//     the name KiCad gives a copy that differs from the cached one
//     (SCH_SCREEN::Append); an identical "NAME_N" already there is reused.
func chooseDefinition(sh *Sheet, st indentStyle, libID string, lib *sexpr.Node) (definition, error) {
	have := libSymbol(sh, libID)
	if have == nil {
		return definition{def: lib, embed: lib, note: "embed library symbol " + libID + " in " + sh.Rel}, nil
	}
	if formatNode(st, have, 2) == formatNode(st, lib, 2) {
		return definition{def: have}, nil
	}
	why := pinsDiffer(have, lib)
	if why == "" {
		return definition{def: have, note: fmt.Sprintf("use the %s %s already embeds (an older or locally modified copy with the library's pins), as placing from the schematic in KiCad does", libID, sh.Rel)}, nil
	}
	_, item, _ := strings.Cut(libID, ":")
	for n := 1; n < 1000; n++ {
		name := fmt.Sprintf("%s_%d", item, n)
		renamed := renameLibSymbol(lib, item, name)
		got := libSymbol(sh, name)
		if got == nil {
			return definition{def: renamed, embed: renamed, libName: name,
				note: fmt.Sprintf("embed the library's %s in %s as %s: the copy it already embeds %s", libID, sh.Rel, name, why)}, nil
		}
		if formatNode(st, got, 2) == formatNode(st, renamed, 2) {
			return definition{def: got, libName: name,
				note: fmt.Sprintf("use the library's %s, embedded in %s as %s already", libID, sh.Rel, name)}, nil
		}
	}
	return definition{}, fmt.Errorf("%s: no free lib_name for another copy of %s", sh.Rel, libID)
}

// pinsDiffer says how two definitions of a symbol differ in what a part
// connects with: their units, and each unit's pin numbers and electrical
// types. "" when they agree (graphics, pin lengths and fields may differ).
func pinsDiffer(have, lib *sexpr.Node) string {
	hu, lu := libUnits(have), libUnits(lib)
	if !slices.Equal(hu, lu) {
		return fmt.Sprintf("has %d units, the library's %d", len(hu), len(lu))
	}
	pinSet := func(n *sexpr.Node, unit int) []string {
		var out []string
		for _, p := range libPins(nil, n, unit, 1) {
			out = append(out, p.Value1("number")+" "+p.Arg(0))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for _, u := range hu {
		h, l := pinSet(have, u), pinSet(lib, u)
		if !slices.Equal(h, l) {
			return fmt.Sprintf("has pins %s, the library's %s", strings.Join(h, ", "), strings.Join(l, ", "))
		}
	}
	return ""
}

// renameLibSymbol copies a flattened library symbol under a new entry
// name, its "ITEM_U_S" unit sub-symbols renamed "NAME_U_S" as KiCad
// requires of an entry's units.
func renameLibSymbol(lib *sexpr.Node, item, name string) *sexpr.Node {
	c := cloneNode(lib)
	c.Children[1] = sexpr.Node{Kind: sexpr.String, Value: name}
	for i := range c.Children {
		sub := &c.Children[i]
		if sub.Head() == "symbol" {
			if rest, ok := strings.CutPrefix(sub.Arg(0), item+"_"); ok {
				sub.Children[1] = sexpr.Node{Kind: sexpr.String, Value: name + "_" + rest}
			}
		}
	}
	return &c
}
