package kigen

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"copperhead/internal/sexpr"
)

// Library reads symbols and footprints from an installed KiCad library set.
type Library struct {
	SymDir, FPDir string
	symFiles      map[string]*sexpr.Node
}

// Pin is one symbol pin in library coordinates (Y up).
type Pin struct {
	Number, Name, Type string
	X, Y, Angle        float64
	Hidden             bool
	Unit               int
}

// SymDef is a library symbol, flattened and renamed "Lib:Name" ready to
// embed in a schematic's lib_symbols.
type SymDef struct {
	LibID string
	Node  sexpr.Node
	Pins  []Pin
	Power bool
}

// Prop returns the library property node named name, or nil.
func (s *SymDef) Prop(name string) *sexpr.Node {
	for p := range s.Node.All("property") {
		if p.Arg(0) == name {
			return p
		}
	}
	return nil
}

func (l *Library) symFile(lib string) (*sexpr.Node, error) {
	if l.symFiles == nil {
		l.symFiles = map[string]*sexpr.Node{}
	}
	if n, ok := l.symFiles[lib]; ok {
		return n, nil
	}
	n, _, err := sexpr.ParseFile(filepath.Join(l.SymDir, lib+".kicad_sym"))
	if err != nil {
		return nil, err
	}
	l.symFiles[lib] = n
	return n, nil
}

func findSymbol(file *sexpr.Node, name string) *sexpr.Node {
	for s := range file.All("symbol") {
		if s.Arg(0) == name {
			return s
		}
	}
	return nil
}

// flatten returns the named symbol with any (extends ...) resolved the way
// KiCad's LIB_SYMBOL::Flatten does: a copy of the parent renamed to the
// child (units included), with every field the child defines replacing the
// parent's whole field (text, position and effects) and the child's other
// fields appended. ERC's lib_symbol_mismatch compares field positions too.
func (l *Library) flatten(lib, name string) (sexpr.Node, error) {
	file, err := l.symFile(lib)
	if err != nil {
		return sexpr.Node{}, err
	}
	raw := findSymbol(file, name)
	if raw == nil {
		return sexpr.Node{}, fmt.Errorf("symbol %s:%s not found", lib, name)
	}
	ext := raw.Child("extends")
	if ext == nil {
		return Clone(raw), nil
	}
	parentName := ext.Arg(0)
	out, err := l.flatten(lib, parentName)
	if err != nil {
		return out, err
	}
	SetArg(&out, 0, Str(name))
	for i := range out.Children {
		c := &out.Children[i]
		if c.Kind == sexpr.List && c.Head() == "symbol" {
			unit := c.Arg(0)
			if strings.HasPrefix(unit, parentName+"_") {
				SetArg(c, 0, Str(name+unit[len(parentName):]))
			}
		}
	}
	for cp := range raw.All("property") {
		key := cp.Arg(0)
		var target *sexpr.Node
		for i := range out.Children {
			c := &out.Children[i]
			if c.Kind == sexpr.List && c.Head() == "property" && c.Arg(0) == key {
				target = c
				break
			}
		}
		switch {
		case target != nil:
			*target = Clone(cp)
		default:
			// Append after the last property.
			last := 0
			for i := range out.Children {
				if out.Children[i].Kind == sexpr.List && out.Children[i].Head() == "property" {
					last = i
				}
			}
			kids := append([]sexpr.Node{}, out.Children[:last+1]...)
			kids = append(kids, Clone(cp))
			kids = append(kids, out.Children[last+1:]...)
			out.Children = kids
		}
	}
	return out, nil
}

// Symbol loads lib:name flattened and renamed for embedding.
func (l *Library) Symbol(libID string) (*SymDef, error) {
	lib, name, ok := strings.Cut(libID, ":")
	if !ok {
		return nil, fmt.Errorf("bad lib id %q", libID)
	}
	n, err := l.flatten(lib, name)
	if err != nil {
		return nil, err
	}
	SetArg(&n, 0, Str(libID))
	d := &SymDef{LibID: libID, Node: n, Power: n.Child("power") != nil}
	for u := range n.All("symbol") {
		uname := u.Arg(0)
		parts := strings.Split(uname, "_")
		style, _ := strconv.Atoi(parts[len(parts)-1])
		unit, _ := strconv.Atoi(parts[len(parts)-2])
		if style > 1 {
			continue
		}
		for p := range u.All("pin") {
			at := p.Child("at")
			x, _ := at.Float(0)
			y, _ := at.Float(1)
			a, _ := at.Float(2)
			hidden := p.HasAtom("hide")
			if h := p.Child("hide"); h != nil && h.Arg(0) == "yes" {
				hidden = true
			}
			d.Pins = append(d.Pins, Pin{
				Number: p.Child("number").Arg(0),
				Name:   p.Child("name").Arg(0),
				Type:   p.Arg(0),
				X:      x, Y: y, Angle: a,
				Hidden: hidden,
				Unit:   unit,
			})
		}
	}
	return d, nil
}

// Pad is one footprint pad in footprint-local coordinates.
type Pad struct {
	Number string
	Type   string // smd, thru_hole, np_thru_hole, connect
	Shape  string // rect, roundrect, circle, oval, custom, trapezoid
	X, Y   float64
	Angle  float64
	W, H   float64
	Drill  float64 // round drill or the smaller oval dimension
	DrillW float64
	DrillH float64
	Front  bool
	Back   bool
	Copper bool
}

// Rect is an axis-aligned rectangle in millimetres.
type Rect struct{ X0, Y0, X1, Y1 float64 }

// FootprintDef is a library footprint.
type FootprintDef struct {
	LibID string
	Node  sexpr.Node
	Pads  []Pad
	// Keepouts: local-coordinate rectangles (bounding boxes of rule areas).
	Keepouts []Rect
}

// Footprint loads lib:name from the .pretty folders.
func (l *Library) Footprint(libID string) (*FootprintDef, error) {
	lib, name, ok := strings.Cut(libID, ":")
	if !ok {
		return nil, fmt.Errorf("bad footprint id %q", libID)
	}
	n, _, err := sexpr.ParseFile(filepath.Join(l.FPDir, lib+".pretty", name+".kicad_mod"))
	if err != nil {
		return nil, err
	}
	f := &FootprintDef{LibID: libID, Node: Clone(n)}
	for i := range f.Node.Children {
		c := &f.Node.Children[i]
		if c.Kind != sexpr.List {
			continue
		}
		switch c.Head() {
		case "pad":
			p := Pad{Number: c.Arg(0), Type: c.Arg(1), Shape: c.Arg(2)}
			at := c.Child("at")
			p.X, _ = at.Float(0)
			p.Y, _ = at.Float(1)
			p.Angle, _ = at.Float(2)
			sz := c.Child("size")
			p.W, _ = sz.Float(0)
			p.H, _ = sz.Float(1)
			if d := c.Child("drill"); d != nil {
				if d.Arg(0) == "oval" {
					p.DrillW, _ = d.Float(1)
					p.DrillH, _ = d.Float(2)
					p.Drill = min(p.DrillW, p.DrillH)
				} else {
					p.Drill, _ = d.Float(0)
					p.DrillW, p.DrillH = p.Drill, p.Drill
				}
			}
			for ly := range c.Child("layers").Children[1:] {
				switch c.Child("layers").Children[1+ly].Value {
				case "F.Cu":
					p.Front = true
				case "B.Cu":
					p.Back = true
				case "*.Cu":
					p.Front, p.Back = true, true
				}
			}
			p.Copper = p.Front || p.Back
			f.Pads = append(f.Pads, p)
		case "zone":
			if c.Child("keepout") == nil {
				continue
			}
			r, seen := Rect{}, false
			for xy := range c.Child("polygon").Child("pts").All("xy") {
				x, _ := xy.Float(0)
				y, _ := xy.Float(1)
				if !seen {
					r, seen = Rect{x, y, x, y}, true
				}
				r = Rect{min(r.X0, x), min(r.Y0, y), max(r.X1, x), max(r.Y1, y)}
			}
			// A rule area without points keeps nothing out: its empty box,
			// turned with the footprint, would cover the whole board.
			if seen {
				f.Keepouts = append(f.Keepouts, r)
			}
		}
	}
	return f, nil
}
