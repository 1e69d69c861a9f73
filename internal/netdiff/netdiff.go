package netdiff

import (
	"maps"
	"slices"
	"strings"

	"copperhead/internal/kicad"
)

// Unconnected is how a pin on one of KiCad's "unconnected-(...)" nets is
// named in a pin move.
const Unconnected = "(unconnected)"

// Component is one part as one side of the diff sees it.
type Component struct {
	Refdes    string            `json:"refdes"`
	Value     string            `json:"value"`
	Footprint string            `json:"footprint"`
	LibID     string            `json:"lib_id"`
	Sheet     string            `json:"sheet"`            // KiCad's sheet path, "/" or "/power/"
	Fields    map[string]string `json:"fields,omitempty"` // the fields compared, see fieldsOf
	Pins      map[string]string `json:"pins"`             // pin number -> net (Unconnected for none)
}

// FieldChange is one field that differs.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// ComponentChange is a part present on both sides with fields that differ.
type ComponentChange struct {
	Refdes  string        `json:"refdes"`
	Sheet   string        `json:"sheet"` // the head's sheet path
	Changes []FieldChange `json:"changes"`
}

// NetEntry is a net added or removed, with its pins ("R1.2"), sorted.
type NetEntry struct {
	Name string   `json:"name"`
	Pins []string `json:"pins"`
}

// Rename is a net recognised as renamed (see the package doc's rule).
type Rename struct {
	Old   string `json:"old"`
	New   string `json:"new"`
	Exact bool   `json:"exact"` // the same pins under the new name
	Pins  int    `json:"pins"`  // pins the two share
}

// PinMove is a pin of a part on both sides that is on another net.
type PinMove struct {
	Pin string `json:"pin"` // "U1.5"
	Old string `json:"old"` // the base's net, or Unconnected
	New string `json:"new"` // the head's net, or Unconnected
}

// Electrical is the netlist half of a diff.
type Electrical struct {
	Added       []Component       `json:"added"`
	Removed     []Component       `json:"removed"`
	Changed     []ComponentChange `json:"changed"`
	NetsAdded   []NetEntry        `json:"nets_added"`
	NetsRemoved []NetEntry        `json:"nets_removed"`
	Renamed     []Rename          `json:"renamed"`
	PinMoves    []PinMove         `json:"pin_moves"`
}

// Empty reports whether nothing changed electrically.
func (e *Electrical) Empty() bool {
	return len(e.Added)+len(e.Removed)+len(e.Changed)+len(e.NetsAdded)+len(e.NetsRemoved)+len(e.Renamed)+len(e.PinMoves) == 0
}

// Result is a whole diff: the netlist, the board and the docs.
type Result struct {
	Electrical
	Layout Layout     `json:"layout"`
	Docs   DocChanges `json:"docs"`
}

// Empty reports whether the diff found nothing.
func (r *Result) Empty() bool { return r.Electrical.Empty() && r.Layout.Empty() && r.Docs.Empty() }

// Diff compares two sides: their netlists (nil is an empty design) and doc files.
func Diff(base, head *kicad.Netlist, baseDocs, headDocs Docs) *Result {
	return &Result{Electrical: DiffNetlists(base, head), Docs: DiffDocs(baseDocs, headDocs)}
}

// side indexes one netlist.
type side struct {
	comps  map[string]kicad.NetComponent // component key -> component
	order  []string                      // component keys, sorted
	pinNet map[string]string             // "R1.2" -> net name ("" for unconnected)
	nets   map[string][]string           // connected net name -> pins, sorted
	parts  map[string]bool               // refdes present
}

// compKey names a component: its refdes, with the sheet path when a design
// carries the same reference twice (an unannotated "R?").
func index(nl *kicad.Netlist) *side {
	s := &side{comps: map[string]kicad.NetComponent{}, pinNet: map[string]string{}, nets: map[string][]string{}, parts: map[string]bool{}}
	if nl == nil {
		return s
	}
	for _, c := range nl.Components {
		key := c.Refdes
		if _, dup := s.comps[key]; dup {
			key = c.Refdes + "@" + c.SheetPath
			for i := 2; ; i++ {
				if _, dup := s.comps[key]; !dup {
					break
				}
				key = c.Refdes + "@" + c.SheetPath + "#" + itoa(i)
			}
		}
		s.comps[key] = c
		s.order = append(s.order, key)
		s.parts[c.Refdes] = true
	}
	for _, n := range nl.Nets {
		connected := !kicad.IsUnconnectedNet(n.Name)
		for _, nd := range n.Nodes {
			pin := nd.Refdes + "." + nd.Pin
			if connected {
				s.pinNet[pin] = n.Name
				s.nets[n.Name] = append(s.nets[n.Name], pin)
			} else if _, seen := s.pinNet[pin]; !seen {
				s.pinNet[pin] = ""
			}
		}
	}
	for name, pins := range s.nets {
		slices.SortFunc(pins, comparePin)
		s.nets[name] = slices.Compact(pins)
	}
	slices.SortFunc(s.order, kicad.CompareRefdes)
	return s
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// comparePin orders "R2.1" before "R10.1" and "U1.2" before "U1.10".
func comparePin(a, b string) int {
	ra, pa, _ := strings.Cut(a, ".")
	rb, pb, _ := strings.Cut(b, ".")
	if c := kicad.CompareRefdes(ra, rb); c != 0 {
		return c
	}
	return kicad.CompareRefdes(pa, pb)
}

// netName shows a net of a pin move.
func netName(n string) string {
	if n == "" {
		return Unconnected
	}
	return n
}

// fieldsOf is what a component change compares, beyond value, footprint,
// lib_id and sheet: every symbol field (the Footprint field duplicates
// footprint; a "~" Datasheet is empty) and KiCad's flags, "yes" when set.
func fieldsOf(c kicad.NetComponent) map[string]string {
	out := map[string]string{}
	for k, v := range c.Fields {
		if k == "Footprint" {
			continue
		}
		if v == "~" {
			v = ""
		}
		if v != "" {
			out[k] = v
		}
	}
	for _, flag := range []string{"dnp", "exclude_from_bom", "exclude_from_board"} {
		if _, set := c.Properties[flag]; set {
			out[flag] = "yes"
		}
	}
	return out
}

func (s *side) component(key string) Component {
	c := s.comps[key]
	out := Component{Refdes: c.Refdes, Value: c.Value, Footprint: c.Footprint, LibID: c.LibID, Sheet: c.SheetPath, Fields: fieldsOf(c), Pins: map[string]string{}}
	if len(out.Fields) == 0 {
		out.Fields = nil
	}
	prefix := c.Refdes + "."
	for pin, net := range s.pinNet {
		if num, ok := strings.CutPrefix(pin, prefix); ok {
			out.Pins[num] = netName(net)
		}
	}
	return out
}

// DiffNetlists compares two netlists (nil is an empty design).
func DiffNetlists(base, head *kicad.Netlist) Electrical {
	b, h := index(base), index(head)
	e := Electrical{}
	for _, k := range h.order {
		if _, ok := b.comps[k]; !ok {
			e.Added = append(e.Added, h.component(k))
		}
	}
	for _, k := range b.order {
		hc, ok := h.comps[k]
		if !ok {
			e.Removed = append(e.Removed, b.component(k))
			continue
		}
		if ch := compareComponents(b.comps[k], hc); len(ch) > 0 {
			e.Changed = append(e.Changed, ComponentChange{Refdes: hc.Refdes, Sheet: hc.SheetPath, Changes: ch})
		}
	}

	// Pins that exist on both sides: only they say whether a net was renamed.
	shared := func(pins []string, other *side) []string {
		var out []string
		for _, p := range pins {
			if _, ok := other.pinNet[p]; ok {
				out = append(out, p)
			}
		}
		return out
	}
	var gone, fresh []string
	for name := range b.nets {
		if _, ok := h.nets[name]; !ok {
			gone = append(gone, name)
		}
	}
	for name := range h.nets {
		if _, ok := b.nets[name]; !ok {
			fresh = append(fresh, name)
		}
	}
	slices.SortFunc(gone, kicad.CompareRefdes)
	slices.SortFunc(fresh, kicad.CompareRefdes)
	renamed := map[string]string{} // old -> new
	taken := map[string]bool{}
	for _, old := range gone {
		po := shared(b.nets[old], h)
		if len(po) == 0 {
			continue
		}
		// The head net holding most of the old net's shared pins.
		count := map[string]int{}
		for _, p := range po {
			if n := h.pinNet[p]; n != "" {
				count[n]++
			}
		}
		best, bestN := "", 0
		for _, n := range slices.Sorted(maps.Keys(count)) {
			if count[n] > bestN {
				best, bestN = n, count[n]
			}
		}
		if best == "" || taken[best] || !slices.Contains(fresh, best) {
			continue
		}
		pn := shared(h.nets[best], b)
		if 2*bestN <= len(po) || 2*bestN <= len(pn) {
			continue
		}
		taken[best] = true
		renamed[old] = best
		e.Renamed = append(e.Renamed, Rename{Old: old, New: best, Exact: slices.Equal(po, pn) && len(po) == len(b.nets[old]) && len(pn) == len(h.nets[best]), Pins: bestN})
	}
	for _, old := range gone {
		if _, ok := renamed[old]; !ok {
			e.NetsRemoved = append(e.NetsRemoved, NetEntry{Name: old, Pins: slices.Clone(b.nets[old])})
		}
	}
	for _, n := range fresh {
		if !taken[n] {
			e.NetsAdded = append(e.NetsAdded, NetEntry{Name: n, Pins: slices.Clone(h.nets[n])})
		}
	}

	pins := slices.Collect(maps.Keys(b.pinNet))
	slices.SortFunc(pins, comparePin)
	for _, p := range pins {
		hn, ok := h.pinNet[p]
		if !ok {
			continue // the part or the pin is gone: reported with the part
		}
		bn := b.pinNet[p]
		want := bn
		if r, ok := renamed[bn]; ok {
			want = r
		}
		if want != hn {
			e.PinMoves = append(e.PinMoves, PinMove{Pin: p, Old: netName(bn), New: netName(hn)})
		}
	}
	return e
}

// compareComponents lists the fields of one part that differ.
func compareComponents(b, h kicad.NetComponent) []FieldChange {
	var out []FieldChange
	add := func(field, o, n string) {
		if o != n {
			out = append(out, FieldChange{Field: field, Old: o, New: n})
		}
	}
	add("value", b.Value, h.Value)
	add("footprint", b.Footprint, h.Footprint)
	add("lib_id", b.LibID, h.LibID)
	add("sheet", b.SheetPath, h.SheetPath)
	bf, hf := fieldsOf(b), fieldsOf(h)
	keys := slices.Sorted(maps.Keys(bf))
	for k := range hf {
		if _, ok := bf[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		add(k, bf[k], hf[k])
	}
	return out
}
