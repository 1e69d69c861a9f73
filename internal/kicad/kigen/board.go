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

// TwoLayerSetup is KiCad 9's board setup for a fresh two-layer board: the
// mask and plot settings, no design rules (those live in the .kicad_pro).
func TwoLayerSetup() sexpr.Node {
	yes, no := Sym("yes"), Sym("no")
	return N("setup",
		N("pad_to_mask_clearance", 0),
		N("allow_soldermask_bridges_in_footprints", no),
		N("tenting", Sym("front"), Sym("back")),
		N("pcbplotparams",
			N("layerselection", Sym("0x00000000_00000000_55555555_5755f5ff")),
			N("plot_on_all_layers_selection", Sym("0x00000000_00000000_00000000_00000000")),
			N("disableapertmacros", no),
			N("usegerberextensions", no),
			N("usegerberattributes", yes),
			N("usegerberadvancedattributes", yes),
			N("creategerberjobfile", yes),
			N("dashed_line_dash_ratio", Sym("12.000000")),
			N("dashed_line_gap_ratio", Sym("3.000000")),
			N("svgprecision", 4),
			N("plotframeref", no),
			N("mode", 1),
			N("useauxorigin", no),
			N("hpglpennumber", 1),
			N("hpglpenspeed", 20),
			N("hpglpendiameter", Sym("15.000000")),
			N("pdf_front_fp_property_popups", yes),
			N("pdf_back_fp_property_popups", yes),
			N("pdf_metadata", yes),
			N("pdf_single_document", no),
			N("dxfpolygonmode", yes),
			N("dxfimperialunits", yes),
			N("dxfusepcbnewfont", yes),
			N("psnegative", no),
			N("psa4output", no),
			N("plot_black_and_white", yes),
			N("plotinvisibletext", no),
			N("sketchpadsonfab", no),
			N("plotpadnumbers", no),
			N("hidednponfab", no),
			N("sketchdnponfab", yes),
			N("crossoutdnponfab", yes),
			N("subtractmaskfromsilk", no),
			N("outputformat", 1),
			N("mirror", no),
			N("drillshape", 1),
			N("scaleselection", 1),
			N("outputdirectory", ""),
		),
	)
}
