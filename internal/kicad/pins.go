package kicad

import (
	"math"
	"slices"
	"strings"

	"copperhead/internal/sexpr"
)

// PlacedPin is one pin of one placed symbol unit on one sheet instance, at
// the point where a wire connects to it.
type PlacedPin struct {
	Refdes    string `json:"refdes"`
	Unit      int    `json:"unit"`
	Number    string `json:"number"`
	Name      string `json:"name"` // "" when unnamed; the selected alternate function when one is chosen
	Type      string `json:"type"` // electrical type: input, output, bidirectional, tri_state, passive, free, unspecified, power_in, power_out, open_collector, open_emitter, no_connect
	Hidden    bool   `json:"hidden,omitempty"`
	Power     bool   `json:"power,omitempty"` // a pin of a power symbol (#PWR, #FLG): not a part
	SheetPath string `json:"sheet_path"`
	Pos       Point  `json:"pos_mm"`
}

// libSymbol is one symbol embedded in a file's (lib_symbols ..): the drawing a
// placed symbol refers to.
type libSymbol struct {
	power       bool // (power): its Value names a global net; never a part
	units       int  // number of units: the highest unit number drawn, at least 1
	pins        []libPin
	extends     string
	description string
	datasheet   string
}

// libPin is a pin as the library draws it.
type libPin struct {
	unit   int // 0: common to every unit
	style  int // body style: 0 common, 1 normal, 2 De Morgan
	number string
	name   string
	etype  string
	x, y   float64 // library coordinates: Y grows up
	hidden bool
	alts   map[string]string // alternate function name -> electrical type
}

// maxExtendsDepth bounds (extends ..) chains; KiCad itself allows one level,
// the bound only stops a cycle in a corrupt file.
const maxExtendsDepth = 8

// readLibSymbols reads a (lib_symbols ..) block.
func readLibSymbols(n *sexpr.Node) map[string]*libSymbol {
	libs := map[string]*libSymbol{}
	for c := range n.All("symbol") {
		name := c.Arg(0)
		if _, dup := libs[name]; dup {
			continue
		}
		lib := &libSymbol{
			power:   c.Child("power") != nil,
			units:   1,
			extends: strings.Clone(c.Value1("extends")),
		}
		for pr := range c.All("property") {
			switch pr.Arg(0) {
			case "Description", "ki_description":
				if lib.description == "" {
					lib.description = strings.Clone(pr.Arg(1))
				}
			case "Datasheet":
				lib.datasheet = strings.Clone(pr.Arg(1))
			}
		}
		readLibPins(c, 0, 0, lib)
		for sub := range c.All("symbol") {
			unit, style := unitStyle(sub.Arg(0))
			lib.units = max(lib.units, unit)
			readLibPins(sub, unit, style, lib)
		}
		libs[strings.Clone(name)] = lib
	}
	// A derived symbol draws nothing itself: it takes its parent's pins.
	for name, lib := range libs {
		base := lib
		for depth := 0; base.extends != "" && depth < maxExtendsDepth; depth++ {
			parent := libs[base.extends]
			if i := strings.IndexByte(name, ':'); parent == nil && i >= 0 {
				parent = libs[name[:i+1]+base.extends]
			}
			if parent == nil {
				break
			}
			base = parent
		}
		if base != lib && len(lib.pins) == 0 {
			lib.pins = base.pins
			lib.units = max(lib.units, base.units)
		}
	}
	return libs
}

func readLibPins(n *sexpr.Node, unit, style int, lib *libSymbol) {
	for p := range n.All("pin") {
		x, _ := p.Child("at").Float(0)
		y, _ := p.Child("at").Float(1)
		pin := libPin{
			unit:   unit,
			style:  style,
			number: noTilde(p.Value1("number")),
			name:   noTilde(p.Value1("name")),
			etype:  strings.Clone(p.Arg(0)),
			x:      x,
			y:      y,
			// KiCad 9 writes (hide yes); KiCad 6 to 8 a bare hide atom.
			hidden: p.HasAtom("hide") || p.Child("hide") != nil && p.Value1("hide") != "no",
		}
		for a := range p.All("alternate") {
			if pin.alts == nil {
				pin.alts = map[string]string{}
			}
			pin.alts[strings.Clone(a.Arg(0))] = strings.Clone(a.Arg(1))
		}
		lib.pins = append(lib.pins, pin)
	}
}

// noTilde reads a pin name or number: KiCad writes an empty one as "~".
func noTilde(s string) string {
	if s == "~" {
		return ""
	}
	return strings.Clone(s)
}

// unitStyle reads the unit and body style from a unit sub-symbol's name,
// "<name>_<unit>_<style>"; a name that does not end that way reads as 0, 0.
func unitStyle(name string) (unit, style int) {
	i := strings.LastIndexByte(name, '_')
	if i < 0 {
		return 0, 0
	}
	j := strings.LastIndexByte(name[:i], '_')
	if j < 0 {
		return 0, 0
	}
	unit, style = atoiOr(name[j+1:i], -1), atoiOr(name[i+1:], -1)
	if unit < 0 || style < 0 {
		return 0, 0
	}
	return unit, style
}

// Pins returns every pin of every placed symbol unit in every sheet instance,
// power symbols included (marked Power), sorted by refdes in natural order,
// then sheet path, unit and pin number. A pin drawn for unit 0 belongs to
// every unit, and is listed once per placed unit. Symbols whose library
// drawing the file does not embed have no pins here.
//
// Pins works from state LoadSchematic keeps; a Schematic decoded from JSON has none.
func (s *Schematic) Pins() []PlacedPin {
	var out []PlacedPin
	for i := range s.placements {
		p := &s.placements[i]
		sym := p.sym
		if sym.lib == nil {
			continue
		}
		for _, lp := range sym.lib.pins {
			if lp.unit != 0 && lp.unit != p.unit || lp.style != 0 && lp.style != sym.bodyStyle {
				continue
			}
			pin := PlacedPin{
				Refdes:    p.refdes,
				Unit:      p.unit,
				Number:    lp.number,
				Name:      lp.name,
				Type:      lp.etype,
				Hidden:    lp.hidden,
				Power:     p.isPower(),
				SheetPath: p.sheetPath,
				Pos:       sym.toSheet(lp.x, lp.y),
			}
			if alt, ok := sym.alternates[lp.number]; ok {
				if t, ok := lp.alts[alt]; ok {
					pin.Name, pin.Type = alt, t
				}
			}
			out = append(out, pin)
		}
	}
	slices.SortStableFunc(out, func(a, b PlacedPin) int {
		if c := CompareRefdes(a.Refdes, b.Refdes); c != 0 {
			return c
		}
		if c := strings.Compare(a.SheetPath, b.SheetPath); c != 0 {
			return c
		}
		if c := cmpInt(a.Unit, b.Unit); c != 0 {
			return c
		}
		return CompareRefdes(a.Number, b.Number)
	})
	return out
}

// toSheet maps a point of the symbol's library drawing to sheet coordinates:
// Orient, then translate to the symbol's position.
func (sym *placedSymbol) toSheet(lx, ly float64) Point {
	x, y := Orient(sym.angle, sym.mirror, lx, ly)
	return Point{X: schRound(sym.at.X + x), Y: schRound(sym.at.Y + y)}
}

// Orient maps a vector of a symbol's library drawing onto the sheet without
// translating it: flip Y (library Y grows up, the sheet's down), rotate by the
// placed angle (counter-clockwise as seen on the sheet), then mirror ("x" or
// "y"). This is the order KiCad applies, pinned down by the no-connect test on
// the demo projects; the edit engine calls it too, so placement and reading
// can never disagree.
func Orient(angle float64, mirror string, lx, ly float64) (float64, float64) {
	x, y := lx, -ly
	switch a := math.Mod(math.Mod(angle, 360)+360, 360); a {
	case 0:
	case 90:
		x, y = y, -x
	case 180:
		x, y = -x, -y
	case 270:
		x, y = -y, x
	default:
		// KiCad only places symbols at right angles; anything else is
		// honoured as a true rotation rather than rejected.
		sin, cos := math.Sincos(a * math.Pi / 180)
		x, y = x*cos+y*sin, -x*sin+y*cos
	}
	switch mirror {
	case "x":
		y = -y
	case "y":
		x = -x
	}
	return x, y
}

// schRound rounds to KiCad's schematic resolution (100 nm = 1e-4 mm), which
// removes float noise such as 102.87000000000001 and keeps output stable.
func schRound(v float64) float64 { return math.Round(v*1e4) / 1e4 }
