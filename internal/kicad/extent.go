package kicad

import (
	"fmt"
	"math"
	"strconv"

	"copperhead/internal/repofs"
	"copperhead/internal/sexpr"
)

// Extent is an axis-aligned box in board (or page) millimetres, Y down.
type Extent struct {
	Min Point `json:"min"`
	Max Point `json:"max"`
}

// FootprintExtents reads the board at path and returns, per reference, the
// box holding the pads of its footprint as placed (position and rotation
// applied, each pad's size included); a footprint without pads gets the
// box of its position alone. Like LoadBoard only the footprints are parsed.
func FootprintExtents(path string) (map[string]Extent, error) {
	src, err := repofs.ReadRegular(path)
	if err != nil {
		return nil, fmt.Errorf("footprint extents: %w", err)
	}
	head, spans, ok := skimTopLevel(src, "footprint", "module")
	if !ok || head != "kicad_pcb" {
		if _, err := LoadBoard(path); err != nil {
			return nil, fmt.Errorf("footprint extents: %w", err)
		}
		return nil, fmt.Errorf("footprint extents: %s: not a board", path)
	}
	out := map[string]Extent{}
	for _, sp := range spans {
		n, err := sexpr.Parse(path, src[sp.start:sp.end])
		if err != nil {
			return nil, fmt.Errorf("footprint extents: %w", err)
		}
		fp := readFootprint(n)
		e := Extent{Min: fp.Pos, Max: fp.Pos}
		rad := fp.Rotation * math.Pi / 180
		sin, cos := math.Sin(rad), math.Cos(rad)
		for pad := range n.All("pad") {
			at := pad.Child("at")
			size := pad.Child("size")
			if at == nil {
				continue
			}
			x, y := atof(at.Arg(0)), atof(at.Arg(1))
			// A pad's own angle is absolute: a quarter turn swaps its
			// width and height, any other angle takes the larger of the two.
			hx, hy := 0.0, 0.0
			if size != nil {
				hx, hy = atof(size.Arg(0))/2, atof(size.Arg(1))/2
			}
			switch a := math.Mod(math.Abs(atof(at.Arg(2))), 180); {
			case a == 0:
			case a == 90:
				hx, hy = hy, hx
			default:
				hx = math.Max(hx, hy)
				hy = hx
			}
			// KiCad rotates counter-clockwise on screen, with Y down.
			px := fp.Pos.X + x*cos + y*sin
			py := fp.Pos.Y - x*sin + y*cos
			if math.IsNaN(px) || math.IsNaN(py) || math.IsInf(px, 0) || math.IsInf(py, 0) {
				continue
			}
			e.Min.X, e.Min.Y = math.Min(e.Min.X, px-hx), math.Min(e.Min.Y, py-hy)
			e.Max.X, e.Max.Y = math.Max(e.Max.X, px+hx), math.Max(e.Max.Y, py+hy)
		}
		if prev, dup := out[fp.Refdes]; dup {
			e.Min.X, e.Min.Y = math.Min(e.Min.X, prev.Min.X), math.Min(e.Min.Y, prev.Min.Y)
			e.Max.X, e.Max.Y = math.Max(e.Max.X, prev.Max.X), math.Max(e.Max.Y, prev.Max.Y)
		}
		out[fp.Refdes] = e
	}
	return out, nil
}

func atof(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return v
}
