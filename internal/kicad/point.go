package kicad

import (
	"fmt"
	"math"
)

// MaxCoordMM bounds a coordinate a user or model may ask for: KiCad's
// largest sheet (A0, 1189 x 841 mm) fits well inside, and anything past it
// is a typo or an attack, not a placement.
const MaxCoordMM = 2000

// CheckPoint refuses a position KiCad cannot hold: NaN, infinities and
// coordinates beyond ±MaxCoordMM.
func CheckPoint(p Point) error {
	for _, v := range []float64{p.X, p.Y} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%v is not a coordinate", v)
		}
		if math.Abs(v) > MaxCoordMM {
			return fmt.Errorf("%g mm is off any KiCad sheet (at most ±%d mm)", v, MaxCoordMM)
		}
	}
	return nil
}
