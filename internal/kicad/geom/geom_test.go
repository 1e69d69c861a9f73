package geom

import (
	"math"
	"testing"
)

func TestDistances(t *testing.T) {
	cases := []struct {
		name string
		got  float64
		want float64
	}{
		{"point to segment middle", PointSegDist(Pt{0, 1}, Pt{-1, 0}, Pt{1, 0}), 1},
		{"point to segment end", PointSegDist(Pt{3, 4}, Pt{-1, 0}, Pt{0, 0}), 5},
		{"degenerate segment", PointSegDist(Pt{3, 4}, Pt{0, 0}, Pt{0, 0}), 5},
		{"crossing segments", SegSegDist(Pt{-1, 0}, Pt{1, 0}, Pt{0, -1}, Pt{0, 1}), 0},
		{"parallel segments", SegSegDist(Pt{0, 0}, Pt{2, 0}, Pt{0, 2}, Pt{2, 2}), 2},
		{"segment into rect", SegRectDist(Pt{-5, 0}, Pt{0.5, 0.5}, Rect{0, 0, 1, 1}), 0},
		{"segment beside rect", SegRectDist(Pt{-5, 3}, Pt{5, 3}, Rect{0, 0, 1, 1}), 2},
	}
	for _, c := range cases {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestRotateAndRects(t *testing.T) {
	if got := Rotate(Pt{1, 0}, 90); got != (Pt{0, -1}) {
		t.Errorf("Rotate 90 = %v", got)
	}
	if got := Rotate(Pt{1, 2}, -270); got != Rotate(Pt{1, 2}, 90) {
		t.Errorf("Rotate -270 = %v", got)
	}
	if NormAngle(-90) != 270 || NormAngle(720) != 0 {
		t.Error("NormAngle")
	}
	r := EmptyRect.AddPt(Pt{1, 1}).AddPt(Pt{3, 2})
	if r != (Rect{1, 1, 3, 2}) || r.W() != 2 || r.H() != 1 || r.Center() != (Pt{2, 1.5}) {
		t.Errorf("rect %v", r)
	}
	if !r.Overlaps(Rect{2, 0, 4, 1.5}) || r.Overlaps(Rect{3, 0, 4, 1}) || !EmptyRect.Empty() || r.Union(EmptyRect) != r {
		t.Error("Overlaps/Empty/Union")
	}
}
