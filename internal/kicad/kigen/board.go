package kigen

import (
	"strconv"

	"copperhead/internal/sexpr"
)

// TwoLayerStack is a two-layer board's layer table, as KiCad 9 writes it.
func TwoLayerStack() sexpr.Node {
	type layer struct {
		id         int
		name, kind string
		user       string
	}
	ls := []layer{
		{0, "F.Cu", "signal", ""}, {2, "B.Cu", "signal", ""},
		{9, "F.Adhes", "user", "F.Adhesive"}, {11, "B.Adhes", "user", "B.Adhesive"},
		{13, "F.Paste", "user", ""}, {15, "B.Paste", "user", ""},
		{5, "F.SilkS", "user", "F.Silkscreen"}, {7, "B.SilkS", "user", "B.Silkscreen"},
		{1, "F.Mask", "user", ""}, {3, "B.Mask", "user", ""},
		{17, "Dwgs.User", "user", "User.Drawings"}, {19, "Cmts.User", "user", "User.Comments"},
		{21, "Eco1.User", "user", "User.Eco1"}, {23, "Eco2.User", "user", "User.Eco2"},
		{25, "Edge.Cuts", "user", ""}, {27, "Margin", "user", ""},
		{31, "F.CrtYd", "user", "F.Courtyard"}, {29, "B.CrtYd", "user", "B.Courtyard"},
		{35, "F.Fab", "user", ""}, {33, "B.Fab", "user", ""},
	}
	var kids []any
	for _, l := range ls {
		args := []any{l.name, Sym(l.kind)}
		if l.user != "" {
			args = append(args, l.user)
		}
		kids = append(kids, N(strconv.Itoa(l.id), args...))
	}
	return N("layers", kids...)
}
